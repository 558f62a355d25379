"""Per-user flood limit on move intake: DMs, `/move` and move buttons; and the same token
bucket, with its own allowance, as the per-user budget of expensive answers (exports,
leaderboards: ``refuse_over_budget``).

A token bucket per user id: ``burst`` messages at once, then one every
``window / burst`` seconds (at the defaults 5 at once, then one per 2 s: 5 in 10 s). A DM over
the limit gets one polite notice, later ones are dropped unanswered and do no database work
until the user has cooled down (the bucket has filled up again: a new notice only after
that). An interaction (a click, `/move`) must be answered, so it always gets the refusal,
ephemerally; interaction answers do not count against Discord's global REST limit.

Memory stays bounded: a user whose bucket is full again is indistinguishable from a user
never seen, so idle users are dropped (oldest first, as they are met), and at most
``max_users`` are tracked (past that the least recently seen is dropped, which can only
give that user a fresh bucket).
"""

from __future__ import annotations

import logging
import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal

import discord

from bot.i18n.context import _
from bot.i18n.translate import N_

log = logging.getLogger(__name__)


class Verdict(Enum):
    ALLOWED = "allowed"
    NOTICE = "notice"  # over the limit, first time since the user cooled down
    SILENT = "silent"  # over the limit, already told


@dataclass
class _Bucket:
    tokens: float
    updated: float
    noticed: bool = False


@dataclass(frozen=True)
class Decision:
    verdict: Verdict
    wait_seconds: float  # until the next message is taken (0 when allowed)

    @property
    def allowed(self) -> bool:
        return self.verdict is Verdict.ALLOWED


class UserRateLimiter:
    def __init__(
        self,
        burst: int,
        window_seconds: float,
        max_users: int = 100_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.burst = burst
        self.window_seconds = window_seconds
        self.max_users = max_users
        self.clock = clock  # tests replace it to step time without sleeping
        self._users: OrderedDict[int, _Bucket] = OrderedDict()
        self.refused = 0  # messages refused since start (notices included)

    @property
    def enabled(self) -> bool:
        return self.burst > 0

    @property
    def refill_seconds(self) -> float:
        """Seconds for one message's worth of allowance to come back."""
        return self.window_seconds / self.burst

    def tracked(self) -> int:
        return len(self._users)

    def _refilled(self, bucket: _Bucket, now: float) -> float:
        gained = max(0.0, now - bucket.updated) / self.refill_seconds
        return min(float(self.burst), bucket.tokens + gained)

    def _evict_idle(self, now: float) -> None:
        # Least recently seen first: stop at the first user still cooling down.
        while self._users:
            user_id, bucket = next(iter(self._users.items()))
            if self._refilled(bucket, now) < self.burst:
                break
            del self._users[user_id]

    def check(self, user_id: int) -> Decision:
        """Take one message's allowance from ``user_id``, or say why not."""
        if not self.enabled:
            return Decision(Verdict.ALLOWED, 0.0)
        now = self.clock()
        self._evict_idle(now)
        bucket = self._users.pop(user_id, None)
        if bucket is None:
            bucket = _Bucket(tokens=float(self.burst), updated=now)
        bucket.tokens = self._refilled(bucket, now)
        bucket.updated = now
        if bucket.tokens >= self.burst:
            bucket.noticed = False  # cooled down: a later flood gets a notice again
        self._users[user_id] = bucket  # most recently seen last
        while len(self._users) > self.max_users:
            self._users.popitem(last=False)
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return Decision(Verdict.ALLOWED, 0.0)
        self.refused += 1
        wait = (1.0 - bucket.tokens) * self.refill_seconds
        if bucket.noticed:
            return Decision(Verdict.SILENT, wait)
        bucket.noticed = True
        log.info("User %s is over the move intake limit; ignoring their DMs for now", user_id)
        return Decision(Verdict.NOTICE, wait)

    def notice(self, decision: Decision) -> str:
        seconds = max(1, math.ceil(decision.wait_seconds))
        return _(
            "You are sending messages faster than the bot takes them (at most {burst} in "
            "{window:g} s). Wait {seconds} s, then send your move again; messages sent before "
            "then are ignored and get no answer.",
            burst=self.burst,
            window=self.window_seconds,
            seconds=seconds,
        )

    def refusal(self, decision: Decision) -> str:
        """The answer to a click or `/move` over the limit (nothing was recorded)."""
        seconds = max(1, math.ceil(decision.wait_seconds))
        return _(
            "You are sending moves faster than the bot takes them (at most {burst} in "
            "{window:g} s): nothing was recorded. Wait {seconds} s and try again.",
            burst=self.burst,
            window=self.window_seconds,
            seconds=seconds,
        )


async def refuse_interaction(
    interaction: discord.Interaction[Any], limiter: UserRateLimiter
) -> bool:
    """Answer a move click or `/move` over the limit with an ephemeral refusal (True), or
    take its allowance (False). Discord needs every interaction answered."""
    decision = limiter.check(interaction.user.id)
    if decision.allowed:
        return False
    await interaction.response.send_message(limiter.refusal(decision), ephemeral=True)
    return True


#: The refusal of each expensive answer over the member's budget.
OVER_BUDGET = {
    "exports": N_(
        "You are asking for exports faster than the bot prepares them (at most {burst} in "
        "{window:g} s per member): nothing was prepared. Wait {seconds} s and ask again."
    ),
    "leaderboards": N_(
        "You are asking for leaderboards faster than the bot prepares them (at most {burst} "
        "in {window:g} s per member): nothing was prepared. Wait {seconds} s and ask again."
    ),
}


async def refuse_over_budget(
    interaction: discord.Interaction[Any],
    limiter: UserRateLimiter,
    what: Literal["exports", "leaderboards"],
) -> bool:
    """The per-user budget of expensive answers (/duel export, /leaderboard and its pages;
    issue 23): answer a request over it with an ephemeral refusal (True), before any work;
    else take its allowance (False)."""
    decision = limiter.check(interaction.user.id)
    if decision.allowed:
        return False
    seconds = max(1, math.ceil(decision.wait_seconds))
    refusal = _(
        OVER_BUDGET[what],
        burst=limiter.burst,
        window=limiter.window_seconds,
        seconds=seconds,
    )
    await interaction.response.send_message(refusal, ephemeral=True)
    return True


__all__ = ["Decision", "UserRateLimiter", "Verdict", "refuse_interaction", "refuse_over_budget"]
