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
from datetime import datetime
from typing import Any

import discord

from bot.archive.links import duel_page_url
from bot.presentation.discord_result import (
    duel_ref,
    result_embed,
    ruleset_name,
)
from bot.presentation.discord_text import (
    CONTENT_MAX,
    fit,
    plain,
    safe,
    timestamp,
    truncate,
)
from bot.presentation.views import round_result_of_post
from bot.presentation.words import (
    capital,
    closes_text,
    rules_in_force,
    ruleset_or_none,
    ruleset_words,
    step_words_of,
)
from bot.rules.base import Ruleset
from bot.rules.terms import StepWords
from bot.services.messages import (
    MAX_MOVE_BUTTONS,
    ChallengePost,
    DmClosed,
    DuelEnd,
    DuelStart,
    MessageFormatError,
    MoveChoice,
    OutboxMessage,
    Party,
    PrivateNote,
    Reminder,
    RoundOpen,
    RoundPrompt,
    RoundResultPost,
    RoundUndone,
    parse_message,
)

COLOUR_INFO = discord.Colour.blurple()
COLOUR_END = discord.Colour.dark_grey()
COLOUR_WARN = discord.Colour.orange()

_MARKER = "duelbot post #{id}"
_MARKER_RE = re.compile(r"duelbot post #(\d+)(?!\d)")


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


def _name(party: Party) -> str:
    return safe(party.name)


def _mentions(*parties: Party) -> str | None:
    return " ".join(f"<@{p.user_id}>" for p in parties if p.user_id is not None) or None


def _finish(
    content: str | None, embeds: Iterable[discord.Embed], post_id: int | None, behalf: str | None
) -> Rendered:
    out = list(embeds)
    for embed in out:
        if post_id is not None:
            # The marker first: a footer cut to Discord's limit never loses it.
            shown = embed.footer.text
            embed.set_footer(text=marker(post_id) + (f" · {shown}" if shown else ""))
    if behalf is not None and out:
        # Author names render neither Markdown nor pings; defuse mentions all the same.
        who = discord.utils.escape_mentions(plain(behalf))
        out[0].set_author(name=f"Posted on behalf of {who}")
    if content is not None:
        content = truncate(content, CONTENT_MAX)
    return Rendered(content, [fit(e) for e in out])


# -- channel posts --------------------------------------------------------------------


def duel_start(message: DuelStart) -> tuple[str | None, list[discord.Embed]]:
    a, b = _name(message.a), _name(message.b)
    rules = ruleset_or_none(message.ruleset)
    words = ruleset_words(message.ruleset)
    rnd, moves = words.round.one, words.move.many
    if words.closes == "itself":
        how = (
            f"A commander opens {rnd} 1; each {rnd} then closes by itself as soon as the "
            f"awaited duellists have chosen, and the next opens. The duellists send their "
            f"{moves} to the bot by DM (or `/move`); a secret one stays secret until its {rnd} "
            "closes."
        )
    else:
        how = (
            f"A commander opens each {rnd}; the duellists send their {moves} to the bot by DM "
            f"(or `/move`), and the {moves} stay secret until the {rnd} closes."
        )
    embed = discord.Embed(
        title=f"{duel_ref(message.duel_id)}: {a} vs {b}",
        description=f"A duel begins under {ruleset_name(message.ruleset)}. {how}",
        colour=COLOUR_INFO,
    )
    for side, party in (("a", message.a), ("b", message.b)):
        who = f"<@{party.user_id}>" if party.user_id is not None else _name(party)
        embed.add_field(
            name=f"{side.upper()}: {_name(party)}",
            value=f"{who}\n{fighter_text(rules, party.sheet)}",
            inline=True,
        )
    if message.options is not None:
        embed.add_field(
            name="Rules fixed for this duel",
            value=rules_text(message.ruleset, message.options),
            inline=False,
        )
    return _mentions(message.a, message.b), [embed]


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


