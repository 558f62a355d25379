"""What every outbox message is built on: the payload reader (strict for a versioned
payload, lenient for an unversioned row), the parties and move choices posts name, and
:class:`OutboxMessage`, the base with a kind, a version and JSON. The messages themselves are
in bot/services/channel_messages.py (channel posts) and bot/services/dm_messages.py (DMs);
bot/services/messages.py gathers them and reads payloads back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar, TypeVar

from bot.i18n.context import _
from bot.rules.errors import RulesError
from bot.rules.registry import DEFAULT_RULESET_ID
from bot.rules.registry import get as get_ruleset
from bot.rules.terms import StepWords

VERSION_KEY = "version"
#: Sides as the payloads name them.
SIDES = ("a", "b")


class MessageFormatError(ValueError):
    """An outbox payload this version of duelbot cannot read (kind, version or fields)."""


_MISSING: Any = object()
T = TypeVar("T")


class Fields:
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
        reader = Fields(f"{self.kind}.{key}", entry, strict=self.strict)
        sheet = {k: v for k, v in entry.items() if k not in ("user_id", "name")}
        name = reader.opt_text("name") if not self.strict else reader.text("name")
        shown = name or _("Duellist {side}", side=key.upper())
        return Party(reader.opt_integer("user_id"), shown, sheet)

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
            entry = Fields(f"{self.kind}.moves", self._typed("moves", item, Mapping), strict=True)
            move_id = entry.text("id")
            out.append(MoveChoice(move_id, str(item.get("label") or move_id)))
        return tuple(out)


#: The most move buttons a DM shows (Discord: 5 rows of 5); a prompt with more choices asks
#: for the move as text.
MAX_MOVE_BUTTONS = 25


def read_step_words(f: Fields) -> StepWords | None:
    """A message's ``words`` (how its round is named and closed), None when it was written
    before messages carried them (the renderer then uses the ruleset's neutral words): read
    leniently even from a versioned payload, which may predate the field."""
    raw = f.data.get("words")
    return StepWords.from_dict(raw) if isinstance(raw, Mapping) else None


def words_json(words: StepWords | None) -> dict[str, str] | None:
    return None if words is None else words.to_dict()


def iso_or_none(when: datetime | None) -> str | None:
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
    #: Fields added to a version after rows of it were written (issue 24's ``words``): read
    #: leniently even from a versioned payload, so a post queued before an upgrade is still
    #: delivered (its renderer falls back to the ruleset's neutral words).
    OPTIONAL_FIELDS: ClassVar[tuple[str, ...]] = ()
    duel_id: int | None

    def body(self) -> dict[str, Any]:
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:
        return {VERSION_KEY: self.VERSION, **self.body()}

    @classmethod
    def read(cls: type[T], f: Fields) -> T:
        raise NotImplementedError


