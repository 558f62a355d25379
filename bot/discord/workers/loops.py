"""What every worker loop shares: run one step, log and carry on after any error (the
database being unavailable included), sleep until woken or the step's pause is over."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)

ERROR_PAUSE = 2.0  # seconds after a failed step (e.g. the database is down)


async def guarded(what: str, step: Callable[[], Awaitable[float]]) -> float:
    """Run one step; returns the pause it asked for, or ERROR_PAUSE when it failed."""
    try:
        return await step()
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("The %s worker failed; trying again shortly", what)
        return ERROR_PAUSE


async def sleep_until_woken(event: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(event.wait(), timeout=max(0.01, seconds))
