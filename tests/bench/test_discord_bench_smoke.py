"""The Discord benchmark runs end to end with tiny sizes (no timing assertions): the bot and
the echo bot as child processes against the rate-limit-enforcing fake Discord."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import discord_bench


@pytest.mark.timeout(240)
def test_discord_bench_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--sizes", "20,60", "--duels", "6", "--dms", "4", "--clicks", "4", "--closes", "3"]
    argv += ["--rss-duels", "30", "--json", str(tmp_path / "bench.json")]
    assert discord_bench.main(argv) == 0
    out = capsys.readouterr().out
    assert "DM receipt p99" in out and "idle RSS" in out and "cost x" in out
    figures = json.loads((tmp_path / "bench.json").read_text())
    runs = figures["runs"]
    assert [r["stored"] for r in runs] == [20, 60]
    for r in runs:
        assert r["open_dms"] == 12  # every prompt delivered
        assert r["dm_count"] == 4 and r["click_count"] == 4 and r["close_count"] == 3
        assert r["open_429s"] == 0
    assert figures["idle_rss_mb"] > 0 and figures["echo"]["rss_mb"] > 0
