"""The cost benchmark (issue 14) runs end to end with tiny counts (no timing assertions): the
echo bot and duelbot as child processes on the fake Discord, every event answered and every
move stored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import cost_bench


@pytest.mark.timeout(240)
def test_cost_bench_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--quick", "--no-postgres", "--dms", "20", "--clicks", "40", "--max-rate", "100"]
    argv += ["--json", str(tmp_path / "cost.json")]
    assert cost_bench.main(argv) == 0
    out = capsys.readouterr().out
    assert "CPU per stored move" in out and "sustained clicks" in out
    figures = json.loads((tmp_path / "cost.json").read_text())
    targets = {t["label"]: t for t in figures["targets"]}
    assert set(targets) == {"echo", "sqlite"}
    bot = targets["sqlite"]
    for phase in (bot["dm"], bot["click"]):
        # every event answered, and each answered move is one stored row
        assert phase["answered"] == phase["events"] and phase["stored"] == phase["events"]
        assert phase["cpu_ms_per_event"]["sqlite-0"] > 0
    assert bot["exit_codes"] == [0]
    assert targets["echo"]["dm"]["answered"] == 20
