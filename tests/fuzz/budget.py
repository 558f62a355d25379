"""Example counts for the bad-input suite.

CI runs every property with the FAST count (the whole of tests/fuzz in well under a minute);
``--run-slow`` adds the ``*_100k`` variants whose counts below add up to 100,000 inputs
(figures in docs/reliability.md, "Bad input").
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

FAST = 150
SLOW = {
    "dm_text_pure": 25_000,  # split_duel_prefix + parse_move on DM-like text
    "parse_move": 15_000,  # parse_move on tricky tokens
    "deadline": 20_000,  # parse_deadline / parse_duration
    "cli_adjudicate": 10_000,  # duelbot adjudicate, in-process
    "cli_verify": 8_000,  # duelbot verify, in-process
    "cli_raw": 7_000,  # raw bytes as the JSON file
    "handle_dm": 10_000,  # Intake.handle_dm against Services on SQLite
    "stats": 3_000,  # ProfileService.set_stats
    "reason_names": 2_000,  # start_duel names + end_duel reasons
}
assert sum(SLOW.values()) == 100_000


def fast(**kw: object) -> settings:
    return settings(
        max_examples=FAST,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
        **kw,  # type: ignore[arg-type]
    )


def slow(name: str, **kw: object) -> settings:
    return settings(
        max_examples=SLOW[name],
        deadline=None,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.function_scoped_fixture,
            HealthCheck.data_too_large,
        ],
        database=None,
        **kw,  # type: ignore[arg-type]
    )
