"""Forum channels (issue 13 item 2): the stand-in's forum rules, /config duel-forum, and a
whole duel played in a forum post through the real bot and the stand-in."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from types import SimpleNamespace
from typing import Any

import aiohttp
import discord
import pytest

from bot.db.engine import Database
from bot.discord.forum import tags_for
from tests.discord.harness import forum_duellists, populate, running_world
from tests.discord.test_full_duel import all_text
from tests.fakediscord import FakeDiscord
from tests.fakediscord.forum import CANNOT_SEND_IN_FORUM, CHANNEL_FORUM, TAG_REQUIRED
from tests.fakediscord.models import EMBED_LINKS, MANAGE_WEBHOOKS, FakeChannel


async def _rest(fake: FakeDiscord, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    headers = {"Authorization": f"Bot {fake.token}"}
    async with (
        aiohttp.ClientSession() as http,
        http.request(method, fake.api_base_url + path, json=body, headers=headers) as response,
    ):
        return response.status, await response.json(content_type=None)


async def test_the_stand_in_keeps_discords_forum_rules(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    guild = fake.add_guild("Forums")
    forum = fake.add_forum_channel(guild.id, "duels", tags=["open", "ended"], require_tag=True)
    open_tag = fake.forums.tag_named(forum.id, "open")
    ended_tag = fake.forums.tag_named(forum.id, "ended")

    status, channel = await _rest(fake, "GET", f"/channels/{forum.id}")
    assert status == 200 and channel["type"] == CHANNEL_FORUM
    assert {t["name"] for t in channel["available_tags"]} == {"open", "ended"}
    assert channel["flags"] & (1 << 4)

    status, error = await _rest(fake, "POST", f"/channels/{forum.id}/messages", {"content": "x"})
    assert (status, error["code"]) == (400, CANNOT_SEND_IN_FORUM)

    post = {"name": "Duel #1", "message": {"content": "card"}}
    status, error = await _rest(fake, "POST", f"/channels/{forum.id}/threads", post)
    assert (status, error["code"]) == (400, TAG_REQUIRED)
    too_many = {**post, "applied_tags": [str(open_tag.id)] * 6}
    status, error = await _rest(fake, "POST", f"/channels/{forum.id}/threads", too_many)
    assert (status, error["code"]) == (400, 50035)
    stranger = {**post, "applied_tags": ["123"]}
    status, error = await _rest(fake, "POST", f"/channels/{forum.id}/threads", stranger)
    assert (status, error["code"]) == (400, 50035)
    status, error = await _rest(
        fake, "POST", f"/channels/{forum.id}/threads", {"name": "x", "applied_tags": []}
    )
    assert status == 400

    status, thread = await _rest(
        fake, "POST", f"/channels/{forum.id}/threads", {**post, "applied_tags": [str(open_tag.id)]}
    )
    assert status in (200, 201), thread
    assert thread["type"] == 11 and thread["parent_id"] == str(forum.id)
    assert thread["message"]["id"] == thread["id"]
    assert thread["applied_tags"] == [str(open_tag.id)]
    assert [m.content for m in fake.messages_in(int(thread["id"]))] == ["card"]

    status, edited = await _rest(
        fake, "PATCH", f"/channels/{thread['id']}", {"applied_tags": [str(ended_tag.id)]}
    )
    assert status == 200 and edited["applied_tags"] == [str(ended_tag.id)]
    status, error = await _rest(fake, "PATCH", f"/channels/{thread['id']}", {"applied_tags": []})
    assert (status, error["code"]) == (400, TAG_REQUIRED)

    status, active = await _rest(fake, "GET", f"/guilds/{guild.id}/threads/active")
    assert status == 200 and [t["id"] for t in active["threads"]] == [thread["id"]]


# ---------------------------------------------------------------------------------------
# the bot
# ---------------------------------------------------------------------------------------


def _duel_id(reply: Any) -> int:
    return int(reply.content.split("Duel #")[1].split()[0])


async def _post_of(fake: FakeDiscord, forum_id: int, count: int = 1) -> list[FakeChannel]:
    async def posts() -> list[FakeChannel] | None:
        found = [c for c in fake.channels.values() if c.parent_id == forum_id and c.type == 11]
        return found if len(found) >= count else None

    for _ in range(300):
        found = await posts()
        if found is not None:
            return found
        await asyncio.sleep(0.05)
    raise AssertionError(f"no post in forum {forum_id}")


async def _until(check: Any, timeout: float = 15.0) -> None:
    for _ in range(int(timeout / 0.05)):
        if check():
            return
        await asyncio.sleep(0.05)
    assert check()


async def test_a_whole_duel_runs_in_the_duel_forum(
    fake_discord: FakeDiscord, database: Database
) -> None:
    fake = fake_discord
    people = populate(fake)
    forum = fake.add_forum_channel(
        people["guild"].id, "duels", tags=["Open", "question", "ENDED"], require_tag=True
    )
    async with running_world(fake, database, people) as w:
        reply = await w.slash(w.commander, "config", "duel-forum", channel=forum.id)
        assert "Duel forum set to" in reply.content, reply.content
        assert (await w.services.settings.get(w.guild.id)).duel_forum_id == forum.id

        await w.slash(w.commander, "stats", "set", member=w.ann.id, str=5, agi=3)
        await w.slash(w.commander, "stats", "set", member=w.bob.id, str=4, agi=2)
        reply = await w.slash(w.commander, "duel", "start", a=w.ann.id, b=w.bob.id)
        duel_id = _duel_id(reply)
        assert "Its post opens in" in reply.content
        # The first round is opened before the post exists: it waits for the card.
        reply = await w.slash(w.commander, "round", "open", duel=duel_id, deadline="36h")
        assert "Round 1" in reply.content

        (post,) = await _post_of(fake, forum.id)
        assert post.name.startswith(f"Duel #{duel_id}:")
        assert fake.forums.applied_names(post.id, forum.id) == ["Open"]
        messages = await fake.wait_for_messages(post.id, 2, timeout=15)
        card, opening = messages[0], messages[1]
        assert card.id == post.id  # the card is the post's first message
        assert f"Duel #{duel_id}" in all_text(card)
        assert "Round 1" in all_text(opening) or "round 1" in all_text(opening).lower()
        duel = await w.services.duels.get_duel(duel_id)
        assert (duel.channel_id, duel.thread_id) == (forum.id, post.id)

        # Moves by button and by DM text.
        prompt = (await fake.wait_for_dms(w.ann.id, 1, timeout=15))[-1]
        handle = await fake.click_button(w.ann.id, prompt, f"duelbot:move:{duel_id}:1:evade")
        assert "Evade" in (await handle.reply()).content
        await fake.wait_for_dms(w.bob.id, 1, timeout=15)
        await fake.send_dm(w.bob.id, "FFS")
        await fake.wait_for_dms(w.bob.id, 2, timeout=15)

        closed = await w.slash(w.commander, "round", "close", duel=duel_id)
        assert "closed" in closed.content
        posts = await fake.wait_for_messages(post.id, 3, timeout=15)
        assert "Evade" in all_text(posts[-1]) and "Full Frontal Strike" in all_text(posts[-1])
        # Posted on behalf of the commander, through the forum's webhook.
        assert posts[-1].webhook_id is not None
        assert fake.forums.applied_names(post.id, forum.id) == ["Open"]

        # Round 2, then the commander ends the duel: the tag follows.
        await w.slash(w.commander, "round", "open", duel=duel_id)
        await fake.wait_for_messages(post.id, 4, timeout=15)
        ended = await w.slash(w.commander, "duel", "end", duel=duel_id, reason="time")
        assert ended.ephemeral
        await fake.wait_for_messages(post.id, 5, timeout=15)
        await _until(lambda: fake.forums.applied_names(post.id, forum.id) == ["ENDED"])

        # Nothing went to the text channel where the duel was started, nothing to the
        # forum itself (Discord refuses that: 40058), and one post for the one duel.
        assert [m for m in fake.messages_in(w.channel_id)] == []
        assert fake.requests_to("POST", f"/channels/{forum.id}/messages") == []
        assert len(await _post_of(fake, forum.id)) == 1
        fake.check()


async def test_duel_start_in_a_thread_or_forum_post_keeps_the_duel_there(
    fake_discord: FakeDiscord, database: Database
) -> None:
    fake = fake_discord
    people = populate(fake)
    forum = fake.add_forum_channel(people["guild"].id, "duels", tags=["open"])
    thread = fake.add_thread(people["channel_id"], "ladder night")
    async with running_world(fake, database, people, thread_per_duel=True) as w:
        await forum_duellists(w, forum.id)
        handle = await fake.invoke_slash(
            w.guild.id,
            thread.id,
            w.commander.id,
            "duel",
            subcommand="start",
            options={"a": w.ann.id, "b": w.bob.id},
        )
        reply = await handle.reply()
        duel_id = _duel_id(reply)
        # thread_per_duel is not silently ignored: the commander is told why.
        assert "already a thread" in reply.content and "thread_per_duel" in reply.content
        await fake.wait_for_messages(thread.id, 1, timeout=15)
        duel = await w.services.duels.get_duel(duel_id)
        assert (duel.channel_id, duel.thread_id) == (people["channel_id"], thread.id)
        assert [c for c in fake.channels.values() if c.parent_id == forum.id] == []
        assert fake.messages_in(w.channel_id) == []


async def test_config_duel_forum_refuses_what_would_not_work(
    fake_discord: FakeDiscord, database: Database
) -> None:
    fake = fake_discord
    people = populate(fake)
    guild = people["guild"]
    plain = fake.add_forum_channel(guild.id, "plain", tags=["open", "ended"])
    strict = fake.add_forum_channel(guild.id, "strict", tags=["question"], require_tag=True)
    moderated = fake.add_forum_channel(guild.id, "modded", tags=["open"], moderated=["open"])
    thread = fake.add_thread(people["channel_id"], "a thread")
    async with running_world(fake, database, people) as w:
        for channel_id, expected in (
            (w.channel_id, "is a text channel, not a forum channel"),
            (thread.id, "is a thread, not a forum channel"),
            (strict.id, 'has no tag named "open" or "ongoing"'),
            (moderated.id, 'Manage Threads (the tag "open" is moderated)'),
        ):
            reply = await w.slash(w.commander, "config", "duel-forum", channel=channel_id)
            assert reply.ephemeral and expected in reply.content, reply.content
            assert "Nothing was changed" in reply.content
            assert (await w.services.settings.get(guild.id)).duel_forum_id is None
        # Not an admin: refused before anything is looked at.
        reply = await w.slash(w.outsider, "config", "duel-forum", channel=plain.id)
        assert "Manage Server" in reply.content

        reply = await w.slash(w.commander, "config", "duel-forum", channel=plain.id)
        assert "Duel forum set to" in reply.content
        assert (await w.services.settings.get(guild.id)).duel_forum_id == plain.id
        shown = await w.slash(w.commander, "config", "show")
        assert f"<#{plain.id}>: each new duel gets its own post there" in json.dumps(shown.body)
        # Without a channel: cleared, and duels stay where they are started.
        reply = await w.slash(w.commander, "config", "duel-forum")
        assert "No duel forum" in reply.content
        assert (await w.services.settings.get(guild.id)).duel_forum_id is None


async def test_config_duel_forum_names_the_missing_permissions(
    fake_discord: FakeDiscord, database: Database
) -> None:
    fake = fake_discord
    people = populate(fake)
    guild = people["guild"]
    for role_id in guild.members[fake.bot_user.id].role_ids:
        guild.roles[role_id].permissions &= ~(MANAGE_WEBHOOKS | EMBED_LINKS)
    guild.everyone_role.permissions &= ~EMBED_LINKS
    forum = fake.add_forum_channel(guild.id, "duels", tags=["open", "ended"])
    async with running_world(fake, database, people) as w:
        reply = await w.slash(w.commander, "config", "duel-forum", channel=forum.id)
        assert "I am missing permissions in" in reply.content
        assert "Embed Links, Manage Webhooks." in reply.content, reply.content
        assert (await w.services.settings.get(guild.id)).duel_forum_id is None


async def test_a_retried_card_finds_the_post_an_earlier_attempt_made(
    fake_discord: FakeDiscord, database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The post was made but its thread never recorded (a crash, a lost answer): the retry
    finds the post by its name among the forum's active threads instead of making another."""
    fake = fake_discord
    people = populate(fake)
    forum = fake.add_forum_channel(people["guild"].id, "duels", tags=["open", "ended"])
    async with running_world(fake, database, people) as w:
        await forum_duellists(w, forum.id)
        real_attach = w.services.duels.attach_thread
        failures: list[int] = []

        async def attach_fails_once(*, duel_id: int, thread_id: int) -> Any:
            if not failures:
                failures.append(thread_id)
                raise ConnectionError("lost before the thread was recorded")
            return await real_attach(duel_id=duel_id, thread_id=thread_id)

        monkeypatch.setattr(w.services.duels, "attach_thread", attach_fails_once)
        monkeypatch.setattr("bot.services.outbox.backoff", lambda attempts: timedelta(0))
        duel_id = _duel_id(await w.slash(w.commander, "duel", "start", a=w.ann.id, b=w.bob.id))
        await _until(lambda: bool(failures))
        for _ in range(300):
            if (await w.services.duels.get_duel(duel_id)).thread_id is not None:
                break
            await asyncio.sleep(0.05)
        duel = await w.services.duels.get_duel(duel_id)
        assert duel.thread_id == failures[0]
        assert len(await _post_of(fake, forum.id)) == 1


