"""The published round (issue 25): one typed value, built once at the close, read back from
what is stored and carried (both versions), refused loudly when it cannot be read."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import msgspec
import pytest
from sqlalchemy import update

from bot.db.engine import Database
from bot.db.models import Round
from bot.exports.document import duel_document
from bot.exports.verify import verify_duel
from bot.presentation.discord_replies import history_text
from bot.rules.adjudication import Adjudication, adjudicate
from bot.rules.dice import ScriptedDice
from bot.rules.rule_2_14.ruleset import RULE_2_14
from bot.rules.rule_2_14.state import Duellist, DuelState, Options
from bot.rules.terms import RoundResult
from bot.services.container import Services
from bot.services.messages import MessageFormatError, RoundResultPost, parse_message
from bot.services.published import (
    PUBLISHED_VERSION,
    PublishedFormatError,
    PublishedRound,
    RulesInForce,
    Sides,
    publish,
    published_of,
    read_published,
)
from tests.services.helpers import ALICE, BOB, COMMANDER, GUILD, duel_with_round


def _resolved(a: str | None = "full_frontal_strike", b: str | None = None) -> dict[str, Any]:
    state = DuelState(Duellist("Ann", 8, 3), Duellist("Bob", 2, 5))
    result = RULE_2_14.resolve(state, {"a": a, "b": b}, ScriptedDice([2], 4, 2), Options())
    return result.to_dict()


def _published() -> PublishedRound:
    return publish(
        _resolved(),
        rules_in_force={"change_of_choice": True, "missing_move": "none"},
        submitted={"a": "full_frontal_strike", "b": None},
        via={"a": "slash"},
        follows_undo_of=2,
    )


def test_the_close_builds_one_typed_value_and_stores_its_codec_output() -> None:
    published = _published()
    assert published.names == Sides("Ann", "Bob")
    assert published.labels == Sides("Full Frontal Strike", "no move")
    assert published.via == Sides("slash", None)
    assert published.options == RulesInForce(change_of_choice=True, missing_move="none")
    assert published.follows_undo_of == 2
    stored = published.to_json()
    assert stored["version"] == PUBLISHED_VERSION
    assert stored["rolls"][0].keys() == {"label", "sides", "value", "for", "purpose"}
    assert read_published(stored) == published
    with pytest.raises(AttributeError):
        published.outcome = "b_wins"  # type: ignore[misc]


def test_a_masked_choice_is_labelled_as_published_never_as_submitted() -> None:
    masked = {**_resolved(), "choices": {"a": "secret", "b": "secret"}}
    published = publish(masked, submitted={"a": "full_frontal_strike", "b": "evade"})
    assert published.labels == Sides("secret", "secret")
    assert published.choices == Sides("secret", "secret")
    # Where the published choice is the submitted one, the submission's id is labelled.
    shown = publish(_resolved(), submitted={"a": "full_frontal_strike", "b": "evade"})
    assert shown.labels == Sides("Full Frontal Strike", "no move")


def test_a_result_stored_before_it_was_typed_reads_as_version_1() -> None:
    stored = {
        **_resolved(),
        "options": {"change_of_choice": False, "missing_move": "forfeit", "unknown": 1},
        "labels": {"a": "Stored A", "b": "Stored B"},
        "via": {"a": "dm_text"},
        "follows_undo_of": 1,
    }
    published = read_published(stored)
    assert published.labels == Sides("Stored A", "Stored B")
    assert published.names == Sides("Ann", "Bob")
    assert published.via == Sides("dm_text", None)
    assert published.options.missing_move == "forfeit" and published.follows_undo_of == 1
    assert published.rolls[0].for_side == stored["rolls"][0]["for"]
    # Older still: no labels stored, so they come from the choices; no state, no names.
    older = read_published({"ruleset": "rule-2.14", "outcome": "a_wins", "choices": {"a": "evade"}})
    assert older.labels == Sides("Evade", "no move")
    assert older.names == Sides("Duellist A", "Duellist B") and older.winner_name is None


@pytest.mark.parametrize("version", [4, 0, "3", True])
def test_an_unknown_version_is_refused(version: object) -> None:
    with pytest.raises(PublishedFormatError, match="version"):
        read_published({**_published().to_json(), "version": version})


def _judged(round_no: int = 3) -> Adjudication:
    state = DuelState(Duellist("Ann", 8, 3), Duellist("Bob", 2, 5)).to_dict()
    moves = {"a": "full_frontal_strike", "b": "evade"}
    return adjudicate(RULE_2_14.id, state, moves, {}, seed="ab" * 32, duel_id=1, round_no=round_no)


def test_the_close_fixes_the_rulesets_words_and_facts() -> None:
    """Issue 24: the outcome as a sentence, rule 2.14's own facts, the label; no typed
    ``locked`` (it is in rule 2.14's state). Issue 25: what the renderers show is fixed at
    the close, from the rules' one answer (the title, the summaries, the move noun)."""
    judged = _judged()
    published = publish(judged.public, judged=judged)
    assert published.sentence and "_" not in published.sentence
    assert published.sentence == judged.sentence
    assert published.facts == (("Locked in combat", "yes" if published.state["locked"] else "no"),)
    assert published.label == "round 3"
    assert "locked" not in published.to_json()
    assert published.title == RULE_2_14.short_name() and published.move_noun == "move"
    assert published.fighters is not None
    assert published.fighters.a == tuple(RULE_2_14.fighter_summary(published.state["a"]))
    assert published.labels == Sides("Full Frontal Strike", "Evade")


def test_a_version_2_result_reads_with_the_words_left_to_the_ruleset() -> None:
    """A stored version 2 row (rule 2.14's ``locked`` at the top, no words) still reads:
    the renderers then ask the ruleset for the sentence and the facts."""
    stored = {**_published().to_json(), "version": 2, "locked": True}
    for key in ("label", "sentence", "facts", "awaited"):
        stored.pop(key, None)
    older = read_published(stored)
    assert older.label == "" and older.sentence == "" and older.facts is None
    assert older.awaited == Sides(True, True)
    assert older.labels == _published().labels


def test_a_side_not_asked_is_published_as_the_rules_said() -> None:
    judged = replace(_judged(), awaited=("a",), labels={"a": "Full Frontal Strike", "b": "x"})
    published = publish(judged.public, judged=judged)
    assert published.awaited == Sides(True, False) and published.labels.b == "x"


def test_a_version_2_result_of_the_wrong_shape_is_refused_naming_the_field() -> None:
    stored = _published().to_json()
    stored["labels"] = {"a": "x"}
    with pytest.raises(PublishedFormatError, match=r"labels"):
        read_published(stored)
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert({**_published().to_json(), "winner": "c"}, PublishedRound)
    # The state always holds each duellist's entry (renderers hand it to the ruleset).
    without_b = {**stored, "labels": {"a": "x", "b": "y"}, "state": {"a": {"name": "Ann"}}}
    with pytest.raises(PublishedFormatError, match=r"state\.b"):
        read_published(without_b)


def _post_payload(result: dict[str, Any]) -> dict[str, Any]:
    return {
        "version": 1,
        "duel_id": 4,
        "guild_id": 7,
        "round_no": 3,
        "a": {"user_id": 1, "name": "Ann"},
        "b": {"user_id": 2, "name": "Bob"},
        "result": result,
        "winner_name": None,
        "seed": "s" * 64,
        "commitment": "c" * 64,
        "closed_by": 9,
        "reason": "commander",
        "ended": False,
        "follows_undo": None,
    }


def test_the_outbox_carries_it_and_reads_queued_rows_of_both_versions() -> None:
    published = _published()
    for result in (published.to_json(), {**_resolved(), "labels": {"a": "A!", "b": "B!"}}):
        message = parse_message("round_result", _post_payload(result))
        assert isinstance(message, RoundResultPost)
        assert isinstance(message.result, PublishedRound)
        assert message.result.names == Sides("Ann", "Bob")
        assert parse_message("round_result", message.to_json()) == message
    with pytest.raises(MessageFormatError, match="version 9"):
        parse_message("round_result", _post_payload({**published.to_json(), "version": 9}))


def test_a_fresh_result_is_published_with_everything_revealed() -> None:
    state = DuelState(Duellist("Ann", 8, 3), Duellist("Bob", 2, 5))
    fresh = RULE_2_14.resolve(state, {"a": "evade", "b": None}, ScriptedDice([1], 4, 2), Options())
    assert isinstance(fresh, RoundResult)
    published = published_of(fresh)
    assert published.labels == Sides("Evade", "no move")
    assert published_of(published) is published
    assert published_of(published.to_json()) == published


async def test_a_row_stored_before_reads_back_typed_and_its_export_verifies(
    services: Services, database: Database
) -> None:
    duel_id = await duel_with_round(services)
    await services.duels.submit_move(
        user_id=ALICE.user_id, move="ffs", via="slash", duel_id=duel_id
    )
    await services.duels.submit_move(
        user_id=BOB.user_id, move="evade", via="dm_button", duel_id=duel_id
    )
    closed = await services.duels.close_round(duel_id=duel_id, guild_id=GUILD, actor_id=COMMANDER)
    # The row as the close wrote it before the published round was typed (version 1).
    old = closed.result.to_json()
    del old["version"], old["names"]
    async with database.transaction() as session:
        await session.execute(
            update(Round).where(Round.duel_id == duel_id, Round.number == 1).values(result=old)
        )
    [record] = (await services.duels.history(duel_id, GUILD)).rounds
    assert record.result is not None
    assert record.result.names == Sides("Alice", "Bob")
    assert record.result.via == closed.result.via and record.result.labels == closed.result.labels
    assert history_text(await services.duels.history(duel_id, GUILD)).count("Evade") == 1
    document = duel_document(await services.exports.duel_export(duel_id))
    # Exported in today's version: the same result, read once and written by the codec.
    assert document["rounds"][0]["result"]["version"] == PUBLISHED_VERSION
    check = verify_duel(json.loads(json.dumps(document)))
    assert check.verified, check.first_mismatch
