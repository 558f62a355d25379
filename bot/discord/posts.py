"""Pure rendering of outbox payloads into Discord message parts (no I/O).

``render_post(kind, payload, post_id=...)`` returns the content and embeds of one outbox
post. Every embed carries the marker ``duelbot post #<id>`` in its footer, which the poster
looks for before posting again (a previous attempt may have landed before a timeout).

Names in payloads are user-controlled: every one goes through :func:`safe` (Markdown and
mentions escaped, one line, bounded). Embeds are cut to Discord's limits by :func:`fit`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import discord

from bot.report import house_rules_text, move_label, outcome_text, purpose_label, rules_in_force
from bot.rules.base import Ruleset
from bot.rules.errors import RulesError
from bot.rules.registry import DEFAULT_RULESET_ID
from bot.rules.registry import get as get_ruleset

# Discord's embed limits.
TITLE_MAX = 256
DESCRIPTION_MAX = 4096
FIELD_NAME_MAX = 256
FIELD_VALUE_MAX = 1024
FIELDS_MAX = 25
FOOTER_MAX = 2048
AUTHOR_MAX = 256
EMBED_TOTAL_MAX = 6000
CONTENT_MAX = 2000
NAME_MAX = 100

COLOUR_INFO = discord.Colour.blurple()
COLOUR_RESULT = discord.Colour.gold()
COLOUR_END = discord.Colour.dark_grey()
COLOUR_WARN = discord.Colour.orange()

FAIRNESS_HINT = (
    "Anyone can check this: `duelbot verify` re-derives the rolls from the revealed seed "
    "and checks it against the commitment (docs/fairness.md)."
)

_MARKER = "duelbot post #{id}"
_MARKER_RE = re.compile(r"duelbot post #(\d+)(?!\d)")
ELLIPSIS = "…"


@dataclass(frozen=True, slots=True)
class Rendered:
    content: str | None
    embeds: list[discord.Embed] = field(default_factory=list)


# -- helpers --------------------------------------------------------------------------


def marker(post_id: int) -> str:
    """The footer text that identifies outbox post ``post_id`` in a channel."""
    return _MARKER.format(id=post_id)


def marker_ids(text: str | None) -> set[int]:
    """The outbox post ids named by markers in ``text``."""
    return {int(m) for m in _MARKER_RE.findall(text or "")}


def truncate(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, at a line end when one is near, with an ellipsis.
    Never leaves a dangling escape backslash or an unclosed inline-code span."""
    if len(text) <= limit:
        return text
    if limit <= len(ELLIPSIS):
        return text[:limit]
    cut = text[: limit - len(ELLIPSIS)]
    newline = cut.rfind("\n")
    if newline >= len(cut) // 2:
        cut = cut[:newline]
    cut = cut.rstrip("\\")
    # an odd number of backticks on the last line would open a code span that never closes
    last = cut.rsplit("\n", 1)[-1]
    if last.count("`") % 2 == 1:
        cut = cut[: cut.rfind("`")]
    return cut + ELLIPSIS


def code(value: Any, limit: int = 100) -> str:
    """``value`` as an inline code span (backticks inside are replaced, length bounded)."""
    text = " ".join(str(value).split()).replace("`", "'")
    return f"`{text if len(text) <= limit else text[: limit - 1] + ELLIPSIS}`"


_BRACKET = re.compile(r"(\\*)\[")


def escape_links(text: str) -> str:
    """Escape every ``[`` that escape_markdown left bare (it escapes only the first of a
    text such as ``[a] [link](http://x)``), so no masked link can render."""
    return _BRACKET.sub(lambda m: m[1] + ("[" if len(m[1]) % 2 else "\\["), text)


def safe(name: Any, limit: int = NAME_MAX) -> str:
    """A user-given name made inert: one line, Markdown and mentions escaped, bounded."""
    text = " ".join(str(name if name is not None else "").split()) or "?"
    if len(text) > limit:
        text = text[: limit - 1] + ELLIPSIS
    return discord.utils.escape_mentions(escape_links(discord.utils.escape_markdown(text)))


