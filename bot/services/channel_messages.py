"""The posts in a duel's channel (or thread): the duel's card, a round's opening, its
result, an undo, a commander's end, a pre-duel challenge, and the "DMs closed" notice."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

from bot.rules.terms import StepWords
from bot.services.message_format import (
    SIDES,
    Fields,
    OutboxMessage,
    Party,
    iso_or_none,
    read_step_words,
    words_json,
)
from bot.services.published import PublishedRound, read_published


@dataclass(frozen=True, slots=True)
class DuelStart(OutboxMessage):
    KIND: ClassVar[str] = "duel_start"
    duel_id: int
    ruleset: str
    a: Party
    b: Party
    started_by: int | None
    options: dict[str, Any] | None
    make_thread: bool

    def body(self) -> dict[str, Any]:
        return {
            "duel_id": self.duel_id,
            "ruleset": self.ruleset,
            "a": self.a.to_json(),
            "b": self.b.to_json(),
            "started_by": self.started_by,
            "options": self.options,
            "make_thread": self.make_thread,
        }

    @classmethod
    def read(cls, f: Fields) -> DuelStart:
        return cls(
            f.integer("duel_id"),
            f.ruleset(),
            f.party("a"),
            f.party("b"),
            f.opt_integer("started_by"),
            f.opt_mapping("options"),
            f.flag("make_thread", False),
        )


@dataclass(frozen=True, slots=True)
class RoundOpen(OutboxMessage):
    """The channel's notice that a round (a step) is open."""

    KIND: ClassVar[str] = "round_open"
    OPTIONAL_FIELDS: ClassVar[tuple[str, ...]] = ("words",)
    duel_id: int
    round_no: int
    ruleset: str
    a: Party
    b: Party
    commitment: str
    deadline: datetime | None
    opened_by: int | None
    # The awaited sides when only some choose now (a step of a multi-step duel); None: both.
    awaiting: tuple[str, ...] | None = None
    # How this round (step) is named and who closes it (None: written before issue 24).
    words: StepWords | None = None

    def body(self) -> dict[str, Any]:
        return {
            "words": words_json(self.words),
            "duel_id": self.duel_id,
            "round_no": self.round_no,
            "ruleset": self.ruleset,
            "a": self.a.to_json(),
            "b": self.b.to_json(),
            "commitment": self.commitment,
            "deadline": iso_or_none(self.deadline),
            "opened_by": self.opened_by,
            "awaiting": None if self.awaiting is None else list(self.awaiting),
        }

    @classmethod
    def read(cls, f: Fields) -> RoundOpen:
        awaiting = f._get("awaiting", None)
        return cls(
            f.integer("duel_id"),
            f.integer("round_no"),
            f.ruleset(),
            f.party("a"),
            f.party("b"),
            f.text("commitment"),
            f.when("deadline"),
            f.opt_integer("opened_by"),
            None if awaiting is None else tuple(s for s in f.texts("awaiting") if s in SIDES),
            read_step_words(f),
        )


@dataclass(frozen=True, slots=True)
class FollowsUndo:
    round_no: int
    undone_by: int | None
    reason: str | None


@dataclass(frozen=True, slots=True)
class RoundResultPost(OutboxMessage):
    """A closed round. ``result`` is the published round the close built and stored (typed,
    bot/services/published.py): the presentation reads it, and works nothing out again."""

    KIND: ClassVar[str] = "round_result"
    duel_id: int
    guild_id: int | None
    round_no: int
    a: Party
    b: Party
    result: PublishedRound
    winner_name: str | None
    seed: str
    commitment: str
    closed_by: int | None
    reason: str
    ended: bool
    follows_undo: FollowsUndo | None = None

    def body(self) -> dict[str, Any]:
        follows = self.follows_undo
        return {
            "duel_id": self.duel_id,
            "guild_id": self.guild_id,
            "round_no": self.round_no,
            "a": self.a.to_json(),
            "b": self.b.to_json(),
            "result": self.result.to_json(),
            "winner_name": self.winner_name,
            "seed": self.seed,
            "commitment": self.commitment,
            "closed_by": self.closed_by,
            "reason": self.reason,
            "ended": self.ended,
            "follows_undo": None
            if follows is None
            else {
                "round_no": follows.round_no,
                "undone_by": follows.undone_by,
                "reason": follows.reason,
            },
        }

    @classmethod
    def read(cls, f: Fields) -> RoundResultPost:
        # The published round's own version says how it is read (rows from before it was
        # typed carry version 1, a plain dict); PublishedFormatError is a ValueError.
        result = read_published(f.mapping("result", {}))
        follows = f.opt_mapping("follows_undo")
        if follows is None and not f.strict and result.follows_undo_of is not None:
            follows = {"round_no": result.follows_undo_of}
        undo = None
        if follows is not None:
            u = Fields(f"{f.kind}.follows_undo", follows, strict=f.strict)
            undo = FollowsUndo(
                u.integer("round_no"), u.opt_integer("undone_by"), u.opt_text("reason")
            )
        return cls(
            f.integer("duel_id"),
            f.opt_integer("guild_id"),
            f.integer("round_no"),
            f.party("a"),
            f.party("b"),
            result,
            f.opt_text("winner_name"),
            f.text("seed", "?"),
            f.text("commitment", "?"),
            f.opt_integer("closed_by"),
            f.text("reason", "closed"),
            f.flag("ended", result.ended),
            undo,
        )


