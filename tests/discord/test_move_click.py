"""A move button's custom_id is read back once, straight from the click (issue 27): what
the button is made with is what the click reads."""

from __future__ import annotations

import pytest

from bot.discord.intake_buttons import MoveButton, MoveClick, click_of_custom_id


@pytest.mark.parametrize(
    ("duel_id", "round_no", "move"),
    [
        (1, 1, "evade"),
        (123456789012, 42, "stake=death;style=quick;slot=0"),
        (7, 3, "reroll:trick:1"),
    ],
)
def test_a_button_made_is_the_click_read(duel_id: int, round_no: int, move: str) -> None:
    button = MoveButton(duel_id, round_no, move, "Label")
    custom_id = button.item.custom_id
    assert custom_id is not None
    assert click_of_custom_id(custom_id) == MoveClick(duel_id, round_no, move)


@pytest.mark.parametrize(
    "custom_id",
    [
        "duelbot:ladder:1",  # another button of the bot
        "duelbot:move:1:1:",  # no move
        "duelbot:move:x:1:evade",  # not a number
        "duelbot:move:1:1:Evade",  # move ids are lower case
        "duelbot:move:1:1:evade extra",  # trailing text
        "xduelbot:move:1:1:evade",
    ],
)
def test_other_custom_ids_are_not_move_clicks(custom_id: str) -> None:
    assert click_of_custom_id(custom_id) is None