def plain(name: Any, limit: int = NAME_MAX) -> str:
    """A user-given name for places that do not render Markdown (thread names, usernames)."""
    text = " ".join(str(name if name is not None else "").split()) or "?"
    return text if len(text) <= limit else text[: limit - 1] + ELLIPSIS


def parse_when(value: Any) -> datetime | None:
    """An ISO timestamp from a payload as an aware UTC datetime (None when absent/bad)."""
    if not isinstance(value, str) or not value:
        return None
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when


def timestamp(when: datetime) -> str:
    """``<t:unix:R> (<t:unix:f>)``: relative and full, in every reader's time zone."""
    return f"{discord.utils.format_dt(when, 'R')} ({discord.utils.format_dt(when, 'f')})"


def _name(payload: Mapping[str, Any], side: str) -> str:
    entry = payload.get(side)
    if isinstance(entry, Mapping) and entry.get("name"):
        return safe(entry["name"])
    return f"Duellist {side.upper()}"


def _user_id(payload: Mapping[str, Any], side: str) -> int | None:
    entry = payload.get(side)
    if isinstance(entry, Mapping):
        try:
            return int(entry["user_id"])
        except (KeyError, TypeError, ValueError):
            return None
    return None


def _mentions(payload: Mapping[str, Any]) -> str | None:
    ids = [u for u in (_user_id(payload, "a"), _user_id(payload, "b")) if u is not None]
    return " ".join(f"<@{u}>" for u in ids) or None


def _duel_ref(payload: Mapping[str, Any]) -> str:
    return f"Duel #{payload.get('duel_id', '?')}"


def _line_fields(name: str, lines: Sequence[str], max_fields: int = 3) -> list[tuple[str, str]]:
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
            fields.append((name if not fields else f"{name} (cont.)", "\n".join(chunk)))
            chunk, size = [], 0
            extra = len(line)
        chunk.append(line)
        size += extra
    if left_out:
        note = f"… and {left_out} more (see `/duel history`)"
        while chunk and size + len(note) + 1 > FIELD_VALUE_MAX:
            size -= len(chunk.pop()) + 1
        chunk.append(note)
    if chunk or not fields:
        fields.append((name if not fields else f"{name} (cont.)", "\n".join(chunk) or "—"))
    return fields


def _embed_size(embed: discord.Embed) -> int:
    total = len(embed.title or "") + len(embed.description or "")
    total += len(embed.footer.text or "") + len(embed.author.name or "")
    total += sum(len(f.name or "") + len(f.value or "") for f in embed.fields)
    return total


def fit(embed: discord.Embed) -> discord.Embed:
    """Cut ``embed`` to Discord's limits (per part, 25 fields, 6000 characters in all)."""
    if embed.title:
        embed.title = truncate(embed.title, TITLE_MAX)
    if embed.description:
        embed.description = truncate(embed.description, DESCRIPTION_MAX)
    if embed.footer.text:
        embed.set_footer(
            text=truncate(embed.footer.text, FOOTER_MAX), icon_url=embed.footer.icon_url
        )
    if embed.author.name:
        embed.set_author(
            name=truncate(embed.author.name, AUTHOR_MAX),
            url=embed.author.url,
            icon_url=embed.author.icon_url,
        )
    fields = [
        (
            truncate(f.name or "—", FIELD_NAME_MAX),
            truncate(f.value or "—", FIELD_VALUE_MAX),
            f.inline,
        )
        for f in embed.fields
    ]
    if len(fields) > FIELDS_MAX:
        fields = [*fields[: FIELDS_MAX - 1], ("…", "(more left out: too long for one post)", False)]
    embed.clear_fields()
    for name, value, inline in fields:
        embed.add_field(name=name, value=value, inline=bool(inline))
    # Over the total: shorten the longest part (description or a field) until it fits.
    while _embed_size(embed) > EMBED_TOTAL_MAX:
        excess = _embed_size(embed) - EMBED_TOTAL_MAX
        longest_field = max(
            range(len(embed.fields)), key=lambda i: len(embed.fields[i].value or ""), default=None
        )
        field_len = 0 if longest_field is None else len(embed.fields[longest_field].value or "")
        desc_len = len(embed.description or "")
        if desc_len >= field_len and desc_len > 0:
            embed.description = truncate(embed.description or "", max(1, desc_len - excess - 1))
        elif longest_field is not None and field_len > 1:
            f = embed.fields[longest_field]
            embed.set_field_at(
                longest_field,
                name=f.name or "—",
                value=truncate(f.value or "—", max(1, field_len - excess - 1)),
                inline=bool(f.inline),
            )
        else:  # pragma: no cover - titles and footers alone are far below 6000
            break
    return embed


