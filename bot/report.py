"""Pure text rendering of round results (no Discord, no I/O; odds reports are the rulesets').

Every function takes plain data: a ``RoundResult`` (or its ``to_dict()``), the round's
seed and commitment, and returns a string or a JSON-ready dict. The command line uses
them today; the Discord layer can reuse them for posts and embeds.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.rules.base import RoundResult, Ruleset, get_ruleset
from bot.rules.errors import RulesError
from bot.rules.registry import DEFAULT_RULESET_ID

PURPOSE_LABELS: dict[str, str] = {
    "evade": "Evade",
    "full_frontal_strike": "Full Frontal Strike",
}

VERIFY_HINT = (
    "Anyone can check this result: save the round's input with the revealed seed, the "
    "commitment and this result as JSON and run `duelbot verify FILE` "
    "(see docs/fairness.md)."
)

_ZWSP = "\u200b"
_MD_SPECIAL = re.compile(r"([\\`*_~|<\[\]])")
_MENTION = re.compile(r"@(everyone|here)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class _Fighter:
    side: str
    name: str
    summary: tuple[tuple[str, str], ...]  # the ruleset's fighter_summary
    move: str | None

    def summary_text(self) -> str:
        return ", ".join(f"{label} {value}" for label, value in self.summary)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def escape_markdown(text: str) -> str:
    """User text safe inside Markdown: specials escaped, @everyone/@here defused."""
    escaped = _MD_SPECIAL.sub(r"\\\1", _one_line(text))
    return _MENTION.sub(lambda m: "@" + _ZWSP + m.group(1), escaped)


def escape_bbcode(text: str) -> str:
    """User text safe inside BBCode: a zero-width space after '[' stops tag parsing."""
    return _one_line(text).replace("[", "[" + _ZWSP)


def _as_dict(result: RoundResult | Mapping[str, Any]) -> Mapping[str, Any]:
    return result.to_dict() if isinstance(result, RoundResult) else result


def side_name(state: Mapping[str, Any], side: str) -> str:
    """The display name of duellist ``side`` ("a"/"b"), "Duellist A" when unnamed."""
    duellist = state.get(side) or {}
    name = duellist.get("name") if isinstance(duellist, Mapping) else None
    return name if isinstance(name, str) and name.strip() else f"Duellist {side.upper()}"


def move_label(ruleset_id: str, move: str | None) -> str:
    """A move's display label ("Full Frontal Strike"), or "no move"."""
    if move is None:
        return "no move"
    try:
        return get_ruleset(ruleset_id).choice_label(move)
    except RulesError:
        return move


def purpose_label(purpose: str) -> str:
    return PURPOSE_LABELS.get(purpose, purpose.replace("_", " ").title())


def _rules(ruleset_id: str | None) -> Ruleset | None:
    try:
        return get_ruleset(ruleset_id or DEFAULT_RULESET_ID)
    except RulesError:
        return None


def outcome_text(
    outcome: str, a_name: str, b_name: str, ruleset_id: str | None = None
) -> str:
    """One sentence for an outcome id, with the duellists' names: the ruleset's own
    (``outcome_sentence``; the default ruleset when none is named)."""
    rules = _rules(ruleset_id)
    if rules is None:
        return outcome
    return rules.outcome_sentence(outcome, a_name, b_name)


def house_rules_text(ruleset_id: str | None, values: Any) -> str | None:
    """``key=value, ...`` of the house rules in force (``values``: what the duel recorded,
    defaults filled by the ruleset); None when the ruleset has none or none were recorded."""
    rules = _rules(ruleset_id)
    if rules is None or not rules.house_rules() or not isinstance(values, Mapping):
        return None
    try:
        pairs = rules.house_rules_summary(values)
    except RulesError:
        return None
    return ", ".join(f"{key}={value}" for key, value in pairs)


def winner_name(result: RoundResult | Mapping[str, Any]) -> str | None:
    """The winner's name (as given in the duel state), or None."""
    data = _as_dict(result)
    winner = data.get("winner")
    if winner not in ("a", "b"):
        return None
    duellist = data["state"][winner]
    name = duellist.get("name", "")
    return name if isinstance(name, str) else str(name)


def adjudication_dict(
    result: RoundResult | Mapping[str, Any], *, seed: str, commitment: str
) -> dict[str, Any]:
    """The published record of a round: exactly the `duelbot adjudicate --json` shape."""
    data = _as_dict(result)
    return {
        "outcome": data["outcome"],
        "winner": winner_name(data),
        "locked": bool(data["locked"]),
        "rolls": [
            {
                "label": r["label"],
                "sides": r["sides"],
                "value": r["value"],
                "for": r["for"],
                "purpose": r["purpose"],
            }
            for r in data["rolls"]
        ],
        "log": [str(line) for line in data["log"]],
        "seed": seed,
        "commitment": commitment,
    }


