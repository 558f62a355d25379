"""Outbox messages: one frozen dataclass per kind of post, with a version and JSON.

The services write them (``OutboxPost.kind`` + ``message.to_json()`` as the payload, in the
transaction of the change); the poster reads them back with :func:`parse_message` and the
presentation layer renders them. A payload is checked when it is read back: an unknown kind
or version, or a field missing from a versioned payload, raises :class:`MessageFormatError`
(the poster gives the post up and logs it), never a silently defaulted post.

Rows written before payloads carried a version are version 1 read leniently: the fields
they lacked then (the ruleset, the listed moves...) get what those rows meant (the default
ruleset, its every move). That is the only place defaults are filled in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar, TypeVar

from bot.rules.errors import RulesError
from bot.rules.registry import DEFAULT_RULESET_ID
from bot.rules.registry import get as get_ruleset

VERSION_KEY = "version"
#: Sides as the payloads name them.
SIDES = ("a", "b")


class MessageFormatError(ValueError):
    """An outbox payload this version of duelbot cannot read (kind, version or fields)."""


_MISSING: Any = object()
T = TypeVar("T")


class _Fields:
    """Reads one payload: strictly (a versioned payload: every field must be there) or
    leniently (an unversioned row: absent fields take their default)."""

    def __init__(self, kind: str, data: Mapping[str, Any], *, strict: bool) -> None:
        self.kind, self.data, self.strict = kind, data, strict

    def _get(self, key: str, default: Any) -> Any:
        if key in self.data:
            return self.data[key]
        if self.strict or default is _MISSING:
            raise MessageFormatError(f"{self.kind} payload has no {key!r}")
        return default

    def _typed(self, key: str, value: Any, kinds: type | tuple[type, ...]) -> Any:
        if isinstance(value, bool) and kinds is int:
            raise MessageFormatError(f"{self.kind} payload: {key!r} is not an integer")
        if not isinstance(value, kinds):
            raise MessageFormatError(f"{self.kind} payload: {key!r} has the wrong type")
        return value

    def integer(self, key: str, default: Any = _MISSING) -> int:
        return int(self._typed(key, self._get(key, default), int))

    def opt_integer(self, key: str) -> int | None:
        value = self._get(key, None)
        return None if value is None else int(self._typed(key, value, int))

    def text(self, key: str, default: Any = _MISSING) -> str:
        return str(self._typed(key, self._get(key, default), str))

    def opt_text(self, key: str) -> str | None:
        value = self._get(key, None)
        return None if value is None else str(self._typed(key, value, str))

    def flag(self, key: str, default: Any = _MISSING) -> bool:
        return bool(self._typed(key, self._get(key, default), bool))

    def mapping(self, key: str, default: Any = _MISSING) -> dict[str, Any]:
        return dict(self._typed(key, self._get(key, default), Mapping))

    def opt_mapping(self, key: str) -> dict[str, Any] | None:
        value = self._get(key, None)
        return None if value is None else dict(self._typed(key, value, Mapping))

    def texts(self, key: str, default: Any = _MISSING) -> tuple[str, ...]:
        items = self._typed(key, self._get(key, default), (list, tuple))
        return tuple(str(self._typed(key, item, str)) for item in items)

    def when(self, key: str) -> datetime | None:
        value = self.opt_text(key)
        if value is None:
            return None
        try:
            when = datetime.fromisoformat(value)
        except ValueError as exc:
            raise MessageFormatError(f"{self.kind} payload: {key!r} is not a time") from exc
        return when if when.tzinfo is not None else when.replace(tzinfo=UTC)

    def party(self, key: str) -> Party:
        entry = self._get(key, {} if not self.strict else _MISSING)
        entry = self._typed(key, entry, Mapping)
        reader = _Fields(f"{self.kind}.{key}", entry, strict=self.strict)
        sheet = {k: v for k, v in entry.items() if k not in ("user_id", "name")}
        name = reader.opt_text("name") if not self.strict else reader.text("name")
        return Party(reader.opt_integer("user_id"), name or f"Duellist {key.upper()}", sheet)

    def side(self, key: str) -> str:
        value = self.text(key)
        if value not in SIDES:
            raise MessageFormatError(f"{self.kind} payload: {key!r} is not a side")
        return value

    def ruleset(self) -> str:
        # Rows written before payloads named their ruleset were all of the default one.
        return self.text("ruleset", DEFAULT_RULESET_ID)

    def moves(self, ruleset: str) -> tuple[MoveChoice, ...]:
        listed = self._get("moves", None)
        if listed is None and not self.strict:
            # Rows written before prompts listed their moves: the ruleset's every move (all
            # such rows were of the default ruleset, whose moves never depend on the state).
            try:
                return tuple(MoveChoice(m.id, m.label) for m in get_ruleset(ruleset).moves())
            except RulesError:
                return ()
        items = self._typed("moves", listed, (list, tuple))
        out = []
        for item in items:
            entry = _Fields(f"{self.kind}.moves", self._typed("moves", item, Mapping), strict=True)
            move_id = entry.text("id")
            out.append(MoveChoice(move_id, str(item.get("label") or move_id)))
        return tuple(out)


def _iso(when: datetime | None) -> str | None:
    return None if when is None else when.isoformat()


@dataclass(frozen=True, slots=True)
class Party:
    """A duellist as a post names them: their id (None only in old rows), display name and,
    where the post shows it, their sheet as the ruleset stores it."""

    user_id: int | None
    name: str
    sheet: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"user_id": self.user_id, **self.sheet, "name": self.name}


@dataclass(frozen=True, slots=True)
class MoveChoice:
    id: str
    label: str


class OutboxMessage:
    """Base of every outbox message: its kind, its version, and its JSON."""

    KIND: ClassVar[str]
    VERSION: ClassVar[int] = 1
    duel_id: int | None

    def body(self) -> dict[str, Any]:
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:
        return {VERSION_KEY: self.VERSION, **self.body()}

    @classmethod
    def read(cls: type[T], f: _Fields) -> T:
        raise NotImplementedError


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
    def read(cls, f: _Fields) -> DuelStart:
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

    def body(self) -> dict[str, Any]:
        return {
            "duel_id": self.duel_id,
            "round_no": self.round_no,
            "ruleset": self.ruleset,
            "a": self.a.to_json(),
            "b": self.b.to_json(),
            "commitment": self.commitment,
            "deadline": _iso(self.deadline),
            "opened_by": self.opened_by,
            "awaiting": None if self.awaiting is None else list(self.awaiting),
        }

    @classmethod
    def read(cls, f: _Fields) -> RoundOpen:
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
    def read_head(f: _Fields) -> tuple[int, int, str, str, str, int | None]:
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
    commitment: str = ""  # the round's, as published in the channel
    deadline: datetime | None = None
    moves: tuple[MoveChoice, ...] = ()
    # A step of a multi-step duel: what the ruleset asks, and whether the answer is secret.
    prompt: str | None = None
    secret: bool = True

    def body(self) -> dict[str, Any]:
        return {
            **self.head_json(),
            "commitment": self.commitment,
            "deadline": _iso(self.deadline),
            "moves": [{"id": m.id, "label": m.label} for m in self.moves],
            "prompt": self.prompt,
            "secret": self.secret,
        }

    @classmethod
    def read(cls, f: _Fields) -> RoundPrompt:
        head = cls.read_head(f)
        return cls(
            *head,
            f.text("commitment", ""),
            f.when("deadline"),
            f.moves(head[2]),
            f.opt_text("prompt"),
            f.flag("secret", True),
        )


def _opponent(f: _Fields) -> str:
    """The opponent's name. Unversioned round DMs named both duellists instead."""
    if f.strict or "opponent" in f.data:
        return f.text("opponent")
    side = f.data.get("side")
    if side in SIDES:
        return f.party("b" if side == "a" else "a").name
    return "your opponent"


