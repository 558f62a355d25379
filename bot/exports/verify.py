"""Whole-duel verification of an export document (docs/export-format.md), for any ruleset.

Per round: SHA-256(seed) is the commitment published when it opened; every roll's label is
the round's k-th label and its value is re-derived from the seed (docs/fairness.md); the
state before it follows from the round before; and the round is re-adjudicated through its
ruleset from ``state_before``, ``choices`` and ``options``, the result compared with what
was published. The re-adjudication speaks the duel's language (the document's
``language``), as its close did: a ruleset may keep texts of it in its state. What verify
itself says stays English (the command line's). Pure: no database, no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from bot.exports.document import FORMAT, ROUND_STATUSES, VERSION
from bot.exports.verify_report import DuelCheck, RoundCheck
from bot.i18n.context import speaking
from bot.rules import registry
from bot.rules.base import Ruleset
from bot.rules.capabilities import (
    MultiStep,
    ShortAdjudication,
    VerifiableDice,
    capability,
)
from bot.rules.dice import commitment, derive_roll, parse_seed, roll_label
from bot.rules.errors import RulesError

#: The parts of a result re-adjudication reproduces, in the order they are compared (the
#: log is left out: its wording may change between versions; it follows from the rest).
COMPARED = ("choices", "outcome", "winner", "ended", "rolls", "state")
ROLL_FIELDS = ("label", "sides", "value", "for", "purpose")
#: Below this chance that a wrong seed re-derives every roll, a commitment that does not
#: match a seed which re-derives them is said to be the changed one.
CHANCE_THRESHOLD = 1e-6
#: What a round's ``withheld`` may name (docs/export-format.md). A closed round's seed and
#: result are always published; ``MultiStep.withholdable`` says when the rest may be withheld.
WITHHELD_NAMES = ("seed", "result", "choices.a", "choices.b", "state_before")
#: A document's ``status``.
DUEL_STATUSES = ("live", "ended")
#: The round statuses that were adjudicated: verify re-adjudicates them.
ADJUDICATED = ("closed", "undone")
#: What ruleset code may raise on a document it was never meant to see (a pasted state of
#: the wrong shape, 1e400, 10**30): the document's fault, said in one line, never a
#: traceback (issue 23).
HOSTILE_ERRORS = (
    ArithmeticError, LookupError, TypeError, ValueError, AttributeError, RecursionError
)  # fmt: skip


class UnreadableExport(Exception):
    """Not a duel export this version can read; the message names the field."""


@contextmanager
def reading(where: str) -> Iterator[None]:
    """Run ruleset code on part of a hostile document: its refusal, or any error it was not
    written to expect, becomes UnreadableExport naming ``where`` (exit 2, one line)."""
    try:
        yield
    except RulesError as exc:
        raise UnreadableExport(f"{where}: {exc.message}") from None
    except HOSTILE_ERRORS as exc:
        raise UnreadableExport(
            f"{where}: cannot be read ({type(exc).__name__}: {_show(str(exc))})"
        ) from None


def is_duel_export(data: Any) -> bool:
    """Does ``data`` carry the whole-duel format marker?"""
    return isinstance(data, Mapping) and data.get("format") == FORMAT


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 80 else text[:80] + "…"


def first_difference(published: Any, expected: Any, path: str) -> tuple[str, Any, Any] | None:
    """The first place two JSON values differ: (path, published part, expected part)."""
    if isinstance(published, Mapping) and isinstance(expected, Mapping):
        for key in sorted(set(published) | set(expected), key=str):
            sub = f"{path}.{key}" if path else str(key)
            if key not in published or key not in expected:
                return sub, published.get(key, "(missing)"), expected.get(key, "(missing)")
            found = first_difference(published[key], expected[key], sub)
            if found is not None:
                return found
        return None
    if isinstance(published, list) and isinstance(expected, list):
        for i, (p, e) in enumerate(zip(published, expected, strict=False)):
            found = first_difference(p, e, f"{path}[{i}]")
            if found is not None:
                return found
        if len(published) != len(expected):
            return f"{path} (length)", len(published), len(expected)
        return None
    if type(published) is not type(expected) or published != expected:
        return path, published, expected
    return None


# -- reading the document ----------------------------------------------------------------


def _whole(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise UnreadableExport(f"{where} must be a whole number, not {_show(value)}")
    return value


def _read_language(data: Mapping[str, Any]) -> str | None:
    """The duel's language (``language``: a catalog's name, null or absent: English)."""
    language = data.get("language")
    if language is None:
        return None
    if not isinstance(language, str) or not language.strip() or len(language) > 35:
        raise UnreadableExport(
            f'language must be a language\'s name such as "de", or null, not {_show(language)}'
        )
    return language


def _read_header(data: Any) -> tuple[int, Ruleset, list[Mapping[str, Any]]]:
    if not is_duel_export(data):
        raise UnreadableExport(f'the document has no "format": "{FORMAT}" marker')
    version = data.get("version")
    if version != VERSION:
        raise UnreadableExport(
            f"version {_show(version)} is not supported: this duelbot reads version {VERSION}"
        )
    duel_id = _whole(data.get("duel_id"), "duel_id")
    ruleset_id = data.get("ruleset")
    if not isinstance(ruleset_id, str):
        raise UnreadableExport("ruleset must be a ruleset id (a string)")
    try:
        rules = registry.get(ruleset_id)
    except RulesError as exc:
        raise UnreadableExport(f"ruleset: {exc.message}") from None
    rounds = data.get("rounds")
    if not isinstance(rounds, list) or not all(isinstance(r, Mapping) for r in rounds):
        raise UnreadableExport("rounds must be a list of round objects")
    for i, r in enumerate(rounds):
        _whole(r.get("number"), f"rounds[{i}].number")
        if r.get("status") not in ROUND_STATUSES:
            raise UnreadableExport(
                f"rounds[{i}].status must be one of {', '.join(ROUND_STATUSES)}, "
                f"not {_show(r.get('status'))}"
            )
    if data.get("status") not in DUEL_STATUSES:
        raise UnreadableExport(
            f"status must be one of {', '.join(DUEL_STATUSES)}, not {_show(data.get('status'))}"
        )
    _read_language(data)
    for i, r in enumerate(rounds):
        _read_round(rules, f"rounds[{i}]", r)
    return duel_id, rules, rounds


def _read_round(rules: Ruleset, where: str, r: Mapping[str, Any]) -> None:
    """What re-adjudicating a round needs is of the right type and readable by its ruleset
    (else exit 2); the values published are compared later (exit 1)."""
    withheld = r.get("withheld", [])
    if not isinstance(withheld, list) or not all(w in WITHHELD_NAMES for w in withheld):
        raise UnreadableExport(
            f"{where}.withheld must be a list of {', '.join(WITHHELD_NAMES)}, "
            f"not {_show(withheld)}"
        )
    if r["status"] not in ADJUDICATED:
        return  # open or cancelled: nothing of it is re-adjudicated
    state = r.get("state_before")
    if not isinstance(state, Mapping):
        raise UnreadableExport(
            f"{where}.state_before must be an object (the duel state), not {_show(state)}"
        )
    with reading(f"{where}.state_before"):
        rules.state_from_dict(state)
    choices = r.get("choices")
    if (
        not isinstance(choices, Mapping)
        or not set(choices) <= {"a", "b"}
        or not all(c is None or isinstance(c, str) for c in choices.values())
    ):
        raise UnreadableExport(
            f'{where}.choices must be {{"a": ..., "b": ...}}, each a choice id or null, '
            f"not {_show(choices)}"
        )
    options = r.get("options")
    if options is not None and not isinstance(options, Mapping):
        raise UnreadableExport(f"{where}.options must be an object, not {_show(options)}")
    with reading(f"{where}.options"):
        rules.make_options(dict(options or {}))


# -- one round -----------------------------------------------------------------------------


def _seed_and_rolls(
    check: RoundCheck, duel_id: int, r: Mapping[str, Any], rolls: list[Any]
) -> str | None:
    """Commitment and roll derivation; returns the seed when it is usable."""
    seed, published = r.get("seed"), r.get("commitment")
    try:
        raw = parse_seed(seed)  # type: ignore[arg-type]
    except RulesError:
        check.mismatches.append(f"seed: {_show(seed)} is not 64 hexadecimal characters")
        return None
    roll_problems: list[str] = []
    chance = 1.0  # that a wrong seed would still re-derive every roll
    for k, roll in enumerate(rolls):
        if not isinstance(roll, Mapping):
            roll_problems.append(f"rolls[{k}]: not a roll object")
            continue
        unknown = sorted(set(roll) - set(ROLL_FIELDS), key=str)
        if unknown:  # a roll is exactly what the rules made: nothing can ride along on it
            roll_problems.append(
                f"rolls[{k}]: unknown key(s) {_show(unknown)}; a roll has {', '.join(ROLL_FIELDS)}"
            )
            continue
        label = roll_label(duel_id, check.number, k)
        if roll.get("label") != label:
            roll_problems.append(
                f"rolls[{k}].label: published {_show(roll.get('label'))}, expected {label!r}"
            )
            continue
        sides, value = roll.get("sides"), roll.get("value")
        if isinstance(sides, bool) or not isinstance(sides, int):
            roll_problems.append(f"rolls[{k}].sides: {_show(sides)} is not a whole number")
            continue
        try:
            want = derive_roll(raw, label, sides)
        except RulesError as exc:
            roll_problems.append(f"rolls[{k}].sides: {exc.message}")
            continue
        if not (type(value) is int and value == want):
            roll_problems.append(
                f"rolls[{k}].value: published {_show(value)}, re-derived {want}"
            )
        elif sides > 1:
            chance /= sides
    actual = commitment(seed)  # type: ignore[arg-type]
    if not isinstance(published, str) or published.strip().lower() != actual:
        # Which of the two was changed? A changed seed no longer re-derives the rolls; when
        # they all re-derive and that could hardly be chance, the commitment was changed.
        if roll_problems:
            check.mismatches.append(
                f"seed: SHA-256 of the seed is {actual}, not the published commitment "
                f"{_show(published)}, and the seed does not re-derive the published rolls"
            )
        elif chance < CHANCE_THRESHOLD:
            check.mismatches.append(
                f"commitment: published {_show(published)}, but SHA-256 of the seed "
                f"(which re-derives every roll) is {actual}"
            )
        else:
            check.mismatches.append(
                f"seed/commitment: SHA-256 of the seed is {actual}, not the published "
                f"commitment {_show(published)} (too few rolls to tell which was changed)"
            )
    check.mismatches += roll_problems
    if not check.mismatches:
        check.checked.append(f"commitment matches the seed; {len(rolls)} roll(s) re-derived")
    return seed


def _english_refusal(rules: Ruleset, round_data: Mapping[str, Any], exc: RulesError) -> str:
    """The rules' refusal of a round in English (verify's own language): refused in the
    duel's language, the same round refuses alike outside its scope."""
    try:
        rules.readjudicate_round(round_data)
    except RulesError as english:
        return english.message
    return exc.message


