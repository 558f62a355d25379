"""The strict fake (issue 13): Discord's per-field limits with its real error codes, message
content hidden from bot-token reads without the MESSAGE_CONTENT intent, enforce_nonce, and a
fault that drops the response of a request that succeeded. Driven through the real
discord.py client, as the bot would hit them."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest

from tests.fakediscord import FakeDiscord, run_bot
from tests.fakediscord.pytest_plugin import fake_discord  # noqa: F401  (fixture)


class Bot(discord.Client):
    def __init__(self) -> None:
        super().__init__(intents=discord.Intents.default())


@pytest.fixture
async def bot(fake_discord: FakeDiscord) -> AsyncIterator[discord.Client]:  # noqa: F811
    fake_discord.expect_limit_refusals = True  # these tests send over-limit payloads
    fake_discord.add_guild("Duel Hall")
    async with run_bot(Bot(), fake_discord) as client:
        yield client


def channel_of(fake: FakeDiscord, client: discord.Client) -> discord.TextChannel:
    [guild] = fake.guilds.values()
    channel = client.get_channel(guild.channel_ids[0])
    assert isinstance(channel, discord.TextChannel)
    return channel


async def refused(call: Any) -> discord.HTTPException:
    with pytest.raises(discord.HTTPException) as info:
        await call
    return info.value


def errors_at(exc: discord.HTTPException) -> None:
    """400 Invalid Form Body; discord.py flattens its errors tree into the text
    ("In embeds.0.title: Must be 256 or fewer in length.")."""
    assert exc.status == 400 and exc.code == 50035, (exc.status, exc.code, exc.text)


@pytest.mark.parametrize(
    ("embed", "where", "limit"),
    [
        (discord.Embed(title="t" * 257), "embeds.0.title", 256),
        (discord.Embed(description="d" * 4097), "embeds.0.description", 4096),
        (discord.Embed().set_footer(text="f" * 2049), "embeds.0.footer.text", 2048),
        (discord.Embed().set_author(name="a" * 257), "embeds.0.author.name", 256),
        (discord.Embed().add_field(name="n" * 257, value="v"), "embeds.0.fields.0.name", 256),
        (discord.Embed().add_field(name="n", value="v" * 1025), "embeds.0.fields.0.value", 1024),
    ],
)
async def test_each_embed_field_limit_is_enforced_with_50035(
    fake_discord: FakeDiscord,  # noqa: F811
    bot: discord.Client,
    embed: discord.Embed,
    where: str,
    limit: int,
) -> None:
    channel = channel_of(fake_discord, bot)
    exc = await refused(channel.send(embed=embed))
    errors_at(exc)
    assert f"In {where}: Must be {limit} or fewer in length." in exc.text
    assert fake_discord.messages_in(channel.id) == []
    # At the limit it goes through.
    ok = discord.Embed.from_dict(embed.to_dict())
    await channel.send(embed=_at_limit(ok, where, limit))
    assert len(fake_discord.messages_in(channel.id)) == 1


def _at_limit(embed: discord.Embed, where: str, limit: int) -> discord.Embed:
    data = embed.to_dict()
    node: Any = data
    keys = where.split(".")[2:]
    for key in keys[:-1]:
        node = node[int(key)] if key.isdigit() else node[key]
    node[keys[-1]] = node[keys[-1]][:limit]
    return discord.Embed.from_dict(data)


async def test_fields_embeds_and_total_size(
    fake_discord: FakeDiscord,  # noqa: F811
    bot: discord.Client,
) -> None:
    channel = channel_of(fake_discord, bot)
    many = discord.Embed()
    for i in range(26):
        many.add_field(name=str(i), value="v")
    exc = await refused(channel.send(embed=many))
    errors_at(exc)
    assert "In embeds.0.fields: Must be 25 or fewer in length." in exc.text
    # 2 x (4096 + 256) = 8704 > 6000 characters over the message's embeds
    big = [discord.Embed(title="t" * 256, description="d" * 4096) for _ in range(2)]
    exc = await refused(channel.send(embeds=big))
    errors_at(exc)
    answer = fake_discord.requests[-1].response
    assert answer["errors"]["embeds"]["_errors"][0]["code"] == "MAX_EMBED_SIZE_EXCEEDED"
    # content over 2000
    exc = await refused(channel.send("x" * 2001))
    assert "In content: Must be 2000 or fewer in length." in exc.text
    # more than 10 embeds: discord.py refuses before sending; the fake refuses too
    body = {"embeds": [{"title": str(i)} for i in range(11)]}
    status, answer = await raw(fake_discord, "POST", f"/channels/{channel.id}/messages", body)
    assert status == 400 and answer["code"] == 50035
    assert answer["errors"]["embeds"]["_errors"][0]["code"] == "BASE_TYPE_MAX_LENGTH"
    assert fake_discord.messages_in(channel.id) == []


async def raw(fake: FakeDiscord, method: str, path: str, body: Any) -> tuple[int, Any]:
    async with (
        aiohttp.ClientSession() as session,
        session.request(
            method,
            f"{fake.api_base_url}{path}",
            json=body,
            headers={"Authorization": f"Bot {fake.token}"},
        ) as response,
    ):
        return response.status, await response.json(content_type=None)


def button(custom_id: str, label: str = "Go") -> dict[str, Any]:
    return {"type": 2, "style": 1, "label": label, "custom_id": custom_id}


async def test_component_limits(fake_discord: FakeDiscord, bot: discord.Client) -> None:  # noqa: F811
    channel_id = channel_of(fake_discord, bot).id
    path = f"/channels/{channel_id}/messages"
    cases = [
        ([{"type": 1, "components": [button("a", "L" * 81)]}], "label", "BASE_TYPE_MAX_LENGTH"),
        ([{"type": 1, "components": [button("c" * 101)]}], "custom_id", "BASE_TYPE_BAD_LENGTH"),
        (
            [{"type": 1, "components": [button("same"), button("same")]}],
            "custom_id",
            "COMPONENT_CUSTOM_ID_DUPLICATED",
        ),
        (
            [{"type": 1, "components": [button(str(i)) for i in range(6)]}],
            None,
            "BASE_TYPE_MAX_LENGTH",
        ),
    ]
    for components, key, code in cases:
        status, answer = await raw(
            fake_discord, "POST", path, {"content": "pick", "components": components}
        )
        assert status == 400 and answer["code"] == 50035, answer
        row = answer["errors"]["components"]["0"]["components"]
        node = row["_errors"] if key is None else next(iter(row.values()))[key]["_errors"]
        assert node[0]["code"] == code, answer
    rows = [{"type": 1, "components": [button(f"row {r}")]} for r in range(6)]
    status, answer = await raw(fake_discord, "POST", path, {"content": "x", "components": rows})
    assert status == 400 and "components" in answer["errors"]
    assert fake_discord.messages_in(channel_id) == []
    ok = [
        {"type": 1, "components": [button(f"{r}:{i}", "L" * 80) for i in range(5)]}
        for r in range(5)
    ]
    status, _ = await raw(fake_discord, "POST", path, {"content": "x", "components": ok})
    assert status == 200


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("My Discord Hook", "USERNAME_INVALID_CONTAINS"),
        ("xCLYDEx", "USERNAME_INVALID_CONTAINS"),
        ("n" * 81, "BASE_TYPE_BAD_LENGTH"),
        ("here", "USERNAME_INVALID"),
    ],
)
async def test_webhook_names_are_checked_on_create_and_on_execute(
    fake_discord: FakeDiscord,  # noqa: F811
    bot: discord.Client,
    name: str,
    code: str,
) -> None:
    channel = channel_of(fake_discord, bot)
    exc = await refused(channel.create_webhook(name=name))
    errors_at(exc)
    assert fake_discord.requests[-1].response["errors"]["name"]["_errors"][0]["code"] == code
    hook = await channel.create_webhook(name="duelbot")
    exc = await refused(hook.send("hello", username=name, wait=True))
    assert exc.status == 400 and exc.code == 50035
    assert fake_discord.requests[-1].response["errors"]["username"]["_errors"][0]["code"] == code
    assert fake_discord.messages_in(channel.id) == []
    await hook.send("hello", username="Commander Vimes", wait=True)
    assert len(fake_discord.messages_in(channel.id)) == 1


async def test_fifteen_webhooks_per_channel(
    fake_discord: FakeDiscord,  # noqa: F811
    bot: discord.Client,
) -> None:
    channel = channel_of(fake_discord, bot)
    for i in range(15):
        await channel.create_webhook(name=f"hook {i}")
    exc = await refused(channel.create_webhook(name="one too many"))
    assert exc.status == 400 and exc.code == 30007
    assert "Maximum number of webhooks reached (15)" in exc.text


async def test_bot_token_reads_hide_what_the_bot_did_not_author(
    fake_discord: FakeDiscord,  # noqa: F811
    bot: discord.Client,
) -> None:
    channel = channel_of(fake_discord, bot)
    hook = await channel.create_webhook(name="duelbot")
    by_hook = await hook.send("as the hook", embed=discord.Embed(title="card"), wait=True)
    own = await channel.send("as the bot", embed=discord.Embed(title="own"))
    [guild] = fake_discord.guilds.values()
    member = fake_discord.add_member(guild.id, "member").user
    other = await fake_discord.send_guild_message(channel.id, member, "hello all")

    read = {m.id: m async for m in channel.history(limit=10)}
    assert read[own.id].content == "as the bot" and read[own.id].embeds[0].title == "own"
    assert read[by_hook.id].content == "" and read[by_hook.id].embeds == []
    assert read[by_hook.id].webhook_id == hook.id  # still found by its webhook id
    assert read[other].content == ""
    fetched = await channel.fetch_message(by_hook.id)
    assert fetched.content == "" and fetched.embeds == []
    # The webhook's own token reads its message in full.
    through_hook = await hook.fetch_message(by_hook.id)
    assert through_hook.content == "as the hook" and through_hook.embeds[0].title == "card"
    # With the intent on, everything is visible.
    fake_discord.message_content_intent = True
    fetched = await channel.fetch_message(by_hook.id)
    assert fetched.content == "as the hook" and fetched.embeds[0].title == "card"


async def test_enforce_nonce_returns_the_first_message(
    fake_discord: FakeDiscord,  # noqa: F811
    bot: discord.Client,
) -> None:
    channel = channel_of(fake_discord, bot)
    first = await channel.send("result", nonce="duelbot:7")
    again = await channel.send("result", nonce="duelbot:7")
    assert again.id == first.id
    assert len(fake_discord.messages_in(channel.id)) == 1
    other = await channel.send("result", nonce="duelbot:8")
    assert other.id != first.id
    # Past the window, the nonce is forgotten.
    fake_discord.nonce_window = 0.0
    late = await channel.send("result", nonce="duelbot:7")
    assert late.id != first.id
    assert len(fake_discord.messages_in(channel.id)) == 3


async def test_over_limit_payloads_fail_the_fakes_check_unless_expected(
    fake_discord: FakeDiscord,  # noqa: F811
    bot: discord.Client,
) -> None:
    channel = channel_of(fake_discord, bot)
    await refused(channel.send("x" * 2001))
    [refusal] = fake_discord.limit_refusals
    assert refusal.startswith(f"POST /channels/{channel.id}/messages: ") and "50035" in refusal
    fake_discord.expect_limit_refusals = False
    with pytest.raises(AssertionError, match="over Discord's limits"):
        fake_discord.check()
    fake_discord.limit_refusals.clear()
    fake_discord.check()


async def test_a_dropped_response_still_takes_effect(
    fake_discord: FakeDiscord,  # noqa: F811
    bot: discord.Client,
) -> None:
    channel = channel_of(fake_discord, bot)
    hook = await channel.create_webhook(name="duelbot")
    fault = fake_discord.drop_response_next("POST", f"/webhooks/{hook.id}/*")
    with pytest.raises((aiohttp.ClientError, OSError)):
        await hook.send("landed", wait=True)
    assert fault.hits == 1
    [msg] = fake_discord.messages_in(channel.id)
    assert msg.content == "landed"
    executes = fake_discord.requests_to("POST", "/webhooks/{webhook_id}/{token}")
    assert [r.dropped for r in executes] == [True]
    # A refused request is answered normally (nothing took effect, nothing to drop).
    fake_discord.drop_response_next("POST", "/channels/*/messages")
    exc = await refused(channel.send("x" * 2001))
    assert exc.code == 50035
    with pytest.raises((aiohttp.ClientError, OSError)):
        await channel.send("next")  # the fault is still armed: this one loses its answer
    assert [m.content for m in fake_discord.messages_in(channel.id)] == ["landed", "next"]


def test_autocomplete_answers_are_checked() -> None:
    from tests.fakediscord.limits import LimitRefused, check_autocomplete

    check_autocomplete({"choices": [{"name": "n" * 100, "value": "v" * 100}] * 25})
    with pytest.raises(LimitRefused) as info:
        check_autocomplete({"choices": [{"name": "x", "value": "x"}] * 26})
    assert info.value.status == 400 and info.value.body["code"] == 50035
    tree = info.value.body["errors"]["data"]["choices"]["_errors"]
    assert tree[0]["code"] == "BASE_TYPE_MAX_LENGTH"
    with pytest.raises(LimitRefused) as info:
        check_autocomplete({"choices": [{"name": "", "value": "v" * 101}]})
    choice = info.value.body["errors"]["data"]["choices"]["0"]
    assert choice["name"]["_errors"][0]["code"] == "BASE_TYPE_BAD_LENGTH"
    assert choice["value"]["_errors"][0]["code"] == "BASE_TYPE_MAX_LENGTH"


async def test_text_discord_cannot_carry_is_refused_both_ways(
    fake_discord: FakeDiscord,  # noqa: F811
    bot: discord.Client,
) -> None:
    """Discord keeps strings as UTF-8: a lone surrogate sent by a bot is 400 / 50035, and a
    member cannot type one (nor a control character, nor more than 2,000 characters), so the
    stand-in never hands the bot an event its JSON reader refuses (issue 23)."""
    fake = fake_discord
    channel = channel_of(fake, bot)
    async with aiohttp.ClientSession() as http, http.post(
        f"{fake.api_base_url}/channels/{channel.id}/messages",
        # discord.py[speed] (orjson) cannot even encode it: a raw body, as another client might
        data=b'{"content": "a\\ud800b", "embeds": []}',
        headers={"Authorization": f"Bot {fake.token}", "Content-Type": "application/json"},
    ) as response:
        status, body = response.status, await response.json()
    assert (status, body["code"], body["message"]) == (400, 50035, "Invalid Form Body")
    [error] = body["errors"]["content"]["_errors"]
    assert error["code"] == "STRING_TYPE_INVALID_UNICODE", body
    assert fake.messages_in(channel.id) == []
    await channel.send("a pair is fine: \U0001f600")
    assert len(fake.messages_in(channel.id)) == 1

    [guild] = fake.guilds.values()
    ann = fake.add_member(guild.id, "ann").user
    for text, words in (
        ("evade \ud800", "lone surrogate U+D800"),
        ("\udfff", "lone surrogate U+DFFF"),
        ("eva\x00de", "control character U+0000"),
        ("x" * 2001, "at most 2000"),
        ("   ", "empty"),
    ):
        with pytest.raises(ValueError, match=re.escape(words)):
            await fake.send_dm(ann.id, text)
        with pytest.raises(ValueError, match=re.escape(words)):
            await fake.send_guild_message(channel.id, ann.id, text)
    with pytest.raises(ValueError, match="lone surrogate"):
        await fake.invoke_slash(guild.id, channel.id, ann.id, "anything",
                                options={"move": "\ud800"}, require_registered=False)
    assert fake.dms_to(ann.id) == [] and len(fake.messages_in(channel.id)) == 1
    assert fake.interactions == {}
    await fake.send_dm(ann.id, "tab\tand\nnew line, \U0001f600")  # what a client does send


def test_number_options_stay_within_discords_range() -> None:
    """INTEGER and NUMBER option values are -2^53..2^53 on Discord whatever the command
    registered, and never NaN or infinite; enforce_limits=False still sends them (a modified
    client, as tests/security/test_scoping.py needs)."""
    from tests.fakediscord.options import INTEGER, NUMBER, build_command_data

    fake = FakeDiscord()
    fake.add_user("ann")
    cmd = {"id": "1", "name": "roll", "options": [
        {"name": "times", "type": INTEGER, "description": "d"},
        {"name": "bias", "type": NUMBER, "description": "d"},
    ]}

    def build(enforce: bool = True, **options: Any) -> Any:
        return build_command_data(fake, cmd, "roll", None, None, options, None, 1,
                                  enforce_limits=enforce)

    build(times=2**53, bias=-(2.0**53))
    for options in ({"times": 2**53 + 1}, {"times": -(2**64)}, {"bias": float("inf")},
                    {"bias": float("nan")}, {"bias": 1e300}):
        with pytest.raises(ValueError, match=re.escape("outside Discord's range")):
            build(**options)
    assert build(False, times=2**70)["options"][0]["value"] == 2**70
