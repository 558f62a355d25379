"""`duelbot run` start-up reads well (issue 16 item 5): a few lines on what it uses, then that
it is connected; each case a newcomer hits gets one clear line and the right exit status or
a retry with its delay. Run as a process against the stand-in, stderr never has a traceback."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import sys
from pathlib import Path

from bot.db import migrate
from tests.fakediscord import FakeDiscord

DUELBOT = str(Path(sys.executable).with_name("duelbot"))
NOISE = ("setup plugin", "voice will NOT be supported", "PyNaCl", "davey", "Traceback")


def environment(tmp_path: Path, api: str, gateway: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DUELBOT_")}
    return env | {
        "DISCORD_TOKEN": "fake-bot-token",
        "DUELBOT_DISCORD_API_BASE_URL": api,
        "DUELBOT_DISCORD_GATEWAY_URL": gateway,
        "DUELBOT_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'duelbot.db'}",
        "DUELBOT_HEARTBEAT_FILE": str(tmp_path / "heartbeat"),
    } | extra


class Run:
    def __init__(self, tmp_path: Path, env: dict[str, str], *args: str) -> None:
        self.tmp_path, self.env, self.args = tmp_path, env, args
        self.err = tmp_path / "stderr.txt"

    async def __aenter__(self) -> Run:
        with self.err.open("wb") as err:
            self.proc = await asyncio.create_subprocess_exec(
                DUELBOT, "run", *self.args, cwd=self.tmp_path, env=self.env,
                stdout=asyncio.subprocess.DEVNULL, stderr=err,
            )
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()

    def text(self) -> str:
        return self.err.read_text(errors="replace")

    async def wait_for(self, words: str, timeout: float = 30) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while words not in self.text():
            if self.proc.returncode is not None or loop.time() > deadline:
                raise AssertionError(f"never said {words!r}:\n{self.text()}")
            await asyncio.sleep(0.05)

    async def exit_status(self, timeout: float = 30) -> int:
        return await asyncio.wait_for(self.proc.wait(), timeout)

    async def interrupt(self) -> int:
        self.proc.send_signal(signal.SIGINT)
        return await asyncio.wait_for(self.proc.wait(), 5)

    def lines(self) -> list[str]:
        return self.text().splitlines()


def assert_quiet(text: str) -> None:
    for noise in NOISE:
        assert noise not in text, f"{noise!r} in:\n{text}"


async def test_a_good_start_says_what_it_uses_then_that_it_is_connected(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    fake.add_guild("Duel Hall")
    env = environment(tmp_path, fake.api_base_url, fake.gateway_url)
    async with Run(tmp_path, env) as run:
        await run.wait_for("Connected to Discord as DuelBot")
        assert await run.interrupt() == 0
    text = run.text()
    assert_quiet(text)
    head = migrate.head_revision()
    assert f"Database sqlite+aiosqlite:///{tmp_path / 'duelbot.db'} at revision {head}" in text
    assert "upgraded from an empty database" in text
    assert f"Discord at {fake.api_base_url} (gateway {fake.gateway_url})" in text
    assert "one connection (no sharding)" in text and "1 server(s)" in text
    assert len(run.lines()) <= 6, text


async def test_a_refused_token_exits_2_with_one_line(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    env = environment(tmp_path, fake_discord.api_base_url, fake_discord.gateway_url,
                      DISCORD_TOKEN="not-the-token")
    async with Run(tmp_path, env) as run:
        assert await run.exit_status() == 2
    assert_quiet(run.text())
    refusals = [line for line in run.lines() if "ERROR" in line]
    assert len(refusals) == 1 and "refused the token" in refusals[0] and "401" in refusals[0]


async def test_a_refused_intent_exits_2_with_one_line(tmp_path: Path) -> None:
    async with FakeDiscord(allowed_intents=0) as fake:
        env = environment(tmp_path, fake.api_base_url, fake.gateway_url)
        async with Run(tmp_path, env) as run:
            assert await run.exit_status() == 2
    assert_quiet(run.text())
    refusals = [line for line in run.lines() if "ERROR" in line]
    assert len(refusals) == 1 and "4014" in refusals[0] and "intents" in refusals[0]


async def test_unreachable_discord_is_retried_with_its_delay_until_stopped(
    tmp_path: Path,
) -> None:
    env = environment(tmp_path, "http://127.0.0.1:9/api/v10", "ws://127.0.0.1:9/gateway")
    async with Run(tmp_path, env) as run:
        await run.wait_for("retrying in 5 s")
        assert await run.interrupt() == 0
    assert_quiet(run.text())
    retries = [line for line in run.lines() if "cannot be reached" in line]
    assert len(retries) == 1 and "127.0.0.1:9" in retries[0]
    assert "Stopped before Discord could be reached" in run.text()


async def test_a_bad_config_value_exits_2_with_one_line(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[discord]\nshard_count = 0\n")
    env = environment(tmp_path, "http://127.0.0.1:9/api/v10", "ws://127.0.0.1:9/gateway")
    async with Run(tmp_path, env, "--config", str(config)) as run:
        assert await run.exit_status() == 2
    assert run.lines() == ["duelbot: [discord] shard_count must be at least 1."]


async def test_an_unreachable_database_exits_1_with_one_line_and_no_password(
    tmp_path: Path,
) -> None:
    url = "postgresql+asyncpg://duel:s3cretpw@127.0.0.1:9/duels"
    env = environment(tmp_path, "http://127.0.0.1:9/api/v10", "ws://127.0.0.1:9/gateway",
                      DUELBOT_DATABASE_URL=url)
    async with Run(tmp_path, env) as run:
        assert await run.exit_status() == 1
    assert_quiet(run.text())
    assert "s3cretpw" not in run.text()
    errors = [line for line in run.lines() if "ERROR" in line]
    assert len(errors) == 1 and "duel:***@127.0.0.1:9/duels cannot be used" in errors[0]


async def test_a_database_from_a_newer_duelbot_exits_1_with_one_line(tmp_path: Path) -> None:
    file = tmp_path / "duelbot.db"
    with sqlite3.connect(file) as conn:
        conn.execute("CREATE TABLE alembic_version (version_num VARCHAR(32) PRIMARY KEY)")
        conn.execute("INSERT INTO alembic_version VALUES ('9999_from_the_future')")
    env = environment(tmp_path, "http://127.0.0.1:9/api/v10", "ws://127.0.0.1:9/gateway")
    async with Run(tmp_path, env) as run:
        assert await run.exit_status() == 1
    assert_quiet(run.text())
    errors = [line for line in run.lines() if "ERROR" in line]
    assert len(errors) == 1 and "does not know" in errors[0] and "9999" in errors[0]
