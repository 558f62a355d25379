"""Outbox messages (issue 12): one frozen dataclass per kind, versioned JSON, loud failures
on what this duelbot cannot read, and old unversioned rows still readable."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from typing import Any

import pytest

from bot.rules.registry import DEFAULT_RULESET_ID
from bot.rules.registry import get as get_ruleset
from bot.services.messages import (
    MESSAGE_TYPES,
    ButtonsClosed,
    ChallengePost,
    DmClosed,
    DuelEnd,
    DuelStart,
    FollowsUndo,
    MessageFormatError,
    MoveChoice,
    OutboxMessage,
    Party,
    PrivateNote,
    Reminder,
    RoundOpen,
    RoundPrompt,
    RoundResultPost,
    RoundUndone,
    parse_message,
)
from bot.services.published import read_published

WHEN = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)
ANN = Party(1, "Ann", {"strength": 5, "agility": 6})
BOB = Party(2, "Bob")

EXAMPLES: list[OutboxMessage] = [
    DuelStart(7, "rule_2_14", ANN, BOB, 9, {"change_of_choice": True}, True),
    RoundOpen(7, 2, "foeq", ANN, BOB, "c" * 64, WHEN, 9, ("a",)),
    RoundOpen(7, 1, "rule_2_14", ANN, BOB, "c" * 64, None, None),
    RoundPrompt(7, 2, "rule_2_14", "a", "Bob", 55, "c" * 64, WHEN, (MoveChoice("evade", "Evade"),)),
    RoundPrompt(7, 3, "foeq", "b", "Ann", None, "c" * 64, None, (), "Pick a style", False),
    Reminder(7, 2, "rule_2_14", "b", "Ann", 55, WHEN, (MoveChoice("evade", "Evade"),)),
    PrivateNote(7, 2, "foeq", "a", "Bob", 55, ("You learnt Bob's style.",)),
    RoundResultPost(
        7, 100, 2, ANN, BOB, read_published({"outcome": "a_wins", "ruleset": "rule_2_14"}),
        "Ann", "s" * 64,
        "c" * 64, 9, "commander", True, FollowsUndo(1, 9, "misclick"),
    ),
    RoundUndone(7, 2, "a_wins", 9, "misclick"),
    DuelEnd(7, ANN, BOB, "both left", 3),
    ChallengePost(
        None, "by-this-axe", "Ann challenges Bob", "refused", "Bob refuses", ANN, BOB,
        ("Bob loses his leadership",), ("Bob refuses.",), {"label": "force", "value": 5},
        "s" * 64, "c" * 64, False,
    ),
    DmClosed(7, 2, 1),
    ButtonsClosed(7, 2, "b", 40, "cancelled"),
]


def test_there_is_one_message_type_per_kind_and_every_one_is_frozen() -> None:
    assert set(MESSAGE_TYPES) == {
        "duel_start", "round_open", "round_dm", "reminder_dm", "private_note",
        "round_result", "round_undone", "duel_end", "challenge", "dm_closed", "buttons_closed",
    }
    assert {type(m).KIND for m in EXAMPLES} == set(MESSAGE_TYPES)
    for message in EXAMPLES:
        with pytest.raises(dataclasses.FrozenInstanceError):
            message.duel_id = 8  # type: ignore[misc]


@pytest.mark.parametrize("message", EXAMPLES, ids=lambda m: type(m).__name__)
def test_json_round_trip_carries_the_version(message: OutboxMessage) -> None:
    data = message.to_json()
    assert data["version"] == type(message).VERSION
    assert parse_message(message.KIND, data) == message


def test_an_unknown_kind_or_version_fails_loudly() -> None:
    with pytest.raises(MessageFormatError, match="unknown outbox message kind 'nope'"):
        parse_message("nope", {"version": 1})
    payload = DmClosed(7, 2, 1).to_json()
    for bad in (2, 0, "1", True, 1.0):
        with pytest.raises(MessageFormatError, match="version"):
            parse_message("dm_closed", {**payload, "version": bad})


@pytest.mark.parametrize("message", EXAMPLES, ids=lambda m: type(m).__name__)
def test_a_versioned_payload_missing_any_field_is_refused(message: OutboxMessage) -> None:
    data = message.to_json()
    for key in data:
        if key == "version":
            continue
        broken = {k: v for k, v in data.items() if k != key}
        if key in type(message).OPTIONAL_FIELDS:
            # Added to the version after rows were written: such a row still reads.
            assert parse_message(message.KIND, broken) is not None
            continue
        with pytest.raises(MessageFormatError, match=repr(key)):
            parse_message(message.KIND, broken)


def test_a_versioned_payload_with_a_wrong_type_is_refused() -> None:
    data = DmClosed(7, 2, 1).to_json()
    with pytest.raises(MessageFormatError, match="user_id"):
        parse_message("dm_closed", {**data, "user_id": "1"})
    prompt = RoundPrompt(7, 2, "rule_2_14", "a", "Bob", 55).to_json()
    with pytest.raises(MessageFormatError, match="side"):
        parse_message("round_dm", {**prompt, "side": "c"})
    closed = ButtonsClosed(7, 2, "a", 40).to_json()
    with pytest.raises(MessageFormatError, match="round_id"):
        parse_message("buttons_closed", {**closed, "round_id": "40"})
    with pytest.raises(MessageFormatError, match="reason"):
        parse_message("buttons_closed", {**closed, "reason": "exploded"})


# -- rows written before payloads carried a version ----------------------------------------


def test_an_old_round_dm_without_version_ruleset_or_moves_reads_as_the_default_ruleset() -> None:
    old: dict[str, Any] = {
        "duel_id": 3,
        "round_no": 1,
        "commitment": "c" * 64,
        "deadline": "2030-01-02T03:04:05",  # naive: stored as UTC
        "a": {"user_id": 1, "name": "Ann"},
        "b": {"user_id": 2, "name": "Bob"},
        "side": "a",
        "channel_id": 55,
    }
    message = parse_message("round_dm", old)
    assert isinstance(message, RoundPrompt)
    assert message.ruleset == DEFAULT_RULESET_ID
    assert message.opponent == "Bob"  # old prompts named both duellists
    assert message.deadline == WHEN
    every = tuple(MoveChoice(m.id, m.label) for m in get_ruleset(DEFAULT_RULESET_ID).moves())
    assert message.moves == every and every


def test_old_channel_posts_without_a_version_read_leniently() -> None:
    start = parse_message(
        "duel_start",
        {"duel_id": 3, "a": {"user_id": 1, "name": "Ann", "strength": 5}, "b": {"user_id": 2}},
    )
    assert isinstance(start, DuelStart)
    assert start.a == Party(1, "Ann", {"strength": 5})
    assert start.b.name == "Duellist B"
    assert (start.ruleset, start.options, start.make_thread) == (DEFAULT_RULESET_ID, None, False)
    result = parse_message(
        "round_result",
        {
            "duel_id": 3,
            "round_no": 2,
            "a": {"user_id": 1, "name": "Ann"},
            "b": {"user_id": 2, "name": "Bob"},
            "result": {"outcome": "a_wins", "ended": True, "follows_undo_of": 1},
            "seed": "s",
            "commitment": "c",
            "reason": "deadline",
        },
    )
    assert isinstance(result, RoundResultPost)
    assert result.ended is True and result.follows_undo == FollowsUndo(1, None, None)
    assert result.guild_id is None and result.winner_name is None
    note = parse_message("dm_closed", {"duel_id": 3, "round_no": None, "user_id": 1})
    assert note == DmClosed(3, None, 1)


def test_even_an_old_row_needs_what_no_post_can_do_without() -> None:
    with pytest.raises(MessageFormatError, match="duel_id"):
        parse_message("round_undone", {"round_no": 2})


def test_a_challenge_post_of_version_1_is_refused_by_name() -> None:
    """Version 2 carries the ruleset's words (headline, sentence, penalties); a version 1
    row (By This Axe's flags) left in the outbox across the upgrade is given up, named."""
    old = {"version": 1, "duel_id": None, "outcome": "refused", "leadership_lost": True}
    with pytest.raises(MessageFormatError, match=r"challenge payload version 1 .* reads version 2"):
        parse_message("challenge", old)
