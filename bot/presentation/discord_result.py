"""A round result as a Discord embed, read at a glance (issue 26).

On top, in the description: the outcome in one sentence, then each duellist's move with the
dice they rolled, then the ruleset's own facts of the result (``Ruleset.result_facts``, fixed
in the published round) and how the round closed. Below it the
rule-cited log. The footer is one short line: the post's marker, the revealed seed and the
commitment shortened (in full in `/duel history`, `/duel export` and the archive page, whose
link follows the log when ``[archive] base_url`` is set) and the duel's house rules. Roll
labels are not shown: each is ``duel:N:round:R:roll:I`` and the archive page, `/duel export`
and ``duelbot verify`` list them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import discord

from bot.i18n.context import _, _n
from bot.presentation.discord_text import FIELD_VALUE_MAX, safe, truncate
from bot.presentation.views import RollLine, RoundResultView
from bot.presentation.words import capital, round_label, ruleset_or_none

COLOUR_RESULT = discord.Colour.gold()

#: One side's line of moves and dice, cut here (a FoEQ reroll label can be long).
SIDE_LINE_MAX = 900


def duel_ref(duel_id: int | None) -> str:
    return _("Duel #{duel}", duel=duel_id if duel_id is not None else "?")


def ruleset_name(ruleset_id: str) -> str:
    rules = ruleset_or_none(ruleset_id)
    return safe(rules.short_name(), 60) if rules is not None else safe(ruleset_id, 40)


def line_fields(name: str, lines: Sequence[str], max_fields: int = 3) -> list[tuple[str, str]]:
    """Lines packed into at most ``max_fields`` embed fields (each value <= 1024 characters);
    lines that do not fit are summarised as "... and N more"."""
    fields: list[tuple[str, str]] = []
    chunk: list[str] = []
    size = 0
    left_out = 0
    for index, raw in enumerate(lines):
        line = truncate(raw, FIELD_VALUE_MAX)
        extra = len(line) + (1 if chunk else 0)
        if chunk and size + extra > FIELD_VALUE_MAX:
            if len(fields) + 1 == max_fields:
                left_out = len(lines) - index
                break
            fields.append((name if not fields else _continued(name), "\n".join(chunk)))
            chunk, size = [], 0
            extra = len(line)
        chunk.append(line)
        size += extra
    if left_out:
        note = _n(
            "… and {count} more (see `/duel history`)",
            "… and {count} more (see `/duel history`)",
            left_out,
        )
        while chunk and size + len(note) + 1 > FIELD_VALUE_MAX:
            size -= len(chunk.pop()) + 1
        chunk.append(note)
    if chunk or not fields:
        fields.append((name if not fields else _continued(name), "\n".join(chunk) or "—"))
    return fields


def _continued(name: str) -> str:
    """The name of a field that continues the one named ``name``."""
    return _("{name} (cont.)", name=name)


def _dice_groups(rolls: Sequence[RollLine], show_sides: bool) -> str:
    """Rolls in order, consecutive ones of the same purpose and die together:
    ``Attack **1, 5, 6**; Parry **2**`` (``Evade DICE-3 = **0**`` when the die varies)."""
    groups: list[tuple[str, object, list[str]]] = []
    for roll in rolls:
        if groups and groups[-1][0] == roll.purpose and groups[-1][1] == roll.sides:
            groups[-1][2].append(str(roll.value))
        else:
            groups.append((roll.purpose, roll.sides, [str(roll.value)]))
    shown = []
    for purpose, sides, values in groups:
        die = f" DICE{sides} =" if show_sides else ""  # i18n: not shown
        zero = " " + _("(X ≤ 0 gives 0)") if isinstance(sides, int) and sides <= 0 else ""
        shown.append(f"{safe(purpose, 60)}{die} **{', '.join(values)}**{zero}")
    return "; ".join(shown)


def moves_and_dice(view: RoundResultView, names: Mapping[str, str]) -> list[str]:
    """One line per duellist: their move and the dice they rolled; then dice of no side."""
    # A ruleset that rolls one kind of die (By This Axe: d6) need not say it on every roll.
    show_sides = view.dice is None or len(view.dice) != 1
    lines = []
    for fighter in (view.a, view.b):
        rolled = [r for r in view.rolls if r.for_side == fighter.side]
        name, move = names[fighter.side], fighter.move
        line = (
            _(
                "{name}: **{move}** · rolled {dice}",
                name=name,
                move=move,
                dice=_dice_groups(rolled, show_sides),
            )
            if rolled
            else _("{name}: **{move}**", name=name, move=move)
        )
        lines.append(truncate(line, SIDE_LINE_MAX))
    other = [r for r in view.rolls if r.for_side not in names]
    if other:
        line = _("Dice: {dice}", dice=_dice_groups(other, show_sides))
        lines.append(truncate(line, SIDE_LINE_MAX))
    return lines


def short_hex(value: str) -> str:
    """A 64-hex seed or commitment as its first and last 8 characters: enough to match it
    against the full value (`/duel history`, the archive page, `/duel export`)."""
    return value if len(value) <= 20 else f"{value[:8]}...{value[-8:]}"


def footer_line(view: RoundResultView) -> str | None:
    """The fairness data and the duel's house rules, one short line under the result."""
    parts = []
    if view.seed is not None:
        parts.append(_("seed {seed}", seed=short_hex(view.seed)))
    if view.commitment is not None:
        parts.append(_("commitment {commitment}", commitment=short_hex(view.commitment)))
    if parts:
        parts.append(_("full values: /duel history"))
    if view.house_rules:
        shown = truncate(" ".join(view.house_rules.split()), 600)
        parts.append(_("house rules: {rules}", rules=shown))
    return " · ".join(parts) or None


