"""Self-tests of tests/fakediscord: a tiny real discord.py bot driven through the fake."""

from __future__ import annotations

import asyncio
import io
import re
from dataclasses import dataclass
from typing import Any

import discord
import pytest
from discord import app_commands
from discord.ext import commands

from tests.fakediscord import (
    MANAGE_GUILD,
    Attachment,
    FakeDiscord,
    FakeGuild,
    FakeUser,
    run_bot,
)
from tests.fakediscord.pytest_plugin import fake_discord  # noqa: F401  (fixture)

# ----------------------------------------------------------------------------------------
# the tiny bot under test
# ----------------------------------------------------------------------------------------


class AcceptButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"duel:accept:(?P<duel_id>\d+)",
):
    def __init__(self, duel_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Accept", style=discord.ButtonStyle.green, custom_id=f"duel:accept:{duel_id}"
            )
        )
        self.duel_id = duel_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> AcceptButton:
        return cls(int(match["duel_id"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(
            f"accepted {self.duel_id} by {interaction.user.id}", ephemeral=True
        )


class RefuseButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"duel:refuse:(?P<duel_id>\d+)",
):
    def __init__(self, duel_id: int) -> None:
        super().__init__(discord.ui.Button(label="Refuse", custom_id=f"duel:refuse:{duel_id}"))
        self.duel_id = duel_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> RefuseButton:
        return cls(int(match["duel_id"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.edit_message(content=f"duel {self.duel_id} refused", view=None)


def accept_view(duel_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(AcceptButton(duel_id))
    view.add_item(RefuseButton(duel_id))
    return view


class TinyBot(commands.Bot):
    def __init__(self, **kwargs: Any) -> None:
        intents = discord.Intents.none()
        intents.guilds = True
        intents.dm_messages = True
        super().__init__(command_prefix="!", intents=intents, **kwargs)
        self.tree_errors: list[BaseException] = []
        self.seen_dms: list[str] = []
        self._build_commands()

    def _build_commands(self) -> None:
        duel = app_commands.Group(name="duel", description="Duels")

        @duel.command(name="start", description="Start a duel")
        @app_commands.describe(opponent="Who you challenge", rounds="How many rounds")
        async def start(
            interaction: discord.Interaction[Any],
            opponent: discord.Member,
            rounds: app_commands.Range[int, 1, 10],
        ) -> None:
            await interaction.response.send_message(
                f"{interaction.user.id} challenges {opponent.id} ({opponent.display_name}) "
                f"for {rounds} rounds",
                view=accept_view(rounds * 1000),
            )

        @duel.command(name="config", description="Admins only")
        @app_commands.checks.has_permissions(manage_guild=True)
        async def config(interaction: discord.Interaction[Any], role: discord.Role) -> None:
            await interaction.response.send_message(f"referee role is {role.name}", ephemeral=True)

        @duel.command(name="slow", description="Defers, then edits")
        async def slow(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.defer(thinking=True)
            await asyncio.sleep(0.05)
            await interaction.edit_original_response(content="done slowly")
            original = await interaction.original_response()  # GET @original
            await interaction.followup.send(f"followup to {original.content}", ephemeral=True)

        @app_commands.command(name="report", description="Sends a file")
        async def report(interaction: discord.Interaction[Any]) -> None:
            data = io.BytesIO(b"round 1: hit\nround 2: miss\n")
            await interaction.response.send_message(
                "here", file=discord.File(data, filename="report.txt")
            )
            await interaction.followup.send(
                file=discord.File(io.BytesIO(b"\x89PNG..."), filename="board.png")
            )

        @app_commands.command(name="ping", description="Pong")
        async def ping(interaction: discord.Interaction[Any]) -> None:
            where = "dm" if interaction.guild is None else "guild"
            await interaction.response.send_message(f"pong from {where}")

        @app_commands.command(name="pick", description="Autocompletes")
        async def pick(interaction: discord.Interaction[Any], ruleset: str) -> None:
            await interaction.response.send_message(ruleset)

        @pick.autocomplete("ruleset")
        async def pick_ac(
            interaction: discord.Interaction[Any], current: str
        ) -> list[app_commands.Choice[str]]:
            names = ["2.14", "2.15", "classic"]
            return [app_commands.Choice(name=n, value=n) for n in names if n.startswith(current)]

        commands_: list[app_commands.Command[Any, Any, Any] | app_commands.Group] = [
            duel,
            report,
            ping,
            pick,
        ]
        for cmd in commands_:
            self.tree.add_command(cmd)

        @self.tree.error
        async def on_tree_error(
            interaction: discord.Interaction[Any], error: app_commands.AppCommandError
        ) -> None:
            self.tree_errors.append(error)
            if isinstance(error, app_commands.MissingPermissions):
                await interaction.response.send_message("you may not", ephemeral=True)

    async def setup_hook(self) -> None:
        self.add_dynamic_items(AcceptButton, RefuseButton)
        await self.tree.sync()

    async def on_message(self, message: discord.Message) -> None:
        if self.user is None or message.author.id == self.user.id:
            return
        if message.guild is None:
            self.seen_dms.append(message.content)
            await message.channel.send(f"echo: {message.content}", view=accept_view(7))


# ----------------------------------------------------------------------------------------
# fixtures
# ----------------------------------------------------------------------------------------


@dataclass
class World:
    fake: FakeDiscord
    guild: FakeGuild
    channel_id: int
    alice: FakeUser  # plain member
    bob: FakeUser  # referee (Manage Guild via a role)


@pytest.fixture
def world(fake_discord: FakeDiscord) -> World:  # noqa: F811
    fake = fake_discord
    guild = fake.add_guild("Duel Hall")
    referee = fake.add_role(guild.id, "Referee", permissions=MANAGE_GUILD)
    alice = fake.add_user("alice")
    bob = fake.add_user("bob", global_name="Bob the Referee")
    fake.add_member(guild.id, alice)
    fake.add_member(guild.id, bob, roles=[referee])
    return World(fake, guild, guild.channel_ids[0], alice, bob)


# ----------------------------------------------------------------------------------------
# tests
# ----------------------------------------------------------------------------------------


async def test_connect_and_sync_commands(world: World) -> None:
    fake = world.fake
    async with run_bot(TinyBot(), fake) as bot:
        assert bot.user is not None and bot.user.id == fake.bot_user.id
        assert bot.application_id == fake.application_id
        g = bot.get_guild(world.guild.id)
        assert g is not None and g.me is not None
        assert g.get_channel(world.channel_id) is not None
        assert g.get_role(world.guild.id) is not None  # @everyone
    assert fake.requests_to("GET", "/users/@me")
    assert fake.requests_to("GET", "/oauth2/applications/@me")
    [put] = fake.requests_to("PUT", "/applications/{app_id}/commands")
    assert {c["name"] for c in put.body} == {"duel", "report", "ping", "pick"}
    duel = fake.command("duel")
    assert duel is not None
    start = next(o for o in duel["options"] if o["name"] == "start")
    assert start["type"] == 1
    types = {o["name"]: o["type"] for o in start["options"]}
    assert types == {"opponent": 6, "rounds": 4}
    rounds = next(o for o in start["options"] if o["name"] == "rounds")
    assert (rounds["min_value"], rounds["max_value"]) == (1, 10)
    # every REST answer carried rate-limit headers; identify had our intents
    identify = [f for _, f in fake.gateway.received if f.get("op") == 2]
    assert identify[0]["d"]["intents"] == (1 << 0) | (1 << 12)


async def test_slash_subcommand_with_user_and_integer(world: World) -> None:
    fake = world.fake
    async with run_bot(TinyBot(), fake):
        handle = await fake.invoke_slash(
            world.guild.id,
            world.channel_id,
            world.alice.id,
            "duel",
            subcommand="start",
            options={"opponent": world.bob.id, "rounds": 3},
        )
        resp = await handle.response(timeout=5)
        assert resp.type == 4
        assert resp.content == (
            f"{world.alice.id} challenges {world.bob.id} (Bob the Referee) for 3 rounds"
        )
        assert not resp.ephemeral
        assert resp.components[0]["components"][0]["custom_id"] == "duel:accept:3000"
        # the response became a message in the channel
        [msg] = fake.messages_in(world.channel_id)
        assert msg.id == resp.message_id and msg.interaction_id == handle.id
        # the dispatched payload had the resolved block discord.py needs
        resolved = handle.payload["data"]["resolved"]
        assert "user" not in resolved["members"][str(world.bob.id)]
        assert int(resolved["members"][str(world.bob.id)]["permissions"]) & MANAGE_GUILD
        assert fake.interaction_responses(handle.id) == [resp]

        # the schema is enforced like the Discord client would
        with pytest.raises(ValueError):
            await fake.invoke_slash(
                world.guild.id,
                None,
                world.alice.id,
                "duel",
                "start",
                {"opponent": world.bob.id, "rounds": 11},
            )
        with pytest.raises(LookupError):
            await fake.invoke_slash(world.guild.id, None, world.alice.id, "duel", "nope")


async def test_permissions_and_roles(world: World) -> None:
    fake = world.fake
    referee = next(r for r in world.guild.roles.values() if r.name == "Referee")
    async with run_bot(TinyBot(), fake) as bot:
        denied = await fake.invoke_slash(
            world.guild.id, None, world.alice.id, "duel", "config", {"role": referee.id}
        )
        r1 = await denied.response()
        assert r1.content == "you may not" and r1.ephemeral
        assert isinstance(bot.tree_errors[-1], app_commands.MissingPermissions)

        allowed = await fake.invoke_slash(
            world.guild.id, None, world.bob.id, "duel", "config", {"role": referee.id}
        )
        r2 = await allowed.response()
        assert r2.content == "referee role is Referee" and r2.ephemeral

        # a member added after connect, with administrator via a role
        boss = fake.add_role(world.guild.id, "Boss", permissions=0x8)
        carol = fake.add_member(world.guild.id, "carol", roles=[boss])
        h3 = await fake.invoke_slash(
            world.guild.id, None, carol.user.id, "duel", "config", {"role": boss.id}
        )
        assert (await h3.response()).content == "referee role is Boss"
        # guild members are fetched over REST (no members intent)
        g = bot.get_guild(world.guild.id)
        assert g is not None
        member = await g.fetch_member(world.bob.id)
        assert member.guild_permissions.manage_guild
        assert [r.name for r in member.roles if not r.is_default()] == ["Referee"]


async def test_dm_on_message_reply_and_persistent_button(world: World) -> None:
    fake = world.fake
    async with run_bot(TinyBot(), fake) as bot:
        mid = await fake.send_dm(world.alice.id, "hello bot")
        [reply] = await fake.wait_for_dms(world.alice.id)
        assert reply.content == "echo: hello bot"
        assert bot.seen_dms == ["hello bot"]
        assert mid in fake.messages
        # the bot's own message came back over the gateway and was ignored (no loop)
        await asyncio.sleep(0.1)
        assert len(fake.dms_to(world.alice.id)) == 1
        assert reply.custom_ids() == ["duel:accept:7", "duel:refuse:7"]

        handle = await fake.click_button(world.alice.id, reply, "duel:accept:7")
        resp = await handle.response()
        assert resp.type == 4
        assert resp.content == f"accepted 7 by {world.alice.id}"
        assert resp.ephemeral
        assert "guild_id" not in handle.payload and handle.payload["context"] == 1

        # UPDATE_MESSAGE (type 7) edits the clicked message in place
        refuse = await fake.click_button(world.alice.id, reply, "duel:refuse:7")
        r2 = await refuse.response()
        assert r2.type == 7 and r2.content == "duel 7 refused"
        assert reply.content == "duel 7 refused" and reply.components == []
        with pytest.raises(LookupError):
            await fake.click_button(world.alice.id, reply, "duel:accept:7")  # button is gone


async def test_editing_a_dm_disables_its_buttons_as_discord_does(world: World) -> None:
    """PATCH of the bot's DM: the components are replaced (disabled ones kept as disabled),
    content and embeds stay; Discord's refusals: another user's message 403 50005, an
    unknown one 404 10008, six action rows 400 50035. A disabled button cannot be pressed."""
    fake = world.fake
    async with run_bot(TinyBot(), fake) as bot:
        own_id = await fake.send_dm(world.alice.id, "hello bot")
        [reply] = await fake.wait_for_dms(world.alice.id)
        channel = bot.get_partial_messageable(reply.channel_id, type=discord.ChannelType.private)
        view = accept_view(7)
        for item in view.children:
            assert isinstance(item, discord.ui.DynamicItem)
            item.item.disabled = True
        await channel.get_partial_message(reply.id).edit(view=view)
        assert reply.content == "echo: hello bot" and reply.edited_timestamp is not None
        pressed = [c for row in reply.components for c in row["components"]]
        assert pressed and all(c["disabled"] is True for c in pressed)
        with pytest.raises(LookupError, match="disabled"):
            await fake.click_button(world.alice.id, reply, "duel:accept:7")

        with pytest.raises(discord.Forbidden) as refused:
            await channel.get_partial_message(own_id).edit(content="not yours")
        assert refused.value.code == 50005
        with pytest.raises(discord.NotFound) as unknown:
            await channel.get_partial_message(reply.id + 999).edit(view=view)
        assert unknown.value.code == 10008
        rows = [{"type": 1, "components": pressed}] * 6
        fake.expect_limit_refusals = True  # this one is refused on purpose
        with pytest.raises(discord.HTTPException) as too_many:
            route = discord.http.Route(
                "PATCH",
                "/channels/{channel_id}/messages/{message_id}",
                channel_id=reply.channel_id,
                message_id=reply.id,
            )
            await bot.http.request(route, json={"components": rows})
        assert too_many.value.status == 400 and too_many.value.code == 50035
        assert len(reply.components) == 1  # the refused edit changed nothing


async def test_button_survives_restart(world: World) -> None:
    """A DynamicItem button on a message sent by a previous bot process still works."""
    fake = world.fake
    async with run_bot(TinyBot(), fake):
        h = await fake.invoke_slash(
            world.guild.id,
            None,
            world.alice.id,
            "duel",
            "start",
            {"opponent": world.bob.id, "rounds": 2},
        )
        resp = await h.response()
    assert resp.message_id is not None
    message = fake.messages[resp.message_id]
    async with run_bot(TinyBot(), fake):
        click = await fake.click_button(world.bob.id, message, "duel:accept:2000")
        r = await click.response()
        assert r.content == f"accepted 2000 by {world.bob.id}"
        assert click.payload["guild_id"] == str(world.guild.id)


async def test_dm_slash_command(world: World) -> None:
    fake = world.fake
    async with run_bot(TinyBot(), fake):
        h = await fake.invoke_slash(None, None, world.alice.id, "ping")
        assert (await h.response()).content == "pong from dm"
        assert "member" not in h.payload and h.payload["user"]["id"] == str(world.alice.id)
        g = await fake.invoke_slash(world.guild.id, None, world.alice.id, "ping")
        assert (await g.response()).content == "pong from guild"


async def test_defer_edit_followup(world: World) -> None:
    fake = world.fake
    async with run_bot(TinyBot(), fake):
        h = await fake.invoke_slash(world.guild.id, None, world.alice.id, "duel", "slow")
        cb = await h.response()
        assert cb.type == 5 and cb.is_defer
        visible = await h.reply()
        assert visible.kind == "edit_original" and visible.content == "done slowly"
        follow = await h.followup(0)
        assert follow.content == "followup to done slowly" and follow.ephemeral
        [shown] = fake.messages_in(world.channel_id)
        assert shown.content == "done slowly" and not shown.flags & 128  # no longer loading


async def test_autocomplete(world: World) -> None:
    fake = world.fake
    async with run_bot(TinyBot(), fake):
        h = await fake.autocomplete(
            world.guild.id, None, world.alice.id, "pick", "ruleset", options={"ruleset": "2."}
        )
        resp = await h.response()
        assert resp.type == 8
        assert [c["value"] for c in resp.data["choices"]] == ["2.14", "2.15"]


async def test_interaction_with_file_attachment(world: World) -> None:
    fake = world.fake
    async with run_bot(TinyBot(), fake):
        h = await fake.invoke_slash(world.guild.id, None, world.alice.id, "report")
        resp = await h.response()
        assert resp.content == "here"
        [f] = resp.files
        assert (f.filename, f.data) == ("report.txt", b"round 1: hit\nround 2: miss\n")
        assert resp.attachments[0]["filename"] == "report.txt"
        follow = await h.followup(0)
        assert [x.filename for x in follow.files] == ["board.png"]
        assert follow.files[0].data == b"\x89PNG..."
        [req] = fake.requests_to("POST", "/interactions/{iid}/{token}/callback")
        assert req.query == {"with_response": "1"}
        assert req.body["type"] == 4 and req.files[0].field_name == "files[0]"
        # the message's attachment is downloadable from the fake CDN
        msg = fake.messages[resp.message_id or 0]
        assert msg.attachments[0]["size"] == len(f.data)


async def test_webhook_post(world: World) -> None:
    fake = world.fake
    async with run_bot(TinyBot(), fake) as bot:
        channel = bot.get_channel(world.channel_id)
        assert isinstance(channel, discord.TextChannel)
        hook = await channel.create_webhook(name="Herald")
        assert [w.id for w in await channel.webhooks()] == [hook.id]
        sent = await hook.send(
            "Round 3 result",
            username="Referee",
            avatar_url="https://example.invalid/r.png",
            wait=True,
        )
        assert sent.webhook_id == hook.id and sent.author.name == "Referee"
        [msg] = fake.messages_in(world.channel_id)
        assert msg.webhook_id == hook.id and msg.content == "Round 3 result"
        assert msg.username == "Referee" and msg.avatar_url == "https://example.invalid/r.png"
        [req] = fake.requests_to("POST", "/webhooks/{webhook_id}/{token}")
        assert req.query["wait"] == "1" and req.body["username"] == "Referee"


async def test_blocked_dm_raises_forbidden_50007(world: World) -> None:
    fake = world.fake
    fake.block_dms(world.bob.id)
    async with run_bot(TinyBot(), fake) as bot:
        alice = await bot.fetch_user(world.alice.id)
        await alice.send("a duel awaits", embed=discord.Embed(title="Duel #1"))
        [dm] = fake.dms_to(world.alice.id)
        assert dm.content == "a duel awaits" and dm.embeds[0]["title"] == "Duel #1"
        user = await bot.fetch_user(world.bob.id)
        with pytest.raises(discord.Forbidden) as info:
            await user.send("you have a duel")
        assert info.value.code == 50007
        assert info.value.status == 403
        assert fake.dms_to(world.bob.id) == []


async def test_dm_refused_for_no_mutual_guilds_50278(world: World) -> None:
    fake = world.fake
    fake.block_dms(world.bob.id, code=50278)
    with pytest.raises(ValueError):
        fake.block_dms(world.alice.id, code=50013)  # not a DM refusal
    async with run_bot(TinyBot(), fake) as bot:
        user = await bot.fetch_user(world.bob.id)
        with pytest.raises(discord.Forbidden) as info:
            await user.send("you have a duel")
        assert info.value.code == 50278 and "mutual" in info.value.text
        fake.unblock_dms(world.bob.id)
        await user.send("now it goes")
        assert [m.content for m in fake.dms_to(world.bob.id)] == ["now it goes"]


async def test_500_then_success_retry(world: World) -> None:
    fake = world.fake
    async with run_bot(TinyBot(), fake) as bot:
        channel = bot.get_channel(world.channel_id)
        assert isinstance(channel, discord.TextChannel)
        fake.fail_next("POST", "/channels/{channel_id}/messages", status=500)
        msg = await channel.send("persistent")  # discord.py sleeps 1 s, then retries
        reqs = fake.requests_to("POST", f"/channels/{world.channel_id}/messages")
        assert [r.status for r in reqs] == [500, 200]
        assert [m.id for m in fake.messages_in(world.channel_id)] == [msg.id]


async def test_429_is_retried(world: World) -> None:
    fake = world.fake
    async with run_bot(TinyBot(), fake) as bot:
        channel = bot.get_channel(world.channel_id)
        assert isinstance(channel, discord.TextChannel)
        fake.rate_limit_next("POST", "/channels/*/messages", retry_after=0.05)
        await channel.send("after a 429")
        statuses = [r.status for r in fake.requests_to("POST", "/channels/*/messages")]
        assert statuses == [429, 200]
        # without Via, discord.py treats a 429 as a Cloudflare ban and raises
        fake.rate_limit_next("POST", "/channels/*/messages", retry_after=0.05, via=False)
        with pytest.raises(discord.HTTPException) as info:
            await channel.send("banned")
        assert info.value.status == 429


async def test_threads(world: World) -> None:
    fake = world.fake
    async with run_bot(TinyBot(), fake) as bot:
        channel = bot.get_channel(world.channel_id)
        assert isinstance(channel, discord.TextChannel)
        thread = await channel.create_thread(name="duel-1", type=discord.ChannelType.public_thread)
        await thread.send("in the thread")
        msg = await channel.send("starter")
        t2 = await msg.create_thread(name="from message")
        assert t2.id == msg.id
        assert [m.content for m in fake.messages_in(thread.id)] == ["in the thread"]
        assert fake.channels[thread.id].parent_id == world.channel_id
        # THREAD_CREATE reached the cache
        for _ in range(100):
            if bot.get_channel(t2.id) is not None:
                break
            await asyncio.sleep(0.01)
        assert isinstance(bot.get_channel(t2.id), discord.Thread)


async def test_resume_after_drop(world: World) -> None:
    fake = world.fake
    async with run_bot(TinyBot(), fake) as bot:
        resumed = asyncio.Event()

        async def on_resumed() -> None:
            resumed.set()

        bot.add_listener(on_resumed, "on_resumed")
        [session] = fake.gateway.live_sessions()
        await fake.drop_connection()
        await asyncio.wait_for(resumed.wait(), 5)
        assert session.resumes == 1 and session.connected
        await fake.send_dm(world.alice.id, "still there?")
        [reply] = await fake.wait_for_dms(world.alice.id)
        assert reply.content == "echo: still there?"


async def test_events_while_disconnected_are_replayed(world: World) -> None:
    fake = world.fake
    async with run_bot(TinyBot(), fake):
        [session] = fake.gateway.live_sessions()
        await fake.gateway.drop(code=4000)
        await fake.send_dm(world.alice.id, "sent during the outage")  # buffered
        [reply] = await fake.wait_for_dms(world.alice.id)
        assert reply.content == "echo: sent during the outage"
        assert session.resumes == 1


async def test_sharding(fake_discord: FakeDiscord) -> None:  # noqa: F811
    fake = fake_discord
    fake.shard_count = 2
    g0 = fake.add_guild("even", id=(1 << 22) * 2)
    g1 = fake.add_guild("odd", id=(1 << 22) * 3)
    user = fake.add_user("dave")
    fake.add_member(g1.id, user)

    class Sharded(commands.AutoShardedBot):
        async def before_identify_hook(
            self, shard_id: int | None, *, initial: bool = False
        ) -> None:
            return None  # the default sleeps 5 s between shards

        async def setup_hook(self) -> None:
            @self.tree.command(name="ping", description="Pong")
            async def ping(interaction: discord.Interaction[Any]) -> None:
                assert interaction.guild is not None
                await interaction.response.send_message(f"shard {interaction.guild.shard_id}")

            await self.tree.sync()

    intents = discord.Intents.none()
    intents.guilds = True
    async with run_bot(Sharded(command_prefix="!", intents=intents), fake) as bot:
        assert bot.shard_count == 2
        assert {s.shard_id for s in fake.gateway.live_sessions()} == {0, 1}
        a, b = bot.get_guild(g0.id), bot.get_guild(g1.id)
        assert a is not None and b is not None
        assert (a.shard_id, b.shard_id) == (0, 1)
        h = await fake.invoke_slash(g1.id, None, user.id, "ping")
        assert (await h.response()).content == "shard 1"
    assert fake.requests_to("GET", "/gateway/bot")


async def test_unknown_routes_are_recorded(world: World) -> None:
    fake = world.fake
    async with run_bot(TinyBot(), fake) as bot:
        with pytest.raises(discord.NotFound):
            await bot.http.request(discord.http.Route("GET", "/no/such/route"))
    assert fake.unknown_routes == ["GET /no/such/route"]
    with pytest.raises(AssertionError, match="unknown routes"):
        fake.check()
    fake.unknown_routes.clear()


async def test_late_callback_is_unknown_interaction(world: World) -> None:
    fake = world.fake
    fake.interaction_deadline = 0.0
    async with run_bot(TinyBot(), fake) as bot:
        h = await fake.invoke_slash(world.guild.id, None, world.alice.id, "ping")
        for _ in range(200):
            if bot.tree_errors:
                break
            await asyncio.sleep(0.01)
        [err] = bot.tree_errors
        assert isinstance(err, app_commands.CommandInvokeError)
        assert isinstance(err.original, discord.NotFound) and err.original.code == 10062
        assert h.record.callback is None


async def test_guild_messages_and_content_intent(world: World) -> None:
    fake = world.fake
    got: list[str] = []
    async with run_bot(TinyBot(), fake):
        # TinyBot lacks GUILD_MESSAGES: guild messages are not delivered at all
        await fake.send_guild_message(world.channel_id, world.alice.id, "hi all")
    assert fake.messages_in(world.channel_id)[0].content == "hi all"

    intents = discord.Intents.none()
    intents.guilds = True
    intents.guild_messages = True
    bot = commands.Bot(command_prefix="!", intents=intents)

    async def on_message(message: discord.Message) -> None:
        if message.author.id == world.alice.id:
            got.append(message.content)

    bot.add_listener(on_message)
    async with run_bot(bot, fake) as b:
        assert b.user is not None
        await fake.send_guild_message(world.channel_id, world.alice.id, "secret")
        await fake.send_guild_message(world.channel_id, world.alice.id, f"<@{b.user.id}> hey")
        for _ in range(200):
            if len(got) == 2:
                break
            await asyncio.sleep(0.01)
    # without message_content only mentions of the bot carry content
    assert got == ["", f"<@{fake.bot_user.id}> hey"]


async def test_guild_command_sync(world: World) -> None:
    fake = world.fake

    class GuildBot(TinyBot):
        async def setup_hook(self) -> None:
            guild = discord.Object(world.guild.id)
            self.tree.copy_global_to(guild=guild)
            await self.tree.sync(guild=guild)

    async with run_bot(GuildBot(), fake):
        assert fake.commands() == []
        assert {c["name"] for c in fake.commands(world.guild.id)} >= {"duel", "ping"}
        h = await fake.invoke_slash(world.guild.id, None, world.alice.id, "ping")
        assert h.payload["data"]["guild_id"] == str(world.guild.id)
        assert (await h.response()).content == "pong from guild"
        with pytest.raises(LookupError):  # not registered globally, so not usable in DMs
            await fake.invoke_slash(None, None, world.alice.id, "ping")


async def test_dm_with_attachment(world: World) -> None:
    fake = world.fake
    async with run_bot(TinyBot(), fake) as bot:
        received: list[discord.Message] = []

        async def grab(message: discord.Message) -> None:
            if message.author.id == world.alice.id:
                received.append(message)

        bot.add_listener(grab, "on_message")
        await fake.send_dm(world.alice.id, "see file", attachments=[Attachment("a.txt", b"abc")])
        await fake.wait_for_dms(world.alice.id)
        [m] = received
        assert await m.attachments[0].read() == b"abc"


async def test_reconnect_and_invalidate_session(world: World) -> None:
    fake = world.fake

    class NoWaitBot(TinyBot):
        async def before_identify_hook(
            self, shard_id: int | None, *, initial: bool = False
        ) -> None:
            return None  # the default sleeps 5 s before every non-initial IDENTIFY

    async with run_bot(NoWaitBot(), fake) as bot:
        [first] = fake.gateway.live_sessions()
        await fake.send_reconnect()  # op 7: the client resumes the same session
        await fake.wait_until_connected()
        for _ in range(200):
            if first.resumes == 1 and first.connected:
                break
            await asyncio.sleep(0.01)
        assert first.resumes == 1
        await fake.invalidate_session(resumable=False)  # op 9: a fresh IDENTIFY
        for _ in range(300):
            live = fake.gateway.live_sessions()
            if live and live[0] is not first and live[0].connected and bot.is_ready():
                break
            await asyncio.sleep(0.01)
        [second] = fake.gateway.live_sessions()
        assert second is not first
        identifies = [f for _, f in fake.gateway.received if f.get("op") == 2]
        assert len(identifies) == 2
        await fake.send_dm(world.alice.id, "after re-identify")
        [reply] = await fake.wait_for_dms(world.alice.id)
        assert reply.content == "echo: after re-identify"