def test_tags_follow_the_duel_and_keep_the_others() -> None:
    def tag(tag_id: int, name: str) -> discord.ForumTag:
        made = discord.ForumTag(name=name)
        made.id = tag_id
        return made

    opened, ended, question, extra = tag(1, " Open "), tag(2, "ended"), tag(3, "q"), tag(4, "x")
    forum: Any = SimpleNamespace(
        available_tags=[opened, ended, question, extra],
        flags=SimpleNamespace(require_tag=False),
    )
    ids = lambda tags: None if tags is None else [t.id for t in tags]  # noqa: E731
    assert ids(tags_for(forum, [question, opened], ended=True)) == [3, 2]
    assert ids(tags_for(forum, [question, ended], ended=False)) == [3, 1]  # an undo
    assert tags_for(forum, [opened], ended=False) is None  # nothing to change
    full = [question, extra, tag(5, "a"), tag(6, "b"), opened]
    assert ids(tags_for(forum, full, ended=True)) == [3, 4, 5, 6, 2]  # at most 5
    only_open: Any = SimpleNamespace(
        available_tags=[opened], flags=SimpleNamespace(require_tag=True)
    )
    # A forum that requires a tag and has no ended tag keeps "open" rather than none.
    assert tags_for(only_open, [opened], ended=True) is None
    only_open.flags.require_tag = False
    assert ids(tags_for(only_open, [opened], ended=True)) == []


