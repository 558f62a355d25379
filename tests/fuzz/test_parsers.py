"""Bad input, pure parsers: the DM parser (split_duel_prefix + parse_move), the move parser
and the deadline parser never crash; every refusal is a specific, non-empty error."""

from __future__ import annotations

import unicodedata
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from bot.discord.cogs.intake import split_duel_prefix
from bot.rules.errors import InvalidChoice
from bot.rules.rule_2_14.moves import MOVE_IDS, parse_move
from bot.services.deadlines import MAX_DEADLINE, MIN_DEADLINE, parse_deadline, parse_duration
from bot.services.errors import InvalidInput
from tests.fuzz import budget
from tests.fuzz.strategies import BIDI, ZERO_WIDTH, dm_text, sprinkled, token

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


# -- the DM parser ---------------------------------------------------------------------


def check_dm_text(text: str) -> None:
    duel_id, rest = split_duel_prefix(text)
    assert rest == rest.strip()
    if duel_id is not None:
        # Any length: the services answer a number beyond our ids as an unknown duel.
        assert duel_id >= 0
        assert text.lstrip().startswith("#")
    try:
        move = parse_move(rest)
    except InvalidChoice as exc:
        assert exc.message and "is not a move" in exc.message and "Allowed:" in exc.message
        assert "\n" not in exc.message.split("is not a move")[1]
        return
    assert move in MOVE_IDS


@budget.fast()
@given(dm_text)
@example("#12 evade")
@example("#\u0661\u0662 evade")  # Arabic-Indic digits
@example("\u202eedave")
@example("#" + "9" * 13 + " evade")
def test_dm_text(text: str) -> None:
    check_dm_text(text)


@pytest.mark.slow
@budget.slow("dm_text_pure")
@given(dm_text)
def test_dm_text_100k(text: str) -> None:
    check_dm_text(text)


def test_dm_prefix_examples() -> None:
    assert split_duel_prefix("#12 evade") == (12, "evade")
    assert split_duel_prefix("  # 7: ffs ") == (7, "ffs")
    assert split_duel_prefix("evade") == (None, "evade")
    # A long number is still the duel number, not part of the move (issue 10).
    assert split_duel_prefix("#99999999999999999999 evade") == (10**20 - 1, "evade")


# -- the move parser -------------------------------------------------------------------


def check_move(text: str) -> None:
    try:
        move = parse_move(text)
    except InvalidChoice as exc:
        assert exc.message.endswith(".") and "is not a move" in exc.message
        assert len(exc.message) < 400  # echoes at most 40 characters of the input
        return
    assert move in MOVE_IDS
    # Invisible characters never change what a text means.
    stripped = "".join(c for c in text if unicodedata.category(c) != "Cf")
    assert parse_move(stripped) == move


@budget.fast()
@given(st.one_of(token, st.lists(token, max_size=3).map("".join), st.text(max_size=50)))
def test_move_parser(text: str) -> None:
    check_move(text)


@pytest.mark.slow
@budget.slow("parse_move")
@given(st.one_of(token, st.lists(token, max_size=3).map("".join), st.text(max_size=50)))
def test_move_parser_100k(text: str) -> None:
    check_move(text)


@pytest.mark.parametrize("word", ["\u0435vade", "\u0435v", "r\u0435treat", "l\u043eck", "\u0455s"])
def test_homoglyphs_are_refused_not_guessed(word: str) -> None:
    with pytest.raises(InvalidChoice, match="is not a move"):
        parse_move(word)


@budget.fast()
@given(st.sampled_from(list(MOVE_IDS)).flatmap(sprinkled))
def test_zero_width_and_bidi_are_ignored(word: str) -> None:
    plain = "".join(c for c in word if c not in ZERO_WIDTH + BIDI)
    assert parse_move(word) == parse_move(plain)


@pytest.mark.parametrize("value", [None, 5, b"evade", ["evade"]])
def test_non_text_moves_are_refused(value: object) -> None:
    with pytest.raises(InvalidChoice):
        parse_move(value)  # type: ignore[arg-type]


# -- the deadline parser ---------------------------------------------------------------

deadline_text = st.one_of(
    st.text(max_size=60),
    st.lists(
        st.one_of(
            st.integers(0, 99999).map(str),
            st.sampled_from(["w", "d", "h", "m", "s", "hours", "day", "mins", "week", " "]),
        ),
        max_size=12,
    ).map("".join),
    st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59)).flatmap(
        lambda d: st.sampled_from(
            [
                d.isoformat(),
                f"{d:%Y-%m-%d %H:%M} UTC",
                d.isoformat() + "Z",
                d.isoformat() + "+05:00",
                d.isoformat() + "-14:00",
                f"{d:%Y-%m-%d}",
            ]
        )
    ),
    st.sampled_from(["99999w" * 1500, "1d" * 5000, "9999-12-31T23:59:59-05:00"]),
)


def check_deadline(text: str) -> None:
    try:
        when = parse_deadline(text, NOW)
    except InvalidInput as exc:
        assert exc.message and "\n" not in exc.message
        return
    assert when.tzinfo is not None and when.utcoffset() == timedelta(0)
    assert MIN_DEADLINE <= when - NOW <= MAX_DEADLINE


@budget.fast()
@given(deadline_text)
@example("9999-12-31T23:59:59-05:00")  # was an OverflowError
@example("0001-01-01T00:00+05:00")  # was an OverflowError
@example("99999w" * 1500)  # was an OverflowError
def test_deadline_parser(text: str) -> None:
    check_deadline(text)


@pytest.mark.slow
@budget.slow("deadline")
@given(deadline_text)
def test_deadline_parser_100k(text: str) -> None:
    check_deadline(text)


@budget.fast()
@given(st.text(max_size=40))
def test_duration_parser(text: str) -> None:
    try:
        parse_duration(text)
    except InvalidInput as exc:
        assert "is not a duration" in exc.message
