"""The duel archive's read side (issue 15): every duel of a server with its rounds, as
`/duel history` shows them (open rounds sealed), in one transaction."""

from __future__ import annotations

from sqlalchemy import select

from bot.db import queries
from bot.db.engine import Database
from bot.db.models import Duel, Round
from bot.services.duels import duel_view
from bot.services.views import DuelHistory, RoundRecord


def round_record(r: Round) -> RoundRecord:
    """A round as the history shows it. The result and the seed of a round not yet closed
    stay secret (the same rule as DuelService.history)."""
    sealed = r.status == "open" or r.closed_at is None
    return RoundRecord(
        number=r.number,
        status=r.status,
        opened_by=r.opened_by,
        opened_at=r.opened_at,
        deadline=r.deadline,
        commitment=r.commitment,
        closed_by=r.closed_by,
        closed_at=r.closed_at,
        close_reason=r.close_reason,
        outcome=r.outcome,
        result=None if sealed else r.result,
        seed=None if sealed else r.seed,
        undone_by=r.undone_by,
        undone_at=r.undone_at,
        undo_reason=r.undo_reason,
    )


class ArchiveService:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def guild_ids(self) -> list[int]:
        """The servers that have duels (for `duelbot archive` without --guild)."""
        async with self._db.transaction() as session:
            stmt = select(Duel.guild_id).distinct().order_by(Duel.guild_id)
            return [int(g) for g in (await session.execute(stmt)).scalars()]

    async def guild_histories(self, guild_id: int) -> list[DuelHistory]:
        """Every duel of ``guild_id`` (live and ended, oldest first) with all its rounds."""
        async with self._db.transaction() as session:
            duels = list(
                (
                    await session.execute(
                        select(Duel).where(Duel.guild_id == guild_id).order_by(Duel.id)
                    )
                ).scalars()
            )
            ids = [d.id for d in duels]
            rounds: dict[int, list[Round]] = {i: [] for i in ids}
            if ids:
                stmt = select(Round).where(Round.duel_id.in_(ids)).order_by(Round.number)
                for r in (await session.execute(stmt)).scalars():
                    rounds[r.duel_id].append(r)
            open_rounds = {
                duel_id: r for duel_id, rs in rounds.items() for r in rs if r.status == "open"
            }
            sides = await queries.submitted_sides(session, [r.id for r in open_rounds.values()])
            return [
                DuelHistory(
                    duel_view(
                        d,
                        open_rounds.get(d.id),
                        sides.get(open_rounds[d.id].id) if d.id in open_rounds else None,
                    ),
                    tuple(round_record(r) for r in rounds[d.id]),
                )
                for d in duels
            ]
