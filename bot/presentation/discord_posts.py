"""Pure rendering of outbox payloads into Discord message parts (no I/O).

``render_post(kind, payload, post_id=...)`` returns the content and embeds of one outbox
post. Every embed carries the marker ``duelbot post #<id>`` in its footer, which the poster
looks for before posting again (a previous attempt may have landed before a timeout).

Every text goes through the catalog (bot/i18n/context.py): the poster renders a post in its
outbox row's language (``speaking(row.language)``), so nothing here takes a language.

Names in payloads are user-controlled: every one goes through :func:`safe` (Markdown and
mentions escaped, one line, bounded). Embeds are cut to Discord's limits by :func:`fit`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import discord

from bot.archive.links import duel_page_url
from bot.i18n.context import _
from bot.i18n.translate import N_

# The DMs (bot/presentation/discord_dms.py), named here too for the outbox's workers.
from bot.presentation.discord_dms import LABEL_MAX as LABEL_MAX
from bot.presentation.discord_dms import MAX_BUTTONS as MAX_BUTTONS
from bot.presentation.discord_dms import button_label as button_label
from bot.presentation.discord_dms import dm_buttons as dm_buttons
from bot.presentation.discord_dms import dm_prompt, private_note, reminder
from bot.presentation.discord_result import (
    duel_ref,
    result_embed,
    ruleset_name,
)
from bot.presentation.discord_text import (
    COLOUR_END,
    COLOUR_INFO,
    COLOUR_WARN,
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
    round_label,
    rules_in_force,
    ruleset_or_none,
    ruleset_words,
    step_words_of,
)
from bot.rules.base import Ruleset
from bot.rules.terms import StepWords
from bot.services.messages import (
    ChallengePost,
    DmClosed,
    DuelEnd,
    DuelStart,
    MessageFormatError,
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

# The marker is read back by the poster in every language: never translated.
_MARKER = "duelbot post #{id}"  # i18n: not shown
_MARKER_RE = re.compile(r"duelbot post #(\d+)(?!\d)")  # i18n: not shown


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
        out[0].set_author(name=_("Posted on behalf of {who}", who=who))
    if content is not None:
        content = truncate(content, CONTENT_MAX)
    return Rendered(content, [fit(e) for e in out])


# -- channel posts --------------------------------------------------------------------


def duel_start(message: DuelStart) -> tuple[str | None, list[discord.Embed]]:
    a, b = _name(message.a), _name(message.b)
    rules = ruleset_or_none(message.ruleset)
    words = ruleset_words(message.ruleset)
    rnd, moves = words.round.one, words.move.many
    ruleset = ruleset_name(message.ruleset)
    if words.closes == "itself":
        description = _(
            "A duel begins under {ruleset}. A commander opens {round} 1; each {round} then "
            "closes by itself as soon as the awaited duellists have chosen, and the next "
            "opens. The duellists send their {moves} to the bot by DM (or `/move`); a secret "
            "one stays secret until its {round} closes.",
            ruleset=ruleset,
            round=rnd,
            moves=moves,
        )
    else:
        description = _(
            "A duel begins under {ruleset}. A commander opens each {round}; the duellists "
            "send their {moves} to the bot by DM (or `/move`), and the {moves} stay secret "
            "until the {round} closes.",
            ruleset=ruleset,
            round=rnd,
            moves=moves,
        )
    embed = discord.Embed(
        title=_("{duel}: {a} vs {b}", duel=duel_ref(message.duel_id), a=a, b=b),
        description=description,
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
            name=_("Rules fixed for this duel"),
            value=rules_text(message.ruleset, message.options),
            inline=False,
        )
    return _mentions(message.a, message.b), [embed]


def rules_text(ruleset: str, options: Mapping[str, Any]) -> str:
    """The rules a duel was fixed with at its start, one per line (for the card and
    `/duel status`); later server setting changes do not apply to it."""
    lines = [
        _("{name}: {meaning}", name=name, meaning=safe(meaning, 300))
        for name, meaning in rules_in_force(ruleset, options)
    ]
    lines.append(_("A change of the server's settings applies to later duels only."))
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
        _("Deadline: {deadline}.", deadline=timestamp(message.deadline))
        if message.deadline is not None
        else _("No deadline: {closes}.", closes=closes_text(words))
    )
    duel_id = message.duel_id
    if message.awaiting is not None:
        # A step of a multi-step duel (FoEQ): only the awaited duellists choose now.
        parties = {"a": message.a, "b": message.b}
        awaited = [_name(parties[s]) for s in message.awaiting]
        how = (
            _(
                "Waiting for {who}: the bot has sent the choice by DM (or use "
                "`/move duel:{duel}` here).",
                who=awaited[0],
                duel=duel_id,
            )
            if len(awaited) == 1
            else _(
                "Waiting for {a} and {b}: the bot has sent the choice by DM (or use "
                "`/move duel:{duel}` here).",
                a=awaited[0],
                b=awaited[1],
                duel=duel_id,
            )
            if len(awaited) == 2
            else _(
                "Waiting for nobody: the bot has sent the choice by DM (or use "
                "`/move duel:{duel}` here).",
                duel=duel_id,
            )
        )
    else:
        how = _(
            "Duellists: send your {move} to the bot by DM (use the buttons in its message, "
            "or type the {move}), or use `/move duel:{duel}` here. {Move}s stay secret until "
            "the {round} closes.",
            move=words.move,
            duel=duel_id,
            Move=capital(words.move),
            round=words.round,
        )
    embed = discord.Embed(
        title=_(
            "{duel}, {label} is open: {a} vs {b}",
            duel=duel_ref(duel_id),
            label=words.label,
            a=a,
            b=b,
        ),
        description=f"{when}\n\n{how}",
        colour=COLOUR_INFO,
    )
    # In full (the reveal is checked against it), in the footer's small type (issue 26).
    embed.set_footer(
        text=_(
            "commitment (SHA-256 of this {round}'s secret seed): {commitment}",
            round=words.round,
            commitment=message.commitment,
        )
    )
    mentions = _mentions(message.a, message.b)
    content = _(
        "{mentions}: {label} of duel #{duel} is open.",
        mentions=mentions,
        label=words.label,
        duel=duel_id,
    )
    return (content if mentions else None), [embed]


def round_result(message: RoundResultPost) -> tuple[str | None, list[discord.Embed]]:
    view = round_result_of_post(message)
    return _mentions(message.a, message.b), [result_embed(view)]


def round_undone(message: RoundUndone) -> tuple[str | None, list[discord.Embed]]:
    round_no = message.round_no
    # The message carries the outcome's id only (no names, no ruleset to word it): no
    # internal id is shown to people (issue 24); the undone result stays in the history.
    by = message.undone_by
    words = message.words or StepWords(round_label(_("round"), round_no), _("round"), _("move"))
    who = f"<@{by}>" if by is not None else _("A commander")
    after = _(
        "The duel is back to where it stood before that {round}; the undone result stays in "
        "the history, and the next result says that it follows this undo.",
        round=words.round,
    )
    voided = (
        _("{who} voided the result of {label}.", who=who, label=words.label)
        if by is not None
        else _("A commander voided the result of {label}.", label=words.label)
    )
    embed = discord.Embed(
        title=_("{duel}: {label} undone", duel=duel_ref(message.duel_id), label=words.label),
        description=f"{voided} {after}",
        colour=COLOUR_WARN,
    )
    if message.reason:
        embed.add_field(name=_("Undone by"), value=who, inline=True)
        embed.add_field(name=_("Reason"), value=safe(message.reason, 400), inline=False)
    return None, [embed]


def duel_end(message: DuelEnd) -> tuple[str | None, list[discord.Embed]]:
    a, b = _name(message.a), _name(message.b)
    reason = safe(message.reason or _("no reason given"), 400)
    lines = [_("Ended by a commander. Reason: {reason}", reason=reason)]
    if message.cancelled_round is not None:
        words = message.words or StepWords(
            round_label(_("round"), message.cancelled_round), _("round"), _("move")
        )
        lines.append(
            _(
                "{label} was cancelled unresolved; its {move}s stay sealed.",
                label=capital(words.label),
                move=words.move,
            )
        )
    embed = discord.Embed(
        title=_("{duel} has ended: {a} vs {b}", duel=duel_ref(message.duel_id), a=a, b=b),
        description="\n".join(lines),
        colour=COLOUR_END,
    )
    return _mentions(message.a, message.b), [embed]


def challenge(message: ChallengePost) -> tuple[str | None, list[discord.Embed]]:
    """A pre-duel challenge settled, in its ruleset's words: the headline as the title, the
    outcome sentence, each penalty in bold, the log, the duel it started, the roll."""
    challenger, challenged = safe(message.challenger.name), safe(message.challenged.name)
    title = (
        safe(message.headline, 200)
        if message.headline
        else _("{a} and {b}", a=challenger, b=challenged)
    )
    lines = [f"{safe(message.sentence or message.outcome, 300)}."]
    lines.extend(f"**{safe(sentence, 300)}.**" for sentence in message.penalties)
    lines.extend(safe(line, 300) for line in message.log)
    if message.duel_id is not None:
        first = ruleset_words(message.ruleset).round.one
        lines.append(
            _(
                "Duel #{duel} begins: a commander opens {round} 1.",
                duel=message.duel_id,
                round=first,
            )
        )
    roll = message.revealed_roll
    if roll is not None:
        lines.append(
            _(
                "Roll: d{sides} = **{value}**.",
                sides=safe(roll.sides, 6),
                value=safe(roll.value, 6),
            )
        )
    embed = discord.Embed(
        title=title[:256],
        description="\n".join(lines)[:4000],
        colour=COLOUR_INFO,
    )
    if roll is not None:
        # In full: a refused challenge has no duel, so no history or archive page holds it.
        embed.set_footer(
            text=_(
                "roll {label} · seed {seed} · commitment {commitment}",
                label=plain(roll.label, 60),
                seed=message.seed,
                commitment=message.commitment,
            )
        )
    return None, [embed]


def dm_closed(message: DmClosed) -> tuple[str | None, list[discord.Embed]]:
    """The notice for a duellist whose DMs are closed: who, and how to move. Nothing else."""
    duel_id = message.duel_id
    text = _(
        "{member} cannot receive direct messages from the bot. Send your move for duel "
        "#{duel} with `/move duel:{duel} move:<choice>` (only you see the answer).",
        member=f"<@{message.user_id}>",
        duel=duel_id,
    )
    embed = discord.Embed(
        title=_("{duel}: a duellist's DMs are closed", duel=duel_ref(duel_id)),
        description=text,
        colour=COLOUR_WARN,
    )
    return text, [embed]


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
    kind = message.KIND
    raise MessageFormatError(f"no rendering for outbox message kind {kind!r}")  # i18n: not shown


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
            embeds[0].add_field(name=_(ARCHIVE_LINK_TITLE), value=url[:1024], inline=False)
    return _finish(content, embeds, post_id, behalf)


#: The result embed's field that links to the duel's archive page.
ARCHIVE_LINK_TITLE = N_("Check every roll in your browser")
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


def thread_name(message: DuelStart) -> str:
    """``Duel #N: A vs B`` as a thread name (plain text, at most 100 characters)."""
    a, b = plain(message.a.name, 40), plain(message.b.name, 40)
    return plain(_("Duel #{duel}: {a} vs {b}", duel=message.duel_id, a=a, b=b), 100)
