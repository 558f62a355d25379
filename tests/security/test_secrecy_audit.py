"""Secrecy audit: a whole duel through the real client and the fake Discord, with the bot's
logging configured as in production (bot.bootstrap.configure_logging) at DEBUG and every log
record of every logger captured, and every REST request (path, headers, body) recorded.

A round's moves (ids and labels) must not appear anywhere before that round closes, except
in what is addressed to the move's author: their DM channel and the answers to their own
interactions. Exempt: the command sync (PUT .../commands), which lists every move as a
choice of /move. A text that names every move equally often (a menu: the DM buttons, the
help line) reveals nothing and is not counted as naming any. The audit_log and outbox rows
written before the close must hold no move either.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from bot.bootstrap import QUIET_AT_DEBUG, configure_logging
from bot.db.engine import Database
from bot.rules.rule_2_14.moves import LABELS, MOVE_IDS
from tests.discord.harness import World, running_world
from tests.fakediscord import FakeDiscord
from tests.fakediscord.models import FakeUser, RecordedRequest
from tests.security.snapshot import settle, snapshot

SYNC_ROUTE = re.compile(r"^/applications/\d+(/guilds/\d+)?/commands$")
PATTERNS = {
    m: re.compile(
        "|".join(rf"(?<![a-z_]){re.escape(w)}(?![a-z_])" for w in {m, LABELS[m].lower()}),
        re.IGNORECASE,
    )
    for m in MOVE_IDS
}
# Outcome and option names that contain a move word but name no move.
# Rule 2.14's house rule is spelt locked-blocks-retreat since issue 24 (a setting's name).
OUTCOME_WORDS = re.compile(r"both[ _]retreat|locked[ _-]blocks[ _-]retreat", re.IGNORECASE)
# The fixed example in every DM prompt (bot/presentation/discord_posts.py), sent before any move.
STATIC_EXAMPLES = re.compile(r"\(for example `[^)]*\)")


def named_moves(text: str) -> set[str]:
    """The moves a text names, beyond a menu that names every move alike."""
    text = STATIC_EXAMPLES.sub(" ", OUTCOME_WORDS.sub(" ", text))
    counts = {m: len(p.findall(text)) for m, p in PATTERNS.items()}
    floor = min(counts.values())
    return {m for m, n in counts.items() if n > floor}


@pytest.fixture
def production_logging(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    saved = {name: logging.getLogger(name).level for name in (*QUIET_AT_DEBUG, "")}
    configure_logging("DEBUG")
    caplog.set_level(logging.DEBUG)
    for name in QUIET_AT_DEBUG:  # caplog.set_level only touches the root logger
        assert logging.getLogger(name).level == logging.INFO
    try:
        yield caplog
    finally:
        for name, level in saved.items():
            logging.getLogger(name).setLevel(level)


@dataclass
class Audit:
    """What each user may see of their own moves: their DM channel and interactions."""

    w: World
    caplog: pytest.LogCaptureFixture
    own_paths: dict[int, set[str]] = field(default_factory=dict)
    leaks: list[str] = field(default_factory=list)
    sync_seen: int = 0
    checked: dict[str, int] = field(default_factory=lambda: {"requests": 0, "logs": 0})

    def own(self, user: FakeUser, fragment: str) -> None:
        self.own_paths.setdefault(user.id, set()).add(fragment)

    async def slash(self, user: FakeUser, name: str, sub: str | None = None, **opts: Any) -> Any:
        handle = await self.w.fake.invoke_slash(
            self.w.guild.id, self.w.channel_id, user.id, name, subcommand=sub, options=opts
        )
        self.own(user, handle.token)
        return await handle.reply()

    async def click(self, user: FakeUser, move: str) -> Any:
        prompt = [m for m in self.w.fake.dms_to(user.id) if m.custom_ids()][-1]
        custom_id = next(i for i in prompt.custom_ids() if i.endswith(f":{move}"))
        handle = await self.w.fake.click_button(user.id, prompt, custom_id)
        self.own(user, handle.token)
        return await handle.reply()

    def mark(self) -> tuple[int, int]:
        return len(self.w.fake.requests), len(self.caplog.records)

    def check(self, start: tuple[int, int], secrets: dict[int, set[str]], round_no: int) -> None:
        """Everything since ``start`` against this round's moves (by author)."""
        fake = self.w.fake
        for user_id in secrets:
            self.own(_user(self.w, user_id), f"/channels/{fake.dm_channel(user_id).id}/")
        for req in fake.requests[start[0] :]:
            if SYNC_ROUTE.match(req.path):
                self.sync_seen += 1
                continue
            text = request_text(req)
            self.checked["requests"] += 1
            for author, moves in secrets.items():
                if any(f in req.path for f in self.own_paths.get(author, ())):
                    continue
                if named_moves(text) & moves:
                    self.leaks.append(
                        f"round {round_no}: {req.method} {req.path}: "
                        f"{sorted(named_moves(text))} {text[:1500]}"
                    )
        for record in self.caplog.records[start[1] :]:
            text = f"{record.name} {record.getMessage()} {record.exc_text or ''}"
            self.checked["logs"] += 1
            if named_moves(text) & set().union(*secrets.values()):
                self.leaks.append(f"round {round_no}: log {record.name}: {text[:300]}")

    async def check_tables(self, secrets: dict[int, set[str]], round_no: int) -> None:
        tables = await snapshot(self.w.services.duels._db)
        for name in ("audit_log", "outbox"):
            text = json.dumps(tables[name], default=str)
            if named_moves(text) & set().union(*secrets.values()):
                self.leaks.append(f"round {round_no}: table {name} names a move: {text[:300]}")


