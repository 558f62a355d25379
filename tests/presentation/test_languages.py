"""The presentation speaks the language of the scope it is rendered in (issue 28): the
round result, the duel card, a round's opening, the DM prompt, the Markdown result, the
ladder and the replies in German inside ``speaking("de")``, in English outside it (and
after it). Plurals take the language's form, numbers its decimal comma.

Only the presentation's own texts are asserted: the ruleset's nouns ("round", "move") and
sentences come from the ruleset's catalog (bot/rules), whatever it holds."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from bot.i18n.context import speaking
from bot.presentation.discord_ladder import leaderboard_embed, record_embed
from bot.presentation.discord_posts import render_message
from bot.presentation.discord_replies import odds_text, open_rounds_text
from bot.presentation.markup import MARKDOWN, round_result
from bot.presentation.views import round_result_of_post, round_result_view
from bot.rules.dice import ScriptedDice
from bot.rules.registry import get as get_ruleset
from bot.rules.rule_2_14.ruleset import RULE_2_14
from bot.rules.rule_2_14.state import Duellist, DuelState, Options
from bot.services.ladder_views import (
    LadderRecord,
    LeaderboardPage,
    LeaderboardRow,
    MemberRecords,
    RecordLine,
)
from bot.services.messages import (
    DuelStart,
    MoveChoice,
    OutboxMessage,
    Party,
    RoundOpen,
    RoundPrompt,
    RoundResultPost,
)
from bot.services.published import read_published
from bot.services.views import DuellistView, DuelOdds, DuelView, OpenDuelForUser

SEED = "5e" * 32
COMMITMENT = "c0" * 32
NOW = datetime(2026, 1, 1, tzinfo=UTC)
ANN, BOB = Party(10, "Ann", {}), Party(11, "Bob", {})


def shown(message: OutboxMessage) -> str:
    """Everything the rendered post or DM shows, as text."""
    rendered = render_message(message, post_id=3)
    return (rendered.content or "") + "\n" + json.dumps(
        [embed.to_dict() for embed in rendered.embeds], ensure_ascii=False
    )


def result_post(ended: bool = False) -> RoundResultPost:
    state = DuelState(Duellist("Ann", 5, 3), Duellist("Bob", 4, 2))
    result = RULE_2_14.resolve(
        state, {"a": "full_frontal_strike", "b": "evade"}, ScriptedDice([1]), Options()
    )
    published = read_published(result.to_dict())
    return RoundResultPost(
        4, 1, 2, ANN, BOB, published, None, SEED, COMMITMENT, None, "commander", ended
    )


def card() -> DuelStart:
    return DuelStart(1, "rule-2.14", ANN, BOB, 7, {"change_of_choice": True}, False)


def opening() -> RoundOpen:
    return RoundOpen(1, 2, "rule-2.14", ANN, BOB, COMMITMENT, None, 7, None, None)


def prompt() -> RoundPrompt:
    moves = tuple(MoveChoice(m.id, m.label) for m in get_ruleset("rule-2.14").moves(None, "a"))
    return RoundPrompt(1, 2, "rule-2.14", "a", "Bob", 10, COMMITMENT, None, moves)


def test_the_round_result_post_in_german_and_in_english() -> None:
    with speaking("de"):
        german = shown(result_post())
    assert "Duell #4" in german and " gegen " in german, german
    assert "wurde von einem Kommandanten geschlossen; das Duell geht weiter." in german
    assert "Auswertung (" in german and "volle Werte: /duel history" in german, german
    # The post's marker stays as the poster reads it back, in every language.
    assert "duelbot post #3" in german
    english = shown(result_post())
    assert "Duel #4" in english and " vs " in english, english
    assert "was closed by a commander; the duel goes on." in english, english
    assert "Adjudication (" in english and "Duell #" not in english, english
    with speaking("de"):
        over = shown(result_post(ended=True))
    assert "das Duell ist vorbei." in over, over


def test_the_duel_card_in_german_and_in_english() -> None:
    with speaking("de"):
        german = shown(card())
    assert "Ein Duell nach den Regeln von" in german, german
    assert "Festgelegte Regeln dieses Duells" in german, german
    assert "Änderung der Wahl: an: ein Duellant darf" in german, german
    assert "Eine Änderung der Servereinstellungen gilt nur für spätere Duelle." in german
    english = shown(card())
    assert "A duel begins under" in english and "Rules fixed for this duel" in english
    assert "Change of choice: on: a duellist may change a move until the round closes" in (
        english
    ), english


def test_a_round_opening_in_german_and_in_english() -> None:
    with speaking("de"):
        german = shown(opening())
    assert "Duell #1" in german and "ist eröffnet: Ann gegen Bob" in german, german
    assert "Keine Frist: ein Kommandant schließt ab" in german, german
    assert "Duellanten: schickt eure Wahl" in german and "Commitment (" in german, german
    english = shown(opening())
    assert "is open: Ann vs Bob" in english, english
    assert "No deadline: a commander closes the round." in english, english
    assert "Moves stay secret until the round closes." in english, english


def test_the_dm_prompt_in_german_and_in_english() -> None:
    with speaking("de"):
        german = shown(prompt())
    assert "Du duellierst dich mit **Bob**." in german, german
    assert "Es gibt keine Frist: ein Kommandant schließt ab" in german, german
    assert "Triff deine Wahl (" in german and "wenn du in mehreren Duellen bist" in german
    english = shown(prompt())
    assert "You are duelling **Bob**. There is no deadline: a commander closes" in english
    assert "Pick your move with a button below" in english, english
    assert "Your move stays secret until the round closes." in english, english


def test_the_markdown_result_has_german_headings() -> None:
    view = round_result_view(
        result_post().result, seed=SEED, commitment=COMMITMENT, duel_id=4, round_no=2
    )
    with speaking("de"):
        german = round_result(view, MARKDOWN)
    for heading in ("**Würfe**", "**Auswertung**", "Sieger: ", "Seed (aufgedeckt): "):
        assert heading in german, (heading, german)
    assert "**Ergebnis: " in german and "Jeder kann dieses Ergebnis prüfen" in german
    english = round_result(view, MARKDOWN)
    for heading in ("**Rolls**", "**Adjudication**", "Winner: ", "Seed (revealed): "):
        assert heading in english, (heading, english)


def test_the_view_of_a_post_says_how_it_closed_in_the_scopes_language() -> None:
    with speaking("de"):
        assert round_result_of_post(result_post()).closed_how == (
            "von einem Kommandanten geschlossen"
        )
    assert round_result_of_post(result_post()).closed_how == "closed by a commander"


def _line(duels: int) -> RecordLine:
    return RecordLine(10, "Ann", 3.45, 25.0, 7.25, duels, duels, 0, 0, 0, 0, duels, duels)


def test_plurals_and_numbers_of_the_ladder() -> None:
    def record(duels: int) -> str:
        ladder = LadderRecord("rule-2.14", "Rule 2.14", _line(duels), 1, 2, ())
        embed = record_embed(MemberRecords(10, "Ann", (ladder,), None))
        return json.dumps(embed.to_dict(), ensure_ascii=False)

    def board(members: int) -> str:
        page = LeaderboardPage(1, "rule-2.14", "Rule 2.14", 1, 1, members, 10,
                               (LeaderboardRow(1, _line(1)),))
        return json.dumps(leaderboard_embed(page).to_dict(), ensure_ascii=False)

    with speaking("de"):
        assert "1 Duell: 1 gewonnen" in record(1) and "2 Duelle: 2 gewonnen" in record(2)
        assert "Wertung **3,5** (mu 25,0, sigma 7,2)" in record(1), record(1)
        assert "1 gewertetes Mitglied" in board(1) and "2 gewertete Mitglieder" in board(2)
        assert "Serie S1" in board(1) and "1S 0N 0U 0R 0K" in board(1), board(1)
    assert "1 duel: 1 won" in record(1) and "2 duels: 2 won" in record(2)
    assert "Rating **3.5** (mu 25.0, sigma 7.2)" in record(1), record(1)
    assert "1 rated member ·" in board(1) and "2 rated members ·" in board(2)
    assert "streak W1" in board(1) and "1W 0L 0D 0R 0C" in board(1), board(1)


def test_plurals_and_percentages_of_the_replies() -> None:
    def rounds(n: int) -> str:
        return open_rounds_text(
            [OpenDuelForUser(i, 1, 2, "a", "Bob", None) for i in range(1, n + 1)]
        )

    with speaking("de"):
        assert rounds(1).startswith("Deine offene Runde (1):"), rounds(1)
        assert rounds(2).startswith("Deine offenen Runden (2):"), rounds(2)
        assert "- Duell #1 gegen Bob, Runde 2, Frist keine Frist" in rounds(1), rounds(1)
        german_odds = odds_text(_odds())
    assert rounds(1).startswith("Your open rounds (1):"), rounds(1)
    assert rounds(2).startswith("Your open rounds (2):"), rounds(2)
    assert "50,0\xa0%" in german_odds and "gegen" in german_odds, german_odds
    english_odds = odds_text(_odds())
    assert "50.0%" in english_odds and " vs " in english_odds, english_odds


def test_no_language_leaks_out_of_a_scope() -> None:
    """A German render does not change what is rendered after it, nor in a nested
    English scope."""
    with speaking("de"):
        with speaking(None):
            assert "A duel begins under" in shown(card())
        assert "Ein Duell nach den Regeln von" in shown(card())
    assert "A duel begins under" in shown(card())


def _odds() -> DuelOdds:
    def side(s: str, name: str) -> DuellistView:
        return DuellistView(s, 10, name, {})

    duel = DuelView(
        id=1, guild_id=1, channel_id=2, thread_id=None, ruleset="rule-2.14",
        a=side("a", "Ann"), b=side("b", "Bob"), status="live", winner=None, end_reason=None,
        rounds_played=0, created_at=NOW, options={},
    )
    dist: dict[str, Any] = {"a_wins": Fraction(1, 2), "b_wins": Fraction(1, 2)}
    return DuelOdds(duel, (("Evade", "Evade", dist),))
