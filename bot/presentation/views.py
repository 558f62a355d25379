"""Typed views of what the bot shows, each built once from stored data; every renderer
(Discord embeds and replies, Markdown, BBCode) reads these and nothing else of a result.

- a round result: ``RoundResultView`` from a stored result (the close stored its public
  part, the labels of both choices and the rules it used); ``round_result_of_post`` adds
  what the round-result post carries (how it closed, the undo it follows, whether it ended
  the duel);
- a duel's history: ``HistoryView`` (every round, sealed ones without result);
- the duel card, round opening, undo, end, DM prompts and reminders: their typed outbox
  messages (bot/services/messages.py) are already frozen views of stored data, built once
  by the services; the aliases below name them as views.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from bot.presentation.words import (
    CLOSE_REASONS,
    house_rules_text,
    move_label,
    outcome_text,
    purpose_label,
    ruleset_or_none,
    side_name,
)
from bot.rules.base import SIDES, RoundResult
from bot.services.messages import (
    DuelEnd,
    DuelStart,
    Reminder,
    RoundOpen,
    RoundPrompt,
    RoundResultPost,
    RoundUndone,
)
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
    sides: Any
    value: Any
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
    locked: bool
    seed: str | None
    commitment: str | None
    # What only the round-result post says:
    closed_how: str | None = None
    follows_undo: UndoNote | None = None
    ended: bool = False
    #: The ruleset's own (label, value) facts of the result (``Ruleset.result_facts``):
    #: renderers show these, and name no ruleset's fields themselves.
    facts: tuple[tuple[str, str], ...] = ()

    def fighter(self, side: str) -> FighterLine:
        return self.a if side == "a" else self.b

    def outcome_sentence(self, a_name: str, b_name: str) -> str:
        """The ruleset's sentence for the outcome, with the names as the format shows them."""
        return outcome_text(self.outcome, a_name, b_name, self.ruleset)


def _stored(result: RoundResult | Mapping[str, Any]) -> Mapping[str, Any]:
    return result.to_dict() if isinstance(result, RoundResult) else result


def winner_name(result: RoundResult | Mapping[str, Any]) -> str | None:
    """The winner's name (as given in the duel state), or None."""
    data = _stored(result)
    winner = data.get("winner")
    if winner not in SIDES:
        return None
    # A result stored without its state (older rows, hand-made payloads) has no name to give.
    state = data.get("state")
    entry = state.get(winner) if isinstance(state, Mapping) else None
    if not isinstance(entry, Mapping):
        return None
    name = entry.get("name", "")
    return name if isinstance(name, str) else str(name)


def round_result_view(
    result: RoundResult | Mapping[str, Any],
    *,
    seed: str | None = None,
    commitment: str | None = None,
    duel_id: int | None = None,
    round_no: int | None = None,
    user_ids: Mapping[str, int | None] | None = None,
) -> RoundResultView:
    """A stored (or just adjudicated) round result as one view. The choice labels are the
    ones the close stored; only a result from before they were stored (or one fresh from
    `duelbot adjudicate`) has them worked out from its choices."""
    data = _stored(result)
    ruleset = str(data.get("ruleset") or "")
    rules = ruleset_or_none(ruleset)
    state = data.get("state")
    state = state if isinstance(state, Mapping) else {}
    choices = data.get("choices")
    choices = choices if isinstance(choices, Mapping) else {}
    stored_labels = data.get("labels")
    labels = stored_labels if isinstance(stored_labels, Mapping) else None
    fighters = []
    for side in SIDES:
        entry = state.get(side)
        entry = entry if isinstance(entry, Mapping) else {}
        label = labels.get(side) if labels is not None else None
        fighters.append(
            FighterLine(
                side=side,
                name=side_name(state, side),
                user_id=(user_ids or {}).get(side),
                summary=tuple(rules.fighter_summary(entry)) if rules is not None else (),
                move=str(label) if label is not None else move_label(ruleset, choices.get(side)),
            )
        )
    raw_rolls = data.get("rolls")
    rolls = tuple(
        RollLine(
            label=str(roll.get("label", "?")),
            sides=roll.get("sides", "?"),
            value=roll.get("value", "?"),
            for_side=str(roll.get("for")),
            purpose=purpose_label(str(roll.get("purpose", "?"))),
        )
        for roll in (raw_rolls if isinstance(raw_rolls, list) else [])
        if isinstance(roll, Mapping)
    )
    raw_log = data.get("log")
    options = data.get("options")
    recorded = options.get("house_rules") if isinstance(options, Mapping) else None
    return RoundResultView(
        ruleset=ruleset,
        duel_id=duel_id,
        round_no=round_no,
        a=fighters[0],
        b=fighters[1],
        outcome=str(data.get("outcome") or "?"),
        rolls=rolls,
        log=tuple(str(line) for line in (raw_log if isinstance(raw_log, list) else [])),
        house_rules=house_rules_text(ruleset, recorded) if recorded else None,
        winner=winner_name(data),
        locked=bool(data.get("locked")),
        seed=seed,
        commitment=commitment,
        facts=tuple(rules.result_facts(data)) if rules is not None else (),
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
        closed_how=CLOSE_REASONS.get(message.reason, message.reason),
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
    follows = (r.result or {}).get("follows_undo_of")
    return RoundRow(
        number=r.number,
        status=r.status,
        deadline=r.deadline,
        commitment=r.commitment,
        undone_by=r.undone_by,
        undo_reason=r.undo_reason,
        follows_undo_of=None if follows is None else int(follows),
        result=None
        if r.result is None
        else round_result_view(
            r.result, seed=r.seed, commitment=r.commitment, duel_id=duel.id, round_no=r.number
        ),
    )


def history_view(history: DuelHistory) -> HistoryView:
    return HistoryView(history.duel, tuple(_row(history.duel, r) for r in history.rounds))
