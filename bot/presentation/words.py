"""What the bot says, in plain words for every format (renderers escape what they show):
move and roll labels, outcome sentences, the rules fixed for a duel, close reasons, the
fairness hints. Every ruleset-specific word comes from the ruleset (bot/rules).

Every text here goes through the catalog (bot/i18n/context.py) in the caller's
``speaking(...)`` scope; module constants are marked with ``N_`` and translated at use."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.i18n.context import _, _p
from bot.i18n.translate import N_
from bot.rules import registry
from bot.rules.base import Ruleset
from bot.rules.capabilities import HouseRules, capability
from bot.rules.errors import RulesError
from bot.rules.registry import DEFAULT_RULESET_ID
from bot.rules.terms import RulesetWords, StepWords

#: The words of a record whose ruleset is not registered: the neutral ones.
NEUTRAL_WORDS = RulesetWords()


#: How a round came to close, as a result says it.
CLOSE_REASONS = {
    "deadline": N_("closed automatically at the deadline"),
    "commander": N_("closed by a commander"),
    "all_submitted": N_("closed when every awaited duellist had chosen"),
}

#: A duel's and a round's status as stored, in words.
STATUS_TEXT = {
    "live": N_("live"),
    "ended": N_("ended"),
    "open": N_("open"),
    "closed": N_("closed"),
    "undone": N_("undone"),
    "cancelled": N_("cancelled"),
}

VERIFY_HINT = N_(
    "Anyone can check this result: save the round's input with the revealed seed, the "
    "commitment and this result as JSON and run `duelbot verify FILE` "
    "(see docs/fairness.md)."
)
FAIRNESS_HINT = N_(
    "Anyone can check this: `duelbot verify` re-derives the rolls from the revealed seed "
    "and checks it against the commitment (docs/fairness.md)."
)


def close_reason(reason: str) -> str:
    """How a round closed (a ``CLOSE_REASONS`` key), in the current language; an unknown
    reason as it is."""
    known = CLOSE_REASONS.get(reason)
    return _(known) if known is not None else reason


def status_text(status: str) -> str:
    """A stored status ("live", "undone"...) in words, in the current language."""
    known = STATUS_TEXT.get(status)
    return _(known) if known is not None else status


def one_line(text: Any) -> str:
    return " ".join(str(text).split())


def undone_note(by: str | None, reason: str | None) -> str:
    """" (undone by X: reason)" after an undone round's title; ``by`` and ``reason`` as the
    format shows them (already escaped)."""
    if by and reason:
        return " " + _("(undone by {by}: {reason})", by=by, reason=reason)
    if by:
        return " " + _("(undone by {by})", by=by)
    if reason:
        return " " + _("(undone: {reason})", reason=reason)
    return " " + _("(undone)")


def follows_undo_note(round_no: int | None) -> str:
    """" (follows the undo of round N)" after a re-rolled round's title."""
    if round_no is None:
        return ""
    return " " + _("(follows the undo of round {round})", round=round_no)


def ruleset_or_none(ruleset_id: str | None) -> Ruleset | None:
    """The ruleset a stored record names, as the presentation reads it: the default one
    when the record names none (a round stored before rulesets were recorded), None when it
    is not registered (``registry.get_or_none``)."""
    return registry.get_or_none(ruleset_id or DEFAULT_RULESET_ID)


def ruleset_words(ruleset_id: str | None) -> RulesetWords:
    """The words of a record's ruleset (the neutral ones when it is not registered)."""
    rules = ruleset_or_none(ruleset_id)
    return rules.words if rules is not None else NEUTRAL_WORDS


def step_words_of(ruleset_id: str | None, number: int, words: StepWords | None) -> StepWords:
    """A message's words of its round (step): as the service wrote them, or for a message
    written before they were carried, the ruleset's nouns with the stored number."""
    if words is not None:
        return words
    rw = ruleset_words(ruleset_id)
    return StepWords(round_label(rw.round.one, number), rw.round.one, rw.move.one, rw.closes)


def round_label(noun: str, number: object) -> str:
    """A round's (step's) label from the ruleset's noun and its number ("round 3")."""
    # Translators: a round's label, {round} is the ruleset's noun ("round", "step").
    return _p("round label", "{round} {number}", round=noun, number=number)


def capital(text: str) -> str:
    """``text`` with its first letter in upper case ("step 3" -> "Step 3")."""
    return text[:1].upper() + text[1:]


def closes_text(words: StepWords) -> str:
    """Who closes the round (step) when it has no deadline, as a sentence."""
    if words.closes == "itself":
        return _(
            "the {round} closes by itself as soon as the awaited duellists have chosen",
            round=words.round,
        )
    return _("a commander closes the {round}", round=words.round)


def setting_name(key: str) -> str:
    """A per-duel setting's key in words ("public_stake" -> "Public stake"): no code-like
    ``key=value`` is shown to people."""
    return capital(one_line(key).replace("_", " ").replace("-", " "))


def setting_value(value: Any) -> str:
    """A setting's value in words: a bool as yes/no, a side ("a"/"b") as the duellist."""
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if value in ("a", "b"):
        return _("duellist {side}", side=str(value).upper())
    return one_line(str(value).replace("_", " "))


def ruleset_title(ruleset_id: str) -> str:
    rules = registry.get_or_none(ruleset_id)
    return rules.title if rules is not None else ruleset_id or _("unknown ruleset")