# ---------------------------------------------------------------------------------------
# issue 23 item 9: a duel whose thread or forum post was deleted
# ---------------------------------------------------------------------------------------


async def test_the_stand_in_answers_a_deleted_thread_with_discords_codes(
    fake_discord: FakeDiscord,
) -> None:
    fake = fake_discord
    guild = fake.add_guild("Forums")
    forum = fake.add_forum_channel(guild.id, "duels", tags=["open"])
    hook = fake.add_webhook(forum.id)
    first = {"name": "Duel #1", "message": {"content": "c"}}
    status, thread = await _rest(fake, "POST", f"/channels/{forum.id}/threads", first)
    assert status in (200, 201), thread
    status, _ = await _rest(fake, "DELETE", f"/channels/{thread['id']}")
    assert status == 200
    status, error = await _rest(fake, "GET", f"/channels/{thread['id']}")
    assert (status, error["code"]) == (404, 10003)
    sent = {"content": "x"}
    status, error = await _rest(fake, "POST", f"/channels/{thread['id']}/messages", sent)
    assert (status, error["code"]) == (404, 10003)
    status, error = await _rest(
        fake, "POST", f"/webhooks/{hook.id}/{hook.token}?wait=true&thread_id={thread['id']}",
        {"content": "x"},
    )
    assert (status, error["code"]) == (404, 10003)
    status, error = await _rest(fake, "GET", f"/channels/{thread['id']}/messages/{thread['id']}")
    assert (status, error["code"]) == (404, 10003)
    assert fake.messages_in(int(thread["id"])) == []


