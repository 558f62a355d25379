"""Typed views of what the bot shows, each built once from stored data; every renderer
(Discord embeds and replies, Markdown, BBCode) reads these and nothing else of a result.

- a round result: ``RoundResultView`` from the published round (bot/services/published.py:
  the close built it once, typed: the public result, names, labels, summaries, the rules it
  used); ``round_result_of_post`` adds
  what the round-result post carries (how it closed, the undo it follows, whether it ended
  the duel);
- a duel's history: ``HistoryView`` (every round, sealed ones without result);
- the duel card, round opening, undo, end, DM prompts and reminders: their typed outbox
  messages (bot/services/messages.py) are already frozen views of stored data, built once
  by the services; the aliases below name them as views.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import msgspec

from bot.presentation.words import (
    NEUTRAL_WORDS,
    close_reason,
    house_rules_text,
    outcome_text,
    purpose_label,
    round_label,
    ruleset_or_none,
)
from bot.rules.base import Ruleset
from bot.rules.capabilities import VerifiableDice, capability
from bot.rules.terms import RulesetWords
from bot.services.messages import (
    DuelEnd,
    DuelStart,
    Reminder,
    RoundOpen,
    RoundPrompt,
    RoundResultPost,
    RoundUndone,
)
from bot.services.published import PublishedRound
from bot.services.views import DuelHistory, DuelView, RoundRecord

DuelCard = DuelStart
RoundOpening = RoundOpen
UndoNotice = RoundUndone
EndNotice = DuelEnd
ChoicePrompt = RoundPrompt
ReminderNotice = Reminder


@dataclass(frozen=True, slots=True)
class FighterLine:
    """A duellist in a result: their name, their sheet as the ruleset summarises it (from
    the result's state) and the label of their choice."""

    side: str
    name: str
    user_id: int | None
    summary: tuple[tuple[str, str], ...]
    move: str


@dataclass(frozen=True, slots=True)
class RollLine:
    label: str
    sides: int
    value: int
    for_side: str
    purpose: str  # its label ("Full Frontal Strike")


@dataclass(frozen=True, slots=True)
class UndoNote:
    """The undo a result follows (an undo followed by a close is a re-roll)."""

    round_no: int
    undone_by: int | None
    reason: str | None


@dataclass(frozen=True, slots=True)
class RoundResultView:
    ruleset: str
    duel_id: int | None
    round_no: int | None
    a: FighterLine
    b: FighterLine
    outcome: str
    rolls: tuple[RollLine, ...]
    log: tuple[str, ...]
    house_rules: str | None
    winner: str | None
    seed: str | None
    commitment: str | None
    # What only the round-result post says:
    closed_how: str | None = None
    #: How it closed as the post stores it ("deadline", "commander", "all_submitted"):
    #: renderers choose their whole sentence by it (``closed_how`` is its words).
    closed_reason: str | None = None
    follows_undo: UndoNote | None = None
    ended: bool = False
    #: The ruleset's own (label, value) facts of the result (``Ruleset.result_facts``):
    #: renderers show these, and name no ruleset's fields themselves.
    facts: tuple[tuple[str, str], ...] = ()
    #: The ruleset's words: the round's label ("round 3", "step 5", "round 1, forfeit
    #: choice"; "" when the view has no round number), what a move is called, and the
    #: outcome as a plain sentence with the names (never its code).
    label: str = ""
    move_noun: str = "move"
    sentence: str = ""
    #: The ruleset's name inside a sentence (its id when it is no longer registered), and
    #: the kinds of dice it rolls (None: unknown; a die is named only among several kinds).
    title: str = ""
    dice: tuple[int, ...] | None = None

    def fighter(self, side: str) -> FighterLine:
        return self.a if side == "a" else self.b


def round_result_view(
    result: PublishedRound,
    *,
    seed: str | None = None,
    commitment: str | None = None,
    duel_id: int | None = None,
    round_no: int | None = None,
    user_ids: Mapping[str, int | None] | None = None,
) -> RoundResultView:
    """A published round as one view: its typed fields as the close made them (names,
    labels), never worked out again (bot/services/published.py); each duellist's summary is
    their ruleset's reading of the state after the round. Fields are read, not asked for:
    building the view calls into no other layer but the ruleset (tests/discord/
    test_move_trace.py counts the crossings)."""
    ids = user_ids or {}
    names, labels, state = result.names, result.labels, result.state
    # What the close fixed in the ruleset's words; a result stored before it asks the
    # ruleset as renderers used to (looked up only then, once).
    @functools.cache
    def rules() -> Ruleset | None:
        return ruleset_or_none(result.ruleset)

    def words() -> RulesetWords:
        old = rules()
        return old.words if old is not None else NEUTRAL_WORDS

    move_noun = result.move_noun or words().move.one
    label = result.label or ("" if round_no is None else round_label(words().round.one, round_no))
    sentence = result.sentence or outcome_text(result.outcome, names.a, names.b, result.ruleset)
    facts = result.facts
    if facts is None:
        old = rules()
        facts = tuple(old.result_facts(msgspec.to_builtins(result))) if old else ()
    title = result.title or _title_of(rules(), result.ruleset)
    dice = result.dice if result.title else _dice_of(rules())
    recorded = result.options.house_rules
    if result.house_rules_shown is not None:
        house: str | None = ", ".join(f"{k}={v}" for k, v in result.house_rules_shown)
    else:
        house = house_rules_text(result.ruleset, recorded) if recorded else None

    def fighter(side: str, name: str, move: str) -> FighterLine:
        if result.fighters is not None:
            # Read as fields: building the view calls into no other layer.
            pair = result.fighters
            summary: Sequence[tuple[str, str]] = pair.a if side == "a" else pair.b
        else:
            old = rules()
            summary = old.fighter_summary(state[side]) if old is not None else ()
        return FighterLine(side, name, ids.get(side), tuple(summary), move)

    return RoundResultView(
        ruleset=result.ruleset,
        duel_id=duel_id,
        round_no=round_no,
        a=fighter("a", names.a, labels.a),
        b=fighter("b", names.b, labels.b),
        outcome=result.outcome,
        rolls=tuple(
            RollLine(
                label=roll.label,
                sides=roll.sides,
                value=roll.value,
                for_side=roll.for_side,
                purpose=purpose_label(roll.purpose, result.roll_purposes),
            )
            for roll in result.rolls
        ),
        log=result.log,
        house_rules=house,
        winner=None if result.winner is None else (names.a if result.winner == "a" else names.b),
        seed=seed,
        commitment=commitment,
        facts=tuple(facts),
        label=label,
        move_noun=move_noun,
        sentence=sentence,
        title=title,
        dice=dice,
    )


def round_result_of_post(message: RoundResultPost) -> RoundResultView:
    """The round-result post's view: the stored result plus how the round closed."""
    view = round_result_view(
        message.result,
        seed=message.seed,
        commitment=message.commitment,
        duel_id=message.duel_id,
        round_no=message.round_no,
        user_ids={"a": message.a.user_id, "b": message.b.user_id},
    )
    undo = message.follows_undo
    return replace(
        view,
        # The post names the duellists as the close stored them, as every other post does.
        a=replace(view.a, name=message.a.name or view.a.name),
        b=replace(view.b, name=message.b.name or view.b.name),
        winner=message.winner_name,
        closed_how=close_reason(message.reason) if message.reason else message.reason,
        closed_reason=message.reason,
        follows_undo=None if undo is None else UndoNote(undo.round_no, undo.undone_by, undo.reason),
        ended=message.ended,
    )


@dataclass(frozen=True, slots=True)
class RoundRow:
    """One round of a history: its result when published, else only what is public."""

    number: int
    status: str
    deadline: Any
    commitment: str
    undone_by: int | None
    undo_reason: str | None
    follows_undo_of: int | None
    result: RoundResultView | None


@dataclass(frozen=True, slots=True)
class HistoryView:
    duel: DuelView
    rounds: tuple[RoundRow, ...]


def _row(duel: DuelView, r: RoundRecord) -> RoundRow:
    return RoundRow(
        number=r.number,
        status=r.status,
        deadline=r.deadline,
        commitment=r.commitment,
        undone_by=r.undone_by,
        undo_reason=r.undo_reason,
        follows_undo_of=None if r.result is None else r.result.follows_undo_of,
        result=None
        if r.result is None
        else round_result_view(
            r.result, seed=r.seed, commitment=r.commitment, duel_id=duel.id, round_no=r.number
        ),
    )


def history_view(history: DuelHistory) -> HistoryView:
    return HistoryView(history.duel, tuple(_row(history.duel, r) for r in history.rounds))


def _title_of(rules: Ruleset | None, ruleset_id: str) -> str:
    return rules.short_name() if rules is not None else ruleset_id


def _dice_of(rules: Ruleset | None) -> tuple[int, ...] | None:
    verifiable = capability(rules, VerifiableDice)
    return None if verifiable is None else tuple(verifiable.dice)