def _finish(
    content: str | None, embeds: Iterable[discord.Embed], post_id: int | None, behalf: str | None
) -> Rendered:
    out = list(embeds)
    for embed in out:
        if post_id is not None:
            embed.set_footer(text=marker(post_id))
    if behalf is not None and out:
        # Author names render neither Markdown nor pings; defuse mentions all the same.
        who = discord.utils.escape_mentions(plain(behalf))
        out[0].set_author(name=f"Posted on behalf of {who}")
    if content is not None:
        content = truncate(content, CONTENT_MAX)
    return Rendered(content, [fit(e) for e in out])


# -- channel posts --------------------------------------------------------------------


def duel_start(payload: Mapping[str, Any]) -> tuple[str | None, list[discord.Embed]]:
    a, b = _name(payload, "a"), _name(payload, "b")
    embed = discord.Embed(
        title=f"{_duel_ref(payload)}: {a} vs {b}",
        description=(
            f"A duel begins under {_ruleset_name(payload)}. A commander opens each round; "
            "the duellists send "
            "their moves to the bot by DM (or `/move`), and the moves stay secret until the "
            "round closes."
        ),
        colour=COLOUR_INFO,
    )
    rules = _ruleset_of(payload)
    for side in ("a", "b"):
        entry = payload.get(side)
        stats = entry if isinstance(entry, Mapping) else {}
        uid = _user_id(payload, side)
        who = f"<@{uid}>" if uid is not None else _name(payload, side)
        embed.add_field(
            name=f"{side.upper()}: {_name(payload, side)}",
            value=f"{who}\n{fighter_text(rules, stats)}",
            inline=True,
        )
    options = payload.get("options")
    if isinstance(options, Mapping):
        embed.add_field(
            name="Rules fixed for this duel",
            value=rules_text(_ruleset_id(payload), options),
            inline=False,
        )
    return _mentions(payload), [embed]


def rules_text(ruleset: str, options: Mapping[str, Any]) -> str:
    """The rules a duel was fixed with at its start, one per line (for the card and
    `/duel status`); later server setting changes do not apply to it."""
    lines = [f"{name}: {safe(meaning, 300)}" for name, meaning in rules_in_force(ruleset, options)]
    lines.append("A change of the server's settings applies to later duels only.")
    return "\n".join(lines)


def fighter_text(rules: Ruleset | None, stats: Mapping[str, Any]) -> str:
    """A duellist as their ruleset summarises them (``fighter_summary``), one line."""
    if rules is None:
        return "—"
    summary = rules.fighter_summary(stats)
    shown = [f"{safe(label, 30)} {safe(value, 60)}" for label, value in summary]
    return " · ".join(shown[:10]) or "—"


