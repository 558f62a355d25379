"""The services ask the rules once per decision (issue 25). A move: :func:`check_move`
answers everything its acceptance needs. A round's close: :func:`adjudicate` takes the duel's
stored state, each side's submitted move, the round's seed and the settings in force, and
answers everything the close needs in one frozen value: the result, the state to store,
what may be published, the labels of the moves as published, what only one duellist may
learn, whether the next step opens at once and the sheet fields an ended duel changed.

Pure: no I/O; the dice are the round's fair dice (the seed, duel id and round number label
them, docs/fairness.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.rules import registry
from bot.rules.base import Ruleset
from bot.rules.dice import FairDice
from bot.rules.errors import RulesError
from bot.rules.terms import SIDES, ChoiceCheck, RoundResult, Side


@dataclass(frozen=True)
class Adjudication:
    """One closed round as the rules answer it."""

    result: RoundResult
    # The duel's state after the round (``result.state.to_dict()``), secrets included.
    state: dict[str, Any]
    # ``result.to_dict()`` as it may be published (secrets removed while the duel runs).
    public: dict[str, Any]
    # Each side's move as the published result shows it ("no move" when none).
    labels: dict[str, str]
    # What only that duellist may learn (a DM; never published).
    private_notes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # The next step of a multi-step game opens at once.
    advances_at_once: bool = False
    # Sheet fields the ended duel changed, per side (written back to the profiles).
    sheet_updates: dict[str, dict[str, Any]] = field(default_factory=dict)


def adjudicate(
    ruleset_id: str,
    state_before: Mapping[str, Any],
    submitted: Mapping[str, str | None],
    settings: Mapping[str, Any],
    *,
    seed: str,
    duel_id: int,
    round_no: int,
) -> Adjudication:
    """Resolve one round of the duel ``duel_id`` under ``ruleset_id``: ``state_before`` is
    the stored ``state.to_dict()``, ``submitted`` each side's move id (None: none by the
    close), ``settings`` what ``make_options`` takes (the server settings the adjudicator
    reads and the duel's house rules). UnknownRuleset (a RulesError) when the ruleset is not
    registered."""
    rules = registry.get(ruleset_id)
    choices: dict[Side, str | None] = {side: submitted.get(side) for side in SIDES}
    result = rules.resolve(
        rules.state_from_dict(state_before),
        choices,
        FairDice(seed, duel_id, round_no),
        rules.make_options(dict(settings)),
    )
    public = rules.public_result(result.to_dict())
    shown = public["choices"]
    return Adjudication(
        result=result,
        state=result.state.to_dict(),
        public=public,
        labels={side: _shown_label(rules, choices[side], shown.get(side)) for side in SIDES},
        private_notes={
            side: tuple(str(note) for note in notes)
            for side, notes in rules.private_notes(result).items()
            if notes
        },
        advances_at_once=not result.ended and rules.advances_at_once(result.state),
        sheet_updates={
            side: dict(fields) for side, fields in rules.sheet_updates(result.state).items()
        }
        if result.ended
        else {},
    )


def _shown_label(rules: Ruleset, submitted: str | None, shown: str | None) -> str:
    """The label of a side's move as published: a secret step's result masks its choices,
    so the label follows the result, never the submission, unless the two agree (then the
    submission's id is labelled)."""
    choice = submitted if submitted == shown else shown
    if choice is None:
        return "no move"
    try:
        return rules.choice_label(choice)
    except RulesError:  # a choice the ruleset refuses is shown as stored
        return choice


def check_move(
    ruleset_id: str, state_data: Mapping[str, Any], side: Side, text: str, current: str | None
) -> ChoiceCheck:
    """Everything a move needs from the rules: ``state_data`` is the duel's stored state,
    ``text`` the move as typed or clicked, ``current`` the side's stored move in the round,
    if any. UnknownRuleset (a RulesError) when the ruleset is not registered; a move the
    rules refuse comes back as ``ChoiceCheck.error``."""
    rules = registry.get(ruleset_id)
    state = rules.state_from_dict(state_data)
    move_id: str | None = None
    error: RulesError | None = None
    try:
        move_id = rules.parse_choice(text, state, side)
    except RulesError as exc:
        error = exc
    return ChoiceCheck(
        awaiting=tuple(rules.awaiting_sides(state)),
        advances_at_once=rules.advances_at_once(state),
        move_id=move_id,
        label=None if move_id is None else rules.choice_label(move_id),
        error=error,
        current_label=None if current is None else rules.choice_label(current),
    )
