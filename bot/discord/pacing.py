"""Staying under Discord's global limit: 50 requests per second per bot token.

discord.py paces each route bucket by the X-RateLimit headers, but it has no global pacing:
it learns of the global limit only from a 429. Opening rounds for many duels at once (two
DMs each, and a DM channel to create for each) would run into it. The pacer counts the
bot's authenticated REST requests over a sliding one-second window and holds a request
back while the window is full. Interaction callbacks and followups, and webhook executions,
do not go through ``HTTPClient.request`` and are not counted (Discord exempts them too).

Bulk work (the outbox poster, marked with :data:`BULK`) stops at a lower ceiling than
interactive work (DM receipts), so a burst of round prompts never delays a receipt.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections import deque
from typing import Any

import discord

#: True inside the outbox poster's task: its requests yield to interactive ones.
BULK: contextvars.ContextVar[bool] = contextvars.ContextVar("duelbot_bulk", default=False)

DISCORD_GLOBAL_PER_SECOND = 50
INTERACTIVE_CEILING = 47  # room for clock and network jitter under 50
BULK_CEILING = 44  # leaves 3/s to receipts even while the poster is at full speed
WINDOW = 1.0


class GlobalPacer:
    def __init__(
        self,
        interactive: int = INTERACTIVE_CEILING,
        bulk: int = BULK_CEILING,
        window: float = WINDOW,
    ) -> None:
        self.interactive = interactive
        self.bulk = bulk
        self.window = window
        self._sent: deque[float] = deque()
        self.waited = 0.0  # seconds requests were held back, in total

    def _prune(self, now: float) -> None:
        while self._sent and self._sent[0] <= now - self.window:
            self._sent.popleft()

    async def acquire(self, *, bulk: bool = False) -> None:
        ceiling = self.bulk if bulk else self.interactive
        started = None
        while True:
            now = time.monotonic()
            self._prune(now)
            if len(self._sent) < ceiling:
                self._sent.append(now)
                if started is not None:
                    self.waited += now - started
                return
            started = started or now
            # the slot frees when the (len - ceiling + 1)-th oldest request leaves the window
            oldest = self._sent[len(self._sent) - ceiling]
            await asyncio.sleep(max(0.001, oldest + self.window - now))


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
