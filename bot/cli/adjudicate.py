"""`duelbot adjudicate`: one round from JSON, any ruleset, with provably fair dice derived
from the round's seed (docs/fairness.md); Markdown, BBCode or JSON."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.cli.common import (
    EXIT_OK,
    PROG,
    InputError,
    _describe,
    _hostile,
    _int,
    _object,
    _require,
    _seed,
    read_json,
)
from bot.exports.report import (
    adjudication_dict,
    render_round_bbcode,
    render_round_markdown,
    winner_name,
)
from bot.rules import registry
from bot.rules.base import RoundResult, Ruleset
from bot.rules.capabilities import ShortAdjudication, capability
from bot.rules.command_line import ShortRound
from bot.rules.dice import FairDice, commitment, new_seed
from bot.rules.errors import RulesError
from bot.rules.registry import DEFAULT_RULESET_ID

GENERIC_INPUT_HELP = """\
input, any ruleset (JSON object; a round copied from `duelbot export` works as it is):
  {"ruleset": "<id>", "duel_id": 12, "round_no": 3,
   "state_before": {...the duel state before the round...},
   "choices": {"a": "<choice>", "b": null},
   "options": {"missing_move": "none", ...house rules...},
   "seed": "<64 hex characters>"}
  ruleset defaults to the default ruleset; options and seed are optional.
"""


@dataclass(frozen=True, slots=True)
class RoundInput:
    """One round in the default ruleset's short adjudicate input (docs/fairness.md)."""

    ruleset: Ruleset
    round: ShortRound
    seed: str | None
    duel_id: int
    round_no: int

    def resolve(self, seed: str) -> RoundResult:
        dice = FairDice(seed, self.duel_id, self.round_no)
        return self.ruleset.resolve(self.round.state, self.round.choices, dice, self.round.options)


def parse_round_input(data: Any, *, field: str = "", extra: Sequence[str] = ()) -> RoundInput:
    """Validate the short adjudicate JSON of the default ruleset (the keys its
    ``short_round_keys`` names); ``extra`` keys are allowed and ignored."""
    where = f"{field}." if field else ""
    ruleset = registry.get(DEFAULT_RULESET_ID)
    short_input = capability(ruleset, ShortAdjudication)
    if short_input is None:
        raise InputError(
            f"{where or 'the input'}: {ruleset.title} has no short input: give the round as "
            "exported (ruleset, duel_id, state_before, choices; docs/export-format.md)"
        )
    obj = _object(data, field or "the input", (*short_input.short_round_keys, *extra))
    named = obj.get("ruleset", ruleset.id)
    if named != ruleset.id:
        raise InputError(f"{where}ruleset must be {ruleset.id!r}, not {_describe(named)}")
    short = short_input.parse_short_round(obj, where)
    seed = obj.get("seed")
    return RoundInput(
        ruleset=ruleset,
        round=short,
        seed=None if seed is None else _seed(seed, f"{where}seed"),
        duel_id=_int(_require(obj, "duel_id", where), f"{where}duel_id", minimum=0),
        round_no=_int(_require(obj, "round_no", where), f"{where}round_no", minimum=0),
    )


#: The keys of `duelbot adjudicate`'s input for any ruleset: a round as exported
#: (docs/export-format.md) plus the ruleset and duel it belongs to. The other keys of an
#: exported round are accepted and ignored (a round can be pasted as it is).
GENERIC_ROUND_KEYS = ("ruleset", "duel_id", "round_no", "number", "state_before", "choices",
                      "options", "seed")
