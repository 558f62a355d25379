"""The DMs of a round: the prompt asking for a move (with its buttons), the reminder, the
private note of a step, and the edit that turns a closed round's buttons off
(:class:`ButtonsClosed`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

from bot.i18n.context import _
from bot.rules.terms import StepWords
from bot.services.message_format import (
    SIDES,
    Fields,
    MessageFormatError,
    MoveChoice,
    OutboxMessage,
    iso_or_none,
    read_step_words,
    words_json,
)


@dataclass(frozen=True, slots=True)
class DirectMessage(OutboxMessage):
    """What every DM about a round carries: whose it is and where the duel is posted (for
    the "DMs closed" notice)."""

    duel_id: int
    round_no: int
    ruleset: str
    side: str
    opponent: str
    channel_id: int | None

    def head_json(self) -> dict[str, Any]:
        """The JSON of the fields every DM carries (a DM's body starts with them)."""
        return {
            "duel_id": self.duel_id,
            "round_no": self.round_no,
            "ruleset": self.ruleset,
            "side": self.side,
            "opponent": self.opponent,
            "channel_id": self.channel_id,
        }

    @staticmethod
    def read_head(f: Fields) -> tuple[int, int, str, str, str, int | None]:
        """The fields every DM carries, read back in their order."""
        return (
            f.integer("duel_id"),
            f.integer("round_no"),
            f.ruleset(),
            f.side("side"),
            _opponent(f),
            f.opt_integer("channel_id"),
        )


@dataclass(frozen=True, slots=True)
class RoundPrompt(DirectMessage):
    """The DM asking a duellist for their move (or a step's choice)."""

    KIND: ClassVar[str] = "round_dm"
    OPTIONAL_FIELDS: ClassVar[tuple[str, ...]] = ("words",)
    commitment: str = ""  # the round's, as published in the channel
    deadline: datetime | None = None
    moves: tuple[MoveChoice, ...] = ()
    # A step of a multi-step duel: what the ruleset asks, and whether the answer is secret.
    prompt: str | None = None
    secret: bool = True
    words: StepWords | None = None

    def body(self) -> dict[str, Any]:
        return {
            **self.head_json(),
            "words": words_json(self.words),
            "commitment": self.commitment,
            "deadline": iso_or_none(self.deadline),
            "moves": [{"id": m.id, "label": m.label} for m in self.moves],
            "prompt": self.prompt,
            "secret": self.secret,
        }

    @classmethod
    def read(cls, f: Fields) -> RoundPrompt:
        head = cls.read_head(f)
        return cls(
            *head,
            f.text("commitment", ""),
            f.when("deadline"),
            f.moves(head[2]),
            f.opt_text("prompt"),
            f.flag("secret", True),
            read_step_words(f),
        )


def _opponent(f: Fields) -> str:
    """The opponent's name. Unversioned round DMs named both duellists instead."""
    if f.strict or "opponent" in f.data:
        return f.text("opponent")
    side = f.data.get("side")
    if side in SIDES:
        return f.party("b" if side == "a" else "a").name
    return _("your opponent")


@dataclass(frozen=True, slots=True)
class Reminder(DirectMessage):
    KIND: ClassVar[str] = "reminder_dm"
    OPTIONAL_FIELDS: ClassVar[tuple[str, ...]] = ("words",)
    deadline: datetime | None = None
    moves: tuple[MoveChoice, ...] = ()
    words: StepWords | None = None

    def body(self) -> dict[str, Any]:
        return {
            **self.head_json(),
            "words": words_json(self.words),
            "deadline": iso_or_none(self.deadline),
            "moves": [{"id": m.id, "label": m.label} for m in self.moves],
        }

    @classmethod
    def read(cls, f: Fields) -> Reminder:
        head = cls.read_head(f)
        return cls(
            *head,
            f.when("deadline"),
            f.moves(head[2]),
            read_step_words(f),
        )


@dataclass(frozen=True, slots=True)
class PrivateNote(DirectMessage):
    """What only this duellist may learn from a step. A DM, never a channel post."""

    KIND: ClassVar[str] = "private_note"
    OPTIONAL_FIELDS: ClassVar[tuple[str, ...]] = ("words",)
    notes: tuple[str, ...] = ()
    words: StepWords | None = None

    def body(self) -> dict[str, Any]:
        return {
            **self.head_json(),
            "notes": list(self.notes),
            "words": words_json(self.words),
        }

    @classmethod
    def read(cls, f: Fields) -> PrivateNote:
        return cls(*cls.read_head(f), f.texts("notes", ()), read_step_words(f))



#: Why a round's buttons were turned off: it closed (resolved), or it was cancelled (the
#: duel was ended by a commander while it was open).
BUTTONS_CLOSED_REASONS = ("closed", "cancelled")


@dataclass(frozen=True, slots=True)
class ButtonsClosed(OutboxMessage):
    """Not a new message: the edit of one duellist's DMs of a round whose move buttons no
    longer apply. Written in the transaction that closes (or cancels) the round; the poster
    PATCHes each message that round's DMs to this duellist left (the prompt, its reminders:
    found by ``round_id`` when the edit is delivered, since a message id is known only once
    a prompt is posted) with the same buttons, disabled, as Discord shows a prompt the bot
    has edited. A prompt not posted by then never is (the poster skips prompts of a closed
    round)."""

    KIND: ClassVar[str] = "buttons_closed"
    duel_id: int
    round_no: int
    side: str
    round_id: int
    reason: str = "closed"

    def body(self) -> dict[str, Any]:
        return {
            "duel_id": self.duel_id,
            "round_no": self.round_no,
            "side": self.side,
            "round_id": self.round_id,
            "reason": self.reason,
        }

    @classmethod
    def read(cls, f: Fields) -> ButtonsClosed:
        reason = f.text("reason")
        if reason not in BUTTONS_CLOSED_REASONS:
            raise MessageFormatError(f"{f.kind} payload: 'reason' is not one of a round's ends")
        return cls(
            f.integer("duel_id"),
            f.integer("round_no"),
            f.side("side"),
            f.integer("round_id"),
            reason,
        )
