"""Issue 10, the hostile member: duel numbers are scoped, roles and duellists are checked,
numbers are range-checked. Through the real client and the fake Discord, on SQLite and
PostgreSQL.

- A duel the caller may not name (another server's, or in a DM or /move not their own)
  answers exactly as a number that names no duel: same text, same ephemerality, nothing
  stored, nothing of the duel shown; autocompletes list only what the caller may name.
- @everyone and managed roles are refused as commander and admin roles.
- Bots (this one included) and non-members cannot duel or get stats or sheets.
- Numbers beyond our Integer ids (DM `#N`, button custom ids, slash options, the CLI) get
  the unknown-duel answer on both databases, and nothing is logged as an error.
"""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot.config import LimitSettings
from bot.db.engine import Database
from bot.db.models import ID_MAX
from tests.cli.test_verify_stored import _closed_round as closed_round
from tests.discord.harness import World, populate, running_world
from tests.fakediscord import MANAGE_GUILD, FakeDiscord
from tests.fakediscord.models import FakeGuild, FakeMessage, FakeUser
from tests.security.snapshot import settle, snapshot

NO_FLOOD_LIMIT = LimitSettings(dm_burst=0)

UNKNOWN = 999_999  # a duel number no test creates
HUGE = (ID_MAX + 1, 99_999_999_999, 99_999_999_999_999_999_999)


@dataclass
class Hall:
    """The main world (server 1, Ann vs Bob with round 1 open) and a second server whose
    members Zed and Yan duel there; Zed is not a member of server 1."""

    w: World
    other: FakeGuild
    other_admin: FakeUser
    zed: FakeUser
    yan: FakeUser
    duel_id: int
    other_duel_id: int

    @property
    def fake(self) -> FakeDiscord:
        return self.w.fake


@asynccontextmanager
async def hall(fake: FakeDiscord, database: Database) -> AsyncIterator[Hall]:
    people = populate(fake)
    other = fake.add_guild("Other Hall")
    referee = fake.add_role(other.id, "Other Referee", permissions=MANAGE_GUILD)
    other_admin = fake.add_member(other.id, "otheradmin", roles=[referee]).user
    zed = fake.add_member(other.id, "zed").user
    yan = fake.add_member(other.id, "yan").user
    # Many moves from one account in seconds: the flood limit is tested in test_floods.py.
    async with running_world(fake, database, people, limits=NO_FLOOD_LIMIT) as w:
        for user in (w.ann, w.bob):
            await w.slash(w.commander, "stats", "set", member=user.id, str=5, agi=3)
        duel_id = await started(await w.slash(w.commander, "duel", "start", a=w.ann.id, b=w.bob.id))
        assert "Round 1" in (await w.slash(w.commander, "round", "open", duel=duel_id)).content
        await fake.wait_for_dms(w.ann.id, 1, timeout=10)
        for user in (zed, yan):
            await slash_in(fake, other, other_admin, "stats", "set", member=user.id, str=2, agi=2)
        other_duel_id = await started(
            await slash_in(fake, other, other_admin, "duel", "start", a=zed.id, b=yan.id)
        )
        await settle(database)
        yield Hall(w, other, other_admin, zed, yan, duel_id, other_duel_id)


async def started(reply: Any) -> int:
    assert "Duel #" in reply.content, reply.content
    return int(reply.content.split("Duel #")[1].split()[0])


async def slash_in(
    fake: FakeDiscord, guild: FakeGuild, user: FakeUser, name: str, sub: str | None, **opts: Any
) -> Any:
    handle = await fake.invoke_slash(
        guild.id, guild.channel_ids[0], user.id, name, subcommand=sub, options=opts
    )
    return await handle.reply()


async def dm_slash(fake: FakeDiscord, user: FakeUser, name: str, **opts: Any) -> Any:
    handle = await fake.invoke_slash(None, None, user.id, name, options=opts)
    return await handle.reply()


async def dm_text(fake: FakeDiscord, user: FakeUser, text: str) -> str:
    count = len(fake.dms_to(user.id))
    await fake.send_dm(user.id, text)
    return str((await fake.wait_for_dms(user.id, count + 1, timeout=10))[-1].content)


async def some_dm(fake: FakeDiscord, user: FakeUser) -> FakeMessage:
    """A message of the bot in the user's DM channel, to click a (forged) button on."""
    if not fake.dms_to(user.id):
        await dm_text(fake, user, "help")
    return fake.dms_to(user.id)[-1]