def _user(w: World, user_id: int) -> FakeUser:
    return w.ann if user_id == w.ann.id else w.bob


def request_text(req: RecordedRequest) -> str:
    files = " ".join(f"{f.filename} {f.data[:20000]!r}" for f in req.files)
    return f"{json.dumps(req.body, ensure_ascii=False)} {files} {req.path} " + (
        f"{json.dumps(req.query)} {json.dumps(req.headers)}"
    )


async def open_round(a: Audit, duel_id: int, number: int) -> None:
    w = a.w
    reply = await a.slash(w.commander, "round", "open", duel=duel_id)
    assert f"Round {number}" in reply.content
    for user in (w.ann, w.bob):
        await w.fake.wait_for_dms(user.id, number, timeout=5)
    await settle(w.services.duels._db)


async def look_around(a: Audit, duel_id: int) -> None:
    """Everything anyone may look at while the round is open."""
    w = a.w
    for user in (w.commander, w.outsider, w.ann, w.bob):
        await a.slash(user, "duel", "status", duel=duel_id)
        await a.slash(user, "duel", "history", duel=duel_id)
        await a.slash(user, "duel", "export", duel=duel_id, format="json")
        await a.slash(user, "duel", "list")
        await a.slash(user, "odds", None, duel=duel_id)
    reply = await a.slash(w.commander, "round", "status", duel=duel_id)
    assert "has sent a move" in reply.content
    await a.slash(w.commander, "config", "show")


async def close(a: Audit, duel_id: int, posts: int) -> str:
    reply = await a.slash(a.w.commander, "round", "close", duel=duel_id)
    assert "closed" in reply.content
    msgs = await a.w.fake.wait_for_messages(a.w.channel_id, posts, timeout=5)
    await settle(a.w.services.duels._db)
    return json.dumps([msgs[-1].content, msgs[-1].embeds])


