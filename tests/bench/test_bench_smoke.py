"""The service benchmark runs end to end with tiny sizes (no timing assertions)."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import pytest
from sqlalchemy import func, select

from bench import service_bench
from bot.db.models import Duel, Submission


@pytest.mark.parametrize(
    "backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def test_bench_runs(
    backend: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], request: pytest.FixtureRequest
) -> None:
    argv = ["--duels", "20,60", "--backend", backend, "--ops", "40", "--closes", "10"]
    argv += ["--warmup", "8", "--active", "4", "--json", str(tmp_path / "bench.json")]
    if backend == "postgres":
        argv += ["--postgres-url", request.getfixturevalue("postgres_server")]
    assert service_bench.main(argv) == 0
    out = capsys.readouterr().out
    assert "(b)/(a)" in out and "close p99" in out
    figures = json.loads((tmp_path / "bench.json").read_text())
    assert [(f["backend"], f["duels"]) for f in figures] == [(backend, 20), (backend, 60)]
    for f in figures:
        assert f["baseline_tps"] > 0 and f["submit_tps"] > 0 and f["close_p99_ms"] > 0


def test_bulk_load_counts() -> None:
    cfg, _ = service_bench.parse_args(["--backend", "sqlite", "--quick"])

    async def go() -> tuple[int, int]:
        async with service_bench.fresh_database("sqlite", cfg) as db:
            await service_bench.bulk_load(db, 123, random.Random(1))
            async with db.transaction() as s:
                duels = (await s.execute(select(func.count()).select_from(Duel))).scalar_one()
                subs = (await s.execute(select(func.count()).select_from(Submission))).scalar_one()
            return int(duels), int(subs)

    assert asyncio.run(go()) == (123, 246)


def test_ladder_bench_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """The ladder benchmark end to end with tiny sizes (no timing assertions)."""
    from bench import ladder_bench

    argv = ["--members", "40", "--duels", "30", "--reps", "2", "--closes", "1"]
    assert ladder_bench.main([*argv, "--backend", "sqlite"]) == 0
    out = capsys.readouterr().out
    assert "leaderboard last page (4)" in out and "ix_ladder_ratings_rank" in out
    assert "undo of that close (replay)" in out
