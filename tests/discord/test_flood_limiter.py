"""The per-user move intake limiter (bot/discord/flood.py) on a stepped clock."""

from __future__ import annotations

from bot.discord.flood import UserRateLimiter, Verdict


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_burst_then_one_notice_then_silence_until_cooled_down() -> None:
    clock = Clock()
    limiter = UserRateLimiter(5, 10.0, clock=clock)
    verdicts = [limiter.check(7).verdict for _ in range(50)]
    assert verdicts == [Verdict.ALLOWED] * 5 + [Verdict.NOTICE] + [Verdict.SILENT] * 44
    assert limiter.refused == 45
    # Another user is not affected.
    assert limiter.check(8).allowed
    # One message's allowance comes back after window / burst = 2 s.
    clock.now += 1.9
    assert limiter.check(7).verdict is Verdict.SILENT
    clock.now += 0.1
    assert limiter.check(7).allowed
    # Still not cooled down (the bucket has not filled up): no second notice.
    assert limiter.check(7).verdict is Verdict.SILENT
    # Cooled down: a full burst again, and a new flood gets a new notice.
    clock.now += 10.0
    assert [limiter.check(7).verdict for _ in range(7)] == (
        [Verdict.ALLOWED] * 5 + [Verdict.NOTICE, Verdict.SILENT]
    )


def test_notice_names_the_limit_and_the_wait() -> None:
    clock = Clock()
    limiter = UserRateLimiter(5, 10.0, clock=clock)
    for _ in range(5):
        limiter.check(1)
    decision = limiter.check(1)
    assert decision.verdict is Verdict.NOTICE and decision.wait_seconds == 2.0
    text = limiter.notice(decision)
    assert "faster than the bot takes them" in text
    assert "at most 5 in 10 s" in text and "Wait 2 s" in text and "ignored" in text
    assert "nothing was recorded" in limiter.refusal(decision)


def test_memory_stays_bounded_under_many_distinct_users() -> None:
    clock = Clock()
    limiter = UserRateLimiter(5, 10.0, max_users=1000, clock=clock)
    for user_id in range(5000):  # a flood of distinct accounts, all at once
        limiter.check(user_id)
    assert limiter.tracked() == 1000
    # Idle users are dropped once their allowance is back: losing them loses nothing.
    clock.now += 2.0
    limiter.check(10**9)
    assert limiter.tracked() == 1
    # A user still cooling down is kept (else a flooder would escape by waiting 0 s).
    for _ in range(6):
        limiter.check(42)
    clock.now += 1.0
    limiter.check(43)
    assert limiter.check(42).verdict is Verdict.SILENT


def test_burst_zero_turns_the_limit_off() -> None:
    limiter = UserRateLimiter(0, 10.0)
    assert all(limiter.check(1).allowed for _ in range(1000))
    assert limiter.tracked() == 0
