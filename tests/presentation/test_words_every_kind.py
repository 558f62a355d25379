"""Every kind of message, for every built-in ruleset, in that ruleset's words (issue 24): the
card, a round's (step's) opening, the DM prompt, the reminder, the private note, the
result post, the move receipt, the `/round open` and `/round close` replies, `/round
status`, the result and whole duel in Markdown and BBCode. Each is rendered from a real
adjudication and fails on another ruleset's noun, on the engine's "round" in a game that
plays steps, on a step number in one that plays rounds, and on any outcome code."""

from __future__ import annotations

from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

import pytest

from bot.presentation.discord_posts import render_message
from bot.presentation.discord_replies import (
    history_text,
    odds_text,
    receipt_text,
    round_closed_text,
    round_opened_text,
    round_status_text,
)
from bot.presentation.markup import BBCODE, MARKDOWN, duel_export, round_result
from bot.presentation.views import HistoryView, RoundRow, round_result_view
from bot.rules import registry
from bot.rules.adjudication import adjudicate
from bot.rules.base import Ruleset
from bot.rules.capabilities import MultiStep, capability
from bot.rules.dice import FairDice
from bot.rules.terms import SIDES, Fighter, Side
from bot.services.messages import (
    DuelEnd,
    DuelStart,
    MoveChoice,
    OutboxMessage,
    Party,
    PrivateNote,
    Reminder,
    RoundOpen,
    RoundPrompt,
    RoundResultPost,
    RoundUndone,
)
from bot.services.published import PublishedRound, publish
from bot.services.views import (
    DuelHistory,
    DuellistView,
    DuelOdds,
    DuelView,
    RoundClosed,
    RoundOpened,
    RoundRecord,
    RoundStatus,
    SubmissionReceipt,
)
from tests.presentation.words_check import assert_speaks_its_own, faults

SHEETS: dict[str, tuple[dict[str, Any], dict[str, Any], dict[str, Any]]] = {
    "rule-2.14": ({"str": 5, "agi": 3}, {"str": 4, "agi": 2}, {}),
    "by-this-axe": (
        {"character": "champion", "wounds": 9},
        {"character": "champion", "wounds": 9},
        {"forfeit": "victim-chooses"},
    ),
    "foeq-spell-duel": (
        {"hp_max": 20, "spell_slots": [2, 1]},
        {"hp_max": 12},
        {"public_stake": "first_blood", "challenger": "a"},
    ),
}
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def shown(message: OutboxMessage) -> str:
    """Everything the rendered post or DM shows, as text."""
    rendered = render_message(message)
    parts = [rendered.content or ""]
    for embed in rendered.embeds:
        data = embed.to_dict()
        parts += [str(data.get("title", "")), str(data.get("description", ""))]
        for f in data.get("fields", []):
            parts += [f["name"], f["value"]]
        parts.append(str(data.get("footer", {}).get("text", "")))
    return "\n".join(parts)


def duel_view(rules: Ruleset, state: Any, options: dict[str, Any]) -> DuelView:
    data = state.to_dict()

    def side(s: str) -> DuellistView:
        return DuellistView(s, 10 + len(s), data[s]["name"], {})

    return DuelView(
        id=1, guild_id=1, channel_id=2, thread_id=None, ruleset=rules.id, a=side("a"),
        b=side("b"), status="live", winner=None, end_reason=None,
        rounds_played=0, created_at=NOW, options={"params": options},
    )


def step_texts(
    rules: Ruleset, state: Any, number: int, options: dict[str, Any]
) -> tuple[dict[str, str], PublishedRound]:
    """Every message of round (step) ``number`` opening on ``state``, rendered, and the
    published round its close makes (each awaited side playing its first legal move)."""
    words = rules.step_words(state, number)
    steps = capability(rules, MultiStep)
    awaiting = SIDES if steps is None else tuple(steps.awaiting_sides(state))
    a, b = (Party(10 + i, state.to_dict()[s]["name"]) for i, s in enumerate(SIDES))
    view = duel_view(rules, state, options)
    texts: dict[str, str] = {}
    texts["open"] = shown(
        RoundOpen(1, number, rules.id, a, b, "c0ffee", None, 7,
                  None if awaiting == SIDES else awaiting, words)
    )
    choices: dict[Side, str | None] = {s: None for s in SIDES}
    for side in awaiting:
        moves = rules.moves(state, side)
        choices[side] = moves[0].id
        head = (1, number, rules.id, side, "Bob", 2)
        listed = tuple(MoveChoice(m.id, m.label) for m in moves[:30])
        prompt = None if steps is None else steps.prompt(state, side)
        texts[f"prompt {side}"] = shown(
            RoundPrompt(*head, "c0ffee", None, listed, prompt, True, words)
        )
        texts[f"reminder {side}"] = shown(Reminder(*head, NOW, listed, words))
        texts[f"note {side}"] = shown(PrivateNote(*head, ("a secret",), words))
        texts[f"receipt {side}"] = receipt_text(
            SubmissionReceipt(1, 1, number, side, moves[0].id, moves[0].label, None, None,
                              "Bob", words=words)
        )
    texts["/round open"] = round_opened_text(
        RoundOpened(view, number, "c0ffee", None, words=words, awaiting=awaiting,
                    with_buttons=awaiting[:1])
    )
    texts["/round status"] = round_status_text(
        RoundStatus(view, number, True, None, {"a": True, "b": False}, words)
    )
    # The close's one call to the rules, and the published round built from its answer.
    judged = adjudicate(rules.id, state.to_dict(), choices, {}, seed="ab" * 32, duel_id=1,
                        round_no=number)
    published = publish(judged.public, judged=judged)
    texts["result post"] = shown(
        RoundResultPost(1, 1, number, a, b, published, published.winner_name, "ab" * 32,
                        "c0ffee", None, "commander", published.ended)
    )
    records = (
        RoundRecord(number, "closed", 7, NOW, None, "c0ffee", 7, NOW, "commander",
                    published.outcome, published, "ab" * 32, None, None),
        RoundRecord(number + 1, "open", 7, NOW, None, "c0ffee", None, None, None, None, None,
                    None, None, None),
    )
    texts["/duel history"] = history_text(DuelHistory(view, records))
    texts["undo post"] = shown(RoundUndone(1, number, published.outcome, 7, "oops", words))
    texts["end post"] = shown(DuelEnd(1, a, b, "enough", number, words))
    texts["/round close"] = round_closed_text(
        RoundClosed(view, number, published.outcome, published, "ab", "c0ffee", 7,
                    "commander")
    )
    texts["/duel odds"] = odds_text(
        DuelOdds(view, (("x", "y", {code: Fraction(1, 2) for code in rules.words.ending}),))
    )
    result_view = round_result_view(published, round_no=number, duel_id=1)
    for m in (MARKDOWN, BBCODE):
        texts[f"result {m.name}"] = round_result(result_view, m)
        row = RoundRow(number, "closed", None, "c0ffee", None, None, None, result_view)
        texts[f"export {m.name}"] = duel_export(HistoryView(view, (row,)), m)
    return texts, published