def _readjudicate(
    check: RoundCheck,
    rules: Ruleset,
    duel_id: int,
    r: Mapping[str, Any],
    result: Mapping[str, Any],
    seed: str,
    language: str | None = None,
) -> None:
    """Re-adjudicate the round in the duel's ``language`` and compare the result."""
    choices = r.get("choices")
    options = r.get("options") or {}
    with reading(f"round {check.number}"):  # what the ruleset did not expect: exit 2
        if _not_canonical(check, rules, r):
            return
        round_data = {
            "state_before": r.get("state_before"),
            "choices": choices if isinstance(choices, Mapping) else {},
            "options": options,
            "seed": seed,
            "duel_id": duel_id,
            "round_no": check.number,
        }
        try:
            with speaking(language):
                redone = rules.readjudicate_round(round_data)
                expected = rules.public_result(redone.to_dict())
        except RulesError as exc:  # the rules refuse these choices in this state: exit 1
            check.mismatches.append(
                "state_before/choices: the rules refuse to re-adjudicate them: "
                + _english_refusal(rules, round_data, exc)
            )
            return
    # Results published before issue 24 repeated a ruleset's own short-shape keys at the
    # top (fields it now keeps in its state alone): compared when published, against
    # what the ruleset reads from the re-adjudicated state.
    compared = list(COMPARED)
    short = capability(rules, ShortAdjudication)
    if short is not None:
        for key, value in short.short_result(expected.get("state") or {}).items():
            if key in result:
                expected = {**expected, key: value}
                compared.append(key)
    for key in compared:
        found = first_difference(result.get(key, "(missing)"), expected.get(key), key)
        if found is not None:
            where, got, want = found
            verb = "re-derived" if key == "rolls" else "re-adjudicated"
            check.mismatches.append(
                f"{where}: published {_show(got)}, {verb} {_show(want)} "
                "(from state_before, choices and options)"
            )
            return
    if r.get("outcome") != expected["outcome"]:
        check.mismatches.append(
            f"outcome: published {_show(r.get('outcome'))}, re-adjudicated "
            f"{_show(expected['outcome'])}"
        )
        return
    check.checked.append(f"re-adjudicated: {expected['outcome']}")