def round_open(payload: Mapping[str, Any]) -> tuple[str | None, list[discord.Embed]]:
    a, b = _name(payload, "a"), _name(payload, "b")
    round_no = payload.get("round_no", "?")
    deadline = parse_when(payload.get("deadline"))
    when = (
        f"Deadline: {timestamp(deadline)}."
        if deadline is not None
        else "No deadline: a commander closes the round."
    )
    awaiting = payload.get("awaiting")
    if isinstance(awaiting, list):
        # A step of a multi-step duel (FoEQ): only the awaited duellists choose now.
        who = " and ".join(_name(payload, s) for s in awaiting if s in ("a", "b")) or "nobody"
        how = (
            f"Waiting for {who}: the bot has sent the choice by DM (or use "
            f"`/move duel:{payload.get('duel_id', '?')}` here)."
        )
    else:
        how = (
            "Duellists: send your move to the bot by DM (use the buttons in its message, or "
            f"type the move), or use `/move duel:{payload.get('duel_id', '?')}` here. Moves stay "
            "secret until the round closes."
        )
    embed = discord.Embed(
        title=f"{_duel_ref(payload)}, round {round_no} is open: {a} vs {b}",
        description=f"{when}\n\n{how}",
        colour=COLOUR_INFO,
    )
    embed.add_field(
        name="Commitment (SHA-256 of this round's secret seed)",
        value=code(payload.get("commitment", "?")),
        inline=False,
    )
    mentions = _mentions(payload)
    content = f"{mentions}: round {round_no} of duel #{payload.get('duel_id', '?')} is open."
    return (content if mentions else None), [embed]


def _ruleset_id(payload: Mapping[str, Any]) -> str:
    """The payload's ruleset; rows written before payloads named one were the default's."""
    return str(payload.get("ruleset") or DEFAULT_RULESET_ID)


def _ruleset_of(payload: Mapping[str, Any]) -> Ruleset | None:
    try:
        return get_ruleset(_ruleset_id(payload))
    except RulesError:
        return None


def _ruleset_name(payload: Mapping[str, Any]) -> str:
    rules = _ruleset_of(payload)
    return safe(rules.short_name(), 60) if rules is not None else safe(_ruleset_id(payload), 40)


_REASONS = {
    "deadline": "closed automatically at the deadline",
    "commander": "closed by a commander",
    "all_submitted": "closed when every awaited duellist had chosen",
}


def round_result(payload: Mapping[str, Any]) -> tuple[str | None, list[discord.Embed]]:
    result = payload.get("result")
    data: Mapping[str, Any] = result if isinstance(result, Mapping) else {}
    ruleset = str(data.get("ruleset") or DEFAULT_RULESET_ID)
    names = {"a": _name(payload, "a"), "b": _name(payload, "b")}
    round_no = payload.get("round_no", "?")
    outcome = str(data.get("outcome") or "?")
    choices = data.get("choices")
    moves: Mapping[str, Any] = choices if isinstance(choices, Mapping) else {}

    summary = outcome_text(outcome, names["a"], names["b"], ruleset)
    reason = _REASONS.get(str(payload.get("reason")), str(payload.get("reason") or "closed"))
    description = f"**{summary}.**\nRound {round_no} was {safe(reason, 200)}."
    follows = payload.get("follows_undo")
    if isinstance(follows, Mapping) or data.get("follows_undo_of") is not None:
        undo = follows if isinstance(follows, Mapping) else {}
        undone_no = undo.get("round_no", data.get("follows_undo_of", "?"))
        by = undo.get("undone_by")
        description += f"\nThis result follows the undo of round {safe(undone_no, 20)}" + (
            f" by <@{int(by)}>" if isinstance(by, int) else ""
        )
        why = undo.get("reason")
        description += f" (reason: {safe(why, 300)})." if why else "."
    embed = discord.Embed(
        title=f"{_duel_ref(payload)}, round {round_no}: {names['a']} vs {names['b']}",
        description=description,
        colour=COLOUR_RESULT,
    )
    move_lines = [
        f"{side.upper()}: {names[side]}: **{move_label(ruleset, moves.get(side))}**"
        for side in ("a", "b")
    ]
    embed.add_field(name="Moves (revealed)", value="\n".join(move_lines), inline=False)

    roll_lines = []
    raw_rolls = data.get("rolls")
    for roll in raw_rolls if isinstance(raw_rolls, list) else []:
        if not isinstance(roll, Mapping):
            continue
        sides = roll.get("sides", "?")
        zero = " (X ≤ 0 always gives 0)" if isinstance(sides, int) and sides <= 0 else ""
        who = names.get(str(roll.get("for")), safe(roll.get("for")))
        roll_lines.append(
            f"{code(roll.get('label', '?'), 60)} DICE{sides} = **{roll.get('value', '?')}**"
            f"{zero} for {who} ({safe(purpose_label(str(roll.get('purpose', '?'))), 60)})"
        )
    if not roll_lines:
        roll_lines = ["No dice were rolled."]
    for name, value in _line_fields("Rolls", roll_lines, max_fields=2):
        embed.add_field(name=name, value=value, inline=False)

    raw_log = data.get("log")
    log_lines = [f"• {safe(line, 900)}" for line in (raw_log if isinstance(raw_log, list) else [])]
    for name, value in _line_fields(
        f"Adjudication ({_ruleset_name({'ruleset': ruleset})})", log_lines or ["—"], 3
    ):
        embed.add_field(name=name, value=value, inline=False)
    options = data.get("options")
    house = house_rules_text(
        ruleset, options.get("house_rules") if isinstance(options, Mapping) else None
    )
    if house:
        embed.add_field(name="House rules", value=safe(house, 900), inline=False)

    ended = bool(payload.get("ended", data.get("ended")))
    winner = payload.get("winner_name")
    if winner:
        winner_text = safe(winner)
    elif ended:
        winner_text = "none (the duel is over)"
    else:
        winner_text = "none yet (the duel goes on)"
    embed.add_field(name="Outcome", value=f"{summary} ({code(outcome, 40)})", inline=False)
    embed.add_field(name="Winner", value=winner_text, inline=True)
    embed.add_field(
        name="Locked in combat", value="yes" if data.get("locked") else "no", inline=True
    )
    embed.add_field(name="Duel", value="over" if ended else "goes on", inline=True)
    embed.add_field(name="Seed (revealed)", value=code(payload.get("seed", "?")), inline=False)
    embed.add_field(
        name="Commitment (published when the round opened)",
        value=code(payload.get("commitment", "?")),
        inline=False,
    )
    embed.add_field(name="Verify", value=FAIRNESS_HINT, inline=False)
    return _mentions(payload), [embed]