def round_open(message: RoundOpen) -> tuple[str | None, list[discord.Embed]]:
    a, b = _name(message.a), _name(message.b)
    words = step_words_of(message.ruleset, message.round_no, message.words)
    when = (
        f"Deadline: {timestamp(message.deadline)}."
        if message.deadline is not None
        else f"No deadline: {closes_text(words)}."
    )
    if message.awaiting is not None:
        # A step of a multi-step duel (FoEQ): only the awaited duellists choose now.
        parties = {"a": message.a, "b": message.b}
        who = " and ".join(_name(parties[s]) for s in message.awaiting) or "nobody"
        how = (
            f"Waiting for {who}: the bot has sent the choice by DM (or use "
            f"`/move duel:{message.duel_id}` here)."
        )
    else:
        how = (
            f"Duellists: send your {words.move} to the bot by DM (use the buttons in its "
            f"message, or type the {words.move}), or use `/move duel:{message.duel_id}` here. "
            f"{capital(words.move)}s stay secret until the {words.round} closes."
        )
    embed = discord.Embed(
        title=f"{duel_ref(message.duel_id)}, {words.label} is open: {a} vs {b}",
        description=f"{when}\n\n{how}",
        colour=COLOUR_INFO,
    )
    # In full (the reveal is checked against it), in the footer's small type (issue 26).
    embed.set_footer(
        text=f"commitment (SHA-256 of this {words.round}'s secret seed): {message.commitment}"
    )
    mentions = _mentions(message.a, message.b)
    content = f"{mentions}: {words.label} of duel #{message.duel_id} is open."
    return (content if mentions else None), [embed]


def round_result(message: RoundResultPost) -> tuple[str | None, list[discord.Embed]]:
    view = round_result_of_post(message)
    return _mentions(message.a, message.b), [result_embed(view)]


def round_undone(message: RoundUndone) -> tuple[str | None, list[discord.Embed]]:
    round_no = message.round_no
    # The message carries the outcome's id only (no names, no ruleset to word it): no
    # internal id is shown to people (issue 24); the undone result stays in the history.
    by = message.undone_by
    who = f"<@{by}>" if by is not None else "A commander"
    words = message.words or StepWords(f"round {round_no}")
    embed = discord.Embed(
        title=f"{duel_ref(message.duel_id)}: {words.label} undone",
        description=(
            f"{who} voided the result of {words.label}. The duel is back to "
            f"where it stood before that {words.round}; the undone result stays in the "
            "history, and the next result says that it follows this undo."
        ),
        colour=COLOUR_WARN,
    )
    if message.reason:
        embed.add_field(name="Undone by", value=who, inline=True)
        embed.add_field(name="Reason", value=safe(message.reason, 400), inline=False)
    return None, [embed]


def duel_end(message: DuelEnd) -> tuple[str | None, list[discord.Embed]]:
    a, b = _name(message.a), _name(message.b)
    reason = safe(message.reason or "no reason given", 400)
    lines = [f"Ended by a commander. Reason: {reason}"]
    if message.cancelled_round is not None:
        words = message.words or StepWords(f"round {message.cancelled_round}")
        lines.append(
            f"{capital(words.label)} was cancelled unresolved; its {words.move}s stay sealed."
        )
    embed = discord.Embed(
        title=f"{duel_ref(message.duel_id)} has ended: {a} vs {b}",
        description="\n".join(lines),
        colour=COLOUR_END,
    )
    return _mentions(message.a, message.b), [embed]


def challenge(message: ChallengePost) -> tuple[str | None, list[discord.Embed]]:
    """A pre-duel challenge settled, in its ruleset's words: the headline as the title, the
    outcome sentence, each penalty in bold, the log, the duel it started, the roll."""
    challenger, challenged = safe(message.challenger.name), safe(message.challenged.name)
    title = safe(message.headline, 200) if message.headline else f"{challenger} and {challenged}"
    lines = [f"{safe(message.sentence or message.outcome, 300)}."]
    lines.extend(f"**{safe(sentence, 300)}.**" for sentence in message.penalties)
    lines.extend(safe(line, 300) for line in message.log)
    if message.duel_id is not None:
        first = ruleset_words(message.ruleset).round.one
        lines.append(f"Duel #{message.duel_id} begins: a commander opens {first} 1.")
    roll = message.revealed_roll
    if roll is not None:
        lines.append(f"Roll: d{safe(roll.sides, 6)} = **{safe(roll.value, 6)}**.")
    embed = discord.Embed(
        title=title[:256],
        description="\n".join(lines)[:4000],
        colour=COLOUR_INFO,
    )
    if roll is not None:
        # In full: a refused challenge has no duel, so no history or archive page holds it.
        embed.set_footer(
            text=f"roll {plain(roll.label, 60)} · seed {message.seed} · commitment "
            f"{message.commitment}"
        )
    return None, [embed]