def _not_canonical(check: RoundCheck, rules: Ruleset, r: Mapping[str, Any]) -> bool:
    """An export holds each choice as the adjudicator got it, a canonical id: another
    spelling of it ("ffs") would re-adjudicate the same and hide that the field was
    changed, so it is a mismatch. True when one was found (or the rules refuse one)."""
    state = rules.state_from_dict(r["state_before"])
    for side in ("a", "b"):
        chosen = r["choices"].get(side)
        if chosen is None:
            continue
        try:
            canonical = rules.parse_choice(chosen, state, side)
        except RulesError as exc:
            check.mismatches.append(
                f"choices.{side}: the rules refuse {_show(chosen)} here: {exc.message}"
            )
            return True
        if canonical != chosen:
            check.mismatches.append(
                f"choices.{side}: published {_show(chosen)}, not a canonical choice id "
                f"(the rules read it as {_show(canonical)})"
            )
            return True
    return False


def _withheld_claims(
    check: RoundCheck, rules: Ruleset, r: Mapping[str, Any], ended: bool
) -> list[str]:
    """The round's ``withheld`` claims its ruleset allows (the rest are mismatches):
    nothing once the duel has ended, else what ``MultiStep.withholdable`` declares."""
    claims: list[str] = list(r.get("withheld") or [])
    state = r["state_before"]
    allowed: frozenset[str] = frozenset()
    steps = capability(rules, MultiStep)  # None: every choice and the whole state public
    if not ended and steps is not None:
        with reading(f"round {check.number}: state_before"):
            allowed = frozenset(steps.withholdable(state))
    for name in claims:
        if name in allowed:
            continue
        if name in ("seed", "result"):
            why = f"a {check.status} round's {name} is always published"
        elif ended:
            why = "the duel has ended, and an ended duel's export withholds nothing"
        elif allowed:
            why = (
                f"{rules.title} withholds only {', '.join(sorted(allowed))} of this round "
                "while the duel runs"
            )
        else:
            why = f"{rules.title} withholds nothing of a {check.status} round"
        check.mismatches.append(f"withheld: {name} is withheld, but {why}")
    return [name for name in claims if name in allowed]


