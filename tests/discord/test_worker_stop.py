"""A worker loop stops when the bot closes, whatever the timing of its last wake-up.

Python 3.11's ``asyncio.wait_for`` returns normally when its task is cancelled just as the
awaited event is set (gh-86296); the workers slept with it, so a close that came right after
a post woke the poster left its loop running and the bot's close waiting for it forever
(tests/fuzz/test_injection.py once hung 300 s with the event loop idle)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools

from bot.discord.workers.loops import sleep_until_woken, stop_worker


async def _worker(wakeup: asyncio.Event) -> None:
    while True:  # the shape of the poster's and the scheduler's loops
        wakeup.clear()
        await sleep_until_woken(wakeup, 60)


async def test_one_cancel_stops_a_worker_woken_at_any_moment() -> None:
    for before, after in itertools.product(range(4), range(4)):
        wakeup = asyncio.Event()
        task = asyncio.create_task(_worker(wakeup))
        for _ in range(before):
            await asyncio.sleep(0)
        wakeup.set()
        for _ in range(after):
            await asyncio.sleep(0)
        task.cancel()
        done, _ = await asyncio.wait({task}, timeout=1)
        assert task in done, f"still running after cancel (wake-up {before}/{after} turns in)"
        assert task.cancelled()


async def test_sleep_until_woken_returns_on_the_wakeup_or_the_pause() -> None:
    wakeup = asyncio.Event()
    loop = asyncio.get_running_loop()
    started = loop.time()
    await sleep_until_woken(wakeup, 0.05)
    assert loop.time() - started >= 0.04
    wakeup.set()
    started = loop.time()
    await sleep_until_woken(wakeup, 30)
    assert loop.time() - started < 1


async def test_stop_worker_stops_a_loop_that_swallows_one_cancellation() -> None:
    swallowed = 0

    async def stubborn() -> None:
        nonlocal swallowed
        while True:
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                if swallowed:
                    raise
                swallowed += 1  # as a library's own wait_for may do, once

    task = asyncio.create_task(stubborn())
    await asyncio.sleep(0)
    await asyncio.wait_for(stop_worker(task), timeout=5)
    assert task.cancelled() and swallowed == 1
    await stop_worker(None)  # a worker that never started
    with contextlib.suppress(asyncio.CancelledError):
        await task
