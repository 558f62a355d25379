"""Pure rendering of the DMs of a duel (no I/O): the prompt to choose, the reminder and the
private note, with their move buttons. Every text goes through the catalog in the caller's
``speaking`` scope (the poster's, in the outbox row's language: the member's)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

import discord

from bot.i18n.context import _
from bot.presentation.discord_text import (
    COLOUR_INFO,
    COLOUR_WARN,
    plain,
    safe,
    timestamp,
    truncate,
)
from bot.presentation.words import closes_text, ruleset_or_none, step_words_of
from bot.rules.terms import StepWords
from bot.services.messages import (
    MAX_MOVE_BUTTONS,
    MoveChoice,
    PrivateNote,
    Reminder,
    RoundPrompt,
)

# -- DMs ------------------------------------------------------------------------------


def _deadline_text(deadline: datetime | None, words: StepWords) -> str:
    if deadline is None:
        return _("There is no deadline: {closes}.", closes=closes_text(words))
    return _("Deadline: {deadline}.", deadline=timestamp(deadline))


MAX_BUTTONS = MAX_MOVE_BUTTONS
LABEL_MAX = 80  # characters of a button label


def _by_buttons(moves: tuple[MoveChoice, ...]) -> bool:
    """Whether the prompt's buttons list every choice."""
    return bool(moves) and len(moves) <= MAX_BUTTONS


_CODE_SPAN = re.compile(r"`([^`]{1,40})`")


def _example_move(message: RoundPrompt) -> str:
    """The example in a DM prompt: the ruleset's own (the last choice its help text shows)
    when it is legal now, else the first legal choice."""
    listed = [m.id for m in message.moves]
    shown = _CODE_SPAN.findall(_help_of(message.ruleset))
    if shown and shown[-1] in listed:
        return safe(shown[-1], 40)
    return safe(listed[0], 40) if listed else "help"  # i18n: not shown (a DM command)


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
            _("Your choice stays secret.")
            if message.secret
            else _("This choice is made in the open: it is shown in the result.")
        )
        how = (
            _(
                "Pick your choice with a button below, or reply with its name (`#{duel} ...` "
                "first if you are in several duels).",
                duel=duel_id,
            )
            if _by_buttons(message.moves)
            else _(
                "Reply with your choice as text (`#{duel} ...` first if you are in several "
                "duels).",
                duel=duel_id,
            )
        )
        embed = discord.Embed(
            title=_("Duel #{duel}, {label}: your choice", duel=duel_id, label=words.label),
            description=(
                _("You are duelling **{opponent}**.", opponent=opponent)
                + f" {_deadline_text(message.deadline, words)}"
                f"\n\n{truncate(message.prompt, 1500)}\n\n{how} {secrecy}"
            ),
            colour=COLOUR_INFO,
        )
        return None, [embed]
    example = _example_move(message)
    how = (
        _(
            "Pick your {move} with a button below, or reply with its name (for example "
            "`{example}`, or `#{duel} {example}` if you are in several duels).",
            move=words.move,
            example=example,
            duel=duel_id,
        )
        if _by_buttons(message.moves)
        else _(
            "Reply with your {move} as text (for example `{example}`, or `#{duel} {example}` "
            "if you are in several duels).",
            move=words.move,
            example=example,
            duel=duel_id,
        )
    )
    secrecy = _(
        "Your {move} stays secret until the {round} closes.", move=words.move, round=words.round
    )
    embed = discord.Embed(
        title=_(
            "Duel #{duel}, {label}: your {move}", duel=duel_id, label=words.label, move=words.move
        ),
        description=(
            _("You are duelling **{opponent}**.", opponent=opponent)
            + f" {_deadline_text(message.deadline, words)}\n\n{how} {secrecy}"
            + _help_paragraph(message)
        ),
        colour=COLOUR_INFO,
    )
    return None, [embed]


def reminder(message: Reminder) -> tuple[str | None, list[discord.Embed]]:
    duel_id = message.duel_id
    words = step_words_of(message.ruleset, message.round_no, message.words)
    how = (
        _(
            "Pick your {move} with a button below, or reply with its name.",
            move=words.move,
        )
        if _by_buttons(message.moves)
        else _("Reply with your {move} as text.", move=words.move)
    )
    embed = discord.Embed(
        title=_("Reminder: duel #{duel}, {label}", duel=duel_id, label=words.label),
        description=(
            _(
                "You have not sent a {move} yet for {label} against **{opponent}**.",
                move=words.move,
                label=words.label,
                opponent=safe(message.opponent),
            )
            + f"\n{_deadline_text(message.deadline, words)}\n\n{how}"
        ),
        colour=COLOUR_WARN,
    )
    return None, [embed]


def private_note(message: PrivateNote) -> tuple[str | None, list[discord.Embed]]:
    """What only this duellist may learn from a step (their secret choices confirmed, the
    opponent's Style learnt...). A DM, never a channel post."""
    lines = [f"• {truncate(note, 500)}" for note in message.notes]
    label = step_words_of(message.ruleset, message.round_no, message.words).label
    embed = discord.Embed(
        title=_("Duel #{duel}, {label}: for your eyes only", duel=message.duel_id, label=label),
        description="\n".join(lines) or "—",
        colour=COLOUR_INFO,
    )
    embed.add_field(
        name=_("Secret"),
        value=_(
            "Only you receive this; **{opponent}** and the channel do not.",
            opponent=safe(message.opponent),
        ),
        inline=False,
    )
    return None, [embed]


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