async def click(fake: FakeDiscord, user: FakeUser, custom_id: str) -> Any:
    """The user clicks a button whose custom_id was forged: Discord sends only ids of
    components the bot made, so the fake puts the button on the bot's last DM message."""
    message = await some_dm(fake, user)
    button = {"type": 2, "style": 1, "label": "Forged", "custom_id": custom_id}
    message.components = [{"type": 1, "components": [button]}]
    handle = await fake.click_button(user.id, message, custom_id)
    return await handle.reply()


def text_of(reply: Any) -> str:
    return (reply.content or "") + " ".join(str(e) for e in reply.embeds)


def as_unknown(text: str, number: int) -> str:
    return text.replace(f"#{number}", "#N")


def assert_same_answer(got: Any, number: int, unknown: Any, *, any_number: bool = False) -> None:
    """``got`` (about duel ``number``) is exactly the answer for the unknown duel.
    ``any_number``: the number as shown may differ (see the slash case below)."""
    if not isinstance(got, str):
        assert got.ephemeral and unknown.ephemeral
        assert not got.embeds and not got.components and not got.attachments
        got, unknown = text_of(got), text_of(unknown)
    if any_number:
        got, unknown = re.sub(r"#\S+", "#N", got), re.sub(r"#\S+", "#N", unknown)
    assert as_unknown(got, number) == as_unknown(unknown, UNKNOWN), (got, unknown)


def no_error_logged(caplog: pytest.LogCaptureFixture) -> None:
    bad = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not bad, [f"{r.name}: {r.getMessage()}" for r in bad]


# -- class 1: scoping ----------------------------------------------------------------------


async def test_other_servers_member_in_dms_learns_nothing(
    fake_discord: FakeDiscord, database: Database, caplog: pytest.LogCaptureFixture
) -> None:
    """Zed (server 2 only) names server 1's duel in the bot's DMs: /odds, DM text and a
    button answer exactly as for a duel that does not exist, and store nothing."""
    caplog.set_level(logging.WARNING)
    async with hall(fake_discord, database) as h:
        fake, duel = h.fake, h.duel_id
        before = await snapshot(database)

        odds = await dm_slash(fake, h.zed, "odds", duel=duel)
        assert_same_answer(odds, duel, await dm_slash(fake, h.zed, "odds", duel=UNKNOWN))
        assert "You have no duel #" in odds.content and "in this server" not in odds.content
        assert "ann" not in text_of(odds).lower() and "STR" not in text_of(odds)

        text = await dm_text(fake, h.zed, f"#{duel} evade")
        assert_same_answer(text, duel, await dm_text(fake, h.zed, f"#{UNKNOWN} evade"))

        button = await click(fake, h.zed, f"duelbot:move:{duel}:1:evade")
        assert_same_answer(
            button, duel, await click(fake, h.zed, f"duelbot:move:{UNKNOWN}:1:evade")
        )

        await settle(database)
        assert await snapshot(database) == before
        # Their own duel (in another server) they may name in DMs.
        own = await dm_slash(fake, h.zed, "odds", duel=h.other_duel_id)
        assert own.embeds and "zed" in text_of(own).lower()
    no_error_logged(caplog)


async def test_same_server_non_duellist_move_is_an_unknown_duel(
    fake_discord: FakeDiscord, database: Database
) -> None:
    """/move by members who do not fight in the duel (an outsider, a Manage Server admin,
    a member of another server there) answers as for a number that names no duel."""
    async with hall(fake_discord, database) as h:
        w, duel = h.w, h.duel_id
        before = await snapshot(database)
        for user in (w.outsider, w.commander):
            got = await w.slash(user, "move", duel=duel, move="evade")
            unknown = await w.slash(user, "move", duel=UNKNOWN, move="evade")
            assert_same_answer(got, duel, unknown)
            assert "You have no duel #" in got.content and "in this server" in got.content
        # Ann's own duel, named in a server where it does not live: unknown there too.
        fake = h.fake
        fake.add_member(h.other.id, w.ann)
        got = await slash_in(fake, h.other, w.ann, "move", None, duel=duel, move="evade")
        unknown = await slash_in(fake, h.other, w.ann, "move", None, duel=UNKNOWN, move="evade")
        assert_same_answer(got, duel, unknown)
        await settle(database)
        assert await snapshot(database) == before


async def choices(
    fake: FakeDiscord,
    guild: FakeGuild | None,
    user: FakeUser,
    name: str,
    focused: str,
    sub: str | None = None,
    **opts: Any,
) -> list[Any]:
    handle = await fake.autocomplete(
        guild.id if guild else None,
        guild.channel_ids[0] if guild else None,
        user.id,
        name,
        focused,
        subcommand=sub,
        options=opts,
    )
    return [c["value"] for c in (await handle.response()).data["choices"]]


