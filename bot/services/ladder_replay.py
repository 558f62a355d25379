"""The ladder's replay (issue 17): folding ended duels into records and ratings, and the
hooks the duel services call in the transaction that ends a duel or voids its end.

A ladder (server and ruleset) is the fold of its ended duels in (ended_at, duel id) order
through ``ladder_model.play``. ``duel_ended``: a duel that ends after every one applied is
appended; anything else (a duel ending out of order, a ladder seen for the first time)
replays the ladder from the first place that changed. ``duel_reopened`` (an undo of the
round that ended a duel) replays from that duel. Every change takes the ladder's row lock
first (``ratings_queries.lock_ladder``): duels of one server ending at once are applied one
after the other, in one order. Nothing here commits: the caller owns the transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import insert
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db import ratings_queries as rq
from bot.db.models import Duel, Ladder, LadderEntry, LadderRating
from bot.db.ratings_queries import EndedDuel, Position
from bot.rules import registry
from bot.rules.base import Ruleset
from bot.services.clock import utcnow
from bot.services.ladder_model import EntryKind, Standing, counted, play

NAME_MAX = 100


# -- the fold --------------------------------------------------------------------------------


@dataclass
class Book:
    """Standings being folded: per member, the standing, the last duel's time, and the
    newest name snapshot (name, when it was taken)."""

    standings: dict[int, Standing] = field(default_factory=dict)
    last_at: dict[int, datetime] = field(default_factory=dict)
    names: dict[int, tuple[str, datetime]] = field(default_factory=dict)
    entries: list[dict[str, object]] = field(default_factory=list)

    def refold(self, entry: LadderEntry) -> None:
        """Take back one stored entry (an entry before the replayed part)."""
        before = self.standings.get(entry.user_id) or Standing.fresh()
        after = counted(before, entry.kind)  # type: ignore[arg-type]
        self.standings[entry.user_id] = Standing(
            mu=entry.mu,
            sigma=entry.sigma,
            duels=after.duels,
            wins=after.wins,
            losses=after.losses,
            draws=after.draws,
            retreats=after.retreats,
            commander_ended=after.commander_ended,
            streak=after.streak,
        )
        self.last_at[entry.user_id] = entry.ended_at

    def apply(self, rules: Ruleset | None, duel: EndedDuel) -> None:
        """One ended duel, as the ladder counts it (nothing for a duel against oneself)."""
        if duel.a_user_id == duel.b_user_id:
            return
        sides = (("a", duel.a_user_id, duel.a_name), ("b", duel.b_user_id, duel.b_name))
        kinds = [_kind(rules, duel, side) for side, _, _ in sides]
        before = [self.standings.get(uid) or Standing.fresh() for _, uid, _ in sides]
        after = play(before[0], before[1], kinds[0], kinds[1])
        for i, (_, uid, name) in enumerate(sides):
            opponent = sides[1 - i][1]
            self.standings[uid] = after[i]
            self.last_at[uid] = duel.ended_at
            seen = self.names.get(uid)
            if seen is None or seen[1] <= duel.created_at:
                self.names[uid] = (name, duel.created_at)
            self.entries.append(
                {
                    "guild_id": 0,  # filled in by the writer
                    "ruleset": "",
                    "duel_id": duel.id,
                    "user_id": uid,
                    "opponent_id": opponent,
                    "ended_at": duel.ended_at,
                    "kind": kinds[i],
                    "outcome": duel.outcome,
                    "rating_before": before[i].rating,
                    "mu": after[i].mu,
                    "sigma": after[i].sigma,
                    "rating": after[i].rating,
                }
            )


def _kind(rules: Ruleset | None, duel: EndedDuel, side: str) -> EntryKind:
    if duel.end_kind != "result":
        return "commander"
    winner = duel.winner if duel.winner in ("a", "b") else None
    if rules is None:  # a ruleset no longer installed: the generic reading
        return "draw" if winner is None else ("win" if winner == side else "loss")
    return rules.outcome_kind(duel.outcome or "", winner, side)  # type: ignore[arg-type]


def standing_of(row: LadderRating) -> Standing:
    """The standing a rating row stores (its record and mu/sigma; not its name)."""
    return Standing(
        mu=row.mu,
        sigma=row.sigma,
        duels=row.duels,
        wins=row.wins,
        losses=row.losses,
        draws=row.draws,
        retreats=row.retreats,
        commander_ended=row.commander_ended,
        streak=row.streak,
    )


def derived_columns(standing: Standing, last_at: datetime) -> dict[str, object]:
    """The columns of a rating row that are derived (everything but the name)."""
    return {
        "mu": standing.mu,
        "sigma": standing.sigma,
        "rating": standing.rating,
        "duels": standing.duels,
        "rated": standing.rated,
        "wins": standing.wins,
        "losses": standing.losses,
        "draws": standing.draws,
        "retreats": standing.retreats,
        "commander_ended": standing.commander_ended,
        "streak": standing.streak,
        "last_duel_at": last_at,
    }


async def _write(
    session: AsyncSession,
    guild_id: int,
    ruleset: str,
    book: Book,
    users: Iterable[int],
    rows: Mapping[int, LadderRating],
) -> None:
    """Store the book: its new entries, and the rating rows of ``users`` (a member left
    with no duel loses the row)."""
    if book.entries:
        for entry in book.entries:
            entry["guild_id"] = guild_id
            entry["ruleset"] = ruleset
        await session.execute(insert(LadderEntry), book.entries)
    gone = []
    for uid in sorted(set(users)):
        standing = book.standings.get(uid)
        row = rows.get(uid)
        if standing is None:
            gone.append(uid)
            continue
        values = derived_columns(standing, book.last_at[uid])
        name, seen_at = book.names.get(uid, (None, None))
        if row is None:
            session.add(
                LadderRating(
                    guild_id=guild_id,
                    ruleset=ruleset,
                    user_id=uid,
                    display_name=(name or f"Member {uid}")[:NAME_MAX],
                    name_seen_at=seen_at or book.last_at[uid],
                    **values,
                )
            )
            continue
        for key, value in values.items():
            if getattr(row, key) != value:
                setattr(row, key, value)
        if name is not None and seen_at is not None and row.name_seen_at <= seen_at:
            row.display_name = name[:NAME_MAX]
            row.name_seen_at = seen_at
    await rq.delete_ratings(session, guild_id, ruleset, gone)


async def replay(
    session: AsyncSession, guild_id: int, ruleset: str, since: Position | None
) -> int:
    """Replay the ladder from ``since`` (None: from its first duel); the ladder is locked.
    Returns how many duels were replayed."""
    rules = registry.get_or_none(ruleset)
    removed = await rq.delete_entries_from(session, guild_id, ruleset, since)
    duels = await rq.ended_duels(session, guild_id, ruleset, since)
    users = set(removed)
    for duel in duels:
        users.update((duel.a_user_id, duel.b_user_id))
    rows = await rq.ratings_of(session, guild_id, ruleset, None if since is None else users)
    if since is None:
        users.update(rows)
    book = Book()
    if since is not None and users:
        for entry in await rq.entries(session, guild_id, ruleset, user_ids=users):
            book.refold(entry)
    for duel in duels:
        book.apply(rules, duel)
    await _write(session, guild_id, ruleset, book, users, rows)
    return len(duels)


async def mark(session: AsyncSession, guild_id: int, ruleset: str, ladder: Ladder) -> None:
    """Remember the ladder's last duel in replay order (what the next end compares with)."""
    last = await rq.last_position(session, guild_id, ruleset)
    ladder.last_ended_at, ladder.last_duel_id = last if last else (None, None)
    ladder.updated_at = utcnow()