async def _audit(database: Database, duel_id: int, action: str) -> list[dict[str, Any]]:
    from sqlalchemy import select

    from bot.db.models import AuditEntry

    async with database.transaction() as s:
        rows = (
            await s.execute(
                select(AuditEntry).where(AuditEntry.duel_id == duel_id, AuditEntry.action == action)
            )
        ).scalars()
        return [dict(r.details) for r in rows]


async def _play_round_one(w: Any, fake: FakeDiscord, duel_id: int) -> None:
    await fake.wait_for_dms(w.ann.id, 1, timeout=15)
    await fake.send_dm(w.ann.id, "evade")
    await fake.wait_for_dms(w.ann.id, 2, timeout=15)
    await fake.wait_for_dms(w.bob.id, 1, timeout=15)
    await fake.send_dm(w.bob.id, "FFS")
    await fake.wait_for_dms(w.bob.id, 2, timeout=15)


async def test_a_deleted_forum_post_sends_the_result_to_the_commander(
    fake_discord: FakeDiscord, database: Database
) -> None:
    """The duel's forum post is deleted mid-duel: the round's result, refused there with 404
    10003, is not lost: it reaches the commander by DM (the duel's channel is the forum, which
    takes no messages), saying why, and the duel's audit records where it went and why."""
    fake = fake_discord
    people = populate(fake)
    forum = fake.add_forum_channel(people["guild"].id, "duels", tags=["open", "ended"])
    async with running_world(fake, database, people) as w:
        await forum_duellists(w, forum.id)
        duel_id = _duel_id(await w.slash(w.commander, "duel", "start", a=w.ann.id, b=w.bob.id))
        await w.slash(w.commander, "round", "open", duel=duel_id)
        (post,) = await _post_of(fake, forum.id)
        await fake.wait_for_messages(post.id, 2, timeout=15)
        await _play_round_one(w, fake, duel_id)

        fake.delete_channel(post.id)  # a moderator deletes the duel's post
        dms_before = len(fake.dms_to(w.commander.id))
        closed = await w.slash(w.commander, "round", "close", duel=duel_id)
        assert "closed" in closed.content, closed.content

        dms = await fake.wait_for_dms(w.commander.id, dms_before + 1, timeout=15)
        result = all_text(dms[-1])
        assert "Evade" in result and "Full Frontal Strike" in result, result
        assert f"duel #{duel_id} is gone" in result, result
        audit = await _audit(database, duel_id, "post.rerouted")
        assert len(audit) == 1, audit
        assert audit[0]["to"] == "dm" and audit[0]["to_id"] == w.commander.id, audit
        assert audit[0]["kind"] == "round_result" and "10003" in audit[0]["reason"], audit
        # Nothing went to the forum itself or to the channel it was started from.
        assert fake.requests_to("POST", f"/channels/{forum.id}/messages") == []
        assert fake.messages_in(w.channel_id) == []
        fake.check()


