"""The scheduler: closes rounds whose deadline has passed (exactly once: the service refuses
the loser of a race between processes, or with a commander) and queues reminder DMs. It
sleeps until the next deadline, the poll interval, or a wake-up (a round was opened)."""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta

from discord.ext import commands

from bot.discord.client import DuelBot
from bot.discord.workers.loops import guarded, sleep_until_woken, stop_worker
from bot.services.deadlines import parse_duration
from bot.services.errors import DomainError, RoundNotOpen

log = logging.getLogger(__name__)


def reminder_offsets(values: tuple[str, ...]) -> list[timedelta]:
    offsets = []
    for value in values:
        try:
            offset = parse_duration(value)
        except DomainError:
            log.warning("Ignoring reminder offset %r: not a duration", value)
            continue
        if offset > timedelta(0):
            offsets.append(offset)
    return sorted(set(offsets), reverse=True)


class Scheduler(commands.Cog):
    def __init__(self, bot: DuelBot) -> None:
        self.bot = bot
        self.services = bot.services
        self.settings = bot.settings
        self.offsets = reminder_offsets(self.settings.duels.reminders)
        self._task: asyncio.Task[None] | None = None

    async def cog_load(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="duelbot-scheduler")

    async def cog_unload(self) -> None:
        task, self._task = self._task, None
        await stop_worker(task)

    async def _loop(self) -> None:
        wakeup = self.bot.scheduler_wakeup
        while not self.bot.is_closed():
            wakeup.clear()
            pause = await guarded("scheduler", self.schedule_once)
            await sleep_until_woken(wakeup, pause)

    async def schedule_once(self) -> float:
        """Close due rounds, queue due reminders; returns how long to sleep."""
        poll = self.settings.workers.scheduler_poll_seconds
        if self.settings.duels.auto_close:
            for due in await self.services.scheduler.due_closes():
                try:
                    await self.services.duels.close_round(
                        duel_id=due.duel_id,
                        guild_id=None,
                        actor_id=None,
                        reason="deadline",
                        round_no=due.round_no,
                    )
                    log.info("Closed duel #%s round %s at its deadline", due.duel_id, due.round_no)
                except RoundNotOpen:
                    pass  # another process (or a commander) closed it first
                except DomainError as exc:
                    log.warning("Could not auto-close duel #%s: %s", due.duel_id, exc.message)
        if self.offsets:
            # The unit of work wakes the poster after the reminders' commit.
            await self.services.scheduler.enqueue_due_reminders(self.offsets)
        if self.settings.duels.auto_close:
            nearest = await self.services.scheduler.next_deadline_in()
            if nearest is not None and nearest > timedelta(0):
                # Wake just after the next deadline rather than up to a poll later.
                poll = min(poll, max(0.05, nearest.total_seconds() + 0.05))
        return poll


async def setup(bot: DuelBot) -> None:
    await bot.add_cog(Scheduler(bot))
