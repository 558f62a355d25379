"""Where a cProfile'd duelbot process spent its CPU: own time (tottime) summed by package,
then the top functions. For ``DUELBOT_PROFILE`` / ``COST_BENCH_PROFILE`` output.

    python -m bench.profile_summary PROFILE [--events N] [--top 25]

With ``--events`` the figures are also given per event (ms), e.g. per DM of a DM-only run.
"""

from __future__ import annotations

import argparse
import pstats
from collections import defaultdict
from collections.abc import Sequence

GROUPS = (
    ("sqlalchemy", "SQLAlchemy"),
    ("aiosqlite", "aiosqlite"),
    ("asyncpg", "asyncpg"),
    ("discord/", "discord.py"),
    ("aiohttp", "aiohttp"),
    ("yarl", "aiohttp"),
    ("multidict", "aiohttp"),
    ("asyncio", "asyncio"),
    ("selectors", "asyncio"),
    ("json", "json"),
    ("/bot/", "duelbot"),
    ("greenlet", "SQLAlchemy"),
    ("threading", "threads"),
    ("queue", "threads"),
    ("{method 'execute' of 'sqlite3", "sqlite3"),
    ("sqlite3", "sqlite3"),
    ("{method 'poll' of 'select.epoll'", "idle (epoll wait)"),
)


def group_of(filename: str, name: str) -> str:
    where = f"{filename} {name}"
    if "epoll" in where:
        return "idle (epoll wait)"
    if "acquire" in name and "lock" in where:
        return "lock waits"
    for needle, label in GROUPS:
        if needle in where:
            return label
    return "other (builtins, stdlib)"


def summary(path: str, events: int | None, top: int) -> str:
    stats = pstats.Stats(path)
    raw = stats.stats  # type: ignore[attr-defined]
    groups: dict[str, float] = defaultdict(float)
    rows = []
    total = 0.0
    for (filename, line, name), (_cc, calls, tottime, _cum, _callers) in raw.items():
        label = group_of(filename, name)
        groups[label] += tottime
        if label != "idle (epoll wait)":
            total += tottime
        rows.append((tottime, calls, f"{filename.split('site-packages/')[-1]}:{line}({name})"))
    per = f" ms/event (of {events})" if events else ""
    lines = [f"{path}: {total:.2f} s of CPU in Python (idle wait excluded)", "by package:"]
    for label, secs in sorted(groups.items(), key=lambda kv: -kv[1]):
        extra = f"  {1000 * secs / events:7.3f}{per}" if events else ""
        lines.append(f"  {label:<26}{secs:8.2f} s{extra}")
    lines.append(f"top {top} functions by own time:")
    for tottime, calls, where in sorted(rows, reverse=True)[:top]:
        extra = f"  {1000 * tottime / events:7.3f} ms/event" if events else ""
        lines.append(f"  {tottime:7.2f} s {calls:>9} calls{extra}  {where}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.profile_summary")
    parser.add_argument("profile")
    parser.add_argument("--events", type=int)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args(argv)
    print(summary(args.profile, args.events, args.top))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
