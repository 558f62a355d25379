"""Several processes of one bot (issue 13 item 4) share Discord's one REST budget (50
requests per second per bot token, counted by the stand-in over all of them): behind a REST
proxy that owns the rate limits (nirn.py, the Python port of nirn-proxy from PyPI, run here
in front of the stand-in) the processes' own pacers step aside; without a proxy each process
paces itself to its ``[discord] rest_share``. ``duelbot sync-commands`` syncs once."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import discord
import pytest
from aiohttp import web
from nirn_proxy.config import Config as NirnConfig
from nirn_proxy.queue_manager import QueueManager

from bot.config import ConfigError, Settings, load_settings
from bot.discord.client import DuelBot, create_bot
from bot.discord.pacing import CEILING, shared_pacer
from bot.services.container import Services
from tests.discord.harness import bot_settings, populate
from tests.fakediscord import FakeDiscord, RateLimits, run_bot
from tests.fakediscord.models import FakeUser


@pytest.fixture
def db_backend() -> str:
    """SQLite only: the database plays no part in the REST budget."""
    return "sqlite"


@asynccontextmanager
async def nirn_proxy(
    fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch, global_limit: int
) -> AsyncIterator[str]:
    """nirn.py in front of the stand-in; yields the URL to use as ``api_base_url``. nirn.py
    sends everything to https://discord.com: its HTTP session is pointed at the stand-in.
    ``global_limit``: the bot's requests per second (nirn's BOT_RATELIMIT_OVERRIDES)."""
    monkeypatch.setenv("BOT_RATELIMIT_OVERRIDES", f"{fake.bot_user.id}:{global_limit}")
    manager = QueueManager(NirnConfig())
    await manager.initialize()
    assert manager.discord_client is not None and manager.discord_client.session is not None
    session = manager.discord_client.session
    forward = session.request

    def to_the_stand_in(method: str, url: str, **kwargs: Any) -> Any:
        return forward(method, url.replace("https://discord.com", fake.base_url, 1), **kwargs)

    monkeypatch.setattr(session, "request", to_the_stand_in)
    runner = web.AppRunner(manager.create_app())
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"http://127.0.0.1:{port}/api/v10"
    finally:
        await runner.cleanup()
        await manager.shutdown()


@dataclass
class Flood:
    seconds: float
    requests: int
    global_429s: int
    failed: int  # DMs given up (discord.py raises after its retries of 429s)


async def two_processes_flood(
    fake: FakeDiscord, make_db: Any, users: list[FakeUser], **discord_settings: Any
) -> tuple[Flood, list[DuelBot]]:
    """Shards 0 and 1 of one bot, each DMing half of ``users`` twice at once (a DM channel
    and two messages each: about 4 requests per user)."""
    base = bot_settings(fake)
    async with AsyncExitStack() as stack:
        bots: list[DuelBot] = []
        for shard in (0, 1):
            settings: Settings = replace(
                base,
                discord=replace(
                    base.discord, shard_count=2, shard_ids=(shard,), **discord_settings
                ),
            )
            bot = create_bot(Services.create(make_db(), settings.duels), settings)
            bots.append(await stack.enter_async_context(run_bot(bot, fake)))
        requests, limited = len(fake.requests), len(fake.rate_limited)
        loop = asyncio.get_running_loop()
        started = loop.time()

        async def dm_twice(bot: DuelBot, user: FakeUser) -> None:
            channel = await bot.create_dm(discord.Object(user.id))
            for n in (1, 2):
                await channel.send(f"notice {n}")

        half = len(users) // 2
        outcomes = await asyncio.gather(
            *(dm_twice(bots[0], u) for u in users[:half]),
            *(dm_twice(bots[1], u) for u in users[half:]),
            return_exceptions=True,
        )
        flood = Flood(
            loop.time() - started,
            len(fake.requests) - requests,
            sum(1 for hit in fake.rate_limited[limited:] if hit.scope == "global"),
            sum(1 for outcome in outcomes if isinstance(outcome, BaseException)),
        )
    if flood.failed == 0:
        for user in users:
            assert [m.content for m in fake.dms_to(user.id)] == ["notice 1", "notice 2"]
    return flood, bots


def crowd(fake: FakeDiscord, count: int = 60) -> list[FakeUser]:
    fake.shard_count = 2
    fake.enforce_rate_limits(RateLimits())  # one 50/s budget for the bot's token
    guild = populate(fake)["guild"]
    return [fake.add_member(guild.id, f"user{i}").user for i in range(count)]


@pytest.mark.parametrize("share", [1.0, 0.5])
async def test_without_a_proxy_each_process_takes_its_share(
    fake_discord: FakeDiscord, make_db: Any, share: float
) -> None:
    fake = fake_discord
    flood, bots = await two_processes_flood(fake, make_db, crowd(fake), rest_share=share)
    assert all(bot.pacer.ceiling == int(47 * share) for bot in bots)
    if share == 1.0:
        # Each process alone stays under 50/s; two of them together do not (and under
        # enough refusals discord.py gives some requests up).
        assert flood.global_429s > 0
    else:
        assert (flood.global_429s, flood.failed) == (0, 0), flood


async def test_two_processes_share_one_budget_through_a_rest_proxy(
    fake_discord: FakeDiscord, make_db: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = fake_discord
    users = crowd(fake)
    # nirn paces the bot with a leaky bucket: a burst of its limit, then the limit per second;
    # the stand-in counts over a sliding second (stricter than Discord). At 25/s the proxy's
    # worst second is 50: what it lets through is never over the stand-in's budget.
    async with nirn_proxy(fake, monkeypatch, global_limit=25) as proxy:
        # Every REST request of the bots (their login included) goes through the proxy.
        monkeypatch.setattr(FakeDiscord, "api_base_url", property(lambda _: proxy))
        flood, bots = await two_processes_flood(fake, make_db, users, rest_proxy=True)
    # The bots' own pacers stepped aside: the proxy owns the limits...
    assert all(not bot.pacing.enabled for bot in bots)
    assert all(bot.pacer.granted == {"interactive": 0, "bulk": 0} for bot in bots)
    # ...for both processes as one budget: never over the stand-in's global limit, and
    # together at the proxy's pace (one burst, then 25/s), not 25/s each.
    assert (flood.global_429s, flood.failed) == (0, 0), flood
    assert flood.seconds >= (flood.requests - 2 * 25) / 25, flood


# ---------------------------------------------------------------------------------------
# duelbot sync-commands
# ---------------------------------------------------------------------------------------

DUELBOT = str(Path(sys.executable).with_name("duelbot"))


async def run_cli(tmp_path: Path, env: dict[str, str], *args: str) -> tuple[int, str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("DUELBOT_")}
    proc = await asyncio.create_subprocess_exec(
        DUELBOT,
        *args,
        cwd=tmp_path,
        env=base | {"DUELBOT_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'x.db'}"} | env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout=60)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def test_sync_commands_syncs_once_and_exits(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    guild = fake.add_guild("Duel Hall")
    env = {"DISCORD_TOKEN": fake.token, "DUELBOT_DISCORD_API_BASE_URL": fake.api_base_url}
    code, out, err = await run_cli(tmp_path, env, "sync-commands")
    assert code == 0, err
    names = {c["name"] for c in fake.commands()}
    assert {"duel", "round", "config", "stats", "move", "odds"} <= names
    assert out.strip() == f"Synced {len(fake.commands())} commands globally " + (
        "(they reach every server within minutes)."
    )
    assert len(fake.requests_to("PUT", f"/applications/{fake.application_id}/commands")) == 1
    assert fake.gateway.sessions == [] or not any(fake.gateway.sessions)  # REST only
    assert "Traceback" not in err
    # The tree is the one `duelbot run` registers: /config duel-forum is in it.
    config = next(c for c in fake.commands() if c["name"] == "config")
    assert "duel-forum" in {o["name"] for o in config["options"]}

    # --config FILE: to the servers it names (sync_guild_ids), not globally.
    config_file = tmp_path / "duelbot.toml"
    config_file.write_text(
        f'[discord]\napi_base_url = "{fake.api_base_url}"\nsync_guild_ids = [{guild.id}]\n'
    )
    code, out, err = await run_cli(
        tmp_path, {"DISCORD_TOKEN": fake.token}, "sync-commands", "--config", str(config_file)
    )
    assert code == 0, err
    assert f"to server(s) {guild.id}" in out
    assert {c["name"] for c in fake.commands(guild.id)} >= {"duel", "round"}

    # A token Discord refuses: one line, exit 2.
    code, out, err = await run_cli(tmp_path, env | {"DISCORD_TOKEN": "wrong"}, "sync-commands")
    assert code == 2 and err.strip().count("\n") == 0 and "401" in err, err


# ---------------------------------------------------------------------------------------
# settings
# ---------------------------------------------------------------------------------------


def test_rest_share_and_rest_proxy_settings(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[discord]\napi_base_url = "http://nirn:8080/api/v10"\nrest_proxy = true\n')
    settings = load_settings(config, env={})
    assert settings.discord.rest_proxy is True and settings.discord.rest_share == 1.0
    assert settings.discord.api_base_url == "http://nirn:8080/api/v10"
    config.write_text("[discord]\nrest_share = 0.25\n")
    assert load_settings(config, env={}).discord.rest_share == 0.25
    for bad in ("0", "1.5", "-1", '"half"'):
        config.write_text(f"[discord]\nrest_share = {bad}\n")
        with pytest.raises(ConfigError, match="rest_share"):
            load_settings(config, env={})

    pacer = shared_pacer(0.5)
    assert (pacer.ceiling, pacer.bulk_ceiling, pacer.bulk_reserved) == (23, 22, 10)
    assert shared_pacer(1.0).ceiling == CEILING
    tiny = shared_pacer(0.01)
    assert (tiny.ceiling, tiny.bulk_ceiling, tiny.bulk_reserved) == (1, 1, 0)