@dataclass(frozen=True, slots=True)
class Reminder(DirectMessage):
    KIND: ClassVar[str] = "reminder_dm"
    deadline: datetime | None = None
    moves: tuple[MoveChoice, ...] = ()

    def body(self) -> dict[str, Any]:
        return {
            **self.head_json(),
            "deadline": _iso(self.deadline),
            "moves": [{"id": m.id, "label": m.label} for m in self.moves],
        }

    @classmethod
    def read(cls, f: _Fields) -> Reminder:
        head = cls.read_head(f)
        return cls(
            *head,
            f.when("deadline"),
            f.moves(head[2]),
        )


@dataclass(frozen=True, slots=True)
class PrivateNote(DirectMessage):
    """What only this duellist may learn from a step. A DM, never a channel post."""

    KIND: ClassVar[str] = "private_note"
    notes: tuple[str, ...] = ()

    def body(self) -> dict[str, Any]:
        return {
            **self.head_json(),
            "notes": list(self.notes),
        }

    @classmethod
    def read(cls, f: _Fields) -> PrivateNote:
        return cls(*cls.read_head(f), f.texts("notes", ()))


@dataclass(frozen=True, slots=True)
class FollowsUndo:
    round_no: int
    undone_by: int | None
    reason: str | None


@dataclass(frozen=True, slots=True)
class RoundResultPost(OutboxMessage):
    """A closed round. ``result`` is the round's stored result as the close wrote it (the
    ruleset's RoundResult with the labels of the moves): the presentation reads it, and works
    nothing out again."""

    KIND: ClassVar[str] = "round_result"
    duel_id: int
    guild_id: int | None
    round_no: int
    a: Party
    b: Party
    result: dict[str, Any]
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
            "result": self.result,
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
    def read(cls, f: _Fields) -> RoundResultPost:
        result = f.mapping("result", {})
        follows = f.opt_mapping("follows_undo")
        if follows is None and not f.strict and result.get("follows_undo_of") is not None:
            follows = {"round_no": result["follows_undo_of"]}
        undo = None
        if follows is not None:
            u = _Fields(f"{f.kind}.follows_undo", follows, strict=f.strict)
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
            f.flag("ended", bool(result.get("ended"))),
            undo,
        )