@pytest.mark.parametrize("bot_told", [True, False], ids=["thread-delete-seen", "unseen"])
async def test_a_deleted_duel_thread_sends_the_result_to_the_duels_channel(
    fake_discord: FakeDiscord, database: Database, bot_told: bool
) -> None:
    """thread_per_duel: the duel's thread is deleted; the result goes to the channel the duel
    was started from (through its webhook, on behalf of the commander), says why, and the
    audit records it. Unseen: the bot still has the thread cached (no THREAD_DELETE, as a
    process without the server's shard) and the webhook's 10003 is what tells it."""
    fake = fake_discord
    people = populate(fake)
    async with running_world(fake, database, people, thread_per_duel=True) as w:
        await w.slash(w.commander, "stats", "set", member=w.ann.id, str=5, agi=3)
        await w.slash(w.commander, "stats", "set", member=w.bob.id, str=4, agi=2)
        duel_id = _duel_id(await w.slash(w.commander, "duel", "start", a=w.ann.id, b=w.bob.id))
        for _ in range(300):
            duel = await w.services.duels.get_duel(duel_id)
            if duel.thread_id is not None:
                break
            await asyncio.sleep(0.05)
        assert duel.thread_id is not None and duel.channel_id == w.channel_id
        await w.slash(w.commander, "round", "open", duel=duel_id)
        await fake.wait_for_messages(duel.thread_id, 1, timeout=15)
        await _play_round_one(w, fake, duel_id)

        fake.delete_channel(duel.thread_id, notify=bot_told)
        await w.slash(w.commander, "round", "close", duel=duel_id)
        posts = await fake.wait_for_messages(w.channel_id, 2, timeout=15)  # card, result
        result = all_text(posts[-1])
        assert "Evade" in result and "Full Frontal Strike" in result, result
        assert f"duel #{duel_id} is gone" in result, result
        audit = await _audit(database, duel_id, "post.rerouted")
        assert [(a["to"], a["to_id"]) for a in audit] == [("channel", w.channel_id)], audit
        assert posts[-1].webhook_id is not None  # on behalf of the commander, as before
        assert fake.dms_to(w.commander.id) == []
        fake.check()
