"""Records, ratings and leaderboards per server and ruleset (issue 17): the reads behind
/duel record, /leaderboard and the archive, and ``rebuild`` (``duelbot ratings rebuild``).

Derived, never hand-kept: the ladder is replayed from the ended duels
(bot/services/ladder_replay.py, whose hooks the duel services call in the transaction that
ends a duel or voids its end; re-exported here as ``duel_ended`` and ``duel_reopened``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.config import DuelSettings
from bot.db import ratings_queries as rq
from bot.db.engine import Database
from bot.db.models import LadderEntry, LadderRating
from bot.i18n.context import _, _n
from bot.rules import registry
from bot.rules.base import Ruleset
from bot.rules.errors import RulesError
from bot.services.clock import utcnow
from bot.services.errors import InvalidInput
from bot.services.ladder_replay import (
    NAME_MAX,
    Book,
    derived_columns,
    duel_ended,
    duel_reopened,
    mark,
    replay,
    standing_of,
)
from bot.services.ladder_views import (
    DuelLine,
    LadderMember,
    LadderRecord,
    LadderSection,
    LeaderboardPage,
    LeaderboardRow,
    MemberRecords,
    RatingPoint,
    RebuildReport,
    RecordLine,
)
from bot.services.unit import transaction
from bot.services.views import MemberRef

# The hooks the duel services call (bot/services/duels.py: ``ratings.duel_ended(...)``).
__all__ = ["RatingService", "duel_ended", "duel_reopened"]

PER_PAGE = 10
LAST_DUELS = 5


# -- the service -------------------------------------------------------------------------------


def _line(row: LadderRating) -> RecordLine:
    return RecordLine(
        user_id=row.user_id,
        name=row.display_name,
        rating=row.rating,
        rated=row.rated,
        **asdict(standing_of(row)),  # mu, sigma and the record
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
            return registry.get(ruleset or self._defaults.ruleset)
        except RulesError:
            raise InvalidInput(
                _(
                    "There is no ruleset {ruleset}; the rulesets are {rulesets}.",
                    ruleset=repr(ruleset),
                    rulesets=", ".join(registry.ids()),
                )
            ) from None

    async def record(
        self, guild_id: int, member: MemberRef, ruleset: str | None = None, *, seen: bool = False
    ) -> MemberRecords:
        """A member's records in this server: of ``ruleset``, or of every ruleset they have
        one in. ``seen``: ``member.name`` is how the member is called now (they are in the
        server), kept as their last known name."""
        asked = None if ruleset is None else self._ruleset(ruleset)
        async with transaction(self._db) as session:
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
        rules = registry.get_or_none(ruleset)
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
                    opponent_name=names.get(e.opponent_id) or _("Member {id}", id=e.opponent_id),
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
            raise InvalidInput(
                _("Page {page} does not exist: pages are numbered from 1.", page=page)
            )
        async with transaction(self._db) as session:
            total = await rq.rated_count(session, guild_id, rules.id)
            pages = max(1, math.ceil(total / PER_PAGE))
            if page > pages and clamp:
                page = pages
            if page > pages:
                raise InvalidInput(
                    _(
                        "Page {page} does not exist: the {ruleset} leaderboard of this server "
                        "has {pages} ({members}, {per_page} a page).",
                        page=page,
                        ruleset=rules.title,
                        pages=_n("{count} page", "{count} pages", pages),
                        members=_n("{count} rated member", "{count} rated members", total),
                        per_page=PER_PAGE,
                    )
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
        (for the archive's chart, ``bot.archive.rating_chart.rating_chart_svg``)."""
        rules = self._ruleset(ruleset)
        async with transaction(self._db) as session:
            found = await rq.entries(session, guild_id, rules.id, user_ids=(user_id,))
            return [
                RatingPoint(e.duel_id, e.ended_at, e.kind, e.rating, e.mu, e.sigma)
                for e in found
            ]

    async def whole_ladders(self, guild_id: int) -> list[LadderSection]:
        """Every ladder of the server, whole (best first, ties by user id) with each member's
        rating history: the archive's ladder page. One transaction."""
        sections = []
        async with transaction(self._db) as session:
            for _guild, ruleset in await rq.ladders(session, guild_id):
                rules = registry.get_or_none(ruleset)
                title = rules.title if rules is not None else ruleset
                total = await rq.rated_count(session, guild_id, ruleset)
                ranked = await rq.leaderboard_page(
                    session, guild_id, ruleset, offset=0, limit=max(total, 1)
                )
                history: dict[int, list[RatingPoint]] = {}
                for e in await rq.entries(session, guild_id, ruleset):
                    history.setdefault(e.user_id, []).append(
                        RatingPoint(e.duel_id, e.ended_at, e.kind, e.rating, e.mu, e.sigma)
                    )
                members = tuple(
                    LadderMember(rank, _line(row), tuple(history.get(row.user_id, ())))
                    for rank, row in ranked
                )
                sections.append(LadderSection(ruleset, title, members))
        return sections

    async def ladders(self, guild_id: int | None = None) -> list[tuple[int, str]]:
        """Every (server, ruleset) that has ended duels or stored ladder rows."""
        async with transaction(self._db) as session:
            return await rq.ladders(session, guild_id)

    async def rebuild(
        self, guild_id: int, ruleset: str, *, check_only: bool = False
    ) -> RebuildReport:
        """Replay one ladder from its history and compare with what is stored; store the
        replay unless ``check_only``. Names are not compared (they are the last seen)."""
        async with transaction(self._db) as session:
            ladder, _created = await rq.lock_ladder(session, guild_id, ruleset)
            duels = await rq.ended_duels(session, guild_id, ruleset)
            book = Book()
            rules = registry.get_or_none(ruleset)
            for duel in duels:
                book.apply(rules, duel)
            rows = await rq.ratings_of(session, guild_id, ruleset)
            stored = await rq.entries(session, guild_id, ruleset)
            differences = _compare(book, rows, stored)
            if not check_only:
                await replay(session, guild_id, ruleset, None)
                await mark(session, guild_id, ruleset, ladder)
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
    book: Book, rows: Mapping[int, LadderRating], stored: list[LadderEntry]
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
        want = derived_columns(book.standings[uid], book.last_at[uid])
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
