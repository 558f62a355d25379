"""bot.exports.report: pure renderers fed with plain data (a RoundResult or its to_dict())."""

from __future__ import annotations

from fractions import Fraction

from bot.exports.report import (
    adjudication_dict,
    escape_bbcode,
    escape_markdown,
    render_round_bbcode,
    render_round_markdown,
)
from bot.rules.dice import ScriptedDice
from bot.rules.rule_2_14.command_line import odds_dict, render_odds_text
from bot.rules.rule_2_14.ruleset import RULE_2_14
from bot.rules.rule_2_14.state import Duellist, DuelState, Options


def _result(a_name: str = "Alice", b_name: str = "Bob"):  # type: ignore[no-untyped-def]
    state = DuelState(Duellist(a_name, 8, 3), Duellist(b_name, 2, 5))
    return RULE_2_14.resolve(
        state, {"a": "full_frontal_strike", "b": None}, ScriptedDice([2], 4, 2), Options()
    )


def test_result_and_its_dict_render_the_same() -> None:
    result = _result()
    for render in (render_round_markdown, render_round_bbcode):
        assert render(result, seed="s", commitment="c") == render(
            result.to_dict(), seed="s", commitment="c"
        )


def test_markdown_shows_everything() -> None:
    md = render_round_markdown(_result(), seed="SEED", commitment="COMMIT", duel_id=4,
                               round_no=2)
    for needle in (
        "**Duel 4, round 2: Alice vs Bob**",
        "Rule 2.14 Duelling",
        "**A: Alice**: STR 8, AGI 3; move: **Full Frontal Strike**",
        "**B: Bob**: STR 2, AGI 5; move: **no move**",
        "`duel:4:round:2:roll:0`: DICE3 = 2 for Alice (Full Frontal Strike)",
        "2.14.1 Rounds: Bob sent no move by the close",
        "**Outcome: Alice wins the duel**",
        "Winner: Alice",
        "Locked in combat: no",
        "`SEED`",
        "`COMMIT`",
        "duelbot verify",
    ):
        assert needle in md, needle


def test_no_rolls_and_no_winner() -> None:
    state = DuelState(Duellist("A", 1, 1), Duellist("B", 1, 1))
    result = RULE_2_14.resolve(state, {"a": "side_swipe", "b": "side_swipe"}, ScriptedDice([]))
    md = render_round_markdown(result, verify_hint=False)
    assert "no dice were rolled" in md
    assert "Winner: none" in md
    assert "duelbot verify" not in md
    assert "Seed" not in md


def test_user_names_are_escaped() -> None:
    result = _result(a_name="*Al_ice* @everyone", b_name="[b]Bob[/b]\nnewline")
    md = render_round_markdown(result)
    assert r"\*Al\_ice\* @" in md
    assert "@everyone" not in md
    bb = render_round_bbcode(result)
    assert "[b]Bob[/b]" not in bb
    assert "\n newline" not in bb and "Bob[\u200b/b] newline" in bb
    assert escape_markdown("a|b") == r"a\|b"
    assert escape_bbcode("[url]") == "[\u200burl]"


def test_adjudication_dict_shape() -> None:
    out = adjudication_dict(_result(), seed="s", commitment="c")
    assert out == {
        "outcome": "a_wins",
        "winner": "Alice",
        "locked": False,
        "rolls": [{"label": "duel:4:round:2:roll:0", "sides": 3, "value": 2, "for": "a",
                   "purpose": "full_frontal_strike"}],
        "log": [str(e) for e in _result().log],
        "seed": "s",
        "commitment": "c",
    }


def test_odds_renderers() -> None:
    table = RULE_2_14.odds_table(Duellist("", 5, 0), Duellist("", 0, 2))
    data = odds_dict(table)
    assert data["ruleset"] == "rule-2.14"
    assert data["matchups"][0] == {
        "a_move": "full_frontal_strike", "b_move": "full_frontal_strike",
        "outcomes": {"locked": "1"},
    }
    text = render_odds_text(table, a_str=5, a_agi=0, b_str=0, b_agi=2, a_name="Al")
    assert text.splitlines()[0].startswith("Exact outcome probabilities: A = Al (STR 5")
    assert "2/3" in text
    moves = ("full_frontal_strike", "side_swipe", "lock_attempt", "evade", "retreat")
    assert len([line for line in text.splitlines() if line.startswith(moves)]) == 25


def test_odds_dict_drops_zero_probabilities() -> None:
    table = [("retreat", "retreat", {"both_retreat": Fraction(1), "a_wins": Fraction(0)})]
    assert odds_dict(table)["matchups"][0]["outcomes"] == {"both_retreat": "1"}