def side_name(state: Mapping[str, Any], side: str) -> str:
    """The display name of duellist ``side`` ("a"/"b"), "Duellist A" when unnamed."""
    duellist = state.get(side) or {}
    name = duellist.get("name") if isinstance(duellist, Mapping) else None
    if isinstance(name, str) and name.strip():
        return name
    return _("Duellist {side}", side=side.upper())


def move_label(ruleset_id: str, move: str | None) -> str:
    """A move's display label ("Full Frontal Strike"), or "no move"."""
    if move is None:
        return _("no move")
    rules = registry.get_or_none(ruleset_id)
    if rules is None:
        return move
    try:
        return rules.choice_label(move)
    except RulesError:
        return move


def purpose_label(purpose: str, fixed: Mapping[str, str] | None) -> str:
    """A roll's purpose as the published round fixed it in the ruleset's words; the id
    read as words for a round published before it did."""
    known = (fixed or {}).get(purpose)
    return known if known is not None else purpose.replace("_", " ").title()


def outcome_text(outcome: str, a_name: str, b_name: str, ruleset_id: str | None = None) -> str:
    """One sentence for an outcome id, with the duellists' names: the ruleset's own
    (``outcome_sentence``; the default ruleset when none is named)."""
    rules = ruleset_or_none(ruleset_id)
    if rules is None:
        return outcome
    return rules.outcome_sentence(outcome, a_name, b_name)


def house_rules_text(ruleset_id: str | None, values: Any) -> str | None:
    """``key=value, ...`` of the house rules in force (``values``: what the duel recorded,
    defaults filled by the ruleset); None when the ruleset has none or none were recorded."""
    rules = capability(ruleset_or_none(ruleset_id), HouseRules)
    if rules is None or not rules.house_rules() or not isinstance(values, Mapping):
        return None
    try:
        pairs = rules.house_rules_summary(values)
    except RulesError:
        return None
    return ", ".join(f"{key}={value}" for key, value in pairs)


def older_house_rules(rules: HouseRules | None, options: Mapping[str, Any]) -> dict[str, str]:
    """The house rules a duel started before its ruleset declared them stored among its
    top-level options (a former server setting, ``HouseRule.former_setting``, before
    migration 0007), as the ruleset reads them; {} when none (or none it still accepts)."""
    if rules is None:
        return {}
    top = {k: v for k, v in options.items() if k not in ("params", "house_rules")}
    try:
        return rules.explicit_house_rules(top)
    except RulesError:
        return {}


def _ruleset_uses(ruleset_id: str, key: str, one: Any, other: Any) -> bool:
    """Does the duel's ruleset adjudicate differently with ``key`` = one or other?"""
    rules = registry.get_or_none(ruleset_id)
    if rules is None:
        return True
    return bool(rules.make_options({key: one}) != rules.make_options({key: other}))


def rules_in_force(ruleset_id: str, options: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The rules a duel was fixed with when it started (``duels.options``) as (name, meaning)
    pairs, plain text (callers escape it): the duel card, `/duel status`, exports. A setting
    the duel's ruleset ignores is left out; one a duel older than the snapshot did not
    record says so."""
    lines: list[tuple[str, str]] = []
    words = ruleset_words(ruleset_id)
    move, rnd = words.move.one, words.round.one
    change = options.get("change_of_choice")
    lines.append(
        (
            _("Change of choice"),
            _("not recorded")
            if change is None
            else _(
                "on: a duellist may change a {move} until the {round} closes",
                move=move,
                round=rnd,
            )
            if change
            else _("off: a submitted {move} is locked in for the {round}", move=move, round=rnd),
        )
    )
    missing = options.get("missing_move")
    if _ruleset_uses(ruleset_id, "missing_move", "none", "forfeit"):
        lines.append(
            (
                _("Missing move"),
                _("not recorded")
                if missing is None
                else _("forfeit: a duellist without a {move} at the close loses", move=move)
                if missing == "forfeit"
                else _("{policy}: no {move} is made", policy=missing, move=move),
            )
        )
    rules = capability(ruleset_or_none(ruleset_id), HouseRules)
    house_keys = {rule.key for rule in rules.house_rules()} if rules is not None else set()
    if house_keys:
        recorded_rules = options.get("house_rules")
        if not isinstance(recorded_rules, Mapping) and rules is not None:
            # A server setting that became a house rule: an older duel recorded it among
            # its options.
            recorded_rules = older_house_rules(rules, options) or None
        house = house_rules_text(ruleset_id, recorded_rules)
        lines.append(
            (
                _("House rules"),
                house
                if house is not None
                # Started before house rules were recorded: the readings of its time apply.
                else _("not recorded (the duel predates them)"),
            )
        )
    params = options.get("params")
    recorded = isinstance(options.get("house_rules"), Mapping)
    if isinstance(params, Mapping) and params:
        # House rules are on their own line when recorded; an older duel's given ones stay
        # here, so what it was started with is still shown.
        other = {
            k: v
            for k, v in params.items()
            if not recorded or str(k).strip().casefold().replace("_", "-") not in house_keys
        }
        # A house rule keeps the spelling `/duel start params:` takes (flight=after-blows);
        # any other setting reads as words, never as a code.
        shown = "; ".join(
            f"{one_line(k)}={setting_value(v)}"
            if str(k).strip().casefold().replace("_", "-") in house_keys
            else f"{setting_name(str(k))}: {setting_value(v)}"
            for k, v in other.items()
        )
        if shown:
            lines.append((_("Duel settings"), shown))
    return lines
