"""`duelbot verify` (a whole-duel export or one round, against its seeds, commitments and
rules) and `duelbot seed` (a fresh seed and its commitment). `verify` exits 0 when the
published result is verified, 1 when not, 2 on bad input."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.cli.adjudicate import RoundInput, parse_round_input
from bot.cli.common import (
    EXIT_NOT_VERIFIED,
    EXIT_OK,
    InputError,
    _object,
    _require,
    _seed,
    _with_services,
    read_json,
)
from bot.exports.report import adjudication_dict
from bot.exports.verify import UnreadableExport, is_duel_export, verify_duel
from bot.rules import registry
from bot.rules.capabilities import ShortAdjudication, capability
from bot.rules.dice import commitment, new_seed
from bot.rules.registry import DEFAULT_RULESET_ID

ROLL_KEYS = ("label", "sides", "value", "for", "purpose")

#: The flat verify shape's extra keys; the default ruleset's short shape adds its own
#: (``ShortAdjudication.short_result_keys``), as it does to the published keys.
FLAT_VERIFY_EXTRA = ("commitment", "outcome", "winner", "rolls", "log")


def _short() -> ShortAdjudication | None:
    return capability(registry.get(DEFAULT_RULESET_ID), ShortAdjudication)


def _own_keys() -> Mapping[str, str]:
    short = _short()
    return {} if short is None else short.short_result_keys


def published_keys() -> tuple[str, ...]:
    """The keys of the published output, in `duelbot adjudicate --json`'s order."""
    return ("outcome", "winner", *_own_keys(), "rolls", "log", "seed", "commitment")


def verify_input_help(default: str) -> str:
    short = _short()
    input_keys = "a round" if short is None else ", ".join(
        k for k in short.short_round_keys if k not in ("seed", "ruleset")
    )
    return (
        VERIFY_INPUT_HELP.replace("{default}", default)
        .replace("{input_keys}", input_keys)
        .replace("{published_keys}", ", ".join(published_keys()))
        .replace("{own_help}", "" if short is None else short.short_verify_help)
    )


VERIFY_INPUT_HELP = """\
input: a whole duel exported by `duelbot export --format json` or /duel export (it has
"format": "duelbot-duel"): every round's commitment, rolls and result are checked and each
round is re-adjudicated; one line per round and a summary (docs/export-format.md).
Rounds still open or with secrets withheld (a running duel) are named, not failed.

Or one {default} round (JSON object), one of two shapes:

  1. flat: the adjudicate input fields ({input_keys})
     plus "seed" (the revealed seed), "commitment" (published when the round opened) and
     the published "outcome", "winner" (name or null), "rolls" (and optionally "log",
     which is not compared).

  2. published output + input: the `duelbot adjudicate --json` output object unchanged
     ({published_keys}) with one more key, "input", holding the adjudicate input.
     Build it with:  jq -s '.[1] + {input: .[0]}' round.json published.json

{own_help}
checks: SHA-256(seed) == commitment; every roll re-derived from the seed (label, sides,
value, for, purpose); the round re-adjudicated; outcome, winner and the ruleset's own
result keys compared.
exit status: 0 verified, 1 not verified (each mismatch is printed), 2 bad input.
"""


@dataclass(frozen=True, slots=True)
class VerifyInput:
    round: RoundInput
    seed: str
    commitment: str
    outcome: Any
    winner: Any
    # The published values of the short shape's own result keys (``ShortAdjudication.
    # short_result_keys``); _ABSENT for one the flat shape did not give.
    own: dict[str, Any]
    rolls: list[Any]
    notes: tuple[str, ...] = ()


_ABSENT = object()


def _published_rolls(value: Any, field: str) -> list[Any]:
    if not isinstance(value, list) or not all(isinstance(r, dict) for r in value):
        raise InputError(
            f"{field} must be a list of objects with keys {', '.join(ROLL_KEYS)}"
        )
    return value


