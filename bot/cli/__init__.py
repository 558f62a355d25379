"""The `duelbot` command line: odds, adjudicate, verify, export, seed; run, db upgrade, health.

Bad input never produces a traceback: one line on stderr naming the field and what is
allowed, and exit code 2. `verify` exits 0 when the published result is verified, 1 when not.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import inspect
import json
import os
import sys
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

from bot.exports.formats import EXPORT_FORMATS
from bot.exports.report import (
    adjudication_dict,
    render_round_bbcode,
    render_round_markdown,
    winner_name,
)
from bot.exports.verify import HOSTILE_ERRORS, UnreadableExport, is_duel_export, verify_duel
from bot.rules.base import RoundResult, Ruleset, get_ruleset
from bot.rules.command_line import OddsFlag, ShortRound
from bot.rules.dice import FairDice, commitment, new_seed, parse_seed
from bot.rules.errors import RulesError
from bot.rules.registry import DEFAULT_RULESET_ID, all_rulesets
from bot.services.ladder_views import LadderSection
from bot.services.views import DuelHistory

PROG = "duelbot"
EXIT_OK = 0
EXIT_NOT_VERIFIED = 1
EXIT_BAD_INPUT = 2

PUBLISHED_KEYS = ("outcome", "winner", "locked", "rolls", "log", "seed", "commitment")
FLAT_VERIFY_EXTRA = ("commitment", "outcome", "winner", "rolls", "log", "locked_after")
ROLL_KEYS = ("label", "sides", "value", "for", "purpose")

GENERIC_INPUT_HELP = """\
input, any ruleset (JSON object; a round copied from `duelbot export` works as it is):
  {"ruleset": "<id>", "duel_id": 12, "round_no": 3,
   "state_before": {...the duel state before the round...},
   "choices": {"a": "<choice>", "b": null},
   "options": {"missing_move": "none", ...house rules...},
   "seed": "<64 hex characters>"}
  ruleset defaults to the default ruleset; options and seed are optional.
"""

VERIFY_INPUT_HELP = """\
input: a whole duel exported by `duelbot export --format json` or /duel export (it has
"format": "duelbot-duel"): every round's commitment, rolls and result are checked and each
round is re-adjudicated; one line per round and a summary (docs/export-format.md).
Rounds still open or with secrets withheld (a running duel) are named, not failed.

Or one {default} round (JSON object), one of two shapes:

  1. flat: the adjudicate input fields (a, b, moves, locked, duel_id, round_no, options)
     plus "seed" (the revealed seed), "commitment" (published when the round opened) and
     the published "outcome", "winner" (name or null), "rolls" (and optionally "log",
     which is not compared). Here "locked" is the lock state BEFORE the round, as in the
     adjudicate input; the published lock state after the round may be given as
     "locked_after" (compared when present).

  2. published output + input: the `duelbot adjudicate --json` output object unchanged
     (outcome, winner, locked, rolls, log, seed, commitment) with one more key, "input",
     holding the adjudicate input. Here "locked" is the published lock state after the
     round. Build it with:  jq -s '.[1] + {input: .[0]}' round.json published.json

