"""Start-up benchmark (issue 25): the wall time of `duelbot verify FILE` on a whole-duel
export, for this tree and for a baseline commit, measured in one run.

    python -m bench.startup_bench [--baseline REV] [--runs 15] [--ruleset foeq-spell-duel]

1. plays one whole duel through the services on a temporary SQLite database and exports it
   with `duelbot export --format json` (the command line, so the file is what users verify);
2. checks out ``--baseline`` (default: where this branch left i23, ``git merge-base HEAD
   i23``) into a temporary git worktree, removed afterwards;
3. times, interleaved so that other load on the machine weighs on both alike,
   ``python -c pass`` (the interpreter alone), ``python -m bot verify FILE`` in the baseline
   and in this tree (same interpreter, same virtualenv; ``PYTHONPATH`` selects the tree);
4. prints the median and best of each, the ratio this/baseline, and the same ratio over the
   interpreter's own start-up subtracted (what the code costs).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()


def make_export(directory: Path, ruleset: str) -> Path:
    """A whole-duel JSON export of ``ruleset``, played to its end, as `duelbot export` writes it."""
    from bot.db import migrate
    from tests.cli.duels import play_duel

    url = f"sqlite+aiosqlite:///{directory / 'duels.db'}"
    migrate.upgrade_sync(url)
    duel_id = asyncio.run(play_duel(url, ruleset, finish=True))
    path = directory / "duel.json"
    env = {**os.environ, "DUELBOT_DATABASE_URL": url}
    env.pop("DUELBOT_CONFIG", None)
    subprocess.run(
        [sys.executable, "-m", "bot", "export", "--duel", str(duel_id), "--output", str(path)],
        cwd=ROOT,
        env=env,
        check=True,
    )
    return path


def _time_once(argv: Sequence[str], tree: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    env.pop("DUELBOT_CONFIG", None)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=tree, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} in {tree} failed ({done.returncode}):\n{done.stderr}")
    return elapsed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--baseline", default=None, help="git revision (default: merge-base i23)")
    parser.add_argument("--runs", type=int, default=15, help="timed runs of each (default: 15)")
    parser.add_argument("--ruleset", default="foeq-spell-duel", help="the duel's ruleset")
    args = parser.parse_args(argv)
    baseline = args.baseline or _git("merge-base", "HEAD", "i23")
    baseline_sha = _git("rev-parse", "--short", baseline)
    here_sha = _git("rev-parse", "--short", "HEAD")

    with tempfile.TemporaryDirectory(prefix="startup-bench-") as tmp:
        work = Path(tmp)
        export = make_export(work, args.ruleset)
        old_tree = work / "baseline"
        _git("worktree", "add", "--detach", str(old_tree), baseline)
        try:
            verify = [sys.executable, "-m", "bot", "verify", str(export)]
            cases = {
                "python -c pass": ([sys.executable, "-c", "pass"], ROOT),
                f"verify, baseline {baseline_sha}": (verify, old_tree),
                f"verify, this tree {here_sha}": (verify, ROOT),
            }
            for command, tree in cases.values():  # warm the file cache and the .pyc files
                _time_once(command, tree)
            times: dict[str, list[float]] = {name: [] for name in cases}
            for _ in range(args.runs):
                for name, (command, tree) in cases.items():
                    times[name].append(_time_once(command, tree))
        finally:
            _git("worktree", "remove", "--force", str(old_tree))

    medians = {name: statistics.median(values) for name, values in times.items()}
    print(f"{args.runs} runs each, {args.ruleset} whole-duel export, {sys.version.split()[0]}")
    for name, values in times.items():
        median, best = medians[name] * 1000, min(values) * 1000
        print(f"  {name:<34} median {median:7.1f} ms   best {best:7.1f} ms")
    bare, old, new = medians.values()
    print(f"  this/baseline: {new / old:.2f}")
    print(f"  this/baseline without the interpreter's start-up: {(new - bare) / (old - bare):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
