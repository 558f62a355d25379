"""Play-by-post timing: rounds due to auto-close and reminders due to be sent.

State lives in the database (round deadlines, reminders_sent), so a restart loses nothing,
and claims lock rows (SKIP LOCKED on PostgreSQL) so several bot processes never send a
reminder twice. Closing itself goes through DuelService.close_round, which is exactly-once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import select

from bot.db import queries
from bot.db.engine import Database
from bot.db.models import Duel, Round
from bot.i18n.context import speaking
from bot.rules import registry
from bot.rules.base import SIDES
from bot.rules.capabilities import MultiStep, capability
from bot.services.clock import utcnow
from bot.services.duel_support import enqueue, legal_moves, member_dm_language
from bot.services.messages import Reminder
from bot.services.unit import transaction


@dataclass(frozen=True, slots=True)
class DueRound:
    duel_id: int
    round_no: int


class SchedulerService:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def due_closes(self, *, limit: int = 50) -> list[DueRound]:
        now = utcnow()
        async with transaction(self._db) as session:
            stmt = (
                select(Round.duel_id, Round.number)
                .where(Round.status == "open", Round.deadline.is_not(None), Round.deadline <= now)
                .order_by(Round.deadline)
                .limit(limit)
            )
            return [DueRound(d, n) for d, n in await session.execute(stmt)]

    async def next_deadline_in(self) -> timedelta | None:
        async with transaction(self._db) as session:
            stmt = (
                select(Round.deadline)
                .where(Round.status == "open", Round.deadline.is_not(None))
                .order_by(Round.deadline)
                .limit(1)
            )
            deadline = (await session.execute(stmt)).scalar_one_or_none()
            return None if deadline is None else deadline - utcnow()

    async def enqueue_due_reminders(self, offsets: Sequence[timedelta], *, limit: int = 100) -> int:
        """Queues reminder DMs whose time has come, only to duellists who have not moved.
        Returns how many DMs were queued."""
        if not offsets:
            return 0
        now = utcnow()
        widest = max(offsets)
        queued = 0
        async with transaction(self._db) as session:
            stmt = (
                select(Round, Duel)
                .join(Duel, Duel.id == Round.duel_id)
                .where(
                    Round.status == "open",
                    Round.deadline.is_not(None),
                    Round.deadline > now,
                    Round.deadline <= now + widest,
                )
                .order_by(Round.deadline)
                .limit(limit)
                .with_for_update(of=Round, skip_locked=True)
            )
            found = list(await session.execute(stmt))
            languages = await queries.member_languages(
                session, [uid for _rnd, d in found for uid in (d.a_user_id, d.b_user_id)]
            )
            for rnd, duel in found:
                assert rnd.deadline is not None
                sent = dict(rnd.reminders_sent or {})
                due = [
                    o
                    for o in offsets
                    if str(int(o.total_seconds())) not in sent and rnd.deadline - o <= now
                ]
                if not due:
                    continue
                for offset in due:
                    sent[str(int(offset.total_seconds()))] = now.isoformat()
                rnd.reminders_sent = sent
                moved = set((await queries.current_submissions(session, rnd.id)).keys())
                rules = registry.get(duel.ruleset)
                steps = capability(rules, MultiStep)
                awaiting = (
                    SIDES
                    if steps is None
                    else steps.awaiting_sides(rules.state_from_dict(duel.state))
                )
                label = min(due)
                for side, user_id in (("a", duel.a_user_id), ("b", duel.b_user_id)):
                    if side in moved or side not in awaiting:
                        continue
                    other = "b" if side == "a" else "a"
                    # A DM: the member's language (its move labels and words too).
                    language = member_dm_language(duel.language, languages, user_id)
                    with speaking(language):
                        message = Reminder(
                            duel_id=duel.id,
                            round_no=rnd.number,
                            ruleset=duel.ruleset,
                            side=side,
                            opponent=str(duel.state[other]["name"]),
                            channel_id=duel.thread_id or duel.channel_id,
                            deadline=rnd.deadline,
                            moves=legal_moves(duel.ruleset, duel.state, side),
                            words=rules.step_words(rnd.state_before or duel.state, rnd.number),
                        )
                    enqueue(
                        session,
                        message,
                        language=language,
                        dedupe_key=f"reminder:{rnd.id}:{side}:{int(label.total_seconds())}",
                        guild_id=duel.guild_id,
                        duel_id=duel.id,
                        target="user",
                        target_id=user_id,
                        on_behalf_of=rnd.opened_by,
                        next_attempt_at=now,
                    )
                    queued += 1
            return queued
