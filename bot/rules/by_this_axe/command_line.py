"""By This Axe on the command line: its `duelbot odds` flags and report (one round's exact
unsaved hits and outcomes for two allotments). The flags, JSON shape and messages are
those duelbot always had (tests/cli/test_odds_by_this_axe.py pins them)."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from bot.rules.by_this_axe.odds import RoundOdds
from bot.rules.by_this_axe.sheet import Combatant, clean_sheet
from bot.rules.by_this_axe.state import DuelState, forfeit_from_trick_takes, rules_in_force
from bot.rules.by_this_axe.tables import CHARACTERS, RULESET_ID, TRICK_TAKES
from bot.rules.command_line import OddsArguments, OddsFlag, OddsReport, Side
from bot.rules.errors import InvalidRoundInput, RulesError

if TYPE_CHECKING:
    from bot.rules.by_this_axe.ruleset import ByThisAxe


def _side_flags(side: str) -> tuple[OddsFlag, ...]:
    return (
        OddsFlag(
            f"{side}_character",
            f"{side.upper()}'s type, one of {', '.join(CHARACTERS)} (required)",
            metavar="TYPE",
            required=True,
        ),
        OddsFlag(
            f"{side}_armor",
            "the d6 result that saves (5 = 5-6; 0 or 7 = no save); default by type",
            "int",
            "N",
        ),
        OddsFlag(f"{side}_wounds", "wounds to defeat (1)", "int", "N"),
        OddsFlag(f"{side}_taken", "wounds already taken", "int", "N"),
        OddsFlag(
            f"{side}_allot",
            "the allotment, e.g. a3p1t0, '3/1/0' or flee (required)",
            metavar="ALLOT",
            required=True,
        ),
    )


ODDS_ARGUMENTS = OddsArguments(
    summary="the distribution of unsaved hits on each side and the outcome of one round "
    "for two allotments",
    flags=(
        *_side_flags("a"),
        *_side_flags("b"),
        OddsFlag("round", "the round (flee from round 2)", "int", "N"),
        OddsFlag("allot_all", "duel setting: every die of the pool must be allotted", "switch"),
        OddsFlag(
            "trick_takes",
            "duel setting: which dice a dirty trick takes first (default parry_first)",
            choices=TRICK_TAKES,
        ),
    ),
    example="--a-character hero --a-armor 5 --a-allot a3p1t0 --b-character champion "
    "--b-allot 6/5/1 --json",
)


def _sheet(values: Mapping[str, Any], side: str) -> dict[str, Any]:
    sheet: dict[str, Any] = {"character": values[f"{side}_character"]}
    for key, dest in (("armor_save", "armor"), ("wounds", "wounds")):
        value = values[f"{side}_{dest}"]
        if value is not None:
            sheet[key] = value
    try:
        return clean_sheet(sheet)
    except RulesError as exc:
        message = exc.message
        for key, flag in (("armor_save", "armor"), ("wounds", "wounds"), ("character", "")):
            if message.startswith(key):
                message = f"--{side}-{flag or key}" + message[len(key) :]
        raise InvalidRoundInput(message) from None


def _state(values: Mapping[str, Any]) -> DuelState:
    sheets = {side: _sheet(values, side) for side in ("a", "b")}
    fighters = {}
    for side in ("a", "b"):
        taken = values[f"{side}_taken"] or 0
        if taken < 0:
            raise InvalidRoundInput(f"--{side}-taken must be at least 0, not {taken}")
        clean = sheets[side]
        fighters[side] = Combatant(
            values[f"{side}_name"],
            clean["character"],
            clean["armor_save"],
            clean["wounds"],
            wounds_taken=taken,
        )
        if fighters[side].defeated:
            raise InvalidRoundInput(
                f"--{side}-taken {taken} already defeats a character with "
                f"{clean['wounds']} wound(s); no round is left to play"
            )
    round_no = 1 if values["round"] is None else values["round"]
    if round_no < 1:
        raise InvalidRoundInput(f"--round must be at least 1, not {round_no}")
    return DuelState(
        a=fighters["a"],
        b=fighters["b"],
        round_no=round_no,
        allot_all=bool(values["allot_all"]),
        forfeit=forfeit_from_trick_takes(values["trick_takes"]),
    )


def _fractions(dist: Mapping[Any, Fraction]) -> dict[str, str]:
    return {str(k): str(p) for k, p in dist.items() if p != 0}


def odds_report(
    ruleset: ByThisAxe, values: Mapping[str, Any], house_rules: Mapping[str, str]
) -> OddsReport:
    """`duelbot odds --ruleset by-this-axe`: one round, under the house rules given."""
    from bot.rules.by_this_axe.ruleset import round_odds  # ruleset.py imports this module

    state = _state(values)
    choices: dict[Side, str] = {}
    sides: tuple[Side, Side] = ("a", "b")
    for side in sides:
        try:
            choices[side] = ruleset.parse_choice(values[f"{side}_allot"], state, side)
        except RulesError as exc:
            raise InvalidRoundInput(f"--{side}-allot: {exc.message}") from None
    if values["trick_takes"] is not None and "forfeit" in house_rules:
        raise InvalidRoundInput("--trick-takes and --option forfeit=... cannot be used together")
    options = ruleset.make_options(house_rules)
    odds = round_odds(state, choices["a"], choices["b"], options)
    in_force = dict(zip(("flight", "forfeit"), rules_in_force(state, options), strict=True))
    data = {
        "ruleset": RULESET_ID,
        "house_rules": in_force,
        "a": state.a.to_dict(),
        "b": state.b.to_dict(),
        "round": state.round_no,
        "a_allot": odds.a_allot,
        "b_allot": odds.b_allot,
        "unsaved_hits": {"on_a": _fractions(odds.on_a), "on_b": _fractions(odds.on_b)},
        "outcomes": _fractions(odds.outcomes),
    }
    return OddsReport(data, render_odds_text(ruleset, state, odds, in_force))


def render_odds_text(
    ruleset: ByThisAxe,
    state: DuelState,
    odds: RoundOdds,
    house_rules: Mapping[str, str] | None = None,
) -> str:
    """A plain-text report of one By This Axe round's exact odds."""

    def who(side: str, c: Combatant, allot: str) -> str:
        name = side.upper() if c.name in ("", side.upper()) else f"{side.upper()} = {c.name}"
        save = "no save" if c.armor_save == 0 else f"saves on {c.armor_save}+"
        taken = f", {c.wounds_taken} taken" if c.wounds_taken else ""
        return (
            f"{name}: {c.character.replace('_', ' ')} (pool {c.pool}, {save}, "
            f"{c.wounds} wound(s){taken}) allots {ruleset.choice_label(allot)}"
        )

    def table(title: str, dist: Mapping[Any, Fraction]) -> list[str]:
        rows = [(str(k), str(p)) for k, p in dist.items() if p != 0]
        width = max(len(title), *(len(k) for k, _ in rows))
        return [title.ljust(width) + "  probability"] + [
            f"{k.ljust(width)}  {p}" for k, p in rows
        ]

    lines = [
        f"By This Axe, round {state.round_no}: exact odds",
        who("a", state.a, odds.a_allot),
        who("b", state.b, odds.b_allot),
        *(
            ["House rules: " + ", ".join(f"{k}={v}" for k, v in house_rules.items())]
            if house_rules
            else []
        ),
        "",
        *table("unsaved hits on A", odds.on_a),
        "",
        *table("unsaved hits on B", odds.on_b),
        "",
        *table("outcome of the round", odds.outcomes),
        "",
        "Each table sums to exactly 1; armor saves ignore the Heroic +1.",
    ]
    return "\n".join(lines) + "\n"
