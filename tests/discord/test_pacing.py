"""The global REST pacer (bot/discord/pacing.py) on virtual time: the outbox keeps its
reserved share while interactive work (DM receipts) is saturated, and the total never goes
over the ceiling. No real sleeping: a small scheduler advances a fake clock to the next
wake-up once every task is blocked."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Awaitable, Callable

from bot.discord import pacing
from bot.discord.pacing import GlobalPacer


class VirtualTime:
    def __init__(self) -> None:
        self.now = 0.0
        self._timers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._seq = itertools.count()

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._timers, (self.now + max(0.0, seconds), next(self._seq), future))
        await future

    async def _settle(self) -> None:
        for _ in range(20):  # let every runnable task run until it blocks again
            await asyncio.sleep(0)

    async def run_until(self, end: float) -> None:
        while True:
            await self._settle()
            if not self._timers or self._timers[0][0] > end:
                self.now = end
                return
            when, _, future = heapq.heappop(self._timers)
            self.now = max(self.now, when)
            if not future.done():
                future.set_result(None)


def virtual_pacer(vt: VirtualTime) -> GlobalPacer:
    return GlobalPacer(clock=vt.clock, sleep=vt.sleep)


def flooder(
    pacer: GlobalPacer, grants: list[float], vt: VirtualTime, *, bulk: bool
) -> Callable[[], Awaitable[None]]:
    async def run() -> None:
        while True:
            slot = await pacer.acquire(bulk=bulk)
            grants.append(vt.now)
            pacer.release(slot)  # an answer with no latency

    return run


def per_window(grants: list[float], start: float, end: float) -> int:
    return sum(1 for t in grants if start <= t < end)


def max_in_any_window(times: list[float], window: float = 1.0) -> int:
    ordered = sorted(times)
    best, left = 0, 0
    for right, t in enumerate(ordered):
        while ordered[left] <= t - window:
            left += 1
        best = max(best, right - left + 1)
    return best


async def test_outbox_keeps_its_reserved_share_under_a_receipt_flood() -> None:
    vt = VirtualTime()
    pacer = virtual_pacer(vt)
    interactive: list[float] = []
    bulk: list[float] = []
    # 30 flooding accounts' receipts: always more interactive requests than the budget.
    tasks = [
        asyncio.create_task(flooder(pacer, interactive, vt, bulk=False)()) for _ in range(30)
    ]
    try:
        await vt.run_until(3.0)
        # Alone, interactive work may use the whole ceiling.
        assert per_window(interactive, 2.0, 3.0) == pacing.CEILING
        # The outbox starts posting (a round opens) while the flood goes on.
        started = vt.now
        tasks += [asyncio.create_task(flooder(pacer, bulk, vt, bulk=True)()) for _ in range(4)]
        await vt.run_until(8.0)
        # Its first request waits at most one window, however hot the interactive side is.
        assert bulk and bulk[0] - started <= pacer.window
        # From then on it gets its reserved share every second, the receipts the rest.
        for second in range(5, 8):
            assert per_window(bulk, second, second + 1) >= pacing.BULK_RESERVED
            assert per_window(interactive, second, second + 1) >= (
                pacing.CEILING - pacing.BULK_RESERVED
            )
        # Never more than the ceiling in any sliding second, under Discord's 50.
        assert max_in_any_window(interactive + bulk) <= pacing.CEILING
        assert pacing.CEILING < pacing.DISCORD_GLOBAL_PER_SECOND
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def test_outbox_alone_leaves_room_for_receipts() -> None:
    vt = VirtualTime()
    pacer = virtual_pacer(vt)
    bulk: list[float] = []
    interactive: list[float] = []
    tasks = [asyncio.create_task(flooder(pacer, bulk, vt, bulk=True)()) for _ in range(8)]
    try:
        await vt.run_until(3.0)
        assert per_window(bulk, 2.0, 3.0) == pacing.BULK_CEILING
        # A receipt arriving while the poster is flat out goes at once.
        pacer.release(await pacer.acquire(bulk=False))
        interactive.append(vt.now)
        assert interactive == [3.0]
        assert max_in_any_window(bulk + interactive) <= pacing.CEILING
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def test_receipts_use_what_the_idle_outbox_leaves() -> None:
    vt = VirtualTime()
    pacer = virtual_pacer(vt)
    interactive: list[float] = []
    bulk: list[float] = []
    tasks = [
        asyncio.create_task(flooder(pacer, interactive, vt, bulk=False)()) for _ in range(5)
    ]
    try:
        tasks.append(asyncio.create_task(flooder(pacer, bulk, vt, bulk=True)()))
        await vt.run_until(2.0)
        tasks.pop().cancel()  # the outbox has drained
        await vt.run_until(5.0)
        assert per_window(interactive, 4.0, 5.0) == pacing.CEILING
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