def duel(rules: Ruleset) -> tuple[Any, dict[str, Any]]:
    sheet_a, sheet_b, params = SHEETS[rules.id]
    return rules.initial_state(Fighter("Ann", sheet_a), Fighter("Bob", sheet_b), params), params


@pytest.mark.parametrize("ruleset_id", sorted(SHEETS))
def test_every_message_kind_speaks_the_rulesets_words(ruleset_id: str) -> None:
    rules = registry.get(ruleset_id)
    state, params = duel(rules)
    a, b = Party(10, "Ann", {}), Party(11, "Bob", {})
    texts = {"card": shown(DuelStart(1, rules.id, a, b, 7, {"params": params}, False))}
    step, _ = step_texts(rules, state, 1, params)
    texts.update(step)
    assert_speaks_its_own(texts, ruleset_id)
    noun = rules.words.round.one
    assert f"{noun} 1 is open" in texts["open"], texts["open"]
    assert f"{noun} 1" in texts["receipt a"] and rules.words.move.one.capitalize() in (
        texts["receipt a"]
    ), texts["receipt a"]
    if rules.words.closes == "itself":
        assert "commander closes" not in texts["open"] + texts["prompt a"]
        assert "closes by itself" in texts["open"], texts["open"]
    else:
        assert "No deadline: a commander closes the round." in texts["open"]
    # The facts are the ruleset's own: "Locked in combat" is rule 2.14's alone.
    assert ("Locked in combat" in texts["result post"]) is (ruleset_id == "rule-2.14")


def test_by_this_axe_forfeit_choice_is_a_step_of_its_round() -> None:
    """A round halted for the victims' forfeit choice: its step is "round N, forfeit
    choice" in the post, the DM, the receipt and the result; it closes by itself; the side
    not asked shows the allotment it made, never "no allotment"."""
    rules = registry.get("by-this-axe")
    state, params = duel(rules)
    trick = {s: rules.parse_choice("a5 p6 t1", state, s) for s in SIDES}
    for seed in range(200):
        halted = rules.resolve(state, trick, FairDice(f"{seed:064x}", 1, 1),
                               rules.make_options({}))
        awaited = _steps(rules).awaiting_sides(halted.state)
        if halted.outcome == "forfeit_choice" and len(awaited) == 1:
            break
    else:
        raise AssertionError("no one-sided dirty trick in 200 seeds")
    texts, published = step_texts(rules, halted.state, 2, params)
    assert_speaks_its_own(texts, "by-this-axe")
    victim = _steps(rules).awaiting_sides(halted.state)[0]
    other = "b" if victim == "a" else "a"
    assert "round 1, forfeit choice is open" in texts["open"], texts["open"]
    assert "round 1, forfeit choice: your choice" in texts[f"prompt {victim}"]
    assert "round 1, forfeit choice" in texts[f"receipt {victim}"]
    for text in (texts["open"], texts[f"prompt {victim}"], texts[f"receipt {victim}"]):
        assert "commander closes" not in text and "round 2" not in text.lower(), text
    assert "the step closes by itself" in texts["open"], texts["open"]
    assert published.labels.of(other).startswith("Attack 5, Parry 6, Trick 1"), published
    assert "no allotment" not in texts["result post"], texts["result post"]
    assert "## Round 1, forfeit choice" in texts["export markdown"], texts["export markdown"]
    assert "round 1, forfeit choice undone" in texts["undo post"], texts["undo post"]
    assert "Round 1, forfeit choice was cancelled unresolved" in texts["end post"]


def test_the_checker_fails_on_what_issue_24_saw() -> None:
    """The words check catches each thing the players saw."""
    assert faults("How it ended: round 4: a_wins", "by-this-axe")
    assert faults("Duel #2, round 2 is open: Ann vs Cyd", "foeq-spell-duel")
    assert faults("Move received for duel #3, round 2: the round has closed", "foeq-spell-duel")
    assert faults("Locked in combat: no", "by-this-axe")
    assert faults("Duel settings: public\\_stake=pride", "foeq-spell-duel")
    assert faults("Duel #1, step 13: your choice", "by-this-axe")
    assert faults("Declaration received", "rule-2.14")
    assert not faults("Duel #1, step 3 is open: the step closes by itself", "foeq-spell-duel")


def _steps(rules: Ruleset) -> MultiStep:
    steps = capability(rules, MultiStep)
    assert steps is not None
    return steps