EXPORTED_ROUND_EXTRA = (
    "status", "opened_by", "opened_at", "deadline", "commitment", "closed_by", "closed_at",
    "close_reason", "outcome", "result", "undone_by", "undone_at", "undo_reason",
    "follows_undo_of", "withheld",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class GenericRound:
    """One round of any ruleset, as `duelbot adjudicate` takes it."""

    ruleset: Ruleset
    duel_id: int
    round_no: int
    state_before: Mapping[str, Any]
    choices: dict[str, str | None]
    options: Mapping[str, Any]
    seed: str | None

    def resolve(self, seed: str) -> RoundResult:
        dice = FairDice(seed, self.duel_id, self.round_no)
        return self.ruleset.readjudicate(self.state_before, self.choices, self.options, dice)


def is_generic_round(data: Any) -> bool:
    """The round shape of the export (any ruleset): it carries ``state_before``."""
    return isinstance(data, dict) and "state_before" in data


def parse_generic_round(data: Any) -> GenericRound:
    obj = _object(data, "the input", (*GENERIC_ROUND_KEYS, *EXPORTED_ROUND_EXTRA))
    ruleset_id = obj.get("ruleset", DEFAULT_RULESET_ID)
    if not isinstance(ruleset_id, str):
        raise InputError(f"ruleset must be a ruleset id, not {_describe(ruleset_id)}")
    try:
        ruleset = registry.get(ruleset_id)
    except RulesError as exc:
        raise InputError(f"ruleset: {exc.message}") from None
    if "round_no" in obj and "number" in obj and obj["round_no"] != obj["number"]:
        raise InputError("round_no and number differ: give the round's number once")
    if "round_no" not in obj and "number" not in obj:
        raise InputError("round_no is missing (the round's number; number also works)")
    round_no = _int(obj.get("round_no", obj.get("number")), "round_no", minimum=0)
    state_before = obj["state_before"]
    if not isinstance(state_before, dict):
        raise InputError("state_before must be a JSON object (the duel state before the round)")
    raw_choices = _object(_require(obj, "choices", ""), "choices", ("a", "b"))
    choices: dict[str, str | None] = {}
    for side in ("a", "b"):
        value = raw_choices.get(side)
        if value is not None and not isinstance(value, str):
            raise InputError(f"choices.{side} must be a string or null, not {_describe(value)}")
        choices[side] = value
    # Free text (ffs, "a3 p1 t0") becomes the ruleset's canonical choice, as a duellist's DM
    # does; checked before a seed is drawn.
    with _hostile("state_before"):
        state = ruleset.state_from_dict(state_before)
    for side, text in choices.items():
        if text is not None:
            try:
                with _hostile(f"choices.{side}"):
                    choices[side] = ruleset.parse_choice(text, state, side)  # type: ignore[arg-type]
            except RulesError as exc:
                raise InputError(f"choices.{side}: {exc.message}") from None
    options = obj.get("options") or {}
    if not isinstance(options, dict):
        raise InputError("options must be a JSON object (see docs/export-format.md)")
    seed = obj.get("seed")
    return GenericRound(
        ruleset=ruleset,
        duel_id=_int(_require(obj, "duel_id", ""), "duel_id", minimum=0),
        round_no=round_no,
        state_before=state_before,
        choices=choices,
        options=options,
        seed=None if seed is None else _seed(seed, "seed"),
    )


def generic_adjudication_dict(
    rnd: GenericRound, result: RoundResult, *, seed: str, commit: str
) -> dict[str, Any]:
    """`duelbot adjudicate --json` for the export round shape: the result as a round of the
    export holds it (winner a side), with the winner's name, the seed and commitment."""
    return {
        "duel_id": rnd.duel_id,
        "round_no": rnd.round_no,
        **result.to_dict(),
        "winner_name": winner_name(result),
        "seed": seed,
        "commitment": commit,
    }


def cmd_adjudicate(args: argparse.Namespace) -> int:
    data = read_json(args.file)
    rnd: RoundInput | GenericRound = (
        parse_generic_round(data) if is_generic_round(data) else parse_round_input(data)
    )
    seed = rnd.seed
    if seed is None:
        seed = new_seed()
        print(
            f"{PROG} adjudicate: no seed given; drew a fresh one: {seed}",
            file=sys.stderr,
        )
    with _hostile("the round"):
        result = rnd.resolve(seed)
    commit = commitment(seed)
    if args.json:
        shown = (
            generic_adjudication_dict(rnd, result, seed=seed, commit=commit)
            if isinstance(rnd, GenericRound)
            else adjudication_dict(result, seed=seed, commitment=commit)
        )
        print(json.dumps(shown, indent=2, ensure_ascii=False))
        return EXIT_OK
    render = render_round_bbcode if args.bbcode else render_round_markdown
    print(
        render(result, seed=seed, commitment=commit, duel_id=rnd.duel_id, round_no=rnd.round_no),
        end="",
    )
    return EXIT_OK



def add_parser(sub: Any) -> None:
    default = registry.get(DEFAULT_RULESET_ID).short_name()
    short_input = capability(registry.get(DEFAULT_RULESET_ID), ShortAdjudication)
    short_help = "" if short_input is None else short_input.short_round_help
    own_keys = () if short_input is None else tuple(short_input.short_result_keys)

    adj = sub.add_parser(
        "adjudicate",
        help="adjudicate one round from JSON (Markdown, BBCode or JSON)",
        description="Adjudicate one round from a JSON description, with provably fair\n"
        "dice derived from the round's seed (docs/fairness.md). Any ruleset: a round as\n"
        f"exported (docs/export-format.md) with ruleset and duel_id; or {default}'s short\n"
        "input below.",
        epilog=GENERIC_INPUT_HELP
        + "\n"
        + short_help
        + '\noutput (--json): {"outcome", "winner" (name or null), '
        + "".join(f'"{key}", ' for key in own_keys)
        + '"rolls": [{"label", "sides", "value", "for", "purpose"}], "log", "seed", '
        '"commitment"}\n',
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    adj.add_argument("file", nargs="?", default="-", metavar="FILE|-", help="default: stdin")
    fmt = adj.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="machine-readable output")
    fmt.add_argument("--bbcode", action="store_true", help="a BBCode post for forums")
    fmt.add_argument(
        "--markdown", action="store_true", help="a Markdown post (the default)"
    )
    adj.set_defaults(func=cmd_adjudicate)