def round_undone(payload: Mapping[str, Any]) -> tuple[str | None, list[discord.Embed]]:
    round_no = payload.get("round_no", "?")
    outcome = payload.get("outcome")
    was = f" (it was {code(outcome, 40)})" if outcome else ""
    by = payload.get("undone_by")
    who = f"<@{int(by)}>" if isinstance(by, int) else "A commander"
    why = payload.get("reason")
    embed = discord.Embed(
        title=f"{_duel_ref(payload)}: round {round_no} undone",
        description=(
            f"{who} voided the result of round {round_no}{was}. The duel is back to "
            "where it stood before that round; the undone result stays in the history, and "
            "the next result says that it follows this undo."
        ),
        colour=COLOUR_WARN,
    )
    if why:
        embed.add_field(name="Undone by", value=who, inline=True)
        embed.add_field(name="Reason", value=safe(why, 400), inline=False)
    return None, [embed]


def duel_end(payload: Mapping[str, Any]) -> tuple[str | None, list[discord.Embed]]:
    a, b = _name(payload, "a"), _name(payload, "b")
    reason = safe(payload.get("reason") or "no reason given", 400)
    lines = [f"Ended by a commander. Reason: {reason}"]
    cancelled = payload.get("cancelled_round")
    if cancelled is not None:
        lines.append(f"Round {cancelled} was cancelled unresolved; its moves stay sealed.")
    embed = discord.Embed(
        title=f"{_duel_ref(payload)} has ended: {a} vs {b}",
        description="\n".join(lines),
        colour=COLOUR_END,
    )
    return _mentions(payload), [embed]


