"""`duelbot run` as its own process, pointed at the fake Discord through the proxy settings
(env DUELBOT_DISCORD_API_BASE_URL / DUELBOT_DISCORD_GATEWAY_URL), plays a whole duel driven
only by gateway events; SIGTERM stops it cleanly."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

from tests.discord.harness import populate
from tests.fakediscord import FakeDiscord

DUELBOT = str(Path(sys.executable).with_name("duelbot"))


async def wait_until(check: object, timeout: float = 20.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():  # type: ignore[operator]
        if loop.time() > deadline:
            raise TimeoutError("condition not met in time")
        await asyncio.sleep(0.05)


async def test_duelbot_run_plays_a_duel_as_a_process(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    people = populate(fake)
    guild, channel = people["guild"], people["channel_id"]
    cmdr, ann, bob = people["commander"], people["ann"], people["bob"]
    env = {
        **os.environ,
        "DISCORD_TOKEN": fake.token,
        "DUELBOT_DISCORD_API_BASE_URL": fake.api_base_url,
        "DUELBOT_DISCORD_GATEWAY_URL": fake.gateway_url,
        "DUELBOT_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'duelbot.db'}",
        "DUELBOT_HEARTBEAT_FILE": str(tmp_path / "heartbeat"),
        "DUELBOT_LOG_LEVEL": "DEBUG",
    }
    env.pop("DUELBOT_CONFIG", None)
    log_file = tmp_path / "bot.log"
    with log_file.open("wb") as log:
        proc = await asyncio.create_subprocess_exec(
            DUELBOT, "run", cwd=tmp_path, env=env, stdout=log, stderr=log
        )
        try:
            await wait_until(lambda: fake.command("round") is not None, timeout=30)
            await fake.wait_until_connected(timeout=30)
            await asyncio.sleep(0.3)  # READY and GUILD_CREATE processed

            async def slash(user: object, name: str, sub: str, **options: object) -> str:
                handle = await fake.invoke_slash(
                    guild.id,
                    channel,
                    user.id,
                    name,
                    subcommand=sub,
                    options=options,  # type: ignore[attr-defined]
                )
                reply = await handle.reply()
                return reply.content

            assert "STR 5" in await slash(cmdr, "stats", "set", member=ann.id, str=5, agi=3)
            assert "STR 4" in await slash(cmdr, "stats", "set", member=bob.id, str=4, agi=2)
            started = await slash(cmdr, "duel", "start", a=ann.id, b=bob.id)
            duel_id = int(started.split("Duel #")[1].split()[0])
            assert "Round 1" in await slash(cmdr, "round", "open", duel=duel_id)
            prompt = (await fake.wait_for_dms(ann.id, 1, timeout=10))[-1]
            await fake.wait_for_dms(bob.id, 1, timeout=10)
            click = await fake.click_button(ann.id, prompt, f"duelbot:move:{duel_id}:1:side_swipe")
            assert "Side Swipe" in (await click.reply()).content
            await fake.send_dm(bob.id, f"#{duel_id} full frontal strike")
            receipt = (await fake.wait_for_dms(bob.id, 2, timeout=10))[-1]
            assert "Full Frontal Strike" in receipt.content
            assert "closed" in await slash(cmdr, "round", "close", duel=duel_id)

            def result_posted() -> bool:
                return any(
                    "wins" in str(m.embeds) + m.content and "Side Swipe" in str(m.embeds)
                    for m in fake.messages_in(channel)
                )

            await wait_until(result_posted, timeout=10)
        finally:
            if proc.returncode is None:
                proc.send_signal(signal.SIGTERM)
            code = await asyncio.wait_for(proc.wait(), timeout=20)
    output = log_file.read_text(errors="replace")
    assert code == 0, output[-3000:]
    # Secrecy in the process's own log, at DEBUG: no move before the close is logged.
    before_close = output.split("round.close")[0] if "round.close" in output else output
    assert "side_swipe" not in before_close.lower()


async def test_duelbot_run_without_token_exits_2(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    proc = await asyncio.create_subprocess_exec(
        DUELBOT,
        "run",
        cwd=tmp_path,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _out, err = await proc.communicate()
    assert proc.returncode == 2
    lines = err.decode().strip().splitlines()
    assert len(lines) == 1 and "DISCORD_TOKEN" in lines[0]