def dm_closed(message: DmClosed) -> tuple[str | None, list[discord.Embed]]:
    """The notice for a duellist whose DMs are closed: who, and how to move. Nothing else."""
    duel_id = message.duel_id
    text = (
        f"<@{message.user_id}> cannot receive direct messages from the bot. Send your move for "
        f"duel #{duel_id} with `/move duel:{duel_id} move:<choice>` (only you see the answer)."
    )
    embed = discord.Embed(
        title=f"{duel_ref(duel_id)}: a duellist's DMs are closed",
        description=text,
        colour=COLOUR_WARN,
    )
    return text, [embed]


# -- DMs ------------------------------------------------------------------------------


def _deadline_text(deadline: datetime | None, words: StepWords) -> str:
    if deadline is None:
        return f"There is no deadline: {closes_text(words)}."
    return f"Deadline: {timestamp(deadline)}."


MAX_BUTTONS = MAX_MOVE_BUTTONS
LABEL_MAX = 80  # characters of a button label


def _how_to_move(moves: tuple[MoveChoice, ...], noun: str = "move") -> str:
    if not moves or len(moves) > MAX_BUTTONS:
        return f"Reply with your {noun} as text"
    return f"Pick your {noun} with a button below, or reply with its name"


_CODE_SPAN = re.compile(r"`([^`]{1,40})`")


def _example_move(message: RoundPrompt) -> str:
    """The example in a DM prompt: the ruleset's own (the last choice its help text shows)
    when it is legal now, else the first legal choice."""
    listed = [m.id for m in message.moves]
    shown = _CODE_SPAN.findall(_help_of(message.ruleset))
    if shown and shown[-1] in listed:
        return safe(shown[-1], 40)
    return safe(listed[0], 40) if listed else "help"


def _help_paragraph(message: RoundPrompt) -> str:
    """The ruleset's help (how to answer) when the buttons cannot list every choice."""
    help_text = _help_of(message.ruleset)
    if help_text and (not message.moves or len(message.moves) > MAX_BUTTONS):
        return f"\n\n{truncate(help_text, 1000)}"
    return ""


def _help_of(ruleset_id: str) -> str:
    """The ruleset's general help (how to answer), from the registry: payloads never carry
    text that names moves."""
    rules = ruleset_or_none(ruleset_id)
    return rules.help_text() if rules is not None else ""


def dm_prompt(message: RoundPrompt) -> tuple[str | None, list[discord.Embed]]:
    duel_id = message.duel_id
    words = step_words_of(message.ruleset, message.round_no, message.words)
    opponent = safe(message.opponent)
    if message.prompt:
        # A step of a multi-step duel (FoEQ): the ruleset says what is asked.
        secrecy = (
            "Your choice stays secret."
            if message.secret
            else "This choice is made in the open: it is shown in the result."
        )
        embed = discord.Embed(
            title=f"Duel #{duel_id}, {words.label}: your choice",
            description=(
                f"You are duelling **{opponent}**. {_deadline_text(message.deadline, words)}"
                f"\n\n{truncate(message.prompt, 1500)}\n\n{_how_to_move(message.moves, 'choice')} "
                f"(`#{duel_id} ...` first if you are in several duels). {secrecy}"
            ),
            colour=COLOUR_INFO,
        )
        return None, [embed]
    example = _example_move(message)
    embed = discord.Embed(
        title=f"Duel #{duel_id}, {words.label}: your {words.move}",
        description=(
            f"You are duelling **{opponent}**. {_deadline_text(message.deadline, words)}\n\n"
            f"{_how_to_move(message.moves, words.move)} (for example `{example}`, or "
            f"`#{duel_id} {example}` if you are in several duels). "
            f"Your {words.move} stays secret until the {words.round} closes."
            + _help_paragraph(message)
        ),
        colour=COLOUR_INFO,
    )
    return None, [embed]


