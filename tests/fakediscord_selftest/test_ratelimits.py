"""The fake's opt-in rate-limit enforcement, driven by the real discord.py client."""

from __future__ import annotations

import asyncio

import discord

from tests.fakediscord import FakeDiscord, RateLimits, patch_discord, run_bot


async def test_off_by_default_and_per_channel_bucket_paces_discord_py() -> None:
    async with FakeDiscord() as fake:
        assert fake.ratelimiter is None and fake.rate_limited == []
        fake.enforce_rate_limits(RateLimits(channel_messages=(2, 0.3)))
        guild = fake.add_guild("G")
        with patch_discord(fake):
            client = discord.Client(intents=discord.Intents.none())
            async with run_bot(client, fake):
                channel = client.get_partial_messageable(guild.channel_ids[0])
                for i in range(5):
                    await channel.send(f"m{i}")
        posts = fake.requests_to("POST", "/channels/{channel_id}/messages")
        assert [r.status for r in posts] == [200] * 5
        # discord.py read X-RateLimit-Remaining 0 and waited for the reset: no 429
        assert fake.rate_limited == []
        assert posts[-1].at - posts[0].at >= 0.55


async def test_global_limit_answers_429_with_headers_and_counts_it() -> None:
    async with FakeDiscord(rate_limits=RateLimits(global_per_second=3)) as fake:
        guild = fake.add_guild("G")
        users = [fake.add_user(f"u{i}") for i in range(6)]
        with patch_discord(fake):
            client = discord.Client(intents=discord.Intents.none())
            async with run_bot(client, fake):
                await asyncio.sleep(1.05)  # login requests leave the window
                channels = [client.get_partial_messageable(c) for c in guild.channel_ids]
                for user in users:
                    dm = await client.create_dm(discord.Object(id=user.id))
                    await dm.send("hi")
                await channels[0].send("done")
        hits = fake.rate_limited
        assert hits and all(h.scope == "global" for h in hits)
        limited = [r for r in fake.requests if r.status == 429]
        assert len(limited) == len(hits)
        # every request was retried by discord.py until it went through
        assert (
            len(fake.requests_to("POST", "/channels/*/messages"))
            - len([r for r in limited if r.path.endswith("/messages")])
            == 7
        )
        assert all(r.response["global"] is True for r in limited)


async def test_interaction_callbacks_are_exempt() -> None:
    limits = RateLimits(global_per_second=1)
    async with FakeDiscord(rate_limits=limits) as fake:
        limiter = fake.ratelimiter
        assert limiter is not None
        app = str(fake.application_id)
        for _ in range(5):
            assert (
                limiter.check(
                    "POST",
                    "/interactions/1/t/callback",
                    "/interactions/{interaction_id}/{token}/callback",
                    {"interaction_id": "1", "token": "t"},
                    authorized=False,
                )
                == {}
            )
            assert (
                limiter.check(
                    "POST",
                    f"/webhooks/{app}/t",
                    "/webhooks/{webhook_id}/{token}",
                    {"webhook_id": app, "token": "t"},
                    authorized=False,
                )
                == {}
            )
        assert limiter.hits == [] and limiter.global_count == 0