def _fighters(data: Mapping[str, Any]) -> tuple[_Fighter, _Fighter]:
    """Each duellist as the ruleset summarises them (``fighter_summary`` of their entry in
    the result's state: never a field read here)."""
    state = data["state"]
    choices = data.get("choices", {})
    rules = _rules(str(data.get("ruleset") or ""))
    out = []
    for side in ("a", "b"):
        entry = state.get(side)
        entry = entry if isinstance(entry, Mapping) else {}
        summary = tuple(rules.fighter_summary(entry)) if rules is not None else ()
        out.append(_Fighter(side, side_name(state, side), summary, choices.get(side)))
    return out[0], out[1]


def _house_rules_of(data: Mapping[str, Any]) -> str | None:
    options = data.get("options")
    recorded = options.get("house_rules") if isinstance(options, Mapping) else None
    return house_rules_text(str(data.get("ruleset") or ""), recorded) if recorded else None


def _heading(a: str, b: str, duel_id: int | None, round_no: int | None) -> str:
    where = []
    if duel_id is not None:
        where.append(f"Duel {duel_id}")
    if round_no is not None:
        where.append(f"round {round_no}")
    prefix = ", ".join(where)
    return f"{prefix}: {a} vs {b}" if prefix else f"{a} vs {b}"


def _roll_line(roll: Mapping[str, Any], names: Mapping[str, str], code: str) -> str:
    sides = roll["sides"]
    note = " (X <= 0 always yields 0)" if sides <= 0 else ""
    return (
        f"{code}: DICE{sides} = {roll['value']}{note} for {names[roll['for']]} "
        f"({purpose_label(roll['purpose'])})"
    )


def render_round_markdown(
    result: RoundResult | Mapping[str, Any],
    *,
    seed: str | None = None,
    commitment: str | None = None,
    duel_id: int | None = None,
    round_no: int | None = None,
    verify_hint: bool = True,
) -> str:
    """A round's result as a Markdown post, ready to paste (Discord, forums, GitHub)."""
    data = _as_dict(result)
    ruleset = str(data.get("ruleset", ""))
    a, b = _fighters(data)
    names = {"a": escape_markdown(a.name), "b": escape_markdown(b.name)}
    title = _ruleset_title(ruleset)
    lines = [f"**{_heading(names['a'], names['b'], duel_id, round_no)}** ({title})", ""]
    for f in (a, b):
        lines.append(
            f"- **{f.side.upper()}: {names[f.side]}**: {escape_markdown(f.summary_text())}; "
            f"move: **{move_label(ruleset, f.move)}**"
        )
    house = _house_rules_of(data)
    if house:
        lines.append(f"- House rules: {escape_markdown(house)}")
    lines += ["", "**Rolls**"]
    rolls = data["rolls"]
    if rolls:
        for roll in rolls:
            lines.append("- " + _roll_line(roll, names, f"`{roll['label']}`"))
    else:
        lines.append("- no dice were rolled")
    lines += ["", "**Adjudication**"]
    lines += [f"- {escape_markdown(line)}" for line in data["log"]]
    winner = winner_name(data)
    lines += [
        "",
        f"**Outcome: {outcome_text(data['outcome'], names['a'], names['b'], ruleset)}** "
        f"(`{data['outcome']}`)",
        f"- Winner: {escape_markdown(winner) if winner is not None else 'none'}",
        f"- Locked in combat: {'yes' if data['locked'] else 'no'}",
    ]
    if seed is not None:
        lines.append(f"- Seed (revealed): `{seed}`")
    if commitment is not None:
        lines.append(f"- Commitment (SHA-256 of the seed): `{commitment}`")
    if verify_hint:
        lines += ["", f"*{VERIFY_HINT}*"]
    return "\n".join(lines) + "\n"