def challenge(payload: Mapping[str, Any]) -> tuple[str | None, list[discord.Embed]]:
    """A By This Axe challenge settled: accepted, forced (d6 1-3) or refused."""

    def who(key: str) -> str:
        entry = payload.get(key)
        return safe(entry.get("name") if isinstance(entry, Mapping) else "?")

    titles = {
        "accepted": "accepted: the duel is fought",
        "forced": "refused, but the duel is forced",
        "refused": "refused",
    }
    outcome = str(payload.get("outcome") or "?")
    lines = [safe(line, 300) for line in payload.get("log") or [] if isinstance(line, str)]
    if payload.get("leadership_lost"):
        lines.append(f"**{who('challenged')} loses his leadership for this turn.**")
    if payload.get("duel_id") is not None:
        lines.append(f"Duel #{payload['duel_id']} begins: a commander opens round 1.")
    roll = payload.get("roll")
    if isinstance(roll, Mapping) and payload.get("seed"):
        lines.append(
            f"Force roll `{safe(roll.get('label'), 60)}`: d6 = {roll.get('value')}; seed "
            f"`{payload['seed']}` (commitment `{payload.get('commitment')}`)."
        )
    embed = discord.Embed(
        title=f"{who('challenger')} challenges {who('challenged')}: {titles.get(outcome, outcome)}"[
            :256
        ],
        description="\n".join(lines)[:4000],
        colour=COLOUR_INFO,
    )
    return None, [embed]


def dm_closed(payload: Mapping[str, Any]) -> tuple[str | None, list[discord.Embed]]:
    """The notice for a duellist whose DMs are closed: who, and how to move. Nothing else."""
    duel_id = payload.get("duel_id", "?")
    try:
        mention = f"<@{int(payload['user_id'])}>"
    except (KeyError, TypeError, ValueError):
        mention = "A duellist"
    text = (
        f"{mention} cannot receive direct messages from the bot. Send your move for duel "
        f"#{duel_id} with `/move duel:{duel_id} move:<choice>` (only you see the answer)."
    )
    embed = discord.Embed(
        title=f"{_duel_ref(payload)}: a duellist's DMs are closed",
        description=text,
        colour=COLOUR_WARN,
    )
    return text, [embed]


# -- DMs ------------------------------------------------------------------------------


def _opponent(payload: Mapping[str, Any]) -> str:
    if payload.get("opponent"):
        return safe(payload["opponent"])
    side = payload.get("side")
    if side in ("a", "b"):
        return _name(payload, "b" if side == "a" else "a")
    return "your opponent"


def _deadline_text(payload: Mapping[str, Any]) -> str:
    deadline = parse_when(payload.get("deadline"))
    if deadline is None:
        return "There is no deadline: a commander closes the round."
    return f"Deadline: {timestamp(deadline)}."


MAX_BUTTONS = 25