def log_lines(view: RoundResultView, cited: str) -> list[str]:
    """The rule-cited log, consecutive lines citing the same clause as one bullet. A clause
    that starts with the ruleset's name (``cited``, in the field's name) is shown without
    it: "By This Axe, Attacks" reads "Attacks" under "Adjudication (By This Axe)"."""
    grouped: list[tuple[str, list[str]]] = []
    for line in view.log:
        clause, sep, text = line.partition(": ")
        if not sep:
            clause, text = "", line
        for prefix in (f"{cited}, ", f"{cited} "):
            if clause.startswith(prefix) and len(clause) > len(prefix):
                clause = clause[len(prefix):]
        if grouped and clause and grouped[-1][0] == clause:
            grouped[-1][1].append(text)
        else:
            grouped.append((clause, [text]))
    return [
        f"• **{safe(clause, 120)}**: {safe('; '.join(texts), 900)}"
        if clause
        else f"• {safe('; '.join(texts), 900)}"
        for clause, texts in grouped
    ]


def result_embed(view: RoundResultView) -> discord.Embed:
    """The round result as a Discord embed: the one function of this format for it."""
    names = {f.side: safe(f.name) for f in (view.a, view.b)}
    label = view.label or round_label(_("round"), view.round_no)
    lines = [f"**{safe(view.sentence, 300)}.**"]
    # The ruleset's name, as the close fixed it in the published round (its id when the
    # ruleset is no longer registered: then the log is shown without citations).
    cited = view.title if view.title and view.title != view.ruleset else ""
    lines += moves_and_dice(view, names)
    facts = [f"{safe(label, 60)}: **{safe(value, 100)}**" for label, value in view.facts]
    if facts:
        lines.append(" · ".join(facts))
    # How the round closed: only the post knows it (a history or `duelbot adjudicate` view
    # does not say, nor whether the duel went on).
    how = []
    if view.closed_how:
        how.append(closed_sentence(view, capital(label)))
    undo = view.follows_undo
    if undo is not None:
        how.append(
            follows_undo_sentence(
                undo.round_no,
                f"<@{undo.undone_by}>" if undo.undone_by is not None else None,
                safe(undo.reason, 300) if undo.reason else None,
            )
        )
    if how:
        lines.append(" ".join(how))
    embed = discord.Embed(
        title=_(
            "{duel}, {label}: {a} vs {b}",
            duel=duel_ref(view.duel_id),
            label=label,
            a=names["a"],
            b=names["b"],
        ),
        description="\n".join(lines),
        colour=COLOUR_RESULT,
    )
    shown_log = log_lines(view, cited) if cited else [f"• {safe(x, 900)}" for x in view.log]
    cited_as = safe(cited, 60) if cited else safe(view.ruleset, 40)
    heading = _("Adjudication ({ruleset})", ruleset=cited_as)
    for name, value in line_fields(heading, shown_log or ["—"], 3):
        embed.add_field(name=name, value=value, inline=False)
    footer = footer_line(view)
    if footer is not None:
        embed.set_footer(text=footer)
    return embed


def closed_sentence(view: RoundResultView, label: str) -> str:
    """How the round closed and whether the duel goes on, one sentence; ``label`` is the
    round's, capitalised."""
    reason, over = view.closed_reason, view.ended
    if reason == "deadline":
        return (
            _("{label} was closed automatically at the deadline; the duel is over.", label=label)
            if over
            else _(
                "{label} was closed automatically at the deadline; the duel goes on.",
                label=label,
            )
        )
    if reason == "commander":
        return (
            _("{label} was closed by a commander; the duel is over.", label=label)
            if over
            else _("{label} was closed by a commander; the duel goes on.", label=label)
        )
    if reason == "all_submitted":
        return (
            _(
                "{label} was closed when every awaited duellist had chosen; the duel is over.",
                label=label,
            )
            if over
            else _(
                "{label} was closed when every awaited duellist had chosen; the duel goes on.",
                label=label,
            )
        )
    how = safe(view.closed_how, 200)
    return (
        _("{label} was {how}; the duel is over.", label=label, how=how)
        if over
        else _("{label} was {how}; the duel goes on.", label=label, how=how)
    )


def follows_undo_sentence(round_no: int, by: str | None, reason: str | None) -> str:
    """The undo a re-rolled result follows, one sentence (``by`` and ``reason`` as shown)."""
    if by is not None and reason is not None:
        return _(
            "It follows the undo of round {round} by {by} (reason: {reason}).",
            round=round_no,
            by=by,
            reason=reason,
        )
    if by is not None:
        return _("It follows the undo of round {round} by {by}.", round=round_no, by=by)
    if reason is not None:
        return _(
            "It follows the undo of round {round} (reason: {reason}).",
            round=round_no,
            reason=reason,
        )
    return _("It follows the undo of round {round}.", round=round_no)
