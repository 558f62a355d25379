"""Typed SQLAlchemy models. Discord ids are BigInteger snowflakes; our own ids are Integer."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


# Our own ids and numbers (duel ids, round numbers) are Integer columns: 32-bit signed on
# PostgreSQL. A number from any input is checked against this range before it reaches a
# query (PostgreSQL refuses a larger one with an error, SQLite would just find nothing).
ID_MIN = 1
ID_MAX = 2_147_483_647


def fits_id(value: int) -> bool:
    """Can ``value`` be one of our ids (a duel id, a round number)?"""
    return ID_MIN <= value <= ID_MAX


def utcnow() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """Always stores and returns timezone-aware UTC datetimes (SQLite drops the zone)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given; duelbot stores UTC-aware datetimes only")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {  # noqa: RUF012 (SQLAlchemy reads this class attribute)
        datetime: UTCDateTime(),
        dict[str, Any]: JSON(),
        int: Integer(),
    }


class GuildSettings(Base):
    __tablename__ = "guild_settings"

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    change_of_choice: Mapped[bool] = mapped_column(Boolean)
    commander_role_id: Mapped[int | None] = mapped_column(BigInteger)
    admin_role_id: Mapped[int | None] = mapped_column(BigInteger)
    results_channel_id: Mapped[int | None] = mapped_column(BigInteger)
    missing_move: Mapped[str] = mapped_column(String(16))
    # The server's defaults for the rulesets' house rules, {ruleset id: {key: value}}, set
    # with /config house-rule: a duel started without a house rule gets the default here.
    house_rule_defaults: Mapped[dict[str, Any]] = mapped_column(default=dict)
    # The forum channel in which /duel start opens a post per duel (issue 13); None: none.
    duel_forum_id: Mapped[int | None] = mapped_column(BigInteger)
    # How long after its close a result may be undone, in minutes (issue 23); None: the
    # bot's configured default ([duels] undo_window_hours), 0: undo is off.
    undo_window_minutes: Mapped[int | None]
    # The language of the server's public posts, a catalog's (issue 28, /config language);
    # None: the server's preferred locale (bot/i18n/choice.py, server_language).
    language: Mapped[str | None] = mapped_column(String(35))
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class DuellistProfile(Base):
    __tablename__ = "duellist_profiles"
    __table_args__ = (UniqueConstraint("guild_id", "user_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    user_id: Mapped[int] = mapped_column(BigInteger)
    display_name: Mapped[str] = mapped_column(String(100))
    # Every ruleset's sheet of this duellist, keyed by ruleset id (a pre-duel step also
    # remembers a penalty here, under a key that is no ruleset id).
    sheets: Mapped[dict[str, Any]] = mapped_column(default=dict)
    updated_by: Mapped[int] = mapped_column(BigInteger)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class Duel(Base):
    __tablename__ = "duels"
    __table_args__ = (
        Index("ix_duels_guild_status", "guild_id", "status"),
        Index("ix_duels_a_user_status", "a_user_id", "status"),
        Index("ix_duels_b_user_status", "b_user_id", "status"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    channel_id: Mapped[int] = mapped_column(BigInteger)
    thread_id: Mapped[int | None] = mapped_column(BigInteger)
    ruleset: Mapped[str] = mapped_column(String(32))
    a_user_id: Mapped[int] = mapped_column(BigInteger)
    b_user_id: Mapped[int] = mapped_column(BigInteger)
    # Stats snapshot taken at the start and the rules state after each round (ruleset JSON).
    state: Mapped[dict[str, Any]]
    # The rules fixed for this duel when it started (change_of_choice, missing_move, the
    # ruleset's params and house rules): later /config changes do not reach it.
    options: Mapped[dict[str, Any]]
    status: Mapped[str] = mapped_column(String(16))  # live | ended
    winner: Mapped[str | None] = mapped_column(String(1))  # a | b | None
    end_reason: Mapped[str | None] = mapped_column(Text)
    # How the duel ended (None while live): "result" (a round's result ended it) or
    # "commander" (/duel end). Only a duel ended by a result can have that round undone.
    end_kind: Mapped[str | None] = mapped_column(String(16))
    rounds_played: Mapped[int] = mapped_column(default=0)
    # The language its posts, exports and archive page speak (issue 28): the server's at the
    # start, kept for the whole duel; None (before migration 0011): English.
    language: Mapped[str | None] = mapped_column(String(35))
    created_by: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    ended_at: Mapped[datetime | None]


class Round(Base):
    __tablename__ = "rounds"
    __table_args__ = (
        UniqueConstraint("duel_id", "number"),
        Index("ix_rounds_status_deadline", "status", "deadline"),
        # a duel's open round, found without scanning every open round (migration 0010)
        Index("ix_rounds_duel_status", "duel_id", "status"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    duel_id: Mapped[int] = mapped_column(ForeignKey("duels.id", ondelete="CASCADE"))
    number: Mapped[int]
    status: Mapped[str] = mapped_column(String(16))  # open | closed | undone
    opened_by: Mapped[int] = mapped_column(BigInteger)
    opened_at: Mapped[datetime] = mapped_column(default=utcnow)
    deadline: Mapped[datetime | None]
    # Which reminder offsets (seconds before the deadline) have been sent.
    reminders_sent: Mapped[dict[str, Any]] = mapped_column(default=dict)
    seed: Mapped[str] = mapped_column(String(64))  # secret until the close
    commitment: Mapped[str] = mapped_column(String(64))
    state_before: Mapped[dict[str, Any]]
    closed_by: Mapped[int | None] = mapped_column(BigInteger)
    closed_at: Mapped[datetime | None]
    close_reason: Mapped[str | None] = mapped_column(String(32))
    outcome: Mapped[str | None] = mapped_column(String(32))
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    undone_by: Mapped[int | None] = mapped_column(BigInteger)
    undone_at: Mapped[datetime | None]
    # Why a commander undid the round (required by /round undo; shown in history and exports).
    undo_reason: Mapped[str | None] = mapped_column(Text)


class Submission(Base):
    __tablename__ = "submissions"
    __table_args__ = (Index("ix_submissions_round_side", "round_id", "side"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id", ondelete="CASCADE"))
    side: Mapped[str] = mapped_column(String(1))
    user_id: Mapped[int] = mapped_column(BigInteger)
    move: Mapped[str] = mapped_column(String(64))
    via: Mapped[str] = mapped_column(String(16))  # dm_text | dm_button | slash
    submitted_at: Mapped[datetime] = mapped_column(default=utcnow)
    superseded_at: Mapped[datetime | None]


class OutboxPost(Base):
    __tablename__ = "outbox"
    __table_args__ = (Index("ix_outbox_status_next_attempt", "status", "next_attempt_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    # Unique so that re-enqueueing the same post (e.g. after a retried close) is a no-op.
    dedupe_key: Mapped[str] = mapped_column(String(120), unique=True)
    guild_id: Mapped[int | None] = mapped_column(BigInteger)
    duel_id: Mapped[int | None] = mapped_column(ForeignKey("duels.id", ondelete="SET NULL"))
    kind: Mapped[str] = mapped_column(String(32))
    target: Mapped[str] = mapped_column(String(8))  # channel | user
    target_id: Mapped[int] = mapped_column(BigInteger)
    on_behalf_of: Mapped[int | None] = mapped_column(BigInteger)
    payload: Mapped[dict[str, Any]]
    # The language the post is rendered in, chosen when it was written (issue 28): the
    # duel's for a channel post, the member's for a DM; None: English.
    language: Mapped[str | None] = mapped_column(String(35))
    status: Mapped[str] = mapped_column(String(16), default="pending")  # pending|posted|failed
    attempts: Mapped[int] = mapped_column(default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(default=utcnow)
    claimed_by: Mapped[str | None] = mapped_column(String(64))
    claimed_until: Mapped[datetime | None]
    # The first claim's time: where a retry starts looking for an earlier attempt's message.
    first_attempt_at: Mapped[datetime | None]
    posted_message_id: Mapped[int | None] = mapped_column(BigInteger)
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    posted_at: Mapped[datetime | None]


class MemberLanguage(Base):
    """The language a member last used with the bot (their Discord locale at their last
    command or button press, as a catalog's language): their DMs speak it (issue 28)."""

    __tablename__ = "member_languages"

    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    language: Mapped[str] = mapped_column(String(35))
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class ChannelWebhook(Base):
    """One webhook per channel, created once and reused for posts on behalf of commanders."""

    __tablename__ = "channel_webhooks"

    channel_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    webhook_id: Mapped[int] = mapped_column(BigInteger)
    webhook_token: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class AuditEntry(Base):
    __tablename__ = "audit_log"
    __table_args__ = (Index("ix_audit_log_guild_created", "guild_id", "created_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    guild_id: Mapped[int | None] = mapped_column(BigInteger)
    actor_id: Mapped[int | None] = mapped_column(BigInteger)
    action: Mapped[str] = mapped_column(String(48))
    duel_id: Mapped[int | None] = mapped_column(Integer)
    details: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


# -- the ladder (issue 17): derived from ended duels, replayed in (ended_at, duel id) order --


class Ladder(Base):
    """One ladder per server and ruleset: its lock (every change to its ratings takes this
    row FOR UPDATE first, so duels ending at once are applied in one order) and the last
    duel applied, in replay order (a duel ending before it means a replay from there)."""

    __tablename__ = "ladders"
    __table_args__ = (PrimaryKeyConstraint("guild_id", "ruleset"),)

    guild_id: Mapped[int] = mapped_column(BigInteger, autoincrement=False)
    ruleset: Mapped[str] = mapped_column(String(32))
    last_ended_at: Mapped[datetime | None]
    last_duel_id: Mapped[int | None] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class LadderRating(Base):
    """A member's record and rating on one ladder. Everything but the name is derived from
    ladder_entries; the name is the last one seen (a duel's snapshot or a command), so a
    member who left the server still shows by it."""

    __tablename__ = "ladder_ratings"
    __table_args__ = (
        UniqueConstraint("guild_id", "ruleset", "user_id"),
        # The leaderboard: rank by rating within one ladder (scanned backwards for DESC).
        Index("ix_ladder_ratings_rank", "guild_id", "ruleset", "rating", "user_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    ruleset: Mapped[str] = mapped_column(String(32))
    user_id: Mapped[int] = mapped_column(BigInteger)
    display_name: Mapped[str] = mapped_column(String(100))
    name_seen_at: Mapped[datetime]
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    # What ranks: the conservative estimate mu - 3 sigma (openskill's ordinal).
    rating: Mapped[float] = mapped_column(Float)
    duels: Mapped[int]
    rated: Mapped[int]  # wins + losses + draws + retreats: duels that moved the rating
    wins: Mapped[int]
    losses: Mapped[int]
    draws: Mapped[int]
    retreats: Mapped[int]  # retreats (rule 2.14) and flights (By This Axe)
    commander_ended: Mapped[int]  # ended by /duel end: counted, never rated
    streak: Mapped[int]  # +n: n wins in a row, -n: n losses in a row, 0: neither
    last_duel_at: Mapped[datetime]


class LadderEntry(Base):
    """One member's line for one ended duel, in replay order: what it counted as and the
    rating after it (the rating history; the last five duels)."""

    __tablename__ = "ladder_entries"
    __table_args__ = (
        UniqueConstraint("duel_id", "user_id"),
        Index("ix_ladder_entries_member", "guild_id", "ruleset", "user_id", "ended_at"),
        Index("ix_ladder_entries_order", "guild_id", "ruleset", "ended_at", "duel_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    ruleset: Mapped[str] = mapped_column(String(32))
    duel_id: Mapped[int] = mapped_column(ForeignKey("duels.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(BigInteger)
    opponent_id: Mapped[int] = mapped_column(BigInteger)
    ended_at: Mapped[datetime]
    kind: Mapped[str] = mapped_column(String(16))  # win | loss | draw | retreat | commander
    outcome: Mapped[str | None] = mapped_column(String(32))  # the ruleset's outcome id
    rating_before: Mapped[float] = mapped_column(Float)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    rating: Mapped[float] = mapped_column(Float)
