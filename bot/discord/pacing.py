"""Staying under Discord's global limit: 50 requests per second per bot token.

discord.py paces each route bucket by the X-RateLimit headers, but it has no global pacing:
it learns of the global limit only from a 429. Opening rounds for many duels at once (two
DMs each, and a DM channel to create for each) would run into it. The pacer counts the
bot's authenticated REST requests over a sliding one-second window and holds a request
back while the window is full. Interaction callbacks and followups, and webhook executions,
do not go through ``HTTPClient.request`` and are not counted (Discord exempts them too).

Two kinds of work share the budget. Bulk work (the outbox poster, marked with :data:`BULK`:
round prompts, posts, reminders) and interactive work (DM receipts and notices). The split,
per sliding second, with the numbers below:

- together at most ``CEILING`` = 47 requests (3 under Discord's 50 for clock and network
  jitter);
- the outbox alone stops at ``BULK_CEILING`` = 44, so a receipt always finds a free slot
  soon, even while the poster is going at full speed;
- the outbox has ``BULK_RESERVED`` = 20 reserved: while an outbox request is waiting,
  interactive work may hold at most ``CEILING - BULK_RESERVED`` = 27 of the window, and the
  outbox may fill up to ``CEILING`` while it holds fewer than 20. A flood of DMs therefore
  cannot starve prompts and posts: the outbox gets at least 20 requests per second, and its
  first request waits at most one window (1 s) however hot the interactive side is;
- whatever one side leaves idle, the other may use (up to 47 interactive, 44 bulk).
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

import discord

#: True inside the outbox poster's task: its requests go to the outbox's share.
BULK: contextvars.ContextVar[bool] = contextvars.ContextVar("duelbot_bulk", default=False)

DISCORD_GLOBAL_PER_SECOND = 50
CEILING = 47  # room for clock and network jitter under 50
BULK_CEILING = 44  # leaves 3/s to receipts even while the poster is at full speed
BULK_RESERVED = 20  # the outbox's share that interactive work cannot take while it waits
WINDOW = 1.0


class GlobalPacer:
    def __init__(
        self,
        ceiling: int = CEILING,
        bulk_ceiling: int = BULK_CEILING,
        bulk_reserved: int = BULK_RESERVED,
        window: float = WINDOW,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    ) -> None:
        if not 0 <= bulk_reserved <= bulk_ceiling <= ceiling:
            raise ValueError("need 0 <= bulk_reserved <= bulk_ceiling <= ceiling")
        self.ceiling = ceiling
        self.bulk_ceiling = bulk_ceiling
        self.bulk_reserved = bulk_reserved
        self.window = window
        self._clock = clock
        self._sleep = sleep
        self._interactive: deque[float] = deque()
        self._bulk: deque[float] = deque()
        self._bulk_waiting = 0
        self.waited = 0.0  # seconds requests were held back, in total
        self.granted = {"interactive": 0, "bulk": 0}

    @property
    def interactive_while_bulk_waits(self) -> int:
        return self.ceiling - self.bulk_reserved

    def _prune(self, now: float) -> None:
        for sent in (self._interactive, self._bulk):
            while sent and sent[0] <= now - self.window:
                sent.popleft()

    def _may_go(self, bulk: bool) -> bool:
        total = len(self._interactive) + len(self._bulk)
        if total >= self.ceiling:
            return False
        if bulk:
            return total < self.bulk_ceiling or len(self._bulk) < self.bulk_reserved
        return (
            self._bulk_waiting == 0
            or len(self._interactive) < self.interactive_while_bulk_waits
        )

    async def acquire(self, *, bulk: bool = False) -> None:
        started: float | None = None
        try:
            while True:
                now = self._clock()
                self._prune(now)
                if self._may_go(bulk):
                    (self._bulk if bulk else self._interactive).append(now)
                    self.granted["bulk" if bulk else "interactive"] += 1
                    if started is not None:
                        self.waited += now - started
                    return
                if started is None:
                    started = now
                    if bulk:
                        self._bulk_waiting += 1
                # Eligibility changes when the oldest request leaves the window.
                heads = [sent[0] for sent in (self._interactive, self._bulk) if sent]
                await self._sleep(max(0.001, min(heads) + self.window - now))
        finally:
            if bulk and started is not None:
                self._bulk_waiting -= 1


def install(client: discord.Client, pacer: GlobalPacer | None = None) -> GlobalPacer:
    """Route the client's REST requests through a pacer (once per client)."""
    http = client.http
    existing = getattr(http, "_duelbot_pacer", None)
    if isinstance(existing, GlobalPacer):
        return existing
    chosen = pacer or GlobalPacer()
    original = http.request

    async def request(route: discord.http.Route, **kwargs: Any) -> Any:
        await chosen.acquire(bulk=BULK.get())
        return await original(route, **kwargs)

    http.request = request  # type: ignore[method-assign]
    http._duelbot_pacer = chosen  # type: ignore[attr-defined]
    return chosen


__all__ = ["BULK", "GlobalPacer", "install"]
