"""Liveness: the bot touches a heartbeat file while connected; ``duelbot health`` reads it.

The file is at $DUELBOT_HEARTBEAT_FILE (default ``./.duelbot-heartbeat``) and holds the
Unix time of the last beat. The heartbeat worker (bot/discord/workers/heartbeat.py) beats
every 30 s while the gateway is connected; ``check()`` (the Docker HEALTHCHECK) passes
while the last beat is under 120 s old.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

ENV_VAR = "DUELBOT_HEARTBEAT_FILE"
DEFAULT_PATH = ".duelbot-heartbeat"
INTERVAL_SECONDS = 30.0
MAX_AGE_SECONDS = 120.0


def heartbeat_path() -> Path:
    return Path(os.environ.get(ENV_VAR) or DEFAULT_PATH)


def beat(path: Path | None = None, now: float | None = None) -> None:
    """Record a heartbeat (written to a temporary file, then renamed: never half-written)."""
    target = path or heartbeat_path()
    stamp = time.time() if now is None else now
    tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    tmp.write_text(f"{stamp:.3f}\n", encoding="utf-8")
    os.replace(tmp, target)


def age(path: Path | None = None, now: float | None = None) -> float | None:
    """Seconds since the last heartbeat, or None when there is none."""
    target = path or heartbeat_path()
    try:
        text = target.read_text(encoding="utf-8").strip()
        mtime = target.stat().st_mtime
    except OSError:
        return None
    try:
        stamp = float(text)
    except ValueError:
        stamp = mtime
    current = time.time() if now is None else now
    return max(0.0, current - stamp)


def check() -> int:
    """0 when the heartbeat is fresher than 120 s, else 1; prints one line either way."""
    target = heartbeat_path()
    seconds = age(target)
    if seconds is None:
        print(  # the container's health check: console output, stays English
            f"unhealthy: no heartbeat file at {target} "  # i18n: not shown
            "(is the bot running and connected?)"
        )
        return 1
    if seconds >= MAX_AGE_SECONDS:
        print(
            f"unhealthy: last heartbeat {seconds:.0f} s ago ({target}); "  # i18n: not shown
            f"limit {MAX_AGE_SECONDS:.0f} s"
        )
        return 1
    print(f"healthy: last heartbeat {seconds:.0f} s ago")  # i18n: not shown
    return 0