async def test_secrecy_variant_on_with_a_change_of_move(
    fake_discord: FakeDiscord, database: Database, production_logging: pytest.LogCaptureFixture
) -> None:
    fake = fake_discord
    async with running_world(fake, database) as w:
        a = Audit(w, production_logging)
        await a.slash(w.commander, "config", "change-of-choice", enabled=True)
        for user in (w.ann, w.bob):
            await a.slash(w.commander, "stats", "set", member=user.id, str=4, agi=3)
        reply = await a.slash(w.commander, "duel", "start", a=w.ann.id, b=w.bob.id)
        duel_id = int(reply.content.split("Duel #")[1].split()[0])
        await fake.wait_for_messages(w.channel_id, 1, timeout=5)

        # Round 1: Ann clicks Evade, then changes to Side Swipe by DM; Bob uses /move.
        start = a.mark()
        await open_round(a, duel_id, 1)
        assert "Evade" in (await a.click(w.ann, "evade")).content
        await look_around(a, duel_id)
        await fake.send_dm(w.ann.id, "side swipe")
        dms = await fake.wait_for_dms(w.ann.id, 2, timeout=5)
        assert "changed from **Evade** to **Side Swipe**" in dms[-1].content
        reply = await a.slash(w.bob, "move", None, duel=duel_id, move="full_frontal_strike")
        assert "Full Frontal Strike" in reply.content and reply.ephemeral
        await look_around(a, duel_id)
        await settle(database)
        # Ann's abandoned Evade stays hers alone too.
        secrets = {w.ann.id: {"evade", "side_swipe"}, w.bob.id: {"full_frontal_strike"}}
        a.check(start, secrets, 1)
        await a.check_tables(secrets, 1)
        result = await close(a, duel_id, 3)
        assert "Side Swipe" in result and "Full Frontal Strike" in result

        # Another round (of a new duel: round 1 may have ended the first): Ann locks, Bob
        # retreats (moves round 1 did not reveal).
        reply = await a.slash(w.commander, "duel", "start", a=w.ann.id, b=w.bob.id)
        duel_id = int(reply.content.split("Duel #")[1].split()[0])
        await fake.wait_for_messages(w.channel_id, 4, timeout=5)
        start = a.mark()
        await open_round(a, duel_id, 1)
        await fake.send_dm(w.ann.id, f"#{duel_id} la")
        await fake.wait_for_dms(w.ann.id, 4, timeout=5)
        await a.click(w.bob, "retreat")
        await look_around(a, duel_id)
        await settle(database)
        secrets = {w.ann.id: {"lock_attempt"}, w.bob.id: {"retreat"}}
        a.check(start, secrets, 2)
        await a.check_tables(secrets, 2)
        result = await close(a, duel_id, 6)
        assert "Lock Attempt" in result and "Retreat" in result
        assert a.sync_seen == 0  # the sync happened before the first round opened
        assert not a.leaks, "\n".join(a.leaks)
        assert a.checked["requests"] > 50 and a.checked["logs"] > 20, a.checked
        print(f"secrecy audit checked {a.checked}")


async def test_secrecy_variant_off(
    fake_discord: FakeDiscord, database: Database, production_logging: pytest.LogCaptureFixture
) -> None:
    fake = fake_discord
    async with running_world(fake, database) as w:
        a = Audit(w, production_logging)
        # The command sync (it may list every move as a choice): the one exempt route.
        assert [r for r in fake.requests if SYNC_ROUTE.match(r.path)]
        start = a.mark()
        start = (0, start[1])  # audit from the very first request, sync included
        for user in (w.ann, w.bob):
            await a.slash(w.commander, "stats", "set", member=user.id, str=2, agi=5)
        reply = await a.slash(w.commander, "duel", "start", a=w.ann.id, b=w.bob.id)
        duel_id = int(reply.content.split("Duel #")[1].split()[0])
        await fake.wait_for_messages(w.channel_id, 1, timeout=5)
        await open_round(a, duel_id, 1)
        await fake.send_dm(w.ann.id, "ffs")
        await fake.wait_for_dms(w.ann.id, 2, timeout=5)
        # A second try is refused, and the refusal names the locked move to Ann only.
        reply = await a.slash(w.ann, "move", None, duel=duel_id, move="evade")
        assert "already locked in Full Frontal Strike" in reply.content and reply.ephemeral
        await a.click(w.ann, "side_swipe")
        await a.click(w.bob, "lock_attempt")
        await look_around(a, duel_id)
        await settle(database)
        secrets = {w.ann.id: {"full_frontal_strike"}, w.bob.id: {"lock_attempt"}}
        a.check(start, secrets, 1)
        await a.check_tables(secrets, 1)
        assert a.sync_seen >= 1
        result = await close(a, duel_id, 3)
        assert "Full Frontal Strike" in result and "Lock Attempt" in result
        assert not a.leaks, "\n".join(a.leaks)
        assert a.checked["requests"] > 50 and a.checked["logs"] > 20, a.checked
        print(f"secrecy audit checked {a.checked}")


def test_menu_rule() -> None:
    menu = " ".join(f"{m} {LABELS[m]}" for m in MOVE_IDS)
    assert named_moves(menu) == set()
    assert named_moves(menu + " you chose Evade") == {"evade"}
    assert named_moves("a_retreats locked_blocks_retreat") == set()
    assert named_moves("both retreat, Locked blocks retreat") == set()
    assert named_moves("House rules: locked-blocks-retreat=no") == set()
    assert named_moves("Retreat") == {"retreat"}