checks: SHA-256(seed) == commitment; every roll re-derived from the seed (label, sides,
value, for, purpose); the round re-adjudicated; outcome, winner and locked compared.
exit status: 0 verified, 1 not verified (each mismatch is printed), 2 bad input.
"""

if TYPE_CHECKING:
    from bot.services.container import Services

T = TypeVar("T")


class InputError(Exception):
    """Bad command-line input; the message is one line naming the field."""


class NotAvailable(Exception):
    """A subcommand whose implementing module does not exist yet."""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


# -- input parsing ----------------------------------------------------------------------


def _describe(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 40 else text[:40] + "…"


def read_json(source: str) -> Any:
    """JSON from a file path, or from stdin for '-'."""
    try:
        if source == "-":
            text = sys.stdin.read()
            where = "stdin"
        else:
            with open(source, encoding="utf-8") as handle:
                text = handle.read()
            where = source
    except OSError as exc:
        raise InputError(f"cannot read {source}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise InputError(f"{source} is not UTF-8 text") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{where} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except ValueError as exc:  # an integer of more than 4300 digits
        raise InputError(f"{where} is not usable JSON: {exc}") from None
    except RecursionError:
        raise InputError(f"{where} is not usable JSON: nested too deeply") from None
    try:  # a lone surrogate escape (\ud800) is not text and cannot be printed
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(f"{where} holds a lone surrogate (\\udXXX escape), not text") from None
    except RecursionError:  # pragma: no cover - json.loads refuses deeper input first
        raise InputError(f"{where} is not usable JSON: nested too deeply") from None
    return data


@contextmanager
def _hostile(where: str) -> Iterator[None]:
    """Ruleset code run on a pasted round may meet what it was not written for (a state of
    the wrong shape, 1e400): one line naming ``where``, exit 2, never a traceback."""
    try:
        yield
    except HOSTILE_ERRORS as exc:
        raise InputError(f"{where}: cannot be read ({type(exc).__name__}: {exc})") from None


def _object(value: Any, field: str, allowed: Sequence[str]) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise InputError(f"{field} must be a JSON object with keys {', '.join(allowed)}")
    unknown = sorted(set(value) - set(allowed))
    if unknown:
        raise InputError(
            f"{field} has unknown key(s) {', '.join(unknown)}; allowed: {', '.join(allowed)}"
        )
    return value


def _require(data: Mapping[str, Any], key: str, field: str) -> Any:
    if key not in data:
        raise InputError(f"{field}{key} is missing")
    return data[key]


def _int(value: Any, field: str, *, minimum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{field} must be a whole number, not {_describe(value)}")
    if minimum is not None and value < minimum:
        raise InputError(f"{field} must be at least {minimum}, not {value}")
    return value


def _bool(value: Any, field: str) -> bool:
    if not isinstance(value, bool):
        raise InputError(f"{field} must be true or false, not {_describe(value)}")
    return value


def _seed(value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise InputError(f"{field} must be a string of 64 hexadecimal characters")
    try:
        parse_seed(value)
    except RulesError:
        raise InputError(
            f"{field} must be 64 hexadecimal characters (32 bytes), not {_describe(value)}"
        ) from None
    return value.strip().lower()


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
    ruleset = get_ruleset(DEFAULT_RULESET_ID)
    obj = _object(data, field or "the input", (*ruleset.short_round_keys, *extra))
    named = obj.get("ruleset", ruleset.id)
    if named != ruleset.id:
        raise InputError(f"{where}ruleset must be {ruleset.id!r}, not {_describe(named)}")
    short = ruleset.parse_short_round(obj, where)
    seed = obj.get("seed")
    return RoundInput(
        ruleset=ruleset,
        round=short,
        seed=None if seed is None else _seed(seed, f"{where}seed"),
        duel_id=_int(_require(obj, "duel_id", where), f"{where}duel_id", minimum=0),
        round_no=_int(_require(obj, "round_no", where), f"{where}round_no", minimum=0),
    )


# -- odds -------------------------------------------------------------------------------


def odds_rulesets() -> list[Ruleset]:
    """The rulesets with an odds report, the default first (as `--ruleset` offers them)."""
    found = [r for r in all_rulesets() if r.odds_arguments() is not None]
    return sorted(found, key=lambda r: r.id != DEFAULT_RULESET_ID)


def odds_flags(ruleset: Ruleset) -> tuple[OddsFlag, ...]:
    arguments = ruleset.odds_arguments()
    return arguments.flags if arguments is not None else ()


def _given(args: argparse.Namespace, flag: OddsFlag) -> bool:
    return getattr(args, flag.dest, None) not in (None, False)


def odds_house_rules(ruleset_id: str, pairs: Sequence[str] | None) -> dict[str, str]:
    """``--option KEY=VALUE`` pairs, validated by the ruleset (every house rule's value,
    defaults filled in); a bad pair is one InputError line naming what is allowed."""
    ruleset = get_ruleset(ruleset_id)
    given: dict[str, str] = {}
    for pair in pairs or ():
        key, sep, value = pair.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise InputError(f"--option wants KEY=VALUE, not {pair!r}")
        given[key.strip()] = value.strip()
    try:
        ruleset.parse_house_rules(given)
    except RulesError as exc:
        raise InputError(f"--option: {exc.message}") from None
    return ruleset.explicit_house_rules(given)


def cmd_odds(args: argparse.Namespace) -> int:
    """The chosen ruleset's odds report from its own flags; another ruleset's flag is
    refused, naming the ruleset chosen."""
    house = odds_house_rules(args.ruleset, args.option)
    ruleset = get_ruleset(args.ruleset)
    own = odds_flags(ruleset)
    own_dests = {flag.dest for flag in own}
    foreign: list[str] = []
    for other in odds_rulesets():
        for flag in odds_flags(other):
            if flag.dest not in own_dests and flag.flag not in foreign and _given(args, flag):
                foreign.append(flag.flag)
    if foreign:
        raise InputError(f"{', '.join(foreign)} cannot be used with --ruleset {ruleset.id}")
    missing = [f.flag for f in own if f.required and getattr(args, f.dest) is None]
    if missing:
        raise InputError(f"the following arguments are required: {', '.join(missing)}")
    values = {flag.dest: getattr(args, flag.dest) for flag in own}
    values.update(a_name=args.a_name, b_name=args.b_name)
    report = ruleset.odds_from_arguments(values, house)
    if args.json:
        print(json.dumps(report.data, indent=2))
    else:
        print(report.text, end="")
    return EXIT_OK


# -- adjudicate -------------------------------------------------------------------------


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
        ruleset = get_ruleset(ruleset_id)
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


# -- verify -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class VerifyInput:
    round: RoundInput
    seed: str
    commitment: str
    outcome: Any
    winner: Any
    locked: Any  # the published lock state after the round; _ABSENT when not given
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
            ("input", *PUBLISHED_KEYS),
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
            locked=_require(published, "locked", ""),
            rolls=_published_rolls(_require(published, "rolls", ""), "rolls"),
            notes=tuple(notes),
        )
    rnd = parse_round_input(data, extra=FLAT_VERIFY_EXTRA)
    if rnd.seed is None:
        raise InputError("seed is missing (the revealed seed of the round)")
    return VerifyInput(
        round=rnd,
        seed=rnd.seed,
        commitment=_commitment(_require(data, "commitment", ""), "commitment"),
        outcome=_require(data, "outcome", ""),
        winner=_require(data, "winner", ""),
        locked=data.get("locked_after", _ABSENT),
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
    for key, published in (("outcome", vi.outcome), ("winner", vi.winner), ("locked", vi.locked)):
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


def _with_services(args: argparse.Namespace, use: Callable[[Services], Awaitable[T]]) -> T:
    """Run ``use(services)`` against the bot's database (config file or
    DUELBOT_DATABASE_URL), disposed afterwards; a config, database or domain error becomes
    one line on stderr and exit 2."""
    from bot.config import ConfigError, load_settings
    from bot.db.engine import DatabaseUnavailable, make_database
    from bot.services.container import Services
    from bot.services.errors import DomainError, Unavailable

    async def run() -> T:
        settings = load_settings(args.config)
        db = make_database(settings.database.url)
        try:
            return await use(Services.create(db, settings.duels))
        finally:
            await db.dispose()

    try:
        return asyncio.run(run())
    except (ConfigError, DatabaseUnavailable) as exc:
        raise InputError(str(exc)) from None
    except Unavailable as exc:
        raise InputError(exc.detail) from None
    except DomainError as exc:
        raise InputError(exc.message) from None


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
        print(
            f"- outcome {expected['outcome']}, winner {json.dumps(expected['winner'])}, "
            f"locked {json.dumps(expected['locked'])}"
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


# -- export -----------------------------------------------------------------------------


def _stored_duel(args: argparse.Namespace) -> DuelHistory:
    """The duel's export read model from the bot's database (`--duel N`)."""
    return _with_services(args, lambda s: s.exports.duel_export(args.duel))


def cmd_export(args: argparse.Namespace) -> int:
    from bot.archive import export_html
    from bot.exports.formats import export_duel

    history = _stored_duel(args)
    text = export_html(history) if args.format == "html" else export_duel(history, args.format)
    if args.output is None or args.output == "-":
        sys.stdout.write(text)
        return EXIT_OK
    try:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise InputError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    return EXIT_OK


def _guild_exports(
    args: argparse.Namespace,
) -> tuple[int, list[DuelHistory], list[LadderSection]]:
    """One server's duels and ladders from the bot's database (`--guild ID`, or the only
    server)."""

    async def fetch(services: Services) -> tuple[int, list[DuelHistory], list[LadderSection]]:
        guilds = [args.guild] if args.guild is not None else await services.exports.guild_ids()
        if len(guilds) != 1:
            known = ", ".join(str(g) for g in guilds)
            raise InputError(
                f"give --guild ID: the database holds the duels of several servers ({known})"
                if guilds
                else "the database holds no duels yet"
            )
        histories = await services.exports.guild_exports(guilds[0])
        if not histories:
            raise InputError(f"server {guilds[0]} has no duels in this database")
        return guilds[0], histories, await services.ratings.whole_ladders(guilds[0])

    return _with_services(args, fetch)


#: Discord ids are stored as signed 64-bit integers (BIGINT); nothing larger can name a server.
_MAX_DISCORD_ID = 2**63 - 1


def _guild_id(text: str) -> int:
    """``--guild``: a Discord server id. Checked here, before any query: a number beyond 64
    bits would overflow the SQLite and PostgreSQL drivers (a traceback, issue 23)."""
    try:
        value = int(text.strip())
    except ValueError:
        value = None
    if value is None or not 1 <= value <= _MAX_DISCORD_ID:
        shown = text if len(text) <= 30 else text[:30] + "…"
        raise argparse.ArgumentTypeError(
            f"a server id is a whole number from 1 to {_MAX_DISCORD_ID}, not {shown!r}"
        )
    return value


def cmd_archive(args: argparse.Namespace) -> int:
    from bot.archive import write_archive
    from bot.exports.formats import duel_json

    guild_id, histories, ladders = _guild_exports(args)
    try:
        written = write_archive(
            args.dir,
            [duel_json(h) for h in histories],
            title=f"Duels of server {guild_id}",
            ladders=ladders,
        )
    except OSError as exc:
        raise InputError(f"cannot write the archive to {args.dir}: {exc.strerror or exc}") from None
    print(
        f"{len(histories)} duel page(s), {written[0]} and a ladder page written "
        f"(server {guild_id})"
    )
    return EXIT_OK


# -- seed -------------------------------------------------------------------------------


def cmd_seed(args: argparse.Namespace) -> int:
    seed = new_seed()
    commit = commitment(seed)
    if args.json:
        print(json.dumps({"seed": seed, "commitment": commit}, indent=2))
    else:
        print(f"seed (keep secret until the round closes): {seed}")
        print(f"commitment (publish when the round opens): {commit}")
    return EXIT_OK


# -- commands implemented elsewhere -----------------------------------------------------


def _lazy(module: str, attr: str, command: str) -> Callable[..., Any]:
    """``module.attr``, imported only when the command runs."""
    try:
        loaded = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if missing and (module == missing or module.startswith(missing + ".")):
            raise NotAvailable(
                f"'{PROG} {command}' is not available yet ({module} does not exist)"
            ) from None
        raise InputError(
            f"'{PROG} {command}' needs the module {missing!r}, which is not installed "
            "(run: make install)"
        ) from None
    func = getattr(loaded, attr, None)
    if not callable(func):
        raise NotAvailable(
            f"'{PROG} {command}' is not available yet ({module}.{attr} does not exist)"
        )
    return func  # type: ignore[no-any-return]


def _finish(value: Any) -> int:
    """The exit code of a command implemented elsewhere (awaited first if it is async)."""
    if inspect.isawaitable(value):
        value = asyncio.run(_await(value))
    if value is None or value is True:
        return EXIT_OK
    if value is False:
        return 1
    return value if isinstance(value, int) else EXIT_OK


async def _await(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


def cmd_run(args: argparse.Namespace) -> int:
    run_bot = _lazy("bot.__main__", "run_bot", "run")
    return _finish(run_bot(args.config))


def cmd_sync_commands(args: argparse.Namespace) -> int:
    sync = _lazy("bot.cli.sync_commands", "main", "sync-commands")
    return _finish(sync(args.config))


def cmd_sandbox(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535:
        raise InputError(f"--port must be 0..65535 (0: any free port), not {args.port}")
    return _finish(_lazy("bot.sandbox.run", "main", "sandbox")(args))


def cmd_db_upgrade(args: argparse.Namespace) -> int:
    upgrade = _lazy("bot.db.migrate", "upgrade", "db upgrade")
    from bot.config import ConfigError, load_settings

    try:
        settings = load_settings(args.config)
    except ConfigError as exc:
        raise InputError(str(exc)) from None
    return _finish(upgrade(settings))


def cmd_ratings_rebuild(args: argparse.Namespace) -> int:
    return _finish(_lazy("bot.cli.ratings", "rebuild", "ratings rebuild")(args))


def cmd_health(args: argparse.Namespace) -> int:
    check = _lazy("bot.discord.health", "check", "health")
    return _finish(check())


# -- parser and entry point -------------------------------------------------------------


def add_odds_parser(sub: Any) -> None:
    """`duelbot odds`: the shared flags, then each ruleset's own (``odds_arguments``), as
    the registry holds them when the parser is built."""
    rulesets = odds_rulesets()
    default = DEFAULT_RULESET_ID
    lines = [
        f"{r.id}{' (the default)' if r.id == default else ''}: {args.summary}."
        for r in rulesets
        if (args := r.odds_arguments()) is not None
    ]
    examples = [
        f"duelbot odds --ruleset {r.id} {args.example}"
        for r in rulesets
        if (args := r.odds_arguments()) is not None and args.example and r.id != default
    ]
    odds = sub.add_parser(
        "odds",
        help="exact odds of a round: "
        + ", ".join(r.short_name() for r in rulesets),
        description="Exact probabilities (fractions), by enumeration of every die face.\n"
        + "\n".join(lines),
        epilog="\n".join(f"example: {e}" for e in examples) or None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    odds.add_argument(
        "--ruleset",
        choices=tuple(r.id for r in rulesets),
        default=default,
        help=f"default: {default}",
    )
    odds.add_argument("--a-name", default="A", help="name of duellist A in the table")
    odds.add_argument("--b-name", default="B", help="name of duellist B in the table")
    seen: set[str] = {"ruleset", "a_name", "b_name", "option", "json"}
    for ruleset in rulesets:
        for flag in odds_flags(ruleset):
            if flag.dest in seen:  # two rulesets share it: declared once
                continue
            seen.add(flag.dest)
            help_text = f"{ruleset.id}: {flag.help}"
            if flag.kind == "switch":
                odds.add_argument(flag.flag, action="store_true", help=help_text)
            else:
                odds.add_argument(
                    flag.flag,
                    type=int if flag.kind == "int" else str,
                    default=None,
                    metavar=flag.metavar,
                    choices=flag.choices or None,
                    help=help_text,
                )
    house = [
        f"{r.id}: " + ", ".join(f"{h.key}={'|'.join(h.values)}" for h in r.house_rules())
        for r in rulesets
        if r.house_rules()
    ]
    odds.add_argument(
        "--option",
        action="append",
        metavar="KEY=VALUE",
        help="a house rule of the ruleset (repeatable), e.g. flight=after-blows"
        + "".join(f"; {text}" for text in house),
    )
    odds.add_argument("--json", action="store_true", help="machine-readable output")
    odds.set_defaults(func=cmd_odds)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="duelbot: play-by-post duels with provably fair dice.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    add_odds_parser(sub)
    default = get_ruleset(DEFAULT_RULESET_ID).short_name()

    adj = sub.add_parser(
        "adjudicate",
        help="adjudicate one round from JSON (Markdown, BBCode or JSON)",
        description="Adjudicate one round from a JSON description, with provably fair\n"
        "dice derived from the round's seed (docs/fairness.md). Any ruleset: a round as\n"
        f"exported (docs/export-format.md) with ruleset and duel_id; or {default}'s short\n"
        "input below.",
        epilog=GENERIC_INPUT_HELP
        + "\n"
        + get_ruleset(DEFAULT_RULESET_ID).short_round_help
        + '\noutput (--json): {"outcome", "winner" (name or null), "locked", "rolls": '
        '[{"label", "sides", "value", "for", "purpose"}], "log", "seed", "commitment"}\n',
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

    ver = sub.add_parser(
        "verify",
        help="check an exported duel (or one round) against its seeds, commitments and rules",
        description="Re-derive every roll of a published duel or round from its revealed\n"
        "seeds, re-adjudicate it and compare with what was published\n"
        "(docs/export-format.md, docs/fairness.md).",
        epilog=VERIFY_INPUT_HELP.replace("{default}", default),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ver.add_argument("file", nargs="?", default="-", metavar="FILE|-", help="default: stdin")
    ver.add_argument("--json", action="store_true", help="machine-readable output")
    ver.add_argument("--duel", type=int, default=None, help="verify a round stored by the bot")
    ver.add_argument("--round", type=int, default=None, help="the round number (with --duel)")
    ver.add_argument("--config", metavar="FILE", default=None, help="config TOML (database)")
    ver.set_defaults(func=cmd_verify)

    exp = sub.add_parser(
        "export",
        help="export a stored duel as Markdown, BBCode or JSON (what /duel export does)",
        description="Export a duel from the bot's database (config file or "
        "DUELBOT_DATABASE_URL), as /duel export does in Discord. The JSON is the versioned "
        "format of docs/export-format.md, which `duelbot verify FILE` checks.",
    )
    exp.add_argument("--duel", type=int, required=True, metavar="N", help="the duel number")
    exp.add_argument(
        "--format",
        choices=(*EXPORT_FORMATS, "html"),
        default="json",
        help="default: json; html is the archive page that verifies every roll in a browser",
    )
    exp.add_argument(
        "--output", metavar="FILE", default=None, help="write to FILE (default: stdout)"
    )
    exp.add_argument("--config", metavar="FILE", default=None, help="config TOML (database)")
    exp.set_defaults(func=cmd_export)

    arc = sub.add_parser(
        "archive",
        help="write a static site of a server's duels: an index and one verifying page each",
        description="Write DIR/index.html and one self-contained page per duel of a server "
        "(docs/archive.md), from the bot's database. Open rounds stay sealed.",
    )
    arc.add_argument("dir", metavar="DIR", help="the folder to write (created if missing)")
    arc.add_argument(
        "--guild",
        type=_guild_id,
        default=None,
        metavar="ID",
        help="the server (needed when several)",
    )
    arc.add_argument("--config", metavar="FILE", default=None, help="config TOML (database)")
    arc.set_defaults(func=cmd_archive)

    seed = sub.add_parser(
        "seed",
        help="draw a fresh round seed and its commitment",
        description="Draw a fresh 32-byte seed; publish the commitment when the round "
        "opens and the seed when it closes.",
    )
    seed.add_argument("--json", action="store_true", help="machine-readable output")
    seed.set_defaults(func=cmd_seed)

    run = sub.add_parser("run", help="run the Discord bot")
    run.add_argument("--config", metavar="FILE", default=None, help="config TOML file")
    run.set_defaults(func=cmd_run)

    sync = sub.add_parser(
        "sync-commands",
        help="register the slash commands with Discord once, then exit",
        description="Register the slash commands with Discord once (globally, or to\n"
        "[discord] sync_guild_ids) and exit: for a bot run as several processes, run it\n"
        "once per release and set [discord] sync_commands = false on every process (or let\n"
        "only the process that holds shard 0 sync at start). Needs DISCORD_TOKEN.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sync.add_argument("--config", metavar="FILE", default=None, help="config TOML file")
    sync.set_defaults(func=cmd_sync_commands)

    sandbox = sub.add_parser(
        "sandbox",
        help="the real bot against a local stand-in for Discord, played in the browser",
        description="Start a local Discord stand-in with one server (a commander, an admin "
        "and three duellists), run the bot against it as `duelbot run` does, and serve a page "
        "at http://127.0.0.1:PORT to act as any of them (docs/sandbox.md). No token, no "
        "Discord account; config.toml is not read.",
    )
    sandbox.add_argument("--port", type=int, default=8080, help="the page's port (default 8080)")
    sandbox.add_argument(
        "--database",
        metavar="URL",
        default=None,
        help="database URL (default: a temporary SQLite file, deleted on exit)",
    )
    sandbox.set_defaults(func=cmd_sandbox)

    db = sub.add_parser("db", help="database maintenance")
    db_sub = db.add_subparsers(dest="db_command", metavar="COMMAND", parser_class=_Parser)
    db_sub.required = True
    upgrade = db_sub.add_parser("upgrade", help="apply database migrations")
    upgrade.add_argument("--config", metavar="FILE", default=None, help="config TOML file")
    upgrade.set_defaults(func=cmd_db_upgrade)

    ratings = sub.add_parser("ratings", help="the ladders: records and ratings")
    ratings_sub = ratings.add_subparsers(
        dest="ratings_command", metavar="COMMAND", parser_class=_Parser
    )
    ratings_sub.required = True
    rebuild = ratings_sub.add_parser(
        "rebuild",
        help="recompute every ladder from the ended duels (docs/ladder.md)",
        description="Replay each ladder (server and ruleset) from its ended duels and store "
        "it; --check only compares (exit 1 when a stored value differs).",
    )
    rebuild.add_argument("--guild", type=int, default=None, help="only this server's ladders")
    rebuild.add_argument("--check", action="store_true", help="compare only, write nothing")
    rebuild.add_argument("--config", metavar="FILE", default=None, help="config TOML file")
    rebuild.set_defaults(func=cmd_ratings_rebuild)

    health = sub.add_parser("health", help="check that the bot is healthy")
    health.set_defaults(func=cmd_health)
    return parser


def _one_line(message: str) -> str:
    """Keys and values quoted from the input may hold line breaks: keep the error one line."""
    return " ".join(message.split())


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    command = " ".join(
        part for part in (PROG, args.command, getattr(args, "db_command", None)) if part
    )
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except (InputError, NotAvailable) as exc:
        print(f"{command}: error: {_one_line(str(exc))}", file=sys.stderr)
    except RulesError as exc:
        print(f"{command}: error: {_one_line(exc.message)}", file=sys.stderr)
    except BrokenPipeError:
        # The reader (e.g. `| head`) went away: not an error of ours. Silence the final flush.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    return EXIT_BAD_INPUT


if __name__ == "__main__":
    raise SystemExit(main())