def reminder(message: Reminder) -> tuple[str | None, list[discord.Embed]]:
    duel_id = message.duel_id
    words = step_words_of(message.ruleset, message.round_no, message.words)
    embed = discord.Embed(
        title=f"Reminder: duel #{duel_id}, {words.label}",
        description=(
            f"You have not sent a {words.move} yet for {words.label} against "
            f"**{safe(message.opponent)}**.\n{_deadline_text(message.deadline, words)}\n\n"
            f"{_how_to_move(message.moves, words.move)}."
        ),
        colour=COLOUR_WARN,
    )
    return None, [embed]


def private_note(message: PrivateNote) -> tuple[str | None, list[discord.Embed]]:
    """What only this duellist may learn from a step (their secret choices confirmed, the
    opponent's Style learnt...). A DM, never a channel post."""
    lines = [f"• {truncate(note, 500)}" for note in message.notes]
    embed = discord.Embed(
        title=f"Duel #{message.duel_id}, "
        f"{step_words_of(message.ruleset, message.round_no, message.words).label}: "
        "for your eyes only",
        description="\n".join(lines) or "—",
        colour=COLOUR_INFO,
    )
    embed.add_field(
        name="Secret",
        value=f"Only you receive this; **{safe(message.opponent)}** and the channel do not.",
        inline=False,
    )
    return None, [embed]


def _render(message: OutboxMessage) -> tuple[str | None, list[discord.Embed]]:
    match message:
        case DuelStart():
            return duel_start(message)
        case RoundOpen():
            return round_open(message)
        case RoundResultPost():
            return round_result(message)
        case RoundUndone():
            return round_undone(message)
        case DuelEnd():
            return duel_end(message)
        case DmClosed():
            return dm_closed(message)
        case ChallengePost():
            return challenge(message)
        case RoundPrompt():
            return dm_prompt(message)
        case Reminder():
            return reminder(message)
        case PrivateNote():
            return private_note(message)
    raise MessageFormatError(f"no rendering for outbox message kind {message.KIND!r}")


def render_message(
    message: OutboxMessage,
    *,
    post_id: int | None = None,
    behalf: str | None = None,
    archive_base_url: str | None = None,
) -> Rendered:
    """Content and embeds for one outbox message. ``behalf``: the commander's name, shown
    as "Posted on behalf of ..." when the post cannot go out through a webhook.
    ``archive_base_url`` (config ``[archive] base_url``): a round result links to the duel's
    archive page, where a reader's browser checks every roll (issue 15)."""
    content, embeds = _render(message)
    if isinstance(message, RoundResultPost) and embeds:
        url = duel_page_url(archive_base_url, message.duel_id, message.guild_id)
        if url is not None and len(embeds[0].fields) < EMBED_MAX_FIELDS:
            embeds[0].add_field(name=ARCHIVE_LINK_TITLE, value=url[:1024], inline=False)
    return _finish(content, embeds, post_id, behalf)


#: The result embed's field that links to the duel's archive page.
ARCHIVE_LINK_TITLE = "Check every roll in your browser"
EMBED_MAX_FIELDS = 25


def render_post(
    kind: str,
    payload: Mapping[str, Any],
    *,
    post_id: int | None = None,
    behalf: str | None = None,
) -> Rendered:
    """Content and embeds for one outbox row (its payload read with
    :func:`~bot.services.messages.parse_message`: MessageFormatError when unreadable)."""
    return render_message(parse_message(kind, payload), post_id=post_id, behalf=behalf)


def dm_buttons(moves: Sequence[MoveChoice]) -> list[tuple[str, str]]:
    """The move buttons of a DM prompt or reminder: the legal moves the service listed. Too
    many for buttons: none; the prompt explains the text form."""
    if len(moves) > MAX_BUTTONS:
        return []
    return [(m.id, button_label(m.label)) for m in moves]


def button_label(label: str) -> str:
    """A button label Discord accepts: one line, 1 to 80 characters (a long FoEQ reroll
    label is cut with an ellipsis)."""
    return plain(label, LABEL_MAX)


def thread_name(message: DuelStart) -> str:
    """``Duel #N: A vs B`` as a thread name (plain text, at most 100 characters)."""
    a, b = plain(message.a.name, 40), plain(message.b.name, 40)
    return plain(f"Duel #{message.duel_id}: {a} vs {b}", 100)
