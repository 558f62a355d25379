"""The Discord layer's shape (issue 12 item 4) and the Discord API cases it owns (issue 13):
typed without cycles or private attributes, checks that pair defaults with run-time
checks, every DM refusal treated as closed DMs, a refused webhook backed off, and a role
missing from the bot's cache still counting."""

from __future__ import annotations

import ast
import re
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, cast

import discord
import pytest
from discord import app_commands

from bot.config import DiscordSettings
from bot.db.engine import Database
from bot.discord.client import syncs_commands
from bot.discord.cogs.admin import Admin
from bot.discord.cogs.commander import Commander
from bot.discord.workers.webhooks import ChannelWebhooks
from tests.discord.harness import populate, running_world
from tests.discord.workers_support import COMMANDER_NICK, eventually, fake_server, running_bot
from tests.fakediscord import FakeDiscord, FakeMessage

ROOT = Path(__file__).resolve().parents[2]
DISCORD_LAYER = ROOT / "bot" / "discord"
EXECUTE = "/webhooks/{webhook_id}/{token}"


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with fake_server() as server:
        yield server


# -- the layer's shape ------------------------------------------------------------------


def layer_modules() -> dict[str, Path]:
    found = {}
    for path in sorted(DISCORD_LAYER.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def test_every_import_of_the_discord_layer_is_at_the_top_of_its_module() -> None:
    nested = []
    for name, path in layer_modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = {id(node) for node in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in top:
                nested.append(f"{name}:{node.lineno}")
    assert not nested, f"imports inside functions (an import cycle patched?): {nested}"


def test_the_discord_layer_has_no_import_cycle() -> None:
    modules = layer_modules()
    edges: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                targets.add(node.module)
                targets |= {f"{node.module}.{a.name}" for a in node.names}
            elif isinstance(node, ast.Import):
                targets |= {a.name for a in node.names}
        edges[name] = {t for t in targets if t in modules and t != name}

    def cycle_from(start: str) -> list[str] | None:
        stack = [(start, [start])]
        while stack:
            node, trail = stack.pop()
            for nxt in edges[node]:
                if nxt == start:
                    return [*trail, nxt]
                if nxt not in trail:
                    stack.append((nxt, [*trail, nxt]))
        return None

    cycles = [c for c in map(cycle_from, modules) if c]
    assert not cycles, f"import cycles: {cycles[:3]}"


# A private attribute of a discord.py object: ``member._roles``, ``thread._applied_tags``...
# (our own ``self._x`` and ``cls._x`` are fine).
PRIVATE_DISCORD = re.compile(
    r"\b(?!self\b|cls\b)[a-z_]+\._(?!_)[a-z]\w*\b(?!\s*=[^=])|\"_roles\""
)


def test_no_type_ignore_and_no_private_discord_attributes() -> None:
    offending = []
    for name, path in layer_modules().items():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if "type: ignore" in line or PRIVATE_DISCORD.search(code):
                offending.append(f"{name}:{number}: {line.strip()}")
    assert not offending, offending


def test_commander_and_admin_commands_carry_their_check_and_default() -> None:
    """Every command of the Manage-Server groups has the run-time check; /duel mixes
    commands for everyone (no check) and commander commands (checked)."""
    for cog, group_names in (
        (Commander, ("stats", "sheet", "round", "duel")),
        (Admin, ("config",)),
    ):
        for group in cog.__cog_app_commands__:
            assert isinstance(group, app_commands.Group)
            if group.name not in group_names:
                continue
            if group.name != "duel":
                assert group.default_permissions == discord.Permissions(manage_guild=True)
            for command in group.commands:
                assert isinstance(command, app_commands.Command)
                public = group.name == "duel" and command.name in (
                    "list",
                    "status",
                    "history",
                    "export",
                )
                assert len(command.checks) == (0 if public else 1), command.qualified_name
                if not public:
                    # paired by the decorator (Discord applies it on top-level commands)
                    assert command.default_permissions == discord.Permissions(manage_guild=True)


# -- command sync -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shard_ids", "expected"),
    [(None, True), ((0,), True), ((0, 1), True), ((1,), False), ((2, 3), False)],
)
def test_only_the_process_holding_shard_0_syncs_commands(
    shard_ids: tuple[int, ...] | None, expected: bool
) -> None:
    settings = DiscordSettings(shard_count=None if shard_ids is None else 4, shard_ids=shard_ids)
    assert syncs_commands(settings) is expected
    assert syncs_commands(DiscordSettings(sync_commands=False, shard_ids=shard_ids)) is False


# -- DMs refused ------------------------------------------------------------------------


@pytest.mark.parametrize("code", [50007, 50278])
async def test_every_dm_refusal_means_dms_closed_once(
    fake: FakeDiscord, database: Database, code: int
) -> None:
    """50278 (no server in common) used to be retried 12 times, the channel never told."""
    async with running_bot(fake, database) as world:
        fake.block_dms(world.bob.id, code=code)
        duel = await world.start_duel()
        await world.open_round(duel.id)
        [notice_row] = await world.posted("dm_closed")
        assert notice_row.status == "posted"
        rows = {r.target_id: r for r in await world.outbox(kind="round_dm")}
        assert rows[world.bob.id].status == "failed"
        assert rows[world.bob.id].attempts == 1  # given up at once, not retried
        assert rows[world.alice.id].status == "posted"
        [notice] = [
            m for m in fake.messages_in(world.channel_id) if m.id == notice_row.posted_message_id
        ]
        assert f"<@{world.bob.id}>" in notice.content
        bob_dm = fake.dm_channel(world.bob.id).id
        assert len(fake.requests_to("POST", f"/channels/{bob_dm}/messages")) == 1
        assert len(await world.audit("dm.closed")) == 1


# -- webhooks ---------------------------------------------------------------------------


def posted_message(world: Any, row_id: int | None) -> FakeMessage:
    [message] = [m for m in world.fake.messages_in(world.channel_id) if m.id == row_id]
    return message


async def test_a_refused_webhook_rests_then_is_tried_again(
    fake: FakeDiscord, database: Database
) -> None:
    async with running_bot(fake, database) as world:
        duel = await world.start_duel()
        await world.posted("duel_start")  # through the webhook, made for this post
        assert len(fake.requests_to("POST", EXECUTE)) == 1

        # Discord refuses the cached webhook once: that post goes out as the bot...
        fake.fail_next("POST", EXECUTE, 403, times=1, code=50013, message="Missing Permissions")
        await world.open_round(duel.id)
        [opened] = await world.posted("round_open")
        refused = posted_message(world, opened.posted_message_id)
        assert refused.webhook_id is None and refused.author.id == fake.bot_user.id
        assert len(fake.requests_to("POST", EXECUTE)) == 2

        # ... and so does the next one, without trying the webhook again (it rests)
        await world.move(world.alice, duel.id, "evade")
        await world.move(world.bob, duel.id, "evade")
        await world.close(duel.id)
        [result] = await world.posted("round_result")
        as_bot = posted_message(world, result.posted_message_id)
        assert as_bot.webhook_id is None
        assert f"on behalf of {COMMANDER_NICK}" in str(as_bot.embeds)
        assert len(fake.requests_to("POST", EXECUTE)) == 2

        # Once the rest is over the webhook is used again.
        webhooks = world.poster.webhooks
        webhooks.clock = lambda: time.monotonic() + webhooks.first_backoff + 1
        await world.open_round(duel.id)
        [_, again] = await world.posted("round_open", count=2)
        through_hook = posted_message(world, again.posted_message_id)
        assert through_hook.webhook_id is not None and through_hook.username == COMMANDER_NICK
        assert len(fake.requests_to("POST", EXECUTE)) == 3
        assert len(fake.webhooks) == 1  # the same webhook, not a new one


def test_refusals_in_a_row_double_the_rest_and_a_success_resets_it() -> None:
    now = [1000.0]
    hooks = ChannelWebhooks(cast(Any, None), cast(Any, None), clock=lambda: now[0])
    channel = 42
    assert not hooks.backed_off(channel)
    for rest in (60.0, 120.0, 240.0):
        hooks.refused(channel, 403)
        now[0] += rest - 1
        assert hooks.backed_off(channel)
        now[0] += 2
        assert not hooks.backed_off(channel)
    for _ in range(20):
        hooks.refused(channel, 403)
    now[0] += hooks.max_backoff + 1
    assert not hooks.backed_off(channel)  # capped at an hour
    hooks.worked(channel)
    hooks.refused(channel, 403)
    now[0] += 61
    assert not hooks.backed_off(channel)  # back to the first rest
    assert not hooks.backed_off(7)  # per channel


# -- roles ------------------------------------------------------------------------------


async def test_a_role_missing_from_the_cache_still_counts(
    fake_discord: FakeDiscord, database: Database
) -> None:
    fake = fake_discord
    people = populate(fake)
    guild_id, role_id = people["guild"].id, people["commander_role_id"]
    async with running_world(fake, database, people) as w:
        reply = await w.slash(w.commander, "config", "commander-role", role=role_id)
        assert "Commander role set" in reply.content
        reply = await w.slash(w.role_commander, "stats", "show", member=w.ann.id)
        assert "Only a commander" not in reply.content

        # The bot's cache loses the role (as when the server is not cached yet); the
        # member's payload still names it.
        await fake.dispatch(
            "GUILD_ROLE_DELETE",
            {"guild_id": str(guild_id), "role_id": str(role_id)},
            guild_id=guild_id,
        )

        def forgotten() -> bool:
            guild = w.bot.get_guild(guild_id)
            return guild is not None and guild.get_role(role_id) is None

        await eventually(forgotten, 5, "the role to leave the bot's cache")
        reply = await w.slash(w.role_commander, "stats", "show", member=w.ann.id)
        assert reply.ephemeral and "Only a commander" not in reply.content, reply.content
        assert fake.requests_to("GET", f"/guilds/{guild_id}/members/{w.role_commander.id}")
        # ... and a member without it is still refused
        reply = await w.slash(w.outsider, "stats", "show", member=w.ann.id)
        assert "Only a commander" in reply.content


async def test_a_dm_is_answered_without_prefix_command_processing(
    fake_discord: FakeDiscord, database: Database
) -> None:
    """duelbot has no prefix commands: a DM reaches the intake, and commands.Bot's
    process_commands (a context built per message) never runs."""
    fake = fake_discord
    async with running_world(fake, database) as w:
        processed: list[discord.Message] = []

        async def counting(message: discord.Message, /) -> None:
            processed.append(message)

        w.bot.process_commands = counting  # type: ignore[method-assign]
        before = len(fake.dms_to(w.ann.id))
        await fake.send_dm(w.ann.id, "evade")
        await fake.wait_for_dms(w.ann.id, before + 1, timeout=5)
        assert processed == []
