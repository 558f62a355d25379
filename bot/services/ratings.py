"""Records, ratings and leaderboards per server and ruleset (issue 17).

Derived, never hand-kept: a ladder is the fold of its server's ended duels of one ruleset,
in (ended_at, duel id) order, through ``ladder_model.play``. The duel services call the
hooks below in the transaction that ends a duel (``duel_ended``) or voids its end
(``duel_reopened``); a duel that ends after every one applied is appended, anything else
(an undo, a duel ending out of order, a ladder seen for the first time) replays the ladder
from the first place that changed. ``RatingService.rebuild`` replays a whole ladder and
compares with what is stored (``duelbot ratings rebuild``).

Every change takes the ladder's row lock first (``ratings_queries.lock_ladder``): two duels
of one server ending at once are applied one after the other, in one order.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import insert, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.config import DuelSettings
from bot.db import ratings_queries as rq
from bot.db.engine import Database
from bot.db.models import Duel, Ladder, LadderEntry, LadderRating, utcnow
from bot.db.ratings_queries import EndedDuel, Position
from bot.rules.base import Ruleset, get_ruleset, ruleset_ids
from bot.rules.errors import RulesError
from bot.services.errors import InvalidInput
from bot.services.ladder_model import EntryKind, Standing, counted, play
from bot.services.ladder_views import (
    DuelLine,
    LadderRecord,
    LeaderboardPage,
    LeaderboardRow,
    MemberRecords,
    RatingPoint,
    RebuildReport,
    RecordLine,
)
from bot.services.views import MemberRef

PER_PAGE = 10
LAST_DUELS = 5
NAME_MAX = 100


# -- the fold --------------------------------------------------------------------------------


@dataclass
class _Book:
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


def _rules(ruleset: str) -> Ruleset | None:
    try:
        return get_ruleset(ruleset)
    except RulesError:
        return None


def _standing_of(row: LadderRating) -> Standing:
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


def _derived(standing: Standing, last_at: datetime) -> dict[str, object]:
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
    book: _Book,
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
        values = _derived(standing, book.last_at[uid])
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


async def _replay(
    session: AsyncSession, guild_id: int, ruleset: str, since: Position | None
) -> int:
    """Replay the ladder from ``since`` (None: from its first duel); the ladder is locked.
    Returns how many duels were replayed."""
    rules = _rules(ruleset)
    removed = await rq.delete_entries_from(session, guild_id, ruleset, since)
    duels = await rq.ended_duels(session, guild_id, ruleset, since)
    users = set(removed)
    for duel in duels:
        users.update((duel.a_user_id, duel.b_user_id))
    rows = await rq.ratings_of(session, guild_id, ruleset, None if since is None else users)
    if since is None:
        users.update(rows)
    book = _Book()
    if since is not None and users:
        for entry in await rq.entries(session, guild_id, ruleset, user_ids=users):
            book.refold(entry)
    for duel in duels:
        book.apply(rules, duel)
    await _write(session, guild_id, ruleset, book, users, rows)
    return len(duels)


async def _mark(session: AsyncSession, guild_id: int, ruleset: str, ladder: Ladder) -> None:
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
        await _replay(session, duel.guild_id, duel.ruleset, None)
    elif last is not None and ended.position <= last:
        await _replay(session, duel.guild_id, duel.ruleset, ended.position)
    else:
        users = (duel.a_user_id, duel.b_user_id)
        rows = await rq.ratings_of(session, duel.guild_id, duel.ruleset, users)
        book = _Book()
        for uid, row in rows.items():
            book.standings[uid] = _standing_of(row)
            book.last_at[uid] = row.last_duel_at
        book.apply(_rules(duel.ruleset), ended)
        await _write(session, duel.guild_id, duel.ruleset, book, users, rows)
    await _mark(session, duel.guild_id, duel.ruleset, ladder)


async def duel_reopened(session: AsyncSession, duel: Duel) -> None:
    """An undo made ``duel`` live again: if its end was counted, replay its ladder from
    where it stood (the duel no longer counts; every later duel is re-rated)."""
    first = await rq.first_entry_of_duel(session, duel)
    if first is None:
        return
    ladder, _ = await rq.lock_ladder(session, duel.guild_id, duel.ruleset)
    await session.flush()
    await _replay(session, duel.guild_id, duel.ruleset, (first.ended_at, duel.id))
    await _mark(session, duel.guild_id, duel.ruleset, ladder)


# -- the service -------------------------------------------------------------------------------


def _line(row: LadderRating) -> RecordLine:
    return RecordLine(
        user_id=row.user_id,
        name=row.display_name,
        rating=row.rating,
        mu=row.mu,
        sigma=row.sigma,
        duels=row.duels,
        wins=row.wins,
        losses=row.losses,
        draws=row.draws,
        retreats=row.retreats,
        commander_ended=row.commander_ended,
        streak=row.streak,
        rated=row.rated,
    )


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return a == b


class RatingService:
    def __init__(self, db: Database, defaults: DuelSettings | None = None) -> None:
        self._db = db
        self._defaults = defaults or DuelSettings()

    def _ruleset(self, ruleset: str | None) -> Ruleset:
        try:
            return get_ruleset(ruleset or self._defaults.ruleset)
        except RulesError:
            raise InvalidInput(
                f"There is no ruleset {ruleset!r}; the rulesets are "
                + ", ".join(ruleset_ids())
                + "."
            ) from None

    async def record(
        self, guild_id: int, member: MemberRef, ruleset: str | None = None, *, seen: bool = False
    ) -> MemberRecords:
        """A member's records in this server: of ``ruleset``, or of every ruleset they have
        one in. ``seen``: ``member.name`` is how the member is called now (they are in the
        server), kept as their last known name."""
        asked = None if ruleset is None else self._ruleset(ruleset)
        async with self._db.transaction() as session:
            if seen:
                await session.execute(
                    update(LadderRating)
                    .where(
                        LadderRating.guild_id == guild_id,
                        LadderRating.user_id == member.user_id,
                        LadderRating.display_name != member.name[:NAME_MAX],
                    )
                    .values(display_name=member.name[:NAME_MAX], name_seen_at=utcnow())
                )
            rulesets = (
                [asked.id]
                if asked is not None
                else await rq.rulesets_of_member(session, guild_id, member.user_id)
            )
            records = []
            for rid in rulesets:
                rows = await rq.ratings_of(session, guild_id, rid, (member.user_id,))
                row = rows.get(member.user_id)
                if row is None:
                    continue
                records.append(await self._record(session, guild_id, rid, row))
            name = records[0].line.name if records and not seen else member.name
            return MemberRecords(
                user_id=member.user_id,
                name=name,
                records=tuple(records),
                asked_ruleset=None if asked is None else asked.id,
                asked_ruleset_title=None if asked is None else asked.title,
            )

    async def _record(
        self, session: AsyncSession, guild_id: int, ruleset: str, row: LadderRating
    ) -> LadderRecord:
        last = await rq.last_entries(session, guild_id, ruleset, row.user_id, LAST_DUELS)
        names = await rq.names_of(session, guild_id, ruleset, [e.opponent_id for e in last])
        rules = _rules(ruleset)
        return LadderRecord(
            ruleset=ruleset,
            ruleset_title=rules.title if rules else ruleset,
            line=_line(row),
            rank=await rq.rank_of(session, guild_id, ruleset, row.rating) if row.rated else None,
            rated_members=await rq.rated_count(session, guild_id, ruleset),
            last_duels=tuple(
                DuelLine(
                    duel_id=e.duel_id,
                    ended_at=e.ended_at,
                    kind=e.kind,
                    outcome=e.outcome,
                    opponent_id=e.opponent_id,
                    opponent_name=names.get(e.opponent_id, f"Member {e.opponent_id}"),
                    rating_before=e.rating_before,
                    rating_after=e.rating,
                )
                for e in last
            ),
        )

    async def leaderboard(
        self, guild_id: int, ruleset: str | None = None, page: int = 1, *, clamp: bool = False
    ) -> LeaderboardPage:
        """One page (``PER_PAGE`` members, best first) of the server's ladder of
        ``ruleset`` (default: the configured ruleset). Only members with a rated duel.
        ``clamp``: a page past the end is the last page (a page button on an old message)
        instead of an error."""
        rules = self._ruleset(ruleset)
        if page < 1 and clamp:
            page = 1
        if page < 1:
            raise InvalidInput(f"Page {page} does not exist: pages are numbered from 1.")
        async with self._db.transaction() as session:
            total = await rq.rated_count(session, guild_id, rules.id)
            pages = max(1, math.ceil(total / PER_PAGE))
            if page > pages and clamp:
                page = pages
            if page > pages:
                raise InvalidInput(
                    f"Page {page} does not exist: the {rules.title} leaderboard of this "
                    f"server has {pages} page{'s' if pages != 1 else ''} "
                    f"({total} rated member{'s' if total != 1 else ''}, {PER_PAGE} a page)."
                )
            ranked = await rq.leaderboard_page(
                session, guild_id, rules.id, offset=(page - 1) * PER_PAGE, limit=PER_PAGE
            )
            return LeaderboardPage(
                guild_id=guild_id,
                ruleset=rules.id,
                ruleset_title=rules.title,
                page=page,
                pages=pages,
                rated_members=total,
                per_page=PER_PAGE,
                rows=tuple(LeaderboardRow(rank, _line(row)) for rank, row in ranked),
            )

    async def rating_history(self, guild_id: int, ruleset: str, user_id: int) -> list[RatingPoint]:
        """A member's rating after each of their ended duels on one ladder, oldest first
        (for the archive's chart, ``bot.rating_chart.rating_chart_svg``)."""
        rules = self._ruleset(ruleset)
        async with self._db.transaction() as session:
            found = await rq.entries(session, guild_id, rules.id, user_ids=(user_id,))
            return [
                RatingPoint(e.duel_id, e.ended_at, e.kind, e.rating, e.mu, e.sigma)
                for e in found
            ]

    async def ladders(self, guild_id: int | None = None) -> list[tuple[int, str]]:
        """Every (server, ruleset) that has ended duels or stored ladder rows."""
        async with self._db.transaction() as session:
            return await rq.ladders(session, guild_id)

    async def rebuild(
        self, guild_id: int, ruleset: str, *, check_only: bool = False
    ) -> RebuildReport:
        """Replay one ladder from its history and compare with what is stored; store the
        replay unless ``check_only``. Names are not compared (they are the last seen)."""
        async with self._db.transaction() as session:
            ladder, _ = await rq.lock_ladder(session, guild_id, ruleset)
            duels = await rq.ended_duels(session, guild_id, ruleset)
            book = _Book()
            rules = _rules(ruleset)
            for duel in duels:
                book.apply(rules, duel)
            rows = await rq.ratings_of(session, guild_id, ruleset)
            stored = await rq.entries(session, guild_id, ruleset)
            differences = _compare(book, rows, stored)
            if not check_only:
                await _replay(session, guild_id, ruleset, None)
                await _mark(session, guild_id, ruleset, ladder)
            return RebuildReport(
                guild_id=guild_id,
                ruleset=ruleset,
                duels=len(duels),
                members=len(book.standings),
                differences=tuple(differences),
                written=not check_only,
            )


ENTRY_FIELDS = (
    "opponent_id", "ended_at", "kind", "outcome", "rating_before", "mu", "sigma", "rating"
)


def _compare(
    book: _Book, rows: Mapping[int, LadderRating], stored: list[LadderEntry]
) -> list[str]:
    """What the stored ladder has that the replay does not (each difference one line)."""
    found: list[str] = []
    for uid in sorted(set(book.standings) | set(rows)):
        row = rows.get(uid)
        if uid not in book.standings:
            found.append(f"member {uid}: stored, but has no ended duel")
            continue
        if row is None:
            found.append(f"member {uid}: missing")
            continue
        want = _derived(book.standings[uid], book.last_at[uid])
        for column, value in want.items():
            if not _same(getattr(row, column), value):
                found.append(
                    f"member {uid}: {column} is {getattr(row, column)!r}, replay {value!r}"
                )
    want_entries = {(int(str(e["duel_id"])), int(str(e["user_id"]))): e for e in book.entries}
    have_entries = {(e.duel_id, e.user_id): e for e in stored}
    for duel_id, user_id in sorted(set(want_entries) | set(have_entries)):
        want_entry = want_entries.get((duel_id, user_id))
        have = have_entries.get((duel_id, user_id))
        where = f"duel {duel_id} member {user_id}"
        if want_entry is None or have is None:
            found.append(f"{where}: entry {'stored but not replayed' if have else 'missing'}")
            continue
        for column in ENTRY_FIELDS:
            if not _same(getattr(have, column), want_entry[column]):
                found.append(
                    f"{where}: {column} is {getattr(have, column)!r}, "
                    f"replay {want_entry[column]!r}"
                )
    return found
