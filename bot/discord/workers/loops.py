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
    # asyncio.timeout, not wait_for: Python 3.11's wait_for returns normally when the task
    # is cancelled just as the event is set (gh-86296), so a stopping worker looped on and
    # the bot's close waited for it forever (a test hung with the loop idle).
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(max(0.01, seconds)):
            await event.wait()


async def stop_worker(task: asyncio.Task[None] | None) -> None:
    """Cancel a worker's loop and wait until it has stopped. A step may swallow one
    cancellation (a library's own wait_for, say), so cancel again until it is done."""
    if task is None:
        return
    while not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=0.5)
    if not task.cancelled() and task.exception() is not None:
        log.error("A worker stopped with an error", exc_info=task.exception())
