"""Reusable queries. Row-locking reads use FOR UPDATE (PostgreSQL); on SQLite the
transaction already holds the write lock (BEGIN IMMEDIATE), and SQLAlchemy renders no
FOR UPDATE there. Nothing here commits: the calling service owns the transaction."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import (
    BindParameter,
    Connection,
    and_,
    bindparam,
    case,
    func,
    insert,
    or_,
    select,
    union_all,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.models import (
    AuditEntry,
    Duel,
    DuellistProfile,
    GuildSettings,
    MemberLanguage,
    OutboxPost,
    Round,
    Submission,
)
from bot.db.prepared import Prepared


async def duel_for_update(session: AsyncSession, duel_id: int) -> Duel | None:
    # populate_existing: a row read earlier in the session (unlocked) must not hide the
    # version the lock waited for.
    stmt = (
        select(Duel)
        .where(Duel.id == duel_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    return (await session.execute(stmt)).scalar_one_or_none()


async def duel(session: AsyncSession, duel_id: int) -> Duel | None:
    return await session.get(Duel, duel_id)


async def open_round(session: AsyncSession, duel_id: int, *, lock: bool = False) -> Round | None:
    stmt = select(Round).where(Round.duel_id == duel_id, Round.status == "open")
    if lock:
        stmt = stmt.with_for_update().execution_options(populate_existing=True)
    return (await session.execute(stmt)).scalar_one_or_none()


async def last_round_number(session: AsyncSession, duel_id: int) -> int:
    stmt = select(func.coalesce(func.max(Round.number), 0)).where(Round.duel_id == duel_id)
    return int((await session.execute(stmt)).scalar_one())


async def current_submissions(session: AsyncSession, round_id: int) -> dict[str, Submission]:
    stmt = select(Submission).where(
        Submission.round_id == round_id, Submission.superseded_at.is_(None)
    )
    return {s.side: s for s in (await session.execute(stmt)).scalars()}


async def submitted_sides(session: AsyncSession, round_ids: Sequence[int]) -> dict[int, set[str]]:
    if not round_ids:
        return {}
    stmt = select(Submission.round_id, Submission.side).where(
        Submission.round_id.in_(round_ids), Submission.superseded_at.is_(None)
    )
    found: dict[int, set[str]] = {rid: set() for rid in round_ids}
    for round_id, side in await session.execute(stmt):
        found[round_id].add(side)
    return found


async def open_rounds_of_user(
    session: AsyncSession, user_id: int, *, lock: bool = False
) -> list[tuple[Duel, Round]]:
    """The user's live duels with an open round (by duel id; ``lock``: row-locked, in that
    order, re-checked after lock waits on PostgreSQL)."""
    stmt = (
        select(Duel, Round)
        .join(Round, Round.duel_id == Duel.id)
        .where(Duel.id.in_(_LIVE_DUELS_OF_USER), Round.status == "open")
        .order_by(Duel.id)
        .params(user_id=user_id)
    )
    if lock:
        stmt = stmt.with_for_update().execution_options(populate_existing=True)
    return [(d, r) for d, r in await session.execute(stmt)]


async def ensure_guild_settings(
    session: AsyncSession, guild_id: int, defaults: dict[str, Any], *, lock: bool = True
) -> GuildSettings:
    """The guild's settings row, created from defaults if missing (locked for update unless
    ``lock=False``: readers must not serialise every move of a server on this one row)."""
    stmt = select(GuildSettings).where(GuildSettings.guild_id == guild_id)
    if lock:
        stmt = stmt.with_for_update()
    row = (await session.execute(stmt)).scalar_one_or_none()
    if row is not None:
        return row
    values = {"guild_id": guild_id, **defaults}
    dialect = session.bind.dialect.name if session.bind is not None else "sqlite"
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    await session.execute(insert(GuildSettings).values(**values).on_conflict_do_nothing())
    return (await session.execute(stmt)).scalar_one()


def audit(
    session: AsyncSession,
    *,
    guild_id: int | None,
    actor_id: int | None,
    action: str,
    duel_id: int | None = None,
    details: dict[str, Any] | None = None,
) -> None:
    session.add(
        AuditEntry(
            guild_id=guild_id,
            actor_id=actor_id,
            action=action,
            duel_id=duel_id,
            details=details or {},
        )
    )


async def profile(session: AsyncSession, guild_id: int, user_id: int) -> DuellistProfile | None:
    stmt = select(DuellistProfile).where(
        DuellistProfile.guild_id == guild_id, DuellistProfile.user_id == user_id
    )
    return (await session.execute(stmt)).scalar_one_or_none()


async def newest_duels(
    session: AsyncSession,
    *,
    guild_id: int | None,
    duellist_id: int | None,
    include_ended: bool,
    limit: int,
) -> list[Duel]:
    """The newest duels of a server and/or of one duellist (live ones only, unless
    ``include_ended``)."""
    stmt = select(Duel)
    if guild_id is not None:
        stmt = stmt.where(Duel.guild_id == guild_id)
    if duellist_id is not None:
        stmt = stmt.where(or_(Duel.a_user_id == duellist_id, Duel.b_user_id == duellist_id))
    if not include_ended:
        stmt = stmt.where(Duel.status == "live")
    stmt = stmt.order_by(Duel.id.desc()).limit(limit)
    return list((await session.execute(stmt)).scalars())


async def open_rounds_by_duel(session: AsyncSession, duel_ids: Sequence[int]) -> dict[int, Round]:
    """The open round of each of these duels that has one, by duel id."""
    if not duel_ids:
        return {}
    stmt = select(Round).where(Round.duel_id.in_(duel_ids), Round.status == "open")
    return {r.duel_id: r for r in (await session.execute(stmt)).scalars()}


async def button_dms_of_round(session: AsyncSession, round_id: int) -> list[OutboxPost]:
    """The DMs of a round that carry move buttons, oldest first: its prompts (dedupe key
    ``round_dm:<round id>:<side>``) and reminders (``reminder:<round id>:<side>:<seconds>``).
    Keys are matched, not payloads: JSON is read the same way on SQLite and PostgreSQL only
    by Python."""
    prompts = [f"round_dm:{round_id}:{side}" for side in ("a", "b")]
    stmt = (
        select(OutboxPost)
        .where(
            OutboxPost.target == "user",
            or_(
                OutboxPost.dedupe_key.in_(prompts),
                OutboxPost.dedupe_key.like(f"reminder:{round_id}:%"),
            ),
        )
        .order_by(OutboxPost.id)
    )
    return list((await session.execute(stmt)).scalars())


async def rounds_of(session: AsyncSession, duel_id: int) -> list[Round]:
    """Every round of the duel, by number."""
    stmt = select(Round).where(Round.duel_id == duel_id).order_by(Round.number)
    return list((await session.execute(stmt)).scalars())


async def round_numbered(session: AsyncSession, duel_id: int, number: int) -> Round | None:
    stmt = select(Round).where(Round.duel_id == duel_id, Round.number == number)
    return (await session.execute(stmt)).scalar_one_or_none()


async def close_inputs(
    session: AsyncSession, duel_id: int, rnd: Round, user_ids: Sequence[int] = ()
) -> tuple[dict[str, Submission], list[Round], dict[int, str]]:
    """What a round's close reads besides the duel and the round: each side's current
    submission, the run of undone rounds right before it (the latest first; the result
    says which undo it follows) and the languages ``user_ids`` last used with the bot (the
    close's DMs speak them; read here so the close crosses into bot/db once)."""
    submissions = await current_submissions(session, rnd.id)
    earlier = await undone_run_before(session, duel_id, rnd.number)
    return submissions, earlier, await member_languages(session, user_ids)


async def member_languages(session: AsyncSession, user_ids: Sequence[int]) -> dict[int, str]:
    """The language each of ``user_ids`` last used with the bot (issue 28), for those who
    have one stored."""
    if not user_ids:
        return {}
    stmt = select(MemberLanguage.user_id, MemberLanguage.language).where(
        MemberLanguage.user_id.in_(set(user_ids))
    )
    return {int(uid): str(lang) for uid, lang in await session.execute(stmt)}


async def newest_live_duel_language(session: AsyncSession, user_id: int) -> str | None:
    """The language of the newest live duel ``user_id`` fights in (None: none, or one
    started before duels had a language): whom the bot never heard from is answered in
    their duel's language."""
    found = await session.execute(_NEWEST_LIVE_DUEL_LANGUAGE, {"user_id": user_id})
    language = found.scalar_one_or_none()
    return None if language is None else str(language)


def dm_language_rows(conn: Connection, user_id: int) -> tuple[str | None, str | None]:
    """In the move's own hop (a DM from a member this process does not know yet): the
    language ``user_id`` last used with the bot, and, only when none is stored, their
    newest live duel's (``newest_live_duel_language``)."""
    stored = _MEMBER_LANGUAGE_RUN.rows(conn, {"user_id": user_id})
    if stored:
        return str(stored[0][0]), None
    newest = _NEWEST_LIVE_DUEL_LANGUAGE_RUN.rows(conn, {"user_id": user_id})
    return None, (str(newest[0][0]) if newest and newest[0][0] is not None else None)


async def set_member_languages(
    session: AsyncSession, languages: Mapping[int, str], at: datetime
) -> None:
    """Store the language each member last used with the bot, in one statement (an
    upsert: two processes remembering the same member at once do not collide)."""
    if not languages:
        return
    dialect = session.bind.dialect.name if session.bind is not None else "sqlite"
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    stmt = insert(MemberLanguage)
    stmt = stmt.on_conflict_do_update(
        index_elements=[MemberLanguage.user_id],
        set_={"language": stmt.excluded.language, "updated_at": stmt.excluded.updated_at},
    )
    rows = [
        {"user_id": user_id, "language": language, "updated_at": at}
        for user_id, language in languages.items()
    ]
    await session.execute(stmt, rows)


async def undone_run_before(session: AsyncSession, duel_id: int, number: int) -> list[Round]:
    """The undone rounds right before round ``number`` (after the last round before it
    that was not undone), the latest first: not every earlier round of a long duel."""
    last_kept = (
        select(func.max(Round.number))
        .where(Round.duel_id == duel_id, Round.number < number, Round.status != "undone")
        .scalar_subquery()
    )
    stmt = (
        select(Round)
        .where(
            Round.duel_id == duel_id,
            Round.number < number,
            Round.number > func.coalesce(last_kept, 0),
        )
        .order_by(Round.number.desc())
    )
    return list((await session.execute(stmt)).scalars())


async def last_round_for_update(session: AsyncSession, duel_id: int) -> Round | None:
    """The duel's latest round whatever its status, row-locked (what an undo decides on:
    only the latest round may be undone)."""
    stmt = (
        select(Round)
        .where(Round.duel_id == duel_id)
        .order_by(Round.number.desc())
        .limit(1)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    return (await session.execute(stmt)).scalar_one_or_none()


async def undone_rounds(session: AsyncSession, duel_id: int) -> list[Round]:
    """The duel's undone rounds, the latest first."""
    stmt = (
        select(Round)
        .where(Round.duel_id == duel_id, Round.status == "undone")
        .order_by(Round.number.desc())
    )
    return list((await session.execute(stmt)).scalars())


async def profile_for_update(
    session: AsyncSession, guild_id: int, user_id: int
) -> DuellistProfile | None:
    stmt = (
        select(DuellistProfile)
        .where(DuellistProfile.guild_id == guild_id, DuellistProfile.user_id == user_id)
        .with_for_update()
    )
    return (await session.execute(stmt)).scalar_one_or_none()


async def guild_ids_with_duels(session: AsyncSession) -> list[int]:
    stmt = select(Duel.guild_id).distinct().order_by(Duel.guild_id)
    return [int(g) for g in (await session.execute(stmt)).scalars()]


async def duels_of_guild(session: AsyncSession, guild_id: int) -> list[Duel]:
    """Every duel of the server, oldest first."""
    stmt = select(Duel).where(Duel.guild_id == guild_id).order_by(Duel.id)
    return list((await session.execute(stmt)).scalars())


async def rounds_of_duels(session: AsyncSession, duel_ids: Sequence[int]) -> dict[int, list[Round]]:
    """Every round of these duels by duel id, each list by number."""
    rounds: dict[int, list[Round]] = {i: [] for i in duel_ids}
    if duel_ids:
        stmt = select(Round).where(Round.duel_id.in_(duel_ids)).order_by(Round.number)
        for r in (await session.execute(stmt)).scalars():
            rounds[r.duel_id].append(r)
    return rounds


async def standing_choices(
    session: AsyncSession, round_ids: Sequence[int]
) -> dict[int, dict[str, str]]:
    """Each round's standing (not superseded) choice per side."""
    if not round_ids:
        return {}
    stmt = select(Submission).where(
        Submission.round_id.in_(round_ids), Submission.superseded_at.is_(None)
    )
    found: dict[int, dict[str, str]] = {}
    for sub in (await session.execute(stmt)).scalars():
        found.setdefault(sub.round_id, {})[sub.side] = sub.move
    return found


# -- a move (issue 25: the one place of its SQL, for every backend and every entry). Core
# statements built once, run on a SYNC connection of the transaction (``Work.run``: on
# SQLite in one call of the lane's connection, on PostgreSQL through run_sync): rows instead
# of ORM objects (building a statement and its cache key cost more than running it).

_DUEL_COLUMNS = (
    Duel.id,
    Duel.guild_id,
    Duel.a_user_id,
    Duel.b_user_id,
    Duel.ruleset,
    Duel.state,
    Duel.options,
    Duel.status,
)
_MOVE_TARGET_COLUMNS = (
    *_DUEL_COLUMNS,
    Round.id.label("round_id"),
    Round.number.label("round_number"),
    Round.deadline.label("round_deadline"),
)
# The duel and its open round, both row-locked (on PostgreSQL a locked row that changed
# while the move waited is re-checked against the WHERE clause, so a round closed meanwhile
# is not returned as open).
_TARGET_BY_DUEL = (
    select(*_MOVE_TARGET_COLUMNS)
    .join(Round, and_(Round.duel_id == Duel.id, Round.status == "open"))
    .where(Duel.id == bindparam("duel_id"))
    .with_for_update()
)
# The sender's live duels through the two per-side indexes (an OR of the two sides let
# SQLite's planner scan every open round instead: a DM cost more the more duels were live).
_LIVE_DUELS_OF_USER = union_all(
    select(Duel.id).where(Duel.a_user_id == bindparam("user_id"), Duel.status == "live"),
    select(Duel.id).where(Duel.b_user_id == bindparam("user_id"), Duel.status == "live"),
)
_TARGETS_OF_USER = (
    select(*_MOVE_TARGET_COLUMNS)
    .join(Round, Round.duel_id == Duel.id)
    .where(Duel.id.in_(_LIVE_DUELS_OF_USER), Round.status == "open")
    .order_by(Duel.id)
    .with_for_update()
)
_MEMBER_LANGUAGE = select(MemberLanguage.language).where(
    MemberLanguage.user_id == bindparam("user_id")
)
_NEWEST_LIVE_DUEL_LANGUAGE = (
    select(Duel.language).where(Duel.id.in_(_LIVE_DUELS_OF_USER)).order_by(Duel.id.desc()).limit(1)
)
_DUEL_BY_ID = select(*_DUEL_COLUMNS).where(Duel.id == bindparam("duel_id")).with_for_update()
# Each side's moves in the round: how many were stored (superseded ones included: the
# change cap counts them) and the current one (at most one is not superseded).
_CURRENT = Submission.superseded_at.is_(None)
_ROUND_MOVES = (
    select(
        Submission.side,
        func.count(),
        func.max(case((_CURRENT, Submission.id))),
        func.max(case((_CURRENT, Submission.move))),
    )
    .where(Submission.round_id == bindparam("round_id"))
    .group_by(Submission.side)
)
_SUPERSEDE = (
    update(Submission)
    .where(Submission.id == bindparam("submission_id"))
    .values(superseded_at=bindparam("at"))
)
_STORE_COLUMNS = ("round_id", "side", "user_id", "move", "via", "submitted_at")
_STORE = insert(Submission)
# PostgreSQL: a change of move in one round trip (the UPDATE as a data-modifying CTE of the
# INSERT); SQLite has no DML in a CTE, and its two statements cost no round trip anyway.
_SUPERSEDE_AND_STORE = (
    insert(Submission)
    # parameters named apart from the columns: SQLAlchemy would read a parameter named as
    # a column as a value for the CTE's UPDATE too
    .values({name: bindparam(f"new_{name}") for name in _STORE_COLUMNS})
    .add_cte(
        update(Submission)
        .where(Submission.id == bindparam("submission_id"))
        .values(superseded_at=bindparam("at"))
        .returning(Submission.id)
        .cte("superseded")
    )
)

# The poster's idle look (issue 27): what its claim would find, read without locking or
# changing a row.
_NOW: BindParameter[datetime] = bindparam("now")
_OUTBOX_DUE = (
    select(OutboxPost.id)
    .where(
        OutboxPost.status == "pending",
        OutboxPost.next_attempt_at <= _NOW,
        or_(OutboxPost.claimed_until.is_(None), OutboxPost.claimed_until < _NOW),
    )
    .limit(1)
)

# run straight on SQLite's own connection (bot/db/prepared.py)
_TARGET_BY_DUEL_RUN = Prepared(_TARGET_BY_DUEL)
_TARGETS_OF_USER_RUN = Prepared(_TARGETS_OF_USER)
_DUEL_BY_ID_RUN = Prepared(_DUEL_BY_ID)
_MEMBER_LANGUAGE_RUN = Prepared(_MEMBER_LANGUAGE)
_NEWEST_LIVE_DUEL_LANGUAGE_RUN = Prepared(_NEWEST_LIVE_DUEL_LANGUAGE)
_ROUND_MOVES_RUN = Prepared(_ROUND_MOVES)
_SUPERSEDE_RUN = Prepared(_SUPERSEDE)
_STORE_RUN = Prepared(_STORE, _STORE_COLUMNS)
_SUPERSEDE_AND_STORE_RUN = Prepared(_SUPERSEDE_AND_STORE)
_OUTBOX_DUE_RUN = Prepared(_OUTBOX_DUE)

#: The column of a ``move_targets`` row that holds the open round's id.
TARGET_ROUND_ID = 8


def move_targets(
    conn: Connection, *, duel_id: int | None = None, user_id: int | None = None
) -> list[tuple[Any, ...]]:
    """The duel and its open round, row-locked: ``duel_id``'s (at most one row), or
    ``user_id``'s live duels with an open round, by duel id (a DM that names no duel)."""
    if duel_id is not None:
        return _TARGET_BY_DUEL_RUN.rows(conn, {"duel_id": duel_id})
    return _TARGETS_OF_USER_RUN.rows(conn, {"user_id": user_id})


def move_targets_with_moves(
    conn: Connection, *, duel_id: int | None = None, user_id: int | None = None
) -> list[tuple[tuple[Any, ...], dict[str, tuple[int, int | None, str | None]]]]:
    """``move_targets``, each with its open round's stored moves (``round_moves``, read
    after the lock: on PostgreSQL a statement that waited for a row lock re-reads only the
    locked rows). A DM naming no duel may find several rounds: each one's moves are read
    (the acceptance picks one, or refuses)."""
    rows = move_targets(conn, duel_id=duel_id, user_id=user_id)
    return [(row, round_moves(conn, int(row[TARGET_ROUND_ID]))) for row in rows]


def move_duel(conn: Connection, duel_id: int) -> tuple[Any, ...] | None:
    """The duel alone, row-locked: for a move whose duel has no open round (the refusal
    says why)."""
    found = _DUEL_BY_ID_RUN.rows(conn, {"duel_id": duel_id})
    return found[0] if found else None


def round_moves(conn: Connection, round_id: int) -> dict[str, tuple[int, int | None, str | None]]:
    """Per side that stored a move in the round: (moves stored, id of the current one, its
    move)."""
    rows = _ROUND_MOVES_RUN.rows(conn, {"round_id": round_id})
    return {side: (int(count), current_id, move) for side, count, current_id, move in rows}


def store_move(
    conn: Connection,
    *,
    round_id: int,
    side: str,
    user_id: int,
    move: str,
    via: str,
    at: datetime,
    supersede_id: int | None,
) -> None:
    """Insert the move; ``supersede_id``: the submission it replaces, marked first."""
    values = {
        "round_id": round_id,
        "side": side,
        "user_id": user_id,
        "move": move,
        "via": via,
        "submitted_at": at,
    }
    if supersede_id is None:
        _STORE_RUN.rows(conn, values)
    elif conn.dialect.name == "postgresql":
        both = {f"new_{name}": value for name, value in values.items()}
        _SUPERSEDE_AND_STORE_RUN.rows(conn, {**both, "submission_id": supersede_id, "at": at})
    else:
        _SUPERSEDE_RUN.rows(conn, {"submission_id": supersede_id, "at": at})
        _STORE_RUN.rows(conn, values)


def outbox_post_due(conn: Connection, now: datetime) -> bool:
    """Whether a post is due and unclaimed at ``now``: what the outbox's claim would find
    (a read; no row is locked or changed)."""
    return bool(_OUTBOX_DUE_RUN.rows(conn, {"now": now}))
