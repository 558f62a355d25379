"""The Discord layer words a service error's next step (issue 12): the services give the
structured fields, bot/discord/errors.py adds the slash command or the DM syntax."""

from __future__ import annotations

from discord import app_commands

from bot.discord.errors import NEXT_STEP_HINTS, UNAVAILABLE, user_message
from bot.services.errors import (
    AmbiguousDuel,
    DomainError,
    NextStep,
    NotFound,
    StateConflict,
    Unavailable,
)


def test_every_next_step_has_a_discord_hint() -> None:
    assert set(NEXT_STEP_HINTS) == set(NextStep)


def test_a_close_hint_names_the_duel() -> None:
    error = StateConflict(
        "Round 2 of duel #5 is still open: close it before opening another.",
        duel_id=5,
        round_no=2,
        next_step=NextStep.CLOSE_ROUND,
    )
    assert user_message(error) == (
        "Round 2 of duel #5 is still open: close it before opening another. "
        "`/round close duel:5` closes it."
    )


def test_a_sheet_hint_names_the_ruleset_and_wrapped_errors_render_alike() -> None:
    error = NotFound("Bob has no X sheet.", ruleset="x-rules", next_step=NextStep.SET_SHEET)
    wrapped = app_commands.CommandInvokeError.__new__(app_commands.CommandInvokeError)
    wrapped.original = error
    expected = (
        "Bob has no X sheet. A commander sets it with "
        "`/sheet set member:<member> ruleset:x-rules fields:...`."
    )
    assert user_message(error) == expected
    assert user_message(wrapped) == expected


def test_the_dm_example_uses_the_first_duel() -> None:
    error = AmbiguousDuel("You are in several open duels (#3 vs A, #4 vs B).", (3, 4))
    assert user_message(error) == (
        "You are in several open duels (#3 vs A, #4 vs B). "
        "Put the duel number first, for example `#3 evade`."
    )


def test_no_next_step_is_the_message_and_unavailable_is_the_fixed_text() -> None:
    assert user_message(DomainError("Plain.")) == "Plain."
    assert user_message(Unavailable("disk I/O error")) == UNAVAILABLE
