"""`/duel export duel format:html` through the real discord.py client and the fake Discord:
the option offers html, and the attachment is the archive page carrying the JSON export."""

from __future__ import annotations

import json

from bot.config import LimitSettings
from bot.db.engine import Database
from tests.archive.test_page import script_text
from tests.discord.harness import running_world
from tests.fakediscord import FakeDiscord


def export_choices(fake: FakeDiscord) -> list[str]:
    duel = next(c for c in fake.commands() if c["name"] == "duel")
    export = next(o for o in duel["options"] if o["name"] == "export")
    fmt = next(o for o in export["options"] if o["name"] == "format")
    return [c["value"] for c in fmt["choices"]]


async def test_export_format_html_attaches_the_page(
    fake_discord: FakeDiscord, database: Database
) -> None:
    fake = fake_discord
    async with running_world(fake, database, limits=LimitSettings(dm_burst=0)) as w:
        assert export_choices(fake) == ["markdown", "bbcode", "json", "html"]
        await w.slash(w.commander, "stats", "set", member=w.ann.id, str=8, agi=3)
        await w.slash(w.commander, "stats", "set", member=w.bob.id, str=2, agi=5)
        reply = await w.slash(w.commander, "duel", "start", a=w.ann.id, b=w.bob.id)
        duel_id = int(reply.content.split("Duel #")[1].split()[0])
        await w.slash(w.commander, "round", "open", duel=duel_id)
        await w.slash(w.ann, "move", duel=duel_id, move="evade")  # DICE1: fails
        await w.slash(w.bob, "move", duel=duel_id, move="ffs")  # DICE-1: 0
        await w.slash(w.commander, "round", "close", duel=duel_id)
        await w.slash(w.commander, "round", "open", duel=duel_id)  # left open: sealed

        page = await w.slash(w.outsider, "duel", "export", duel=duel_id, format="html")
        as_json = await w.slash(w.outsider, "duel", "export", duel=duel_id, format="json")
    assert page.ephemeral and "html" in page.content
    [attached] = page.files
    assert attached.filename == f"duel-{duel_id}.html"
    html = attached.data.decode("utf-8")
    assert html.startswith("<!DOCTYPE html>")
    carried = json.loads(script_text(html, "duel-data"))
    assert carried == json.loads(as_json.files[0].data)
    assert len(carried["rounds"][0]["result"]["rolls"]) == 2
    assert carried["rounds"][0]["seed"] and carried["rounds"][1]["seed"] is None
