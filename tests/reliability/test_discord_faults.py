"""Faults at Discord during a duel in progress, through the fake Discord and the real
discord.py client: 500s, 429s (Retry-After and the rate-limit headers, per-route and
global), responses slower than the poster's timeout, a dropped gateway connection (RESUME),
an invalidated session (re-IDENTIFY) and 403/50007 on a duellist's DMs.

Every scenario plays the same piece of a duel with the fault in place: round 1 open, Ann
clicks her button, Bob types his move, the commander closes the round and opens round 2.
Then the outbox must drain and, counted by the ``duelbot post #<id>`` marker over every
message in the fake: posts lost 0, posts duplicated 0. The time to recover (fault injected
-> every post delivered) is printed as a FIGURE line (``pytest -s``) for docs/reliability.md.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select

from bot.db.engine import Database
from bot.db.models import OutboxPost
from bot.discord.workers import poster, webhooks
from bot.presentation.discord_posts import marker_ids
from tests.discord.harness import World, forum_duellists, populate, running_world
from tests.discord.test_full_duel import setup_duel
from tests.fakediscord import FakeDiscord

# Discord faults do not depend on the database: SQLite only.
pytestmark = pytest.mark.parametrize("db_backend", ["sqlite"])

CHANNEL_POST = "/channels/*/messages"


async def wait_for(check: Callable[[], Awaitable[bool]], timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while not await check():
        assert time.monotonic() < end, f"timed out: {what}"
        await asyncio.sleep(0.05)


async def outbox_rows(database: Database) -> list[OutboxPost]:
    async with database.transaction() as session:
        return list((await session.execute(select(OutboxPost))).scalars())


def markers(fake: FakeDiscord) -> Counter[int]:
    seen: Counter[int] = Counter()
    for message in fake.messages.values():
        if message.deleted:
            continue
        ids: set[int] = set()
        for embed in message.embeds:
            ids |= marker_ids((embed.get("footer") or {}).get("text"))
        seen.update(ids)
    return seen


def buttons_disabled(fake: FakeDiscord, prompt: OutboxPost) -> bool:
    if prompt.posted_message_id is None:
        return True
    message = fake.messages.get(prompt.posted_message_id)
    items = [c for row in (message.components if message else []) for c in row["components"]]
    return all(c.get("disabled") for c in items)


async def audit(fake: FakeDiscord, database: Database, blocked: set[int]) -> dict[str, int]:
    """Posts lost / duplicated once the outbox has drained. A DM to a duellist whose DMs
    are closed is not lost when the channel got the "DMs closed" notice instead."""
    rows = await outbox_rows(database)
    seen = markers(fake)
    lost = duplicated = dm_closed = 0
    for row in rows:
        if row.kind == "buttons_closed":
            # An edit, not a message: done when every prompt it names that was posted shows
            # its buttons disabled (a prompt never posted has none).
            rid, side = row.payload["round_id"], row.payload["side"]
            prompts = [
                p
                for p in rows
                if p.dedupe_key == f"round_dm:{rid}:{side}"
                or p.dedupe_key.startswith(f"reminder:{rid}:{side}:")
            ]
            if row.status != "posted" or not all(buttons_disabled(fake, p) for p in prompts):
                lost += 1
            continue
        if seen[row.id] > 1:
            duplicated += 1
        if row.status == "failed" and row.target == "user" and row.target_id in blocked:
            dm_closed += 1
            continue
        if row.status == "posted" and row.posted_message_id is None:
            continue  # skipped on purpose (a prompt for a round that had closed)
        if row.status != "posted" or seen[row.id] == 0:
            lost += 1
    return {"posts": len(rows), "lost": lost, "duplicated": duplicated, "dm_closed": dm_closed}


async def drained(database: Database) -> bool:
    return all(row.status != "pending" for row in await outbox_rows(database))


async def play(
    w: World, duel_id: int, *, during: Callable[[], Awaitable[None]] | None = None
) -> None:
    """Ann clicks, Bob types, the commander closes round 1 and opens round 2."""
    fake = w.fake
    prompt = next(
        m for m in fake.dms_to(w.ann.id) if f"duelbot:move:{duel_id}:1:evade" in m.custom_ids()
    )
    click = await fake.click_button(w.ann.id, prompt, f"duelbot:move:{duel_id}:1:evade")
    await fake.send_dm(w.bob.id, f"#{duel_id} side swipe")
    if during is not None:
        await during()
    assert "Evade" in (await click.reply(timeout=15)).content
    receipts = await fake.wait_for_dms(w.bob.id, 2, timeout=15)
    assert "Side Swipe" in receipts[-1].content
    assert "closed" in (await w.slash(w.commander, "round", "close", duel=duel_id)).content
    assert "Round 2" in (await w.slash(w.commander, "round", "open", duel=duel_id)).content


async def scenario(
    fake: FakeDiscord,
    database: Database,
    name: str,
    inject: Callable[[World], Awaitable[None]],
    *,
    during: Callable[[World], Awaitable[None]] | None = None,
    timeout: float = 40.0,
) -> dict[str, Any]:
    people = populate(fake)
    blocked: set[int] = set()
    if name == "dm_403":
        blocked.add(people["ann"].id)
        fake.block_dms(people["ann"].id)
    async with running_world(fake, database, people) as w:

        async def no_wait(shard_id: int | None, *, initial: bool = False) -> None:
            return None  # discord.py sleeps 5 s before a re-IDENTIFY

        w.bot.before_identify_hook = no_wait  # type: ignore[method-assign]
        duel_id = await setup_duel(w)
        assert "Round 1" in (await w.slash(w.commander, "round", "open", duel=duel_id)).content
        if name != "dm_403":
            await fake.wait_for_dms(w.ann.id, 1, timeout=10)
        await fake.wait_for_dms(w.bob.id, 1, timeout=10)
        began = time.monotonic()
        await inject(w)
        if name == "dm_403":
            # Ann's DMs are closed from round 1: she moves with /move instead.
            reply = await w.slash(w.ann, "move", duel=duel_id, move="evade")
            assert "Evade" in reply.content
            await fake.send_dm(w.bob.id, f"#{duel_id} side swipe")
            await fake.wait_for_dms(w.bob.id, 2, timeout=15)
            assert "closed" in (await w.slash(w.commander, "round", "close", duel=duel_id)).content
            assert "Round 2" in (await w.slash(w.commander, "round", "open", duel=duel_id)).content
        else:
            await play(w, duel_id, during=None if during is None else lambda: during(w))
        await wait_for(lambda: drained(database), timeout, "the outbox drains")
        recovered = time.monotonic() - began
        figures = await audit(fake, database, blocked)
        seen = markers(fake)
        figures["dm_closed_notices"] = sum(
            seen[row.id] for row in await outbox_rows(database) if row.kind == "dm_closed"
        )
        result_posts = [
            m
            for m in fake.messages_in(w.channel_id)
            if "Side Swipe" in str(m.embeds) and "Evade" in str(m.embeds)
        ]
        figures.update(name=name, recover_s=round(recovered, 2), results=len(result_posts))
    print(f"FIGURE discord-fault {figures}")
    return figures


def check(figures: dict[str, Any]) -> None:
    assert figures["lost"] == 0, figures
    assert figures["duplicated"] == 0, figures
    assert figures["results"] == 1, figures


def channel_webhook(fake: FakeDiscord) -> str:
    """The path pattern of the channel's "duelbot" webhook (made for the duel's first post),
    not of interaction followups, which are POST /webhooks/{application id}/{token} too."""
    [hook] = [h for h in fake.webhooks.values() if h.name == webhooks.WEBHOOK_NAME]
    return f"/webhooks/{hook.id}/*"


async def test_500s_on_posts(fake_discord: FakeDiscord, database: Database) -> None:
    # discord.py retries a 5xx itself, sleeping 1 s, 3 s, 5 s, 7 s between its 5 tries.
    async def inject(w: World) -> None:
        fake_discord.fail_next("POST", channel_webhook(fake_discord), 500, times=2)
        fake_discord.fail_next("POST", CHANNEL_POST, 502, times=2)
        fake_discord.fail_next("POST", f"/webhooks/{fake_discord.application_id}/*", 500, times=1)

    check(await scenario(fake_discord, database, "500/502 on posts, DMs and a followup", inject))


@pytest.mark.slow
async def test_500s_beyond_discord_py_retries(
    fake_discord: FakeDiscord, database: Database
) -> None:
    # 5 x 500: discord.py gives up (after 16 s); the outbox retries the post (backoff 2 s)
    # and first looks for it in the channel.
    async def inject(w: World) -> None:
        fake_discord.fail_next("POST", channel_webhook(fake_discord), 500, times=5)

    check(await scenario(fake_discord, database, "500 x5 on the webhook (outbox retry)", inject))


async def test_429s_with_retry_after(fake_discord: FakeDiscord, database: Database) -> None:
    async def inject(w: World) -> None:
        fake_discord.rate_limit_next(
            "POST", channel_webhook(fake_discord), retry_after=0.5, times=3
        )
        fake_discord.rate_limit_next("POST", CHANNEL_POST, retry_after=0.3, times=2)
        fake_discord.rate_limit_next(
            "POST", "/interactions/*/*/callback", retry_after=0.2, times=1, is_global=True
        )

    figures = await scenario(fake_discord, database, "429 route + global", inject)
    check(figures)
    hits = [r for r in fake_discord.requests if r.status == 429]
    assert len(hits) == 6


async def test_slow_responses_past_the_client_timeout(
    fake_discord: FakeDiscord, database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The poster gives one post POST_TIMEOUT (60 s); here 1 s, and the webhook answers
    # after 2.5 s: the post lands at Discord but the bot never sees the answer.
    monkeypatch.setattr(poster, "POST_TIMEOUT", 1.0)

    async def inject(w: World) -> None:
        fake_discord.delay("POST", channel_webhook(fake_discord), 2.5, times=2)

    check(await scenario(fake_discord, database, "slow webhook x2 (2.5 s > 1 s timeout)", inject))


async def test_dropped_gateway_connection_resumes(
    fake_discord: FakeDiscord, database: Database
) -> None:
    async def inject(w: World) -> None:
        return None

    async def during(w: World) -> None:
        # The click and the DM are in flight; the socket drops; they are replayed on RESUME.
        await fake_discord.drop_connection()

    figures = await scenario(
        fake_discord, database, "gateway dropped (RESUME)", inject, during=during
    )
    check(figures)
    [session] = fake_discord.gateway.live_sessions()
    assert session.resumes >= 1


async def test_invalidated_session_reidentifies(
    fake_discord: FakeDiscord, database: Database
) -> None:
    async def inject(w: World) -> None:
        before = len(fake_discord.gateway.sessions)
        await fake_discord.invalidate_session(resumable=False)
        loop = asyncio.get_running_loop()
        end = loop.time() + 10
        while (
            len([s for s in fake_discord.gateway.live_sessions() if s.connected]) < 1
            or len(fake_discord.gateway.sessions) <= before
        ):
            assert loop.time() < end, "no re-IDENTIFY"
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.2)

    check(await scenario(fake_discord, database, "session invalidated (re-IDENTIFY)", inject))


async def test_dms_closed_403_50007(fake_discord: FakeDiscord, database: Database) -> None:
    async def inject(w: World) -> None:
        return None

    figures = await scenario(fake_discord, database, "dm_403", inject)
    check(figures)
    assert figures["dm_closed"] == 2  # her round 1 and round 2 DMs, given up on 50007
    assert figures["dm_closed_notices"] == 2  # one notice per round in the duel's channel


async def test_responses_dropped_after_the_post_landed(
    fake_discord: FakeDiscord, database: Database
) -> None:
    # The strict fake (issue 13): the webhook's and the bot's posts take effect, but their
    # answers are cut off, and a bot-token read of the channel shows webhook messages
    # without content or embeds. The retry must find each landed post (the webhook's
    # through the webhook's own token, the bot's by its nonce and marker): one of each.
    assert not fake_discord.message_content_intent

    async def inject(w: World) -> None:
        fake_discord.drop_response_next("POST", channel_webhook(fake_discord), times=2)
        fake_discord.drop_response_next("POST", CHANNEL_POST, times=2)

    figures = await scenario(fake_discord, database, "responses dropped after success", inject)
    check(figures)
    dropped = [r for r in fake_discord.requests if r.dropped]
    assert len(dropped) == 4, [(r.method, r.path) for r in dropped]
    # the webhook's messages were looked up through its token, not trusted from history
    hook = channel_webhook(fake_discord).removesuffix("/*")
    reads = [r for r in fake_discord.requests if r.method == "GET" and r.path.startswith(hook)]
    assert reads, "no webhook message read through the webhook token"


async def test_webhook_post_dropped_then_retried_is_posted_once(
    fake_discord: FakeDiscord, database: Database
) -> None:
    """The simplest case, on its own: one webhook post (the round result) whose response is
    lost; the poster retries it; exactly one message carries its marker."""

    async def inject(w: World) -> None:
        fake_discord.drop_response_next("POST", channel_webhook(fake_discord), times=1)

    figures = await scenario(fake_discord, database, "one webhook response dropped", inject)
    check(figures)
    assert [r.dropped for r in fake_discord.requests].count(True) == 1


async def test_a_dropped_post_is_found_behind_a_busy_channel(
    fake_discord: FakeDiscord, database: Database
) -> None:
    """The result's webhook post lands but its answer is lost; before the retry (2 s later)
    members write 120 messages in the channel. The retry reads the channel from the post's
    first attempt on, oldest first, so it still finds the landed post: one message carries
    its marker (it read the newest 50 before, and posted it twice)."""
    chatter: list[asyncio.Task[None]] = []

    async def talk_once_dropped(w: World) -> None:
        while not any(r.dropped for r in fake_discord.requests):
            await asyncio.sleep(0.02)
        for i in range(120):
            await fake_discord.send_guild_message(w.channel_id, w.ann.id, f"chatter {i}")

    async def inject(w: World) -> None:
        fake_discord.drop_response_next("POST", channel_webhook(fake_discord), times=1)
        chatter.append(asyncio.create_task(talk_once_dropped(w)))

    figures = await scenario(fake_discord, database, "dropped post, busy channel", inject)
    await chatter[0]
    check(figures)
    assert [r.dropped for r in fake_discord.requests].count(True) == 1


async def test_forum_post_and_result_with_dropped_answers(
    fake_discord: FakeDiscord, database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In the duel forum (issue 13 item 2), with the strict fake: the answer to the forum post
    that carries the card is lost, and so is the answer to the round result's webhook post
    into that forum post. One forum post, one card, one result."""
    monkeypatch.setattr("bot.services.outbox.backoff", lambda attempts: timedelta(0))
    fake = fake_discord
    people = populate(fake)
    forum = fake.add_forum_channel(people["guild"].id, "duels", tags=["open", "ended"])
    async with running_world(fake, database, people) as w:
        await forum_duellists(w, forum.id)
        fake.drop_response_next("POST", f"/channels/{forum.id}/threads")
        reply = await w.slash(w.commander, "duel", "start", a=w.ann.id, b=w.bob.id)
        duel_id = int(reply.content.split("Duel #")[1].split()[0])
        await w.slash(w.commander, "round", "open", duel=duel_id)
        prompt = (await fake.wait_for_dms(w.ann.id, 1, timeout=15))[-1]
        click = await fake.click_button(w.ann.id, prompt, f"duelbot:move:{duel_id}:1:evade")
        assert "Evade" in (await click.reply(timeout=15)).content
        await fake.wait_for_dms(w.bob.id, 1, timeout=15)
        await fake.send_dm(w.bob.id, f"#{duel_id} side swipe")
        await fake.wait_for_dms(w.bob.id, 2, timeout=15)
        await wait_for(lambda: drained(database), 30, "the card and the round opening go out")
        [post] = [c for c in fake.channels.values() if c.parent_id == forum.id]
        [hook] = [h for h in fake.webhooks.values() if h.channel_id == forum.id]
        fake.drop_response_next("POST", f"/webhooks/{hook.id}/*")
        assert "closed" in (await w.slash(w.commander, "round", "close", duel=duel_id)).content
        await wait_for(lambda: drained(database), 30, "the outbox drains")
        figures = await audit(fake, database, set())
        assert figures["lost"] == 0 and figures["duplicated"] == 0, figures
        assert len([r for r in fake.requests if r.dropped]) == 2
        assert len([c for c in fake.channels.values() if c.parent_id == forum.id]) == 1
        results = [
            m
            for m in fake.messages_in(post.id)
            if "Side Swipe" in str(m.embeds) and "Evade" in str(m.embeds)
        ]
        assert len(results) == 1