# -- hooks called by the duel services, inside their transaction ------------------------------


async def duel_ended(session: AsyncSession, duel: Duel, outcome: str | None) -> None:
    """``duel`` has just ended (``outcome``: the deciding round's when a result ended it,
    None for /duel end): count it on its ladder, in the caller's transaction."""
    ladder, created = await rq.lock_ladder(session, duel.guild_id, duel.ruleset)
    ended = EndedDuel.of(duel, outcome)
    await session.flush()  # the duel's end is visible to the ladder's queries
    last = (
        None
        if ladder.last_ended_at is None or ladder.last_duel_id is None
        else (ladder.last_ended_at, ladder.last_duel_id)
    )
    if created:
        # First sight of this ladder (new, or history from before the ladder existed).
        await replay(session, duel.guild_id, duel.ruleset, None)
    elif last is not None and ended.position <= last:
        await replay(session, duel.guild_id, duel.ruleset, ended.position)
    else:
        users = (duel.a_user_id, duel.b_user_id)
        rows = await rq.ratings_of(session, duel.guild_id, duel.ruleset, users)
        book = Book()
        for uid, row in rows.items():
            book.standings[uid] = standing_of(row)
            book.last_at[uid] = row.last_duel_at
        book.apply(registry.get_or_none(duel.ruleset), ended)
        await _write(session, duel.guild_id, duel.ruleset, book, users, rows)
    await mark(session, duel.guild_id, duel.ruleset, ladder)


async def duel_reopened(session: AsyncSession, duel: Duel) -> None:
    """An undo made ``duel`` live again: if its end was counted, replay its ladder from
    where it stood (the duel no longer counts; every later duel is re-rated)."""
    first = await rq.first_entry_of_duel(session, duel)
    if first is None:
        return
    ladder, _ = await rq.lock_ladder(session, duel.guild_id, duel.ruleset)
    await session.flush()
    await replay(session, duel.guild_id, duel.ruleset, (first.ended_at, duel.id))
    await mark(session, duel.guild_id, duel.ruleset, ladder)
