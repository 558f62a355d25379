"""`duelbot sandbox` as its own process, and a small client of its JSON API."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DUELBOT = str(Path(sys.executable).with_name("duelbot"))
URL_LINE = re.compile(r"open (http://127\.0\.0\.1:\d+)")


@dataclass
class Sandbox:
    url: str
    proc: subprocess.Popen[bytes]
    stdout: Path
    stderr: Path

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.url + path, data=data, method=method,
            headers={"Content-Type": "application/json"} if data is not None else {},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"null")

    def ok(self, method: str, path: str, body: Any = None) -> Any:
        status, data = self.call(method, path, body)
        assert status == 200, (status, data)
        return data

    def world(self) -> dict[str, Any]:
        return dict(self.ok("GET", "/api/world"))

    def people(self) -> dict[str, str]:
        """username -> user id."""
        return {p["username"]: p["id"] for p in self.world()["people"]}

    def wait_for_commands(self, timeout: float = 30) -> list[dict[str, Any]]:
        commands = wait_until(
            lambda: self.ok("GET", "/api/commands")["commands"] or None, timeout, "commands"
        )
        return list(commands)

    def slash(self, user: str, path: str, channel_id: str | None, **options: Any) -> Any:
        name, *rest = path.split()
        group, sub = (rest[0], rest[1]) if len(rest) == 2 else (None, rest[0] if rest else None)
        return self.ok("POST", f"/api/people/{user}/slash", {
            "channel_id": channel_id, "command": name, "group": group, "subcommand": sub,
            "options": options,
        })

    def stderr_text(self) -> str:
        return self.stderr.read_text(errors="replace")

    def stop(self, sig: int = signal.SIGINT, timeout: float = 10) -> tuple[int, float]:
        """Send ``sig``; (exit status, seconds it took)."""
        started = time.monotonic()
        self.proc.send_signal(sig)
        status = self.proc.wait(timeout=timeout)
        return status, time.monotonic() - started


def wait_until(check: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(0.1)


@contextmanager
def running_sandbox(tmp_path: Path, *args: str) -> Iterator[Sandbox]:
    """``duelbot sandbox --port 0 ARGS`` in ``tmp_path``, once its page answers; killed at the
    end if the test did not stop it."""
    stdout, stderr = tmp_path / "sandbox.out", tmp_path / "sandbox.err"
    env = {k: v for k, v in os.environ.items() if not k.startswith("DUELBOT_")}
    env.pop("DISCORD_TOKEN", None)
    with stdout.open("wb") as out, stderr.open("wb") as err:
        proc = subprocess.Popen(
            [DUELBOT, "sandbox", "--port", "0", *args], cwd=tmp_path, env=env, stdout=out,
            stderr=err,
        )
    try:
        def url() -> str | None:
            if proc.poll() is not None:
                raise AssertionError(
                    f"duelbot sandbox exited {proc.returncode}:\n{stderr.read_text()}"
                )
            found = URL_LINE.search(stdout.read_text())
            return found.group(1) if found else None

        sandbox = Sandbox(wait_until(url, 30, "the sandbox's URL"), proc, stdout, stderr)
        yield sandbox
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