def _commitment(value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise InputError(f"{field} must be a string (64 hexadecimal characters)")
    return value


def parse_verify_input(data: Any) -> VerifyInput:
    if not isinstance(data, dict):
        raise InputError("the input must be a JSON object (see duelbot verify --help)")
    if "input" in data:
        published = _object(
            {k: v for k, v in data.items() if k != "input"},
            "the published output",
            ("input", *published_keys()),
        )
        rnd = parse_round_input(data["input"], field="input")
        notes: list[str] = []
        seed_value = published.get("seed")
        if seed_value is None:
            if rnd.seed is None:
                raise InputError("seed is missing (the revealed seed of the round)")
            seed = rnd.seed
        else:
            seed = _seed(seed_value, "seed")
            if rnd.seed is not None and rnd.seed != seed:
                notes.append(
                    f"seed: the input's seed {rnd.seed} is not the published seed {seed}"
                )
        return VerifyInput(
            round=rnd,
            seed=seed,
            commitment=_commitment(_require(published, "commitment", ""), "commitment"),
            outcome=_require(published, "outcome", ""),
            winner=_require(published, "winner", ""),
            own={key: _require(published, key, "") for key in _own_keys()},
            rolls=_published_rolls(_require(published, "rolls", ""), "rolls"),
            notes=tuple(notes),
        )
    flat_extra = (*FLAT_VERIFY_EXTRA, *_own_keys().values())
    rnd = parse_round_input(data, extra=flat_extra)
    if rnd.seed is None:
        raise InputError("seed is missing (the revealed seed of the round)")
    return VerifyInput(
        round=rnd,
        seed=rnd.seed,
        commitment=_commitment(_require(data, "commitment", ""), "commitment"),
        outcome=_require(data, "outcome", ""),
        winner=_require(data, "winner", ""),
        own={key: data.get(flat, _ABSENT) for key, flat in _own_keys().items()},
        rolls=_published_rolls(_require(data, "rolls", ""), "rolls"),
    )


def _same(published: Any, expected: Any) -> bool:
    return type(published) is type(expected) and bool(published == expected)


def _show(value: Any) -> str:
    return "(missing)" if value is _ABSENT else json.dumps(value)


def verify_round(vi: VerifyInput) -> tuple[list[str], dict[str, Any]]:
    """Mismatches between the published result and the rules (empty: verified)."""
    mismatches = list(vi.notes)
    derived = commitment(vi.seed)
    if vi.commitment.strip().lower() != derived:
        mismatches.append(
            f"commitment: published {vi.commitment!r}, but SHA-256 of the seed is {derived!r}"
        )
    result = vi.round.resolve(vi.seed)
    expected = adjudication_dict(result, seed=vi.seed, commitment=derived)
    for key, published in (("outcome", vi.outcome), ("winner", vi.winner), *vi.own.items()):
        if published is _ABSENT:
            continue
        if not _same(published, expected[key]):
            mismatches.append(
                f"{key}: published {_show(published)}, the rules give {_show(expected[key])}"
            )
    want: list[dict[str, Any]] = expected["rolls"]
    if len(vi.rolls) != len(want):
        mismatches.append(
            f"rolls: published {len(vi.rolls)} roll(s), the rules make {len(want)}"
        )
    for i, (pub, exp) in enumerate(zip(vi.rolls, want, strict=False)):
        for key in ROLL_KEYS:
            got = pub.get(key, _ABSENT)
            if got is _ABSENT or not _same(got, exp[key]):
                mismatches.append(
                    f"rolls[{i}].{key}: published {_show(got)}, "
                    f"re-derived from the seed {_show(exp[key])}"
                )
    return mismatches, expected


def _stored_round(args: argparse.Namespace) -> Any:
    """The published round from the bot's database (`--duel N --round K`)."""
    return _with_services(args, lambda s: s.duels.published_round(args.duel, args.round))


def cmd_verify(args: argparse.Namespace) -> int:
    if (args.duel is None) != (args.round is None):
        raise InputError("give both --duel N and --round K to verify a stored round")
    data = _stored_round(args) if args.duel is not None else read_json(args.file)
    if is_duel_export(data):
        return verify_whole_duel(data, as_json=args.json)
    vi = parse_verify_input(data)
    mismatches, expected = verify_round(vi)
    verified = not mismatches
    if args.json:
        report = {"verified": verified, "mismatches": mismatches, "expected": expected}
        print(json.dumps(report, indent=2))
    elif verified:
        rules = vi.round.ruleset.short_name()
        print(f"OK: the published result is the one {rules} gives for this seed.")
        print(f"- commitment: SHA-256 of the seed is {expected['commitment']}")
        print(f"- rolls: {len(expected['rolls'])} re-derived from the seed, all match")
        own = "".join(f", {key} {json.dumps(expected[key])}" for key in vi.own)
        print(
            f"- outcome {expected['outcome']}, winner {json.dumps(expected['winner'])}{own}"
        )
    else:
        print(f"NOT VERIFIED: {len(mismatches)} mismatch(es)")
        for line in mismatches:
            print(f"- {line}")
    return EXIT_OK if verified else EXIT_NOT_VERIFIED


def verify_whole_duel(data: Any, *, as_json: bool) -> int:
    """`duelbot verify` of a whole-duel export: one line per round and a summary."""
    try:
        check = verify_duel(data)
    except UnreadableExport as exc:
        raise InputError(str(exc)) from None
    if as_json:
        print(json.dumps(check.to_dict(), indent=2, ensure_ascii=False))
    else:
        for line in check.lines():
            print(line)
        print(check.summary())
    return EXIT_OK if check.verified else EXIT_NOT_VERIFIED


def cmd_seed(args: argparse.Namespace) -> int:
    seed = new_seed()
    commit = commitment(seed)
    if args.json:
        print(json.dumps({"seed": seed, "commitment": commit}, indent=2))
    else:
        print(f"seed (keep secret until the round closes): {seed}")
        print(f"commitment (publish when the round opens): {commit}")
    return EXIT_OK


def add_parser(sub: Any) -> None:
    default = registry.get(DEFAULT_RULESET_ID).short_name()
    ver = sub.add_parser(
        "verify",
        help="check an exported duel (or one round) against its seeds, commitments and rules",
        description="Re-derive every roll of a published duel or round from its revealed\n"
        "seeds, re-adjudicate it and compare with what was published\n"
        "(docs/export-format.md, docs/fairness.md).",
        epilog=verify_input_help(default),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ver.add_argument("file", nargs="?", default="-", metavar="FILE|-", help="default: stdin")
    ver.add_argument("--json", action="store_true", help="machine-readable output")
    ver.add_argument("--duel", type=int, default=None, help="verify a round stored by the bot")
    ver.add_argument("--round", type=int, default=None, help="the round number (with --duel)")
    ver.add_argument("--config", metavar="FILE", default=None, help="config TOML (database)")
    ver.set_defaults(func=cmd_verify)


def add_seed_parser(sub: Any) -> None:
    """After `archive` in the help, where it always was."""
    seed = sub.add_parser(
        "seed",
        help="draw a fresh round seed and its commitment",
        description="Draw a fresh 32-byte seed; publish the commitment when the round "
        "opens and the seed when it closes.",
    )
    seed.add_argument("--json", action="store_true", help="machine-readable output")
    seed.set_defaults(func=cmd_seed)
