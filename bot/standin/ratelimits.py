"""Opt-in enforcement of Discord's rate limits in the fake (off unless asked for).

    fake = FakeDiscord(rate_limits=RateLimits())      # or fake.enforce_rate_limits(...)

What is modelled (https://discord.com/developers/docs/topics/rate-limits):

- the global limit: ``global_per_second`` (50) requests per second per bot token, counted
  over a sliding one-second window (stricter than Discord's own window, so a bot that
  passes here passes there). Requests without the bot's Authorization header (webhook
  executions by token) and interaction endpoints (callbacks, and followups / @original
  edits on ``/webhooks/{application_id}/{token}``) are not counted, as on Discord;
- per-route buckets with fixed windows that reset ``per`` seconds after their first request,
  keyed by the route and its major parameter, announced on every answer through
  ``X-RateLimit-Limit/Remaining/Reset/Reset-After/Bucket`` (discord.py paces itself by
  them): ``POST /channels/{id}/messages`` 5 per 5 s per channel, webhook executions 5 per
  2 s per webhook, DM channel creation ``dm_channel_create`` (Discord does not publish this
  one; the default is a stand-in, change it to test a tighter figure).

A request over a limit is answered 429 with ``Retry-After``, the ``X-RateLimit-*`` headers,
``X-RateLimit-Scope``/``X-RateLimit-Global`` and ``Via`` (discord.py then waits and retries),
and is recorded in ``fake.rate_limited``. A 429 does not use up the bucket.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from .models import JSON


@dataclass(frozen=True)
class RateLimits:
    global_per_second: int = 50
    #: (requests, seconds) per bucket.
    channel_messages: tuple[int, float] = (5, 5.0)
    webhook_execute: tuple[int, float] = (5, 2.0)
    dm_channel_create: tuple[int, float] = (50, 1.0)


@dataclass
class RateLimitHit:
    """One 429 the fake sent."""

    method: str
    path: str
    scope: str  # "global" or "user" (a route bucket)
    bucket: str
    retry_after: float
    at: float = field(default_factory=time.monotonic)


@dataclass
class _Bucket:
    limit: int
    per: float
    used: int = 0
    resets_at: float = 0.0


class RateLimiter:
    def __init__(self, limits: RateLimits, application_id: int) -> None:
        self.limits = limits
        self.application_id = application_id
        self._global: deque[float] = deque()
        self._buckets: dict[tuple[str, str], _Bucket] = {}
        #: every 429 sent, in order
        self.hits: list[RateLimitHit] = []
        #: requests counted against the global limit
        self.global_count = 0

    def _route_bucket(
        self, method: str, template: str, params: dict[str, str]
    ) -> tuple[str, str, tuple[int, float]] | None:
        if method != "POST":
            return None
        if template == "/channels/{channel_id}/messages":
            return template, params["channel_id"], self.limits.channel_messages
        if template == "/users/@me/channels":
            return template, "", self.limits.dm_channel_create
        if template == "/webhooks/{webhook_id}/{token}":
            if params.get("webhook_id") == str(self.application_id):
                return None  # an interaction followup: not a webhook's bucket
            return template, params["webhook_id"], self.limits.webhook_execute
        return None

    @staticmethod
    def _exempt_from_global(template: str, params: dict[str, str], app_id: int) -> bool:
        if template.startswith("/interactions/"):
            return True
        return template.startswith("/webhooks/{webhook_id}/{token}") and params.get(
            "webhook_id"
        ) == str(app_id)

    def check(
        self, method: str, path: str, template: str, params: dict[str, str], authorized: bool
    ) -> tuple[int, JSON, dict[str, str]] | dict[str, str]:
        """Either (429, body, headers) or the headers of an allowed request."""
        now = time.monotonic()
        counts_global = authorized and not self._exempt_from_global(
            template, params, self.application_id
        )
        if counts_global:
            window = self._global
            while window and window[0] <= now - 1.0:
                window.popleft()
            if len(window) >= self.limits.global_per_second:
                retry = max(0.001, window[0] + 1.0 - now)
                return self._limited(method, path, "global", "global", retry, 50, now)
        route = self._route_bucket(method, template, params)
        headers: dict[str, str] = {}
        if route is not None:
            name, major, (limit, per) = route
            bucket = self._buckets.get((name, major))
            if bucket is None:
                bucket = self._buckets[(name, major)] = _Bucket(limit, per)
            if now >= bucket.resets_at:
                bucket.used, bucket.resets_at = 0, now + per
            bucket_id = hashlib.sha1(name.encode()).hexdigest()[:16]
            if bucket.used >= bucket.limit:
                retry = max(0.001, bucket.resets_at - now)
                return self._limited(method, path, "user", bucket_id, retry, limit, now)
            bucket.used += 1
            reset_after = max(0.0, bucket.resets_at - now)
            headers = {
                "X-RateLimit-Bucket": bucket_id,
                "X-RateLimit-Limit": str(limit),
                "X-RateLimit-Remaining": str(limit - bucket.used),
                "X-RateLimit-Reset-After": f"{reset_after:.3f}",
                "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
            }
        if counts_global:
            self._global.append(now)
            self.global_count += 1
        return headers

    def _limited(
        self, method: str, path: str, scope: str, bucket: str, retry: float, limit: int, now: float
    ) -> tuple[int, JSON, dict[str, str]]:
        self.hits.append(RateLimitHit(method, path, scope, bucket, retry, now))
        headers = {
            "Retry-After": str(max(1, math.ceil(retry))),
            "X-RateLimit-Limit": str(limit),
            "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset-After": f"{retry:.3f}",
            "X-RateLimit-Reset": f"{time.time() + retry:.3f}",
            "X-RateLimit-Bucket": bucket,
            "X-RateLimit-Scope": scope,
        }
        if scope == "global":
            headers["X-RateLimit-Global"] = "true"
        body: dict[str, Any] = {
            "message": "You are being rate limited.",
            "retry_after": round(retry, 3),
            "global": scope == "global",
            "code": 0,
        }
        return 429, body, headers