def _not_present(rules: Ruleset, r: Mapping[str, Any], secret: list[str]) -> list[str]:
    """What a round lacks for re-adjudication among its (allowed) withheld claims: a
    claimed choice that is there, or a state with more than its public part, is used."""
    missing: list[str] = []
    state, choices = r["state_before"], r["choices"]
    if "state_before" in secret:
        with reading("state_before"):
            if rules.public_state(state) == dict(state):
                missing.append("state_before (only its public part is shown)")
    missing += [
        name for name in ("choices.a", "choices.b")
        if name in secret and choices.get(name[-1]) is None
    ]  # fmt: skip
    return missing


def _check_round(
    rules: Ruleset,
    duel_id: int,
    r: Mapping[str, Any],
    ended: bool,
    state_expected: tuple[int, Any] | None,
    language: str | None = None,
) -> RoundCheck:
    check = RoundCheck(int(r["number"]), str(r["status"]))
    if check.status == "open":
        check.skipped = "the round is open: its seed and moves stay sealed until it closes"
        return check
    if check.status == "cancelled":
        check.skipped = "the round was cancelled before it resolved (its moves stay sealed)"
        if r.get("seed") is not None:
            _seed_and_rolls(check, duel_id, r, [])
        return check
    result = r.get("result")
    if not isinstance(result, Mapping):
        check.mismatches.append("result: missing (a closed round publishes its result)")
        return check
    rolls = result.get("rolls")
    if not isinstance(rolls, list):
        check.mismatches.append("rolls: missing (the result's list of rolls)")
        return check
    seed = _seed_and_rolls(check, duel_id, r, rolls)
    if seed is None or check.mismatches:
        return check
    _check_state_chain(check, rules, r, state_expected)
    if check.mismatches:
        return check
    # Re-adjudicated whatever ``withheld`` says when its choices and state are there
    # (issue 23): a claim the ruleset does not allow is itself a mismatch.
    secret = _withheld_claims(check, rules, r, ended)
    refused = list(check.mismatches)
    check.mismatches.clear()
    missing = _not_present(rules, r, secret)
    if missing:
        check.skipped = f"withheld while the duel runs: {', '.join(missing)}"
        # Without re-adjudication the rolls' number is unknown; the public log states
        # them, so a deleted or added roll still shows.
        dice = capability(rules, VerifiableDice)
        stated = None if dice is None else dice.stated_dice(result.get("log"))
        published = [roll.get("value") if isinstance(roll, Mapping) else roll for roll in rolls]
        if stated is not None and stated != published:
            check.mismatches.append(
                f"rolls: published values {_show(published)}, but the round's log states "
                f"{_show(stated)}"
            )
        if r.get("outcome") != result.get("outcome"):
            check.mismatches.append(
                f"outcome: published {_show(r.get('outcome'))}, its result says "
                f"{_show(result.get('outcome'))}"
            )
    else:
        _readjudicate(check, rules, duel_id, r, result, seed, language)
    check.mismatches += refused  # a forged outcome first, then the claim that hid it
    return check


