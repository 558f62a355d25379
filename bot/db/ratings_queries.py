"""Queries of the ladder (issue 17). Nothing here commits: the calling service owns the
transaction. Replay order is (ended_at, duel id) everywhere."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, delete, func, or_, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute, aliased

from bot.db.models import Duel, Ladder, LadderEntry, LadderRating, Round, utcnow

#: A place in replay order: (ended_at, duel id).
Position = tuple[datetime, int]


@dataclass(frozen=True, slots=True)
class EndedDuel:
    """What the ladder needs of one ended duel."""

    id: int
    a_user_id: int
    b_user_id: int
    a_name: str
    b_name: str
    winner: str | None
    end_kind: str  # "result" | "commander"
    created_at: datetime  # when the names were snapshotted
    ended_at: datetime
    outcome: str | None  # the deciding round's outcome (a result), else None

    @property
    def position(self) -> Position:
        return (self.ended_at, self.id)

    @classmethod
    def of(cls, duel: Duel, outcome: str | None) -> EndedDuel:
        """``duel`` as it ends now (``outcome``: the deciding round's, None when a
        commander ended it)."""
        assert duel.ended_at is not None
        result = duel.end_kind == "result"
        return cls(
            id=duel.id,
            a_user_id=duel.a_user_id,
            b_user_id=duel.b_user_id,
            a_name=_name(duel.state, "a"),
            b_name=_name(duel.state, "b"),
            winner=duel.winner,
            end_kind="result" if result else "commander",
            created_at=duel.created_at,
            ended_at=duel.ended_at,
            outcome=outcome if result else None,
        )


def _at_or_after(
    at: InstrumentedAttribute[datetime], duel_id: InstrumentedAttribute[int], since: Position
) -> ColumnElement[bool]:
    when, number = since
    return or_(at > when, and_(at == when, duel_id >= number))


async def lock_ladder(
    session: AsyncSession, guild_id: int, ruleset: str
) -> tuple[Ladder, bool]:
    """The ladder's row, created if missing (True: created now), locked FOR UPDATE (on
    SQLite the transaction already holds the write lock): every change to a ladder goes
    through here first."""
    stmt = (
        select(Ladder)
        .where(Ladder.guild_id == guild_id, Ladder.ruleset == ruleset)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    row = (await session.execute(stmt)).scalar_one_or_none()
    if row is not None:
        return row, False
    dialect = session.bind.dialect.name if session.bind is not None else "sqlite"
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    await session.execute(
        insert(Ladder)
        .values(
            guild_id=guild_id,
            ruleset=ruleset,
            last_ended_at=None,
            last_duel_id=None,
            updated_at=utcnow(),
        )
        .on_conflict_do_nothing()
    )
    return (await session.execute(stmt)).scalar_one(), True


async def ended_duels(
    session: AsyncSession, guild_id: int, ruleset: str, since: Position | None = None
) -> list[EndedDuel]:
    """The server's ended duels of ``ruleset`` (from ``since`` on), in replay order, each
    with the outcome of its last closed round when a result ended it."""
    deciding = (
        select(Round.outcome)
        .where(Round.duel_id == Duel.id, Round.status == "closed")
        .order_by(Round.number.desc())
        .limit(1)
        .correlate(Duel)
        .scalar_subquery()
    )
    stmt = (
        select(Duel, deciding)
        .where(
            Duel.guild_id == guild_id,
            Duel.ruleset == ruleset,
            Duel.status == "ended",
            Duel.ended_at.is_not(None),
        )
        .order_by(Duel.ended_at, Duel.id)
    )
    if since is not None:
        stmt = stmt.where(_at_or_after(Duel.ended_at, Duel.id, since))  # type: ignore[arg-type]
    return [EndedDuel.of(duel, outcome) for duel, outcome in await session.execute(stmt)]


def _name(state: dict[str, Any], side: str) -> str:
    entry = state.get(side) if isinstance(state, dict) else None
    name = entry.get("name") if isinstance(entry, dict) else None
    return str(name) if name else f"Duellist {side.upper()}"


async def entries(
    session: AsyncSession,
    guild_id: int,
    ruleset: str,
    *,
    user_ids: Collection[int] | None = None,
    before: Position | None = None,
) -> list[LadderEntry]:
    """Ladder entries in replay order (of ``user_ids`` only; before ``before`` only)."""
    stmt = select(LadderEntry).where(
        LadderEntry.guild_id == guild_id, LadderEntry.ruleset == ruleset
    )
    if user_ids is not None:
        stmt = stmt.where(LadderEntry.user_id.in_(list(user_ids)))
    if before is not None:
        stmt = stmt.where(
            ~_at_or_after(LadderEntry.ended_at, LadderEntry.duel_id, before)
        )
    stmt = stmt.order_by(LadderEntry.ended_at, LadderEntry.duel_id, LadderEntry.user_id)
    return list((await session.execute(stmt)).scalars())


async def delete_entries_from(
    session: AsyncSession, guild_id: int, ruleset: str, since: Position | None
) -> set[int]:
    """Delete the entries at or after ``since`` (all, when None); returns their members."""
    where = [LadderEntry.guild_id == guild_id, LadderEntry.ruleset == ruleset]
    if since is not None:
        where.append(_at_or_after(LadderEntry.ended_at, LadderEntry.duel_id, since))
    users = set((await session.execute(select(LadderEntry.user_id).where(*where))).scalars())
    await session.execute(delete(LadderEntry).where(*where))
    return users


async def first_entry_of_duel(session: AsyncSession, duel: Duel) -> LadderEntry | None:
    stmt = select(LadderEntry).where(LadderEntry.duel_id == duel.id).limit(1)
    return (await session.execute(stmt)).scalar_one_or_none()


async def last_position(session: AsyncSession, guild_id: int, ruleset: str) -> Position | None:
    stmt = (
        select(LadderEntry.ended_at, LadderEntry.duel_id)
        .where(LadderEntry.guild_id == guild_id, LadderEntry.ruleset == ruleset)
        .order_by(LadderEntry.ended_at.desc(), LadderEntry.duel_id.desc())
        .limit(1)
    )
    row = (await session.execute(stmt)).first()
    return None if row is None else (row[0], row[1])


async def ratings_of(
    session: AsyncSession, guild_id: int, ruleset: str, user_ids: Collection[int] | None = None
) -> dict[int, LadderRating]:
    stmt = select(LadderRating).where(
        LadderRating.guild_id == guild_id, LadderRating.ruleset == ruleset
    )
    if user_ids is not None:
        stmt = stmt.where(LadderRating.user_id.in_(list(user_ids)))
    return {r.user_id: r for r in (await session.execute(stmt)).scalars()}


async def delete_ratings(
    session: AsyncSession, guild_id: int, ruleset: str, user_ids: Collection[int]
) -> None:
    if user_ids:
        await session.execute(
            delete(LadderRating).where(
                LadderRating.guild_id == guild_id,
                LadderRating.ruleset == ruleset,
                LadderRating.user_id.in_(list(user_ids)),
            )
        )


# -- reads for the commands ------------------------------------------------------------------


def _rated(guild_id: int, ruleset: str) -> list[ColumnElement[bool]]:
    return [
        LadderRating.guild_id == guild_id,
        LadderRating.ruleset == ruleset,
        LadderRating.rated > 0,
    ]


async def rated_count(session: AsyncSession, guild_id: int, ruleset: str) -> int:
    stmt = select(func.count()).select_from(LadderRating).where(*_rated(guild_id, ruleset))
    return int((await session.execute(stmt)).scalar_one())


async def rank_of(session: AsyncSession, guild_id: int, ruleset: str, rating: float) -> int:
    """The rank a rating has on the ladder (1 + how many rate higher: ties share a rank)."""
    stmt = (
        select(func.count())
        .select_from(LadderRating)
        .where(*_rated(guild_id, ruleset), LadderRating.rating > rating)
    )
    return 1 + int((await session.execute(stmt)).scalar_one())


async def leaderboard_page(
    session: AsyncSession, guild_id: int, ruleset: str, *, offset: int, limit: int
) -> list[tuple[int, LadderRating]]:
    """(rank, row) of one page, best first (ties by user id, so pages never overlap). The
    page follows ix_ladder_ratings_rank backwards (no sort of the ladder); each row's rank
    is counted by the database over the same index: 1 + how many rate higher (ties share a
    rank, as SQL's RANK() would give)."""
    higher = aliased(LadderRating)
    rank = (
        select(func.count())
        .select_from(higher)
        .where(
            higher.guild_id == guild_id,
            higher.ruleset == ruleset,
            higher.rated > 0,
            higher.rating > LadderRating.rating,
        )
        .correlate(LadderRating)
        .scalar_subquery()
    )
    # The page first (ids only, straight off the index), then the ranks of its rows alone:
    # a rank in the outer query is never computed for the rows the OFFSET skips.
    page = (
        select(LadderRating.id)
        .where(*_rated(guild_id, ruleset))
        .order_by(LadderRating.rating.desc(), LadderRating.user_id.desc())
        .offset(offset)
        .limit(limit)
        .subquery()
    )
    stmt = (
        select((rank + 1).label("rank"), LadderRating)
        .join(page, page.c.id == LadderRating.id)
        .order_by(LadderRating.rating.desc(), LadderRating.user_id.desc())
    )
    return [(int(r), row) for r, row in await session.execute(stmt)]


async def last_entries(
    session: AsyncSession, guild_id: int, ruleset: str, user_id: int, limit: int
) -> list[LadderEntry]:
    stmt = (
        select(LadderEntry)
        .where(
            LadderEntry.guild_id == guild_id,
            LadderEntry.ruleset == ruleset,
            LadderEntry.user_id == user_id,
        )
        .order_by(LadderEntry.ended_at.desc(), LadderEntry.duel_id.desc())
        .limit(limit)
    )
    return list((await session.execute(stmt)).scalars())


async def names_of(
    session: AsyncSession, guild_id: int, ruleset: str, user_ids: Sequence[int]
) -> dict[int, str]:
    if not user_ids:
        return {}
    stmt = select(LadderRating.user_id, LadderRating.display_name).where(
        LadderRating.guild_id == guild_id,
        LadderRating.ruleset == ruleset,
        LadderRating.user_id.in_(list(user_ids)),
    )
    return {uid: name for uid, name in await session.execute(stmt)}


async def rulesets_of_member(session: AsyncSession, guild_id: int, user_id: int) -> list[str]:
    stmt = (
        select(LadderRating.ruleset)
        .where(LadderRating.guild_id == guild_id, LadderRating.user_id == user_id)
        .order_by(LadderRating.ruleset)
    )
    return list((await session.execute(stmt)).scalars())


async def ladders(session: AsyncSession, guild_id: int | None) -> list[tuple[int, str]]:
    """Every (server, ruleset) with ended duels or ladder rows (for a rebuild)."""
    keys: set[tuple[int, str]] = set()
    for model in (Duel, Ladder, LadderRating):
        stmt = select(model.guild_id, model.ruleset).distinct()
        if model is Duel:
            stmt = stmt.where(Duel.status == "ended")
        if guild_id is not None:
            stmt = stmt.where(model.guild_id == guild_id)
        keys.update((int(g), str(r)) for g, r in await session.execute(stmt))
    return sorted(keys)
