"""Crash safety: ``duelbot run`` as a process, SIGKILLed at random points and restarted
(bench/crash_harness.py does the work and documents the checks).

The fake is strict (issue 13): webhook messages read with the bot token come back without
content or embeds (no MESSAGE_CONTENT intent), and the short variant also drops the answers
of two webhook executions and two bot posts that took effect.

Short variant (normal suite): 2 seeded runs per backend, one kill each. Long variant
(``--run-slow``): 50 runs per backend, two kills each; also ``python -m bench.crash_harness
--runs 50 --backend sqlite,postgres``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.crash_harness import crash_run

SHORT_SEEDS = [101, 102]
LONG_SEEDS = list(range(1, 51))


def _explain(result: object, tmp_path: Path) -> str:
    logs = "\n".join(
        f"--- {log.name}\n{log.read_text(errors='replace')[-2000:]}"
        for log in sorted(tmp_path.glob("bot-*.log"))
    )
    return f"{result}\n{logs}"


@pytest.mark.parametrize("seed", SHORT_SEEDS)
async def test_sigkill_and_restart(
    seed: int, db_backend: str, migrated_db_url: str, tmp_path: Path
) -> None:
    result = await crash_run(
        migrated_db_url,
        seed,
        tmp_path,
        kills=1,
        duels=4,
        backend=db_backend,
        kill_window=(0.3, 1.2),
        drop_responses=2,
    )
    assert result.ok, _explain(result, tmp_path)
    assert result.moves_acked > 0 and result.rounds_closed > 0
    assert result.moves_acked_stored == result.moves_acked
    assert result.posts_duplicated == 0
    assert result.old_button_answered >= 1
    assert result.responses_dropped == 4  # 2 webhook executions, 2 bot posts


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.parametrize("seed", LONG_SEEDS)
async def test_sigkill_and_restart_long(
    seed: int, db_backend: str, migrated_db_url: str, tmp_path: Path
) -> None:
    result = await crash_run(
        migrated_db_url, seed, tmp_path, kills=2, duels=6, backend=db_backend, drop_responses=2
    )
    assert result.ok, _explain(result, tmp_path)
    assert result.moves_acked_stored == result.moves_acked
    assert result.posts_duplicated == 0
