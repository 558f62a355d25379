"""Rule 2.14 on the command line: its `duelbot odds` flags and report (all 25 move pairs),
and its short `duelbot adjudicate` / `duelbot verify` round input (docs/fairness.md).
The flags, JSON shapes and messages are those duelbot always had (tests/cli pins them)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from bot.rules.base import Ruleset
from bot.rules.capabilities import ExactOdds, capability
from bot.rules.command_line import (
    OddsArguments,
    OddsFlag,
    OddsReport,
    ShortRound,
    Side,
    describe,
    json_object,
    required,
    true_or_false,
    whole_number,
)
from bot.rules.errors import InvalidRoundInput, RulesError
from bot.rules.rule_2_14.moves import (
    MISSING_MOVE_POLICIES,
    MOVE_IDS,
    OUTCOMES,
    RULESET_ID,
    allowed_moves_text,
    parse_move,
)
from bot.rules.rule_2_14.state import Duellist, DuelState, Options

# -- the short round input ----------------------------------------------------------------

#: The short result's own key, and its name in the flat `duelbot verify` input.
SHORT_RESULT_KEYS = {"locked": "locked_after"}
SHORT_VERIFY_HELP = """\
  Rule 2.14's short shape also has "locked": in the flat shape it is the lock state
  BEFORE the round, as in the adjudicate input, and the published lock state after the
  round may be given as "locked_after" (compared when present); in the published output
  + input shape, "locked" is the published lock state after the round (compared).
"""


def short_input(state_before: Mapping[str, Any]) -> dict[str, Any]:
    """The short input's lock: the state's before the round."""
    return {"locked": bool(state_before.get("locked", False))}


def short_result(state_after: Mapping[str, Any]) -> dict[str, Any]:
    """The short result's lock: the state's after the round."""
    return {"locked": bool(state_after.get("locked", False))}


#: Every key of the short input, in the order an error lists them; its --help text.
SHORT_ROUND_KEYS = ("a", "b", "moves", "locked", "seed", "duel_id", "round_no", "options",
                    "ruleset")
SHORT_ROUND_HELP = """\
input (JSON object):
  {"a": {"name": "Alice", "str": 7, "agi": 4},
   "b": {"name": "Bob", "str": 3, "agi": 5},
   "moves": {"a": "full_frontal_strike", "b": null},
   "locked": false,
   "seed": "<64 hex characters>",
   "duel_id": 1, "round_no": 1,
   "options": {"missing_move": "none", "locked_blocks_retreat": false}}

  a, b, moves, duel_id, round_no are required; locked (default false), seed (default: a
  fresh one is drawn and shown) and options (defaults as above) are optional.
  STR/AGI are any integers. A move is a move id or a short form (ffs, ss, lock, ev, flee,
  ...), or null for "sent no move by the close".