@dataclass(frozen=True, slots=True)
class RoundUndone(OutboxMessage):
    KIND: ClassVar[str] = "round_undone"
    OPTIONAL_FIELDS: ClassVar[tuple[str, ...]] = ("words",)
    duel_id: int
    round_no: int
    outcome: str | None
    undone_by: int | None
    reason: str | None
    # The undone round (step) in its ruleset's words (None: written before issue 24).
    words: StepWords | None = None

    def body(self) -> dict[str, Any]:
        return {
            "duel_id": self.duel_id,
            "round_no": self.round_no,
            "outcome": self.outcome,
            "undone_by": self.undone_by,
            "reason": self.reason,
            "words": words_json(self.words),
        }

    @classmethod
    def read(cls, f: Fields) -> RoundUndone:
        return cls(
            f.integer("duel_id"),
            f.integer("round_no"),
            f.opt_text("outcome"),
            f.opt_integer("undone_by"),
            f.opt_text("reason"),
            read_step_words(f),
        )


@dataclass(frozen=True, slots=True)
class DuelEnd(OutboxMessage):
    """A duel ended by a commander (an ending by result is said by the round result)."""

    KIND: ClassVar[str] = "duel_end"
    OPTIONAL_FIELDS: ClassVar[tuple[str, ...]] = ("words",)
    duel_id: int
    a: Party
    b: Party
    reason: str | None
    cancelled_round: int | None
    # The cancelled round (step) in its ruleset's words (None: none, or written before).
    words: StepWords | None = None

    def body(self) -> dict[str, Any]:
        return {
            "duel_id": self.duel_id,
            "a": self.a.to_json(),
            "b": self.b.to_json(),
            "reason": self.reason,
            "cancelled_round": self.cancelled_round,
            "words": words_json(self.words),
        }

    @classmethod
    def read(cls, f: Fields) -> DuelEnd:
        return cls(
            f.integer("duel_id"),
            f.party("a"),
            f.party("b"),
            f.opt_text("reason"),
            f.opt_integer("cancelled_round"),
            read_step_words(f),
        )


@dataclass(frozen=True, slots=True)
class RevealedRoll:
    label: str
    sides: str
    value: str


@dataclass(frozen=True, slots=True)
class ChallengePost(OutboxMessage):
    """A pre-duel challenge settled, in its ruleset's words: the headline ("Ann challenges
    Bob"), the outcome sentence, the penalties' sentences, the log. Version 2: version 1
    (one ruleset's own flags) is no longer written."""

    KIND: ClassVar[str] = "challenge"
    VERSION: ClassVar[int] = 2
    duel_id: int | None
    ruleset: str
    headline: str
    outcome: str
    sentence: str
    challenger: Party
    challenged: Party
    penalties: tuple[str, ...]
    log: tuple[str, ...]
    # The step's roll, with the seed it came from, when it rolled one.
    roll: dict[str, Any] | None
    seed: str | None
    commitment: str | None
    fought: bool = False

    def body(self) -> dict[str, Any]:
        return {
            "duel_id": self.duel_id,
            "ruleset": self.ruleset,
            "headline": self.headline,
            "outcome": self.outcome,
            "sentence": self.sentence,
            "challenger": self.challenger.to_json(),
            "challenged": self.challenged.to_json(),
            "penalties": list(self.penalties),
            "log": list(self.log),
            "roll": self.roll,
            "seed": self.seed,
            "commitment": self.commitment,
            "duel": self.fought,
        }

    @property
    def revealed_roll(self) -> RevealedRoll | None:
        roll = self.roll
        if roll is None or self.seed is None:
            return None
        return RevealedRoll(
            str(roll.get("label", "?")), str(roll.get("sides", "?")), str(roll.get("value", "?"))
        )

    @classmethod
    def read(cls, f: Fields) -> ChallengePost:
        return cls(
            f.opt_integer("duel_id"),
            f.ruleset(),
            f.text("headline", ""),
            f.text("outcome"),
            f.text("sentence", ""),
            f.party("challenger"),
            f.party("challenged"),
            f.texts("penalties", ()),
            f.texts("log", ()),
            f.opt_mapping("roll"),
            f.opt_text("seed"),
            f.opt_text("commitment"),
            f.flag("duel", False),
        )


@dataclass(frozen=True, slots=True)
class DmClosed(OutboxMessage):
    """The channel notice for a duellist whose DMs are closed: who, and how to move."""

    KIND: ClassVar[str] = "dm_closed"
    duel_id: int
    round_no: int | None
    user_id: int

    def body(self) -> dict[str, Any]:
        return {"duel_id": self.duel_id, "round_no": self.round_no, "user_id": self.user_id}

    @classmethod
    def read(cls, f: Fields) -> DmClosed:
        return cls(f.integer("duel_id"), f.opt_integer("round_no"), f.integer("user_id"))


