"""Staying under Discord's global limit: 50 requests per second per bot token.

discord.py paces each route bucket by the X-RateLimit headers, but it has no global pacing:
it learns of the global limit only from a 429. Opening rounds for many duels at once (two
DMs each, and a DM channel to create for each) would run into it. The pacer counts the
bot's authenticated REST requests over a sliding one-second window and holds a request
back while the window is full. Interaction callbacks and followups, and requests without
the bot's token (webhook executions by token, the gateway), are not counted: Discord
exempts them too.

The pacer sits in an aiohttp trace hook (:class:`PacingTrace`, given to the client as
``http_trace``), so a request is counted the moment it is sent: after discord.py's own wait
for the route's bucket, and once per retry. Counting earlier (when discord.py is asked)
let requests queue between the count and the send and reach Discord bunched together:
under a DM flood that drew global 429s.

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

import aiohttp
import discord

#: True inside the outbox poster's task: its requests go to the outbox's share.
BULK: contextvars.ContextVar[bool] = contextvars.ContextVar("duelbot_bulk", default=False)

DISCORD_GLOBAL_PER_SECOND = 50
CEILING = 47  # room for clock and network jitter under 50
BULK_CEILING = 44  # leaves 3/s to receipts even while the poster is at full speed
BULK_RESERVED = 20  # the outbox's share that interactive work cannot take while it waits
WINDOW = 1.0
IN_FLIGHT_POLL = 0.005  # seconds between looks while every held request is in flight
STALE_SECONDS = 120.0


class Slot:
    """One request's place in the window: held from its send until ``window`` after its
    answer arrived (``done_at``). An answer comes after Discord counted the request, so
    no network or event-loop delay can bunch more than the ceiling into Discord's second."""

    __slots__ = ("bulk", "done_at", "sent_at")

    def __init__(self, bulk: bool, sent_at: float) -> None:
        self.bulk = bulk
        self.sent_at = sent_at
        self.done_at: float | None = None


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
        self._in_flight: set[Slot] = set()
        self._done: deque[Slot] = deque()  # by done_at
        self._held = {True: 0, False: 0}  # slots held, by bulk
        self._bulk_waiting = 0
        self.waited = 0.0  # seconds requests were held back, in total
        self.granted = {"interactive": 0, "bulk": 0}

    @property
    def interactive_while_bulk_waits(self) -> int:
        return self.ceiling - self.bulk_reserved

    def _prune(self, now: float) -> None:
        while self._done and self._done[0].done_at is not None:
            if self._done[0].done_at > now - self.window:
                break
            self._held[self._done.popleft().bulk] -= 1
        # A request whose end was never reported (it cannot happen with aiohttp's trace
        # events, but a leak would shrink the budget for good) is let go after a while.
        for slot in [s for s in self._in_flight if s.sent_at < now - STALE_SECONDS]:
            self.release(slot)

    def _may_go(self, bulk: bool) -> bool:
        total = self._held[True] + self._held[False]
        if total >= self.ceiling:
            return False
        if bulk:
            return total < self.bulk_ceiling or self._held[True] < self.bulk_reserved
        return (
            self._bulk_waiting == 0 or self._held[False] < self.interactive_while_bulk_waits
        )

    async def acquire(self, *, bulk: bool = False) -> Slot:
        """Wait for a place in the window; give it back with :meth:`release` once the
        request's answer (or failure) is in."""
        started: float | None = None
        try:
            while True:
                now = self._clock()
                self._prune(now)
                if self._may_go(bulk):
                    slot = Slot(bulk, now)
                    self._in_flight.add(slot)
                    self._held[bulk] += 1
                    self.granted["bulk" if bulk else "interactive"] += 1
                    if started is not None:
                        self.waited += now - started
                    return slot
                if started is None:
                    started = now
                    if bulk:
                        self._bulk_waiting += 1
                # Eligibility changes when a finished request leaves the window (or, with
                # every held request still in flight, when one finishes: look again soon).
                if self._done:
                    assert self._done[0].done_at is not None
                    pause = self._done[0].done_at + self.window - now
                else:
                    pause = IN_FLIGHT_POLL
                await self._sleep(max(0.001, min(pause, self.window)))
        finally:
            if bulk and started is not None:
                self._bulk_waiting -= 1

    def release(self, slot: Slot) -> None:
        if slot not in self._in_flight:
            return
        self._in_flight.discard(slot)
        slot.done_at = self._clock()  # monotonic: the deque stays in done_at order
        self._done.append(slot)


def shared_pacer(share: float = 1.0) -> GlobalPacer:
    """A pacer for a process that takes ``share`` (0 < share <= 1) of the bot's budget:
    every figure above scaled down (at least one request per window). Processes of one bot
    without a REST proxy each take their share (``[discord] rest_share``) so that together
    they stay under Discord's 50/s."""
    if not 0 < share <= 1:
        raise ValueError("share must be in (0, 1]")  # i18n: not shown
    ceiling = max(1, int(CEILING * share))
    bulk_ceiling = max(1, min(ceiling, int(BULK_CEILING * share)))
    bulk_reserved = min(bulk_ceiling, int(BULK_RESERVED * share))
    return GlobalPacer(ceiling, bulk_ceiling, bulk_reserved)


class PacingTrace(aiohttp.TraceConfig):
    """Holds each authenticated REST request at the moment it is sent until the pacer lets
    it go (the request's task tells, through :data:`BULK`, whose share it uses)."""

    def __init__(self, pacer: GlobalPacer | None = None) -> None:
        super().__init__()
        self.pacer = pacer or GlobalPacer()
        self.application_id: int | None = None  # set once known: its webhooks are exempt
        #: False behind a REST proxy that owns the rate limits ([discord] rest_proxy).
        self.enabled = True
        self.on_request_start.append(self._pace)
        self.on_request_end.append(self._done)
        self.on_request_exception.append(self._done)
        self.on_request_redirect.append(self._done)

    def counts(self, params: aiohttp.TraceRequestStartParams) -> bool:
        if "Authorization" not in params.headers:  # i18n: not shown
            return False
        parts = params.url.path.split("/")
        if "interactions" in parts:
            return False
        if "webhooks" in parts and self.application_id is not None:
            at = parts.index("webhooks")
            return parts[at + 1 : at + 2] != [str(self.application_id)]
        return True

    async def _pace(
        self,
        session: aiohttp.ClientSession,
        context: Any,
        params: aiohttp.TraceRequestStartParams,
    ) -> None:
        if self.enabled and self.counts(params):
            context.duelbot_slot = await self.pacer.acquire(bulk=BULK.get())

    async def _done(self, session: aiohttp.ClientSession, context: Any, params: Any) -> None:
        slot = getattr(context, "duelbot_slot", None)
        if isinstance(slot, Slot):
            self.pacer.release(slot)
            context.duelbot_slot = None


def install(client: discord.Client) -> GlobalPacer:
    """The pacer of a client created with a :class:`PacingTrace` (the bot is: DuelBot);
    records the application id, whose webhooks are exempt, once it is known."""
    trace = client.http.http_trace
    if not isinstance(trace, PacingTrace):
        raise TypeError(
            "this client was created without a PacingTrace (http_trace=...)"  # i18n: not shown
        )
    trace.application_id = client.application_id
    return trace.pacer


__all__ = ["BULK", "GlobalPacer", "PacingTrace", "Slot", "install", "shared_pacer"]