"""

DUELLIST_KEYS = ("name", "str", "agi")
# locked_blocks_retreat (true/false) as written by hand and by older duels; the house rule's
# own spelling (yes/no) as a duel stores it since it became a house rule.
OPTION_KEYS = ("missing_move", "locked_blocks_retreat", "locked-blocks-retreat")


def _duellist(value: Any, field: str) -> Duellist:
    data = json_object(value, field, DUELLIST_KEYS)
    name = required(data, "name", f"{field}.")
    if not isinstance(name, str) or not name.strip():
        raise InvalidRoundInput(f"{field}.name must be a non-empty string, not {describe(name)}")
    for key in ("str", "agi"):
        whole_number(required(data, key, f"{field}."), f"{field}.{key}")
    try:
        return Duellist.from_dict(data, bounded=False)
    except RulesError as exc:
        raise InvalidRoundInput(f"{field}.{exc.message}") from None


def _move(value: Any, field: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidRoundInput(
            f"{field} must be a move or null, not {describe(value)}; "
            f"allowed: {allowed_moves_text()}"
        )
    try:
        return parse_move(value)
    except RulesError as exc:
        raise InvalidRoundInput(f"{field}: {exc.message}") from None


def _options(value: Any) -> Options:
    if value is None:
        return Options()
    data = json_object(value, "options", OPTION_KEYS)
    missing = data.get("missing_move", "none")
    if missing not in MISSING_MOVE_POLICIES:
        raise InvalidRoundInput(
            f"options.missing_move must be one of {', '.join(MISSING_MOVE_POLICIES)}, "
            f"not {describe(missing)}"
        )
    blocks = true_or_false(
        data.get("locked_blocks_retreat", False), "options.locked_blocks_retreat"
    )
    house = data.get("locked-blocks-retreat")
    if house is not None:
        if house not in ("yes", "no"):
            raise InvalidRoundInput(
                f"options.locked-blocks-retreat must be yes or no, not {describe(house)}"
            )
        blocks = blocks or house == "yes"
    return Options(missing_move=missing, locked_blocks_retreat=blocks)


def parse_short_round(data: Mapping[str, Any], where: str) -> ShortRound:
    """The duellists, moves, lock and options of the short input (``where``: the field
    prefix, e.g. ``input.``)."""
    a = _duellist(required(data, "a", where), f"{where}a")
    b = _duellist(required(data, "b", where), f"{where}b")
    moves_obj = json_object(required(data, "moves", where), f"{where}moves", ("a", "b"))
    moves: dict[Side, str | None] = {
        "a": _move(required(moves_obj, "a", f"{where}moves."), f"{where}moves.a"),
        "b": _move(required(moves_obj, "b", f"{where}moves."), f"{where}moves.b"),
    }
    locked = true_or_false(data.get("locked", False), f"{where}locked")
    return ShortRound(DuelState(a=a, b=b, locked=locked), moves, _options(data.get("options")))


# -- odds -----------------------------------------------------------------------------------

ODDS_ARGUMENTS = OddsArguments(
    summary="every outcome for all 25 move pairs; STR/AGI are any integers",
    flags=(
        OddsFlag("a_str", "required", "int", "N", required=True),
        OddsFlag("a_agi", "required", "int", "N", required=True),
        OddsFlag("b_str", "required", "int", "N", required=True),
        OddsFlag("b_agi", "required", "int", "N", required=True),
        OddsFlag("locked", "the duellists start the round locked in combat", "switch"),
        OddsFlag(
            "locked_blocks_retreat", "duel option: a locked duellist's retreat fails", "switch"
        ),
    ),
    example="--a-str 5 --a-agi 3 --b-str 7 --b-agi 2 --json",
)

# Columns of an odds table come in this order when present (the rest sorted after them).
OUTCOME_ORDER: tuple[str, ...] = (
    "a_wins",
    "b_wins",
    "a_retreats",
    "b_retreats",
    "both_retreat",
    "locked",
    "no_effect",
)

OddsTable = Sequence[tuple[str, str, Mapping[str, Fraction]]]


def odds_table(
    ruleset: Ruleset, a: Duellist, b: Duellist, options: Options | None = None,
    locked: bool = False,
) -> list[tuple[str, str, dict[str, Fraction]]]:
    """Exact outcome probabilities for all 25 move pairs (``Rule214.odds_table``)."""
    state = DuelState(a=a, b=b, locked=locked)
    exact = capability(ruleset, ExactOdds)
    if exact is None:
        raise InvalidRoundInput(f"{ruleset.title} has no exact odds.")
    table = []
    for a_move in MOVE_IDS:
        for b_move in MOVE_IDS:
            dist = exact.outcome_distribution(
                state, {"a": a_move, "b": b_move}, options or Options()
            )
            ordered = {o: dist[o] for o in OUTCOMES if dist.get(o, Fraction(0)) != 0}
            table.append((a_move, b_move, ordered))
    return table


def odds_report(
    ruleset: Ruleset, values: Mapping[str, Any], house_rules: Mapping[str, str]
) -> OddsReport:
    """`duelbot odds` for rule 2.14: its one house rule by the ``--locked_blocks_retreat``
    switch or ``--option locked-blocks-retreat=yes`` (either turns it on)."""
    a = Duellist(values["a_name"], values["a_str"], values["a_agi"])
    b = Duellist(values["b_name"], values["b_str"], values["b_agi"])
    blocks = bool(values["locked_blocks_retreat"])
    options = Options(
        locked_blocks_retreat=blocks or ruleset.make_options(house_rules).locked_blocks_retreat
    )
    locked = bool(values["locked"])
    table = odds_table(ruleset, a, b, options, locked=locked)
    text = render_odds_text(
        table,
        a_str=a.strength,
        a_agi=a.agility,
        b_str=b.strength,
        b_agi=b.agility,
        a_name=a.name,
        b_name=b.name,
        locked=locked,
    )
    return OddsReport(odds_dict(table), text)


def odds_dict(table: OddsTable, *, ruleset: str = RULESET_ID) -> dict[str, Any]:
    """The `duelbot odds --json` shape; fractions as str(Fraction), zero outcomes left out."""
    return {
        "ruleset": ruleset,
        "matchups": [
            {
                "a_move": a_move,
                "b_move": b_move,
                "outcomes": {o: str(p) for o, p in outcomes.items() if p != 0},
            }
            for a_move, b_move, outcomes in table
        ],
    }


def render_odds_text(
    table: OddsTable,
    *,
    a_str: int,
    a_agi: int,
    b_str: int,
    b_agi: int,
    a_name: str = "A",
    b_name: str = "B",
    locked: bool = False,
) -> str:
    """A plain-text table: one row per move pair, one column per outcome (exact fractions)."""
    present = {o for _, _, outcomes in table for o, p in outcomes.items() if p != 0}
    columns = [o for o in OUTCOME_ORDER if o in present]
    columns += sorted(present - set(columns))
    header = ["A move", "B move", *columns]
    rows = [
        [a_move, b_move, *(_fraction_cell(outcomes.get(o, Fraction(0))) for o in columns)]
        for a_move, b_move, outcomes in table
    ]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def fmt(row: list[str]) -> str:
        return "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()

    state = "locked in combat" if locked else "unlocked"
    lines = [
        f"Exact outcome probabilities: {_who('A', a_name)} (STR {a_str}, AGI {a_agi}) vs "
        f"{_who('B', b_name)} (STR {b_str}, AGI {b_agi}), {state} at the start",
        "",
        fmt(header),
        fmt(["-" * w for w in widths]),
        *(fmt(r) for r in rows),
        "",
        "'-' = impossible. Each row sums to exactly 1.",
    ]
    return "\n".join(lines) + "\n"


def _who(side: str, name: str) -> str:
    name = " ".join(str(name).split())
    return side if name in ("", side) else f"{side} = {name}"


def _fraction_cell(p: Fraction) -> str:
    return "-" if p == 0 else str(p)