@dataclass(frozen=True, slots=True)
class RoundUndone(OutboxMessage):
    KIND: ClassVar[str] = "round_undone"
    duel_id: int
    round_no: int
    outcome: str | None
    undone_by: int | None
    reason: str | None

    def body(self) -> dict[str, Any]:
        return {
            "duel_id": self.duel_id,
            "round_no": self.round_no,
            "outcome": self.outcome,
            "undone_by": self.undone_by,
            "reason": self.reason,
        }

    @classmethod
    def read(cls, f: _Fields) -> RoundUndone:
        return cls(
            f.integer("duel_id"),
            f.integer("round_no"),
            f.opt_text("outcome"),
            f.opt_integer("undone_by"),
            f.opt_text("reason"),
        )


@dataclass(frozen=True, slots=True)
class DuelEnd(OutboxMessage):
    """A duel ended by a commander (an ending by result is said by the round result)."""

    KIND: ClassVar[str] = "duel_end"
    duel_id: int
    a: Party
    b: Party
    reason: str | None
    cancelled_round: int | None

    def body(self) -> dict[str, Any]:
        return {
            "duel_id": self.duel_id,
            "a": self.a.to_json(),
            "b": self.b.to_json(),
            "reason": self.reason,
            "cancelled_round": self.cancelled_round,
        }

    @classmethod
    def read(cls, f: _Fields) -> DuelEnd:
        return cls(
            f.integer("duel_id"),
            f.party("a"),
            f.party("b"),
            f.opt_text("reason"),
            f.opt_integer("cancelled_round"),
        )


@dataclass(frozen=True, slots=True)
class ForceRoll:
    label: str
    value: str


@dataclass(frozen=True, slots=True)
class ChallengePost(OutboxMessage):
    """A By This Axe challenge settled: accepted, forced (d6 1-3) or refused."""

    KIND: ClassVar[str] = "challenge"
    duel_id: int | None
    outcome: str
    challenger: Party
    challenged: Party
    log: tuple[str, ...]
    leadership_lost: bool
    # The force roll, with the seed it came from, when the challenge was refused.
    roll: dict[str, Any] | None
    seed: str | None
    commitment: str | None
    fought: bool = False
    declined: bool = False

    def body(self) -> dict[str, Any]:
        return {
            "duel_id": self.duel_id,
            "outcome": self.outcome,
            "challenger": self.challenger.to_json(),
            "challenged": self.challenged.to_json(),
            "log": list(self.log),
            "leadership_lost": self.leadership_lost,
            "roll": self.roll,
            "seed": self.seed,
            "commitment": self.commitment,
            "duel": self.fought,
            "declined": self.declined,
        }

    @property
    def force_roll(self) -> ForceRoll | None:
        roll = self.roll
        if roll is None or self.seed is None:
            return None
        return ForceRoll(str(roll.get("label", "?")), str(roll.get("value", "?")))

    @classmethod
    def read(cls, f: _Fields) -> ChallengePost:
        return cls(
            f.opt_integer("duel_id"),
            f.text("outcome"),
            f.party("challenger"),
            f.party("challenged"),
            f.texts("log", ()),
            f.flag("leadership_lost", False),
            f.opt_mapping("roll"),
            f.opt_text("seed"),
            f.opt_text("commitment"),
            f.flag("duel", False),
            f.flag("declined", False),
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
    def read(cls, f: _Fields) -> DmClosed:
        return cls(f.integer("duel_id"), f.opt_integer("round_no"), f.integer("user_id"))


MESSAGE_TYPES: dict[str, type[OutboxMessage]] = {
    cls.KIND: cls
    for cls in (
        DuelStart,
        RoundOpen,
        RoundPrompt,
        Reminder,
        PrivateNote,
        RoundResultPost,
        RoundUndone,
        DuelEnd,
        ChallengePost,
        DmClosed,
    )
}

def parse_message(kind: str, payload: Mapping[str, Any]) -> OutboxMessage:
    """The typed message of one outbox row. Raises MessageFormatError for an unknown kind,
    an unknown version, or a versioned payload with a field missing or of the wrong type."""
    cls = MESSAGE_TYPES.get(kind)
    if cls is None:
        raise MessageFormatError(f"unknown outbox message kind {kind!r}")
    version = payload.get(VERSION_KEY)
    if version is not None and (
        not isinstance(version, int) or isinstance(version, bool) or version != cls.VERSION
    ):
        raise MessageFormatError(
            f"{kind} payload version {version!r} is not one this duelbot reads "
            f"(it reads version {cls.VERSION})"
        )
    reader = _Fields(kind, payload, strict=version is not None)
    try:
        message: OutboxMessage = cls.read(reader)
    except (TypeError, ValueError) as exc:
        if isinstance(exc, MessageFormatError):
            raise
        raise MessageFormatError(f"{kind} payload: {exc}") from exc
    return message