def _listed_moves(payload: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    moves = payload.get("moves")
    return [m for m in moves if isinstance(m, Mapping)] if isinstance(moves, list) else []


def _how_to_move(payload: Mapping[str, Any]) -> str:
    listed = _listed_moves(payload)
    if listed and len(listed) > MAX_BUTTONS:
        return "Reply with your move as text"
    return "Pick your move with a button below, or reply with its name"


_CODE_SPAN = re.compile(r"`([^`]{1,40})`")


def _example_move(payload: Mapping[str, Any]) -> str:
    """The example in a DM prompt: the ruleset's own (the last choice its help text shows)
    when it is legal now, else the first legal choice."""
    listed = [str(m.get("id", "")) for m in _listed_moves(payload)]
    shown = _CODE_SPAN.findall(_help_of(payload))
    if shown and shown[-1] in listed:
        return safe(shown[-1], 40)
    return safe(listed[0], 40) if listed else "help"


def _help_paragraph(payload: Mapping[str, Any]) -> str:
    """The ruleset's help (how to answer) when the buttons cannot list every choice."""
    listed = _listed_moves(payload)
    help_text = _help_of(payload)
    if help_text and (not listed or len(listed) > MAX_BUTTONS):
        return f"\n\n{truncate(help_text, 1000)}"
    return ""


def _help_of(payload: Mapping[str, Any]) -> str:
    """The ruleset's general help (how to answer), from the registry: payloads never carry
    text that names moves."""
    rules = _ruleset_of(payload)
    return rules.help_text() if rules is not None else ""


def dm_prompt(payload: Mapping[str, Any]) -> tuple[str | None, list[discord.Embed]]:
    duel_id = payload.get("duel_id", "?")
    round_no = payload.get("round_no", "?")
    prompt = payload.get("prompt")
    if isinstance(prompt, str) and prompt:
        # A step of a multi-step duel (FoEQ): the ruleset says what is asked.
        secrecy = (
            "Your choice stays secret."
            if payload.get("secret")
            else "This choice is made in the open: it is shown in the result."
        )
        embed = discord.Embed(
            title=f"Duel #{duel_id}, step {round_no}: your choice",
            description=(
                f"You are duelling **{_opponent(payload)}**.\n{_deadline_text(payload)}\n\n"
                f"{truncate(prompt, 1500)}\n\n{_how_to_move(payload)} (or put the duel "
                f"first if you are in several duels: `#{duel_id} ...`). {secrecy}"
            ),
            colour=COLOUR_INFO,
        )
        return None, [embed]
    embed = discord.Embed(
        title=f"Duel #{duel_id}, round {round_no}: your move",
        description=(
            f"You are duelling **{_opponent(payload)}**. Round {round_no} is open.\n"
            f"{_deadline_text(payload)}\n\n"
            f"{_how_to_move(payload)} (for example `{_example_move(payload)}`, or "
            f"`#{duel_id} {_example_move(payload)}` if you are in several duels). "
            "Your move stays secret until the round closes." + _help_paragraph(payload)
        ),
        colour=COLOUR_INFO,
    )
    return None, [embed]


def reminder(payload: Mapping[str, Any]) -> tuple[str | None, list[discord.Embed]]:
    duel_id = payload.get("duel_id", "?")
    round_no = payload.get("round_no", "?")
    embed = discord.Embed(
        title=f"Reminder: duel #{duel_id}, round {round_no}",
        description=(
            f"You have not sent a move yet for round {round_no} against "
            f"**{_opponent(payload)}**.\n{_deadline_text(payload)}\n\n"
            f"{_how_to_move(payload)}."
        ),
        colour=COLOUR_WARN,
    )
    return None, [embed]


def private_note(payload: Mapping[str, Any]) -> tuple[str | None, list[discord.Embed]]:
    """What only this duellist may learn from a step (their secret choices confirmed, the
    opponent's Style learnt...). A DM, never a channel post."""
    duel_id = payload.get("duel_id", "?")
    notes = payload.get("notes")
    lines = [f"• {truncate(str(n), 500)}" for n in notes] if isinstance(notes, list) else []
    embed = discord.Embed(
        title=f"Duel #{duel_id}, step {payload.get('round_no', '?')}: for your eyes only",
        description="\n".join(lines) or "—",
        colour=COLOUR_INFO,
    )
    embed.add_field(
        name="Secret",
        value=f"Only you receive this; **{_opponent(payload)}** and the channel do not.",
        inline=False,
    )
    return None, [embed]


RENDERERS = {
    "duel_start": duel_start,
    "round_open": round_open,
    "round_result": round_result,
    "round_undone": round_undone,
    "duel_end": duel_end,
    "dm_closed": dm_closed,
    "challenge": challenge,
    "round_dm": dm_prompt,
    "reminder_dm": reminder,
    "private_note": private_note,
}


class UnknownPostKind(ValueError):
    pass


def render_post(
    kind: str,
    payload: Mapping[str, Any],
    *,
    post_id: int | None = None,
    behalf: str | None = None,
) -> Rendered:
    """Content and embeds for one outbox post. ``behalf``: the commander's name, shown as
    "Posted on behalf of ..." when the post cannot go out through a webhook."""
    renderer = RENDERERS.get(kind)
    if renderer is None:
        raise UnknownPostKind(f"unknown outbox post kind {kind!r}")
    content, embeds = renderer(payload)
    return _finish(content, embeds, post_id, behalf)


def thread_name(payload: Mapping[str, Any]) -> str:
    """``Duel #N: A vs B`` as a thread name (plain text, at most 100 characters)."""

    def raw(side: str) -> str:
        entry = payload.get(side)
        return plain(entry.get("name") if isinstance(entry, Mapping) else None, 40)

    return plain(f"Duel #{payload.get('duel_id', '?')}: {raw('a')} vs {raw('b')}", 100)
