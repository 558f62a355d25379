"""Bot-side text limits (issue 13 item 3): long histories and lists keep the NEWEST entries
and count the rest ("N earlier: /duel export"), a DM status listing fits one message ("and N
more"), button labels are cut to 80 characters, and the webhook username sanitizer reaches a
fixed point."""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime, timedelta

import pytest

from bot.db.engine import Database
from bot.discord.workers.webhooks import webhook_username
from bot.presentation.discord_posts import LABEL_MAX, button_label, dm_buttons
from bot.presentation.discord_replies import (
    REPLY_MAX,
    duel_list_text,
    history_text,
    open_rounds_text,
)
from bot.services.messages import MoveChoice
from bot.services.published import read_published
from bot.services.views import (
    DuelHistory,
    DuellistView,
    DuelView,
    MemberRef,
    OpenDuelForUser,
    OpenRoundView,
    RoundRecord,
)
from tests.discord.harness import running_world
from tests.fakediscord import FakeDiscord

WHEN = datetime(2026, 1, 1, tzinfo=UTC)
EARLIER = re.compile(r"… (\d+)( or more)? earlier: /duel export")


def duel(number: int, *, name: str = "Ann", with_round: bool = False) -> DuelView:
    return DuelView(
        id=number,
        guild_id=1,
        channel_id=2,
        thread_id=None,
        ruleset="rule_2_14",
        a=DuellistView("a", 10, f"{name} the Long-Named Duellist of the Northern Marches"),
        b=DuellistView("b", 11, "Bob the Equally Long-Named Duellist of the South"),
        status="live",
        winner=None,
        end_reason=None,
        rounds_played=3,
        created_at=WHEN,
        open_round=OpenRoundView(1, WHEN, "c0ffee", 9, {"a": False, "b": True})
        if with_round
        else None,
    )


def closed_round(number: int) -> RoundRecord:
    return RoundRecord(
        number=number,
        status="closed",
        opened_by=9,
        opened_at=WHEN,
        deadline=None,
        commitment="c0ffee",
        closed_by=9,
        closed_at=WHEN,
        close_reason="all moves in",
        outcome="a_wins",
        result=read_published({"choices": {"a": "evade", "b": "ffs"}}),
        seed="00",
        undone_by=None,
        undone_at=None,
    )


def test_a_long_history_keeps_the_newest_rounds_and_counts_the_earlier_ones() -> None:
    history = DuelHistory(duel(7), tuple(closed_round(n) for n in range(1, 201)))
    text = history_text(history)
    assert len(text) <= REPLY_MAX
    lines = text.split("\n")
    assert lines[0].startswith("**Duel #7")
    match = EARLIER.fullmatch(lines[1])
    assert match is not None, lines[1]
    shown = [int(m) for m in re.findall(r"^Round (\d+)", text, re.MULTILINE)]
    # The newest round is there, the shown ones are the newest in order, none is lost.
    assert shown[-1] == 200
    assert shown == list(range(201 - len(shown), 201))
    assert int(match[1]) + len(shown) == 200


def test_a_short_history_is_whole_and_has_no_note() -> None:
    text = history_text(DuelHistory(duel(7), tuple(closed_round(n) for n in range(1, 4))))
    assert "earlier" not in text
    assert re.findall(r"^Round (\d+)", text, re.MULTILINE) == ["1", "2", "3"]


def test_a_long_list_keeps_the_newest_duels_and_counts_the_rest() -> None:
    duels = [duel(n, with_round=True) for n in range(50, 0, -1)]  # newest first
    text = duel_list_text(duels)
    assert len(text) <= REPLY_MAX
    shown = [int(m) for m in re.findall(r"^\*\*#(\d+)\*\*", text, re.MULTILINE)]
    assert shown[0] == 50 and shown == list(range(50, 50 - len(shown), -1))
    match = EARLIER.fullmatch(text.split("\n")[-1])
    assert match is not None and match[2] is None
    assert int(match[1]) + len(shown) == 50


def test_a_list_cut_by_the_service_says_or_more() -> None:
    text = duel_list_text([duel(2), duel(1)], complete=False)
    assert text.split("\n")[-1] == "… 1 or more earlier: /duel export"
    assert "#2" in text and "#1" in text