def render_round_bbcode(
    result: RoundResult | Mapping[str, Any],
    *,
    seed: str | None = None,
    commitment: str | None = None,
    duel_id: int | None = None,
    round_no: int | None = None,
    verify_hint: bool = True,
) -> str:
    """A round's result as a BBCode forum post."""
    data = _as_dict(result)
    ruleset = str(data.get("ruleset", ""))
    a, b = _fighters(data)
    names = {"a": escape_bbcode(a.name), "b": escape_bbcode(b.name)}
    title = _ruleset_title(ruleset)
    lines = [f"[b]{_heading(names['a'], names['b'], duel_id, round_no)}[/b] ({title})", ""]
    lines.append("[list]")
    for f in (a, b):
        lines.append(
            f"[*][b]{f.side.upper()}: {names[f.side]}[/b]: {escape_bbcode(f.summary_text())}; "
            f"move: [b]{move_label(ruleset, f.move)}[/b]"
        )
    house = _house_rules_of(data)
    if house:
        lines.append(f"[*]House rules: {escape_bbcode(house)}")
    lines += ["[/list]", "", "[b]Rolls[/b]", "[list]"]
    rolls = data["rolls"]
    if rolls:
        for roll in rolls:
            lines.append("[*]" + _roll_line(roll, names, roll["label"]))
    else:
        lines.append("[*]no dice were rolled")
    lines += ["[/list]", "", "[b]Adjudication[/b]", "[list]"]
    lines += [f"[*]{escape_bbcode(line)}" for line in data["log"]]
    lines.append("[/list]")
    winner = winner_name(data)
    lines += [
        "",
        f"[b]Outcome: {outcome_text(data['outcome'], names['a'], names['b'], ruleset)}[/b] "
        f"({data['outcome']})",
        f"Winner: {escape_bbcode(winner) if winner is not None else 'none'}",
        f"Locked in combat: {'yes' if data['locked'] else 'no'}",
    ]
    if seed is not None:
        lines.append(f"Seed (revealed): {seed}")
    if commitment is not None:
        lines.append(f"Commitment (SHA-256 of the seed): {commitment}")
    if verify_hint:
        lines += ["", f"[i]{VERIFY_HINT.replace('`', '')}[/i]"]
    return "\n".join(lines) + "\n"


# -- the rules fixed for a duel ----------------------------------------------------------


def _ruleset_uses(ruleset_id: str, key: str, one: Any, other: Any) -> bool:
    """Does the duel's ruleset adjudicate differently with ``key`` = one or other?"""
    try:
        rules = get_ruleset(ruleset_id)
    except RulesError:
        return True
    return bool(rules.make_options({key: one}) != rules.make_options({key: other}))


def rules_in_force(ruleset_id: str, options: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The rules a duel was fixed with when it started (``duels.options``) as (name, meaning)
    pairs, plain text (callers escape it): the duel card, `/duel status`, exports. A setting
    the duel's ruleset ignores is left out; one a duel older than the snapshot did not
    record says so."""
    lines: list[tuple[str, str]] = []
    change = options.get("change_of_choice")
    lines.append(
        (
            "Change of choice",
            "not recorded"
            if change is None
            else "on: a duellist may change a move until the round closes"
            if change
            else "off: a submitted move is locked in for the round",
        )
    )
    missing = options.get("missing_move")
    if _ruleset_uses(ruleset_id, "missing_move", "none", "forfeit"):
        lines.append(
            (
                "Missing move",
                "not recorded"
                if missing is None
                else "forfeit: a duellist without a move at the close loses"
                if missing == "forfeit"
                else f"{missing}: no move is made",
            )
        )
    blocks = options.get("locked_blocks_retreat")
    if _ruleset_uses(ruleset_id, "locked_blocks_retreat", True, False):
        lines.append(
            (
                "Locked blocks retreat",
                # yes/no alone: the setting's name says it (and a move's name in a public
                # text would look like a leaked move to a reader, and to the secrecy audit).
                "not recorded" if blocks is None else "yes" if blocks else "no",
            )
        )
    rules = _rules(ruleset_id)
    house_keys = {rule.key for rule in rules.house_rules()} if rules is not None else set()
    if house_keys:
        house = house_rules_text(ruleset_id, options.get("house_rules"))
        lines.append(
            (
                "House rules",
                house
                if house is not None
                # Started before house rules were recorded: the readings of its time apply.
                else "not recorded (the duel predates them)",
            )
        )
    params = options.get("params")
    if isinstance(params, Mapping) and params:
        other = {
            k: v for k, v in params.items() if str(k).strip().casefold().replace("_", "-")
            not in house_keys
        }
        shown = ", ".join(f"{_one_line(str(k))}={_one_line(str(v))}" for k, v in other.items())
        if shown:
            lines.append(("Duel settings", shown))
    return lines


def _ruleset_title(ruleset_id: str) -> str:
    try:
        return get_ruleset(ruleset_id).title
    except RulesError:
        return ruleset_id or "unknown ruleset"
