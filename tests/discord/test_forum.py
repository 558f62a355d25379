"""Forum channels (issue 13 item 2): the stand-in's forum rules, /config duel-forum, and a
whole duel played in a forum post through the real bot and the stand-in."""

from __future__ import annotations

from typing import Any

import aiohttp

from tests.fakediscord import FakeDiscord
from tests.fakediscord.forum import CANNOT_SEND_IN_FORUM, CHANNEL_FORUM, TAG_REQUIRED


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
