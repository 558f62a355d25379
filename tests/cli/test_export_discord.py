"""`/duel export format:json` through the fake Discord prints the same versioned document as
`duelbot export`, and `duelbot verify` accepts it; an open round's move never appears."""

from __future__ import annotations

import asyncio
import json

from bot.db.engine import Database
from tests.cli.duels import duelbot
from tests.discord.harness import running_world
from tests.fakediscord import FakeDiscord


async def test_slash_export_is_the_cli_export_and_verifies(
    fake_discord: FakeDiscord, database: Database, migrated_db_url: str
) -> None:
    fake = fake_discord
    async with running_world(fake, database) as w:
        await w.slash(w.commander, "stats", "set", member=w.ann.id, str=5, agi=3)
        await w.slash(w.commander, "stats", "set", member=w.bob.id, str=4, agi=2)
        reply = await w.slash(w.commander, "duel", "start", a=w.ann.id, b=w.bob.id)
        duel_id = int(reply.content.split("Duel #")[1].split()[0])
        for number in (1, 2):
            await w.slash(w.commander, "round", "open", duel=duel_id)
            await fake.wait_for_dms(w.ann.id, number, timeout=15)
            await fake.wait_for_dms(w.bob.id, number, timeout=15)
            await fake.send_dm(w.ann.id, "lock")
            await fake.wait_for_dms(w.ann.id, 2 * number, timeout=15)
            if number == 1:
                await fake.send_dm(w.bob.id, "lock")
                await fake.wait_for_dms(w.bob.id, 2, timeout=15)
                await w.slash(w.commander, "round", "close", duel=duel_id)

        # Round 2 is open and Ann has moved: the export seals it.
        exported = await w.slash(w.commander, "duel", "export", duel=duel_id, format="json")
        assert exported.files
        text = exported.files[0].data.decode()
        doc = json.loads(text)
        assert doc["format"] == "duelbot-duel" and doc["version"] == 1
        first, second = doc["rounds"]
        assert first["choices"] == {"a": "lock_attempt", "b": "lock_attempt"}
        assert first["result"]["outcome"] == first["outcome"] and first["seed"]
        assert second["status"] == "open" and second["choices"] is None
        assert second["seed"] is None and second["result"] is None
        assert "lock_attempt" not in json.dumps(second)  # Ann's move stays sealed

        # In a thread: the bot keeps running (a blocked event loop would hold its SQLite
        # transaction open and lock the command line out).
        cli = await asyncio.to_thread(
            duelbot, "export", "--duel", str(duel_id), url=migrated_db_url
        )
        assert cli.returncode == 0, cli.stderr
        assert json.loads(cli.stdout) == doc

        verified = await asyncio.to_thread(duelbot, "verify", "-", stdin=text)
        assert verified.returncode == 0, verified.stdout
        assert verified.stdout.splitlines()[0].startswith("round 1 (closed): OK")
        assert "round 2 (open): not re-adjudicated" in verified.stdout