async def test_autocompletes_list_only_what_the_caller_may_name(
    fake_discord: FakeDiscord, database: Database
) -> None:
    async with hall(fake_discord, database) as h:
        fake, w = h.fake, h.w
        one, two = h.duel_id, h.other_duel_id
        # In DMs: the caller's own duels, whatever their server; a stranger's: none.
        assert await choices(fake, None, w.ann, "odds", "duel") == [one]
        assert await choices(fake, None, h.zed, "odds", "duel") == [two]
        assert await choices(fake, None, w.outsider, "odds", "duel") == []
        assert await choices(fake, None, w.ann, "move", "duel") == [one]
        assert await choices(fake, None, h.zed, "move", "duel") == [two]
        # In a server: that server's duels (for /move, the caller's own there).
        assert await choices(fake, h.other, h.zed, "odds", "duel") == [two]
        assert await choices(fake, w.guild, w.outsider, "odds", "duel") == [one]
        assert await choices(fake, w.guild, w.outsider, "duel", "duel", "status") == [one]
        assert await choices(fake, w.guild, w.outsider, "move", "duel") == []
        assert await choices(fake, w.guild, w.bob, "move", "duel") == [one]
        # What is typed is only text to filter by, however large a number.
        assert await choices(fake, None, w.ann, "odds", "duel", duel=f"#{one}") == [one]
        assert await choices(fake, None, w.ann, "odds", "duel", duel="9" * 30) == []
        # The move list of a duel that is not the caller's is the default one, as for an
        # unknown number (never the duel's own ruleset).
        default = await choices(fake, w.guild, w.outsider, "move", "move", duel=UNKNOWN)
        assert await choices(fake, w.guild, w.outsider, "move", "move", duel=one) == default


# -- class 4: role settings ----------------------------------------------------------------


async def test_everyone_and_managed_roles_are_refused(
    fake_discord: FakeDiscord, database: Database
) -> None:
    fake = fake_discord
    people = populate(fake)
    guild = people["guild"]
    booster = fake.add_role(guild.id, "Server Booster", premium_subscriber=True)
    twitch = fake.add_role(guild.id, "Twitch Subscriber", integration_id=fake.snowflake())
    other_bot = fake.add_user("helperbot", bot=True)
    other_bot_role = fake.add_role(guild.id, "helperbot", bot_id=other_bot.id)
    own_bot_role = next(r for r in guild.roles.values() if r.bot_id == fake.bot_user.id)
    async with running_world(fake, database, people) as w:
        await w.slash(w.commander, "config", "commander-role", role=w.commander_role_id)
        await settle(database)
        before = await snapshot(database)
        for setting in ("commander-role", "admin-role"):
            reply = await w.slash(w.commander, "config", setting, role=guild.id)
            assert reply.ephemeral and "@everyone cannot be the" in reply.content, reply.content
            assert "Pick a role" in reply.content
            for role in (booster, twitch, other_bot_role, own_bot_role):
                reply = await w.slash(w.commander, "config", setting, role=role.id)
                assert reply.ephemeral and "it is managed by" in reply.content, reply.content
                assert "Pick a role that you assign yourself" in reply.content
        assert (
            "Server Booster"
            in (await w.slash(w.commander, "config", "admin-role", role=booster.id)).content
        )
        await settle(database)
        assert await snapshot(database) == before
        settings = await w.services.settings.get(guild.id)
        assert settings.commander_role_id == w.commander_role_id
        assert settings.admin_role_id is None


# -- class 5: who can duel -----------------------------------------------------------------