def _check_state_chain(
    check: RoundCheck,
    rules: Ruleset,
    r: Mapping[str, Any],
    state_expected: tuple[int, Any] | None,
) -> None:
    """The state before a round is the state the round before left (an undone round leaves
    the state it found)."""
    before = r.get("state_before")
    if state_expected is None or not isinstance(before, Mapping):
        return
    previous, state = state_expected
    if not isinstance(state, Mapping):
        return
    with reading(f"round {previous}: result.state"):
        left = rules.public_state(state)
    with reading(f"round {check.number}: state_before"):
        found = first_difference(rules.public_state(before), left, "state_before")
    if found is not None:
        where, got, want = found
        check.mismatches.append(
            f"{where}: published {_show(got)}, but round {previous} left {_show(want)}"
        )


def verify_duel(data: Any) -> DuelCheck:
    """Check every round of an export document; UnreadableExport when it is not one."""
    duel_id, rules, rounds = _read_header(data)
    language = _read_language(data)
    ended = data.get("status") == "ended"
    checks: list[RoundCheck] = []
    state_expected: tuple[int, Any] | None = None
    last_result: Mapping[str, Any] | None = None
    for r in rounds:
        checks.append(_check_round(rules, duel_id, r, ended, state_expected, language))
        result = r.get("result")
        if r.get("status") == "closed" and isinstance(result, Mapping):
            state_expected = (int(r["number"]), result.get("state"))
            last_result = result
        elif r.get("status") == "undone" and isinstance(r.get("state_before"), Mapping):
            state_expected = (int(r["number"]), r.get("state_before"))
            last_result = None
    check = DuelCheck(duel_id, rules.id, checks)
    if not ended:
        # A live duel's rounds cannot have ended it (an undone one could: it is "undone").
        for r in rounds:
            result = r.get("result")
            if r.get("status") == "closed" and isinstance(result, Mapping) and (
                result.get("ended") is True
            ):
                check.duel_mismatches.append(
                    f"status: published \"live\", but round {r['number']} ended the duel"
                )
                break
    if (
        data.get("end_kind") == "result"
        and last_result is not None
        and last_result.get("ended")
        and data.get("winner") != last_result.get("winner")
    ):
        check.duel_mismatches.append(
            f"winner: published {_show(data.get('winner'))}, the last round's result gives "
            f"{_show(last_result.get('winner'))}"
        )
    return check


__all__ = ["DuelCheck", "RoundCheck", "UnreadableExport", "is_duel_export", "verify_duel"]
