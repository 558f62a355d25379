"""Fault injection (FaultsMixin): failing, delaying, rate-limiting or dropping the answers
to chosen requests, opt-in rate-limit enforcement, and refused DMs."""

from __future__ import annotations

import time

from .models import JSON
from .ratelimits import RateLimiter, RateLimitHit, RateLimits
from .routing import Fault, path_regex
from .state import StandinState

# Discord's 403 codes for a DM it will not deliver (JSON error codes in the API docs).
CANNOT_DM = 50007
NO_MUTUAL_GUILDS = 50278
DM_REFUSALS = {
    CANNOT_DM: "Cannot send messages to this user",
    NO_MUTUAL_GUILDS: "Cannot send messages to this user due to having no mutual guilds",
}


class FaultsMixin(StandinState):
    """Make the next matching requests fail the way Discord (or Cloudflare) does."""

    def fail_next(
        self,
        method: str,
        path_pattern: str,
        status: int = 500,
        times: int | None = 1,
        *,
        code: int = 0,
        message: str | None = None,
        body: JSON | None = None,
    ) -> Fault:
        """Answer the next ``times`` matching requests with ``status`` (times=None: forever)."""
        fault = Fault(
            method=method,
            pattern=path_regex(path_pattern),
            status=status,
            times=times,
            body=body
            if body is not None
            else {"message": message or f"{status}: fakediscord fault", "code": code},
        )
        self.faults.append(fault)
        return fault

    def rate_limit_next(
        self,
        method: str,
        path_pattern: str,
        retry_after: float = 0.05,
        times: int | None = 1,
        *,
        is_global: bool = False,
        via: bool = True,
    ) -> Fault:
        """Answer 429 like Discord does (with Via; without it discord.py treats it as a
        Cloudflare ban and raises instead of retrying)."""
        headers = {
            "Retry-After": str(max(1, int(retry_after + 0.999))),
            "X-RateLimit-Limit": "5",
            "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset-After": f"{retry_after:.3f}",
            "X-RateLimit-Reset": f"{time.time() + retry_after:.3f}",
            "X-RateLimit-Scope": "global" if is_global else "user",
        }
        if is_global:
            headers["X-RateLimit-Global"] = "true"
        fault = Fault(
            method=method,
            pattern=path_regex(path_pattern),
            status=429,
            times=times,
            body={
                "message": "You are being rate limited.",
                "retry_after": retry_after,
                "global": is_global,
            },
            headers=headers,
        )
        if not via:
            fault.headers["X-No-Via"] = "1"
        self.faults.append(fault)
        return fault

    def delay(
        self, method: str, path_pattern: str, seconds: float, times: int | None = None
    ) -> Fault:
        """Delay matching responses by ``seconds`` (then answer normally)."""
        fault = Fault(
            method=method,
            pattern=path_regex(path_pattern),
            status=0,
            times=times,
            body={},
            delay=seconds,
        )
        self.faults.append(fault)
        return fault

    def drop_response_next(
        self, method: str, path_pattern: str, times: int | None = 1, *, delay: float = 0.0
    ) -> Fault:
        """The next ``times`` matching requests that succeed take effect, but their answer
        is lost: after ``delay`` seconds the connection is cut, and the client sees a
        connection error (a ``delay`` past its timeout: a timeout). A post whose response is
        dropped has landed; a retry must not post it twice."""
        fault = Fault(
            method=method,
            pattern=path_regex(path_pattern),
            status=0,
            times=times,
            body={},
            delay=delay,
            drop_response=True,
        )
        self.faults.append(fault)
        return fault

    def enforce_rate_limits(self, limits: RateLimits | None = None) -> RateLimiter:
        """Answer requests over Discord's global and per-route limits with 429 (see
        ratelimits.py); ``fake.rate_limited`` lists the 429s sent."""
        self.ratelimiter = RateLimiter(limits or RateLimits(), self.application_id)
        return self.ratelimiter

    @property
    def rate_limited(self) -> list[RateLimitHit]:
        """The 429s sent by rate-limit enforcement (not by ``rate_limit_next``)."""
        return [] if self.ratelimiter is None else self.ratelimiter.hits

    def clear_faults(self) -> None:
        self.faults.clear()

    def block_dms(self, user_id: int, code: int = CANNOT_DM) -> None:
        """POST /channels/{dm}/messages to this user answers 403 with ``code``: 50007 (the
        user's DMs are closed to the bot, the default) or 50278 (no server in common)."""
        if code not in DM_REFUSALS:
            raise ValueError(f"Discord refuses DMs with {sorted(DM_REFUSALS)}, not {code}")
        self.blocked_dm_users[user_id] = code

    def unblock_dms(self, user_id: int) -> None:
        self.blocked_dm_users.pop(user_id, None)