def test_dm_status_of_many_open_rounds_fits_one_message() -> None:
    rounds = [
        OpenDuelForUser(n, 1, 3, "a", "Bob the Equally Long-Named Duellist", WHEN + timedelta(n))
        for n in range(1, 61)
    ]
    text = open_rounds_text(rounds)
    assert len(text) <= 2000
    assert text.startswith("Your open rounds (60):")
    shown = re.findall(r"^- duel #(\d+)", text, re.MULTILINE)
    more = re.search(r"^… and (\d+) more$", text, re.MULTILINE)
    assert more is not None and int(more[1]) + len(shown) == 60
    assert shown[0] == "1"
    assert "Send your move" in text.split("\n")[-1]  # the how-to line is never cut off


def test_dm_status_of_a_few_rounds_is_whole() -> None:
    rounds = [OpenDuelForUser(n, 1, 3, "a", "Bob", None) for n in (4, 5)]
    text = open_rounds_text(rounds)
    assert "more" not in text.split("\n")[-2]
    assert len(re.findall(r"^- duel #", text, re.MULTILINE)) == 2


def test_button_labels_are_cut_to_80_characters() -> None:
    long = "Reroll: " + "the trick of the left-handed feint " * 5
    assert len(button_label(long)) == LABEL_MAX and button_label(long).endswith("…")
    assert button_label("Evade") == "Evade"
    moves = [MoveChoice("reroll:trick:1", long), MoveChoice("evade", "Evade")]
    assert [len(label) <= LABEL_MAX for _, label in dm_buttons(moves)] == [True, True]


@pytest.mark.parametrize(
    "name",
    [
        "discordiscord",
        "DiscordISCORD",
        "discorddiscord",
        "clydeclyde",
        "clyclyde",
        "cclydelyde",
        "Discord Clyde",
        "disc ord",
        "x" * 200 + "discord",
        "discord" * 30,
        "",
        "   ",
        "everyone",
        "Here",
        "d" * 79 + "iscord",
    ],
)
def test_the_webhook_username_sanitizer_reaches_a_fixed_point(name: str) -> None:
    cleaned = webhook_username(name)
    assert 1 <= len(cleaned) <= 80
    assert "discord" not in cleaned.lower() and "clyde" not in cleaned.lower()
    assert cleaned.lower() not in ("everyone", "here")
    assert cleaned == cleaned.strip()
    assert webhook_username(cleaned) == cleaned  # a fixed point: cleaning again changes nothing


def test_the_sanitizer_keeps_ordinary_names() -> None:
    assert webhook_username("Commander  Vimes") == "Commander Vimes"


async def test_status_and_list_through_the_strict_fake(
    fake_discord: FakeDiscord, database: Database
) -> None:
    """Ann in 30 duels with open rounds (opponents with long names): her DM "status" and
    `/duel list` still fit one message each (the strict fake would refuse more than 2,000
    characters, and its end-of-test check fails on any refusal)."""
    fake = fake_discord
    async with running_world(fake, database) as w:
        guild_id = w.guild.id
        ann = MemberRef(w.ann.id, w.ann.username)
        await w.services.profiles.set_stats(guild_id, w.commander.id, ann, 5, 3)
        for i in range(30):
            rival = fake.add_member(guild_id, f"Sir Rival the {i}th of a Long Line of Duellists")
            ref = MemberRef(rival.user.id, rival.user.username)
            await w.services.profiles.set_stats(guild_id, w.commander.id, ref, 4, 2)
            duel = await w.services.duels.start_duel(
                guild_id=guild_id, channel_id=w.channel_id, actor_id=w.commander.id, a=ann, b=ref
            )
            await w.services.duels.open_round(
                duel_id=duel.id, guild_id=guild_id, actor_id=w.commander.id, deadline=None
            )
        await fake.send_dm(w.ann.id, "status")
        for _ in range(300):
            answers = [m for m in fake.dms_to(w.ann.id) if "Your open rounds" in m.content]
            if answers:
                break
            await asyncio.sleep(0.05)
        [answer] = answers
        assert answer.content.startswith("Your open rounds (30):")
        assert len(answer.content) <= 2000
        more = re.search(r"^… and (\d+) more$", answer.content, re.MULTILINE)
        shown = re.findall(r"^- duel #", answer.content, re.MULTILINE)
        assert more is not None and int(more[1]) + len(shown) == 30

        listed = await w.slash(w.commander, "duel", "list")
        assert len(listed.content) <= 2000
        last = listed.content.split("\n")[-1]
        match = EARLIER.fullmatch(last)
        assert match is not None, last
        shown_duels = re.findall(r"^\*\*#(\d+)\*\*", listed.content, re.MULTILINE)
        assert int(match[1]) + len(shown_duels) == 30
        assert fake.limit_refusals == []