async def test_bots_and_non_members_cannot_duel_or_get_stats(
    fake_discord: FakeDiscord, database: Database
) -> None:
    fake = fake_discord
    people = populate(fake)
    guild = people["guild"]
    other_bot = fake.add_member(guild.id, fake.add_user("helperbot", bot=True)).user
    stranger = fake.add_user("stranger")  # a Discord user, not a member of this server
    async with running_world(fake, database, people) as w:
        for user in (w.ann, w.bob):
            await w.slash(w.commander, "stats", "set", member=user.id, str=5, agi=3)
        await settle(database)
        before = await snapshot(database)
        refused = {fake.bot_user.id: "is a bot", other_bot.id: "is a bot"}
        refused[stranger.id] = "is not a member of this server"
        for user_id, why in refused.items():
            replies = [
                await w.slash(w.commander, "duel", "start", a=w.ann.id, b=user_id),
                await w.slash(w.commander, "duel", "start", a=user_id, b=w.bob.id),
                await w.slash(
                    w.commander,
                    "duel",
                    "challenge",
                    challenger=user_id,
                    challenged=w.ann.id,
                    accepted=True,
                ),
                await w.slash(
                    w.commander,
                    "duel",
                    "challenge",
                    challenger=w.ann.id,
                    challenged=user_id,
                    accepted=True,
                ),
                await w.slash(w.commander, "stats", "set", member=user_id, str=5, agi=3),
                await w.slash(
                    w.commander,
                    "sheet",
                    "set",
                    member=user_id,
                    ruleset="by-this-axe",
                    fields="character=hero",
                ),
            ]
            for reply in replies:
                assert reply.ephemeral and why in reply.content, reply.content
        await settle(database)
        assert await snapshot(database) == before
        # A member who is not a bot still can.
        assert (
            "Duel #"
            in (await w.slash(w.commander, "duel", "start", a=w.ann.id, b=w.bob.id)).content
        )


# -- class 7: numbers beyond our ids -------------------------------------------------------


async def test_numbers_beyond_our_ids_are_unknown_duels(
    fake_discord: FakeDiscord, database: Database, caplog: pytest.LogCaptureFixture
) -> None:
    """On PostgreSQL `#2147483648 evade` used to overflow the integer column ("Something
    went wrong" and a traceback, for anyone, again and again)."""
    caplog.set_level(logging.WARNING)
    async with hall(fake_discord, database) as h:
        fake, w = h.fake, h.w
        before = await snapshot(database)
        unknown_dm = await dm_text(fake, w.ann, f"#{UNKNOWN} evade")
        unknown_button = await click(fake, w.ann, f"duelbot:move:{UNKNOWN}:1:evade")
        unknown_move = await w.slash(w.ann, "move", duel=UNKNOWN, move="evade")
        unknown_status = await w.slash(w.ann, "duel", "status", duel=UNKNOWN)
        unknown_odds = await dm_slash(fake, w.ann, "odds", duel=UNKNOWN)
        for number in HUGE:
            assert_same_answer(await dm_text(fake, w.ann, f"#{number} evade"), number, unknown_dm)
            assert_same_answer(await dm_text(fake, w.ann, f"# {number}: ev"), number, unknown_dm)
            button = await click(fake, w.ann, f"duelbot:move:{number}:1:evade")
            assert_same_answer(button, number, unknown_button)
            # A client that ignores the registered range (or a stale command schema).
            for name, sub, opts, unknown, where in (
                ("move", None, {"duel": number, "move": "evade"}, unknown_move, w.guild.id),
                ("duel", "status", {"duel": number}, unknown_status, w.guild.id),
                ("odds", None, {"duel": number}, unknown_odds, None),
            ):
                handle = await fake.invoke_slash(
                    where,
                    w.channel_id if where else None,
                    w.ann.id,
                    name,
                    subcommand=sub,
                    options=opts,
                    enforce_limits=False,
                )
                # discord.py[speed] reads the gateway's JSON with orjson, which gives an
                # integer beyond 64 bits as a float: the answer is the same, the number shown
                # is that float's (Discord's clients stay within the registered range).
                beyond_64_bits = number >= 2**64
                reply = await handle.reply()
                assert_same_answer(reply, number, unknown, any_number=beyond_64_bits)
        await settle(database)
        assert await snapshot(database) == before
        # Discord's clients are kept within the range by the registered option.
        duel_option = fake.command("move")["options"][0]
        assert (duel_option["min_value"], duel_option["max_value"]) == (1, ID_MAX)
    no_error_logged(caplog)


async def test_cli_verify_numbers_beyond_our_ids(migrated_db_url: str) -> None:
    """`duelbot verify --duel N --round K` reads the database: both numbers are checked."""
    duel_id = await closed_round(migrated_db_url)
    duelbot = str(Path(sys.executable).with_name("duelbot"))
    env = {**os.environ, "DUELBOT_DATABASE_URL": migrated_db_url}
    env.pop("DUELBOT_CONFIG", None)
    for args, needle in (
        (["--duel", str(ID_MAX + 1), "--round", "1"], f"There is no duel #{ID_MAX + 1}."),
        (["--duel", str(duel_id), "--round", str(ID_MAX + 1)], f"has no round {ID_MAX + 1}"),
    ):
        done = subprocess.run(
            [duelbot, "verify", *args], env=env, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 2, done.stderr
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
        assert needle in done.stderr, done.stderr
