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
from bot.rules.capabilities import (
    HouseRules,
    MultiStep,
    SheetProgress,
    VerifiableDice,
    capability,
)
from bot.rules.dice import FairDice
from bot.rules.errors import RulesError
from bot.rules.terms import SIDES, ChoiceCheck, RoundResult, Side, StepWords
from bot.rules.text import N_, RulesetText

_ = RulesetText(__package__)

#: The server settings a close hands the ruleset's ``make_options`` besides the duel's house
#: rules (what `duelbot verify` re-runs a round with): the missing-move policy.
ADJUDICATION_OPTIONS = ("missing_move",)


def adjudication_keys(rules: Ruleset | None) -> tuple[str, ...]:
    """The options keys a close gives ``rules.make_options`` besides the house rules: the
    server settings the adjudicator takes, and each house rule's former server setting
    (``HouseRule.former_setting``) that older duels stored in their options."""
    house = None if rules is None else capability(rules, HouseRules)
    if house is None:
        return ADJUDICATION_OPTIONS
    former = tuple(r.former_setting for r in house.house_rules() if r.former_setting)
    return (*ADJUDICATION_OPTIONS, *former)


def adjudication_settings(rules: Ruleset, rules_in_force: Mapping[str, Any]) -> dict[str, Any]:
    """What ``make_options`` gets at a close: the server settings the adjudicator takes and
    the duel's house rules (older duels have none recorded: their state's own apply)."""
    used = {key: rules_in_force[key] for key in adjudication_keys(rules) if key in rules_in_force}
    house = rules_in_force.get("house_rules")
    return {**used, **(dict(house) if isinstance(house, Mapping) else {})}


#: How a result shows a side the round (step) did not ask to choose.
NOT_ASKED = N_("not asked")


@dataclass(frozen=True)
class Adjudication:
    """One closed round as the rules answer it: what the close stores, and what the
    published round shows, in the ruleset's words, so that no renderer asks again."""

    result: RoundResult
    # The duel's state after the round (``result.state.to_dict()``), secrets included.
    state: dict[str, Any]
    # ``result.to_dict()`` as it may be published (secrets removed while the duel runs).
    public: dict[str, Any]
    # The round (step) in the ruleset's words: its label, nouns and who closes it.
    words: StepWords
    # The sides it asked to choose.
    awaited: tuple[Side, ...]
    # Each side's move as the published result shows it ("no move" when none, "not
    # asked" or the ruleset's own words for a side the round did not ask).
    labels: dict[str, str]
    # The outcome as a plain sentence with the names, and the ruleset's own facts.
    sentence: str
    facts: tuple[tuple[str, str], ...]
    # The ruleset's name inside a sentence, each duellist's summary after the round (from
    # the public state) and the house rules in force as (key, value) pairs (None: none
    # recorded, or none in this game).
    title: str
    fighters: dict[str, tuple[tuple[str, str], ...]]
    house_rules: tuple[tuple[str, str], ...] | None
    # The kinds of dice the ruleset rolls (None: it declares none).
    dice: tuple[int, ...] | None
    # What a status says of the duel after the round beyond "live" (``status_notes``).
    status_notes: tuple[str, ...]
    # What only that duellist may learn (a DM; never published).
    private_notes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # The next step of a multi-step game opens at once.
    advances_at_once: bool = False
    # Sheet fields the ended duel changed, per side (written back to the profiles).
    sheet_updates: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Each roll's purpose (its id) in the ruleset's words ("Full Frontal Strike").
    roll_purposes: dict[str, str] = field(default_factory=dict)


def adjudicate(
    ruleset_id: str,
    state_before: Mapping[str, Any],
    submitted: Mapping[str, str | None],
    rules_in_force: Mapping[str, Any],
    *,
    seed: str,
    duel_id: int,
    round_no: int,
) -> Adjudication:
    """Resolve round ``round_no`` of the duel ``duel_id`` under ``ruleset_id``:
    ``state_before`` is the stored ``state.to_dict()``, ``submitted`` each side's move id
    (None or absent: none by the close), ``rules_in_force`` the rules the duel was fixed
    with (``duels.options``: the server settings and house rules ``make_options`` takes are
    picked from it, :func:`adjudication_settings`). UnknownRuleset (a RulesError) when the
    ruleset is not registered."""
    rules = registry.get(ruleset_id)
    before = rules.state_from_dict(state_before)
    steps = capability(rules, MultiStep)
    progress = capability(rules, SheetProgress)
    verifiable = capability(rules, VerifiableDice)
    awaited = SIDES if steps is None else tuple(steps.awaiting_sides(before))
    choices: dict[Side, str | None] = {side: submitted.get(side) for side in SIDES}
    result = rules.resolve(
        before,
        choices,
        FairDice(seed, duel_id, round_no),
        rules.make_options(adjudication_settings(rules, rules_in_force)),
    )
    public = rules.public_result(result.to_dict())
    shown = public["choices"]
    names = {side: _name(public["state"].get(side), side) for side in SIDES}

    def label(side: Side) -> str:
        if shown.get(side) is None and side not in awaited:
            return rules.unasked_label(before, side) or _(NOT_ASKED)
        return _shown_label(rules, choices[side], shown.get(side))

    return Adjudication(
        result=result,
        state=result.state.to_dict(),
        public=public,
        words=rules.step_words(before, round_no),
        awaited=awaited,
        labels={side: label(side) for side in SIDES},
        sentence=rules.outcome_sentence(str(public["outcome"]), names["a"], names["b"]),
        facts=tuple((str(k), str(v)) for k, v in rules.result_facts(public)),
        title=rules.short_name(),
        fighters={
            side: tuple(rules.fighter_summary(public["state"].get(side) or {}))
            for side in SIDES
        },
        house_rules=_house_rules_shown(rules, rules_in_force.get("house_rules")),
        dice=None if verifiable is None else tuple(verifiable.dice),
        status_notes=tuple(rules.status_notes(result.state.to_dict())),
        roll_purposes={
            roll.purpose: rules.roll_purpose_label(roll.purpose) for roll in result.rolls
        },
        private_notes={}
        if steps is None
        else {
            side: tuple(str(note) for note in notes)
            for side, notes in steps.private_notes(result).items()
            if notes
        },
        advances_at_once=steps is not None
        and not result.ended
        and steps.advances_at_once(result.state),
        sheet_updates={
            side: dict(fields) for side, fields in progress.sheet_updates(result.state).items()
        }
        if result.ended and progress is not None
        else {},
    )


def _name(entry: Any, side: str) -> str:
    name = entry.get("name") if isinstance(entry, Mapping) else None
    if isinstance(name, str) and name.strip():
        return name
    return _("Duellist {side}", side=side.upper())


def _house_rules_shown(rules: Ruleset, recorded: Any) -> tuple[tuple[str, str], ...] | None:
    """Every house rule in force (defaults filled) as (key, value) pairs; None when the
    game has none or the duel recorded none (it predates them)."""
    house = capability(rules, HouseRules)
    if house is None or not house.house_rules() or not isinstance(recorded, Mapping):
        return None
    try:
        return tuple((str(k), str(v)) for k, v in house.house_rules_summary(recorded))
    except RulesError:
        return None


def _shown_label(rules: Ruleset, submitted: str | None, shown: str | None) -> str:
    """The label of a side's move as published: a secret step's result masks its choices,
    so the label follows the result, never the submission, unless the two agree (then the
    submission's id is labelled)."""
    choice = submitted if submitted == shown else shown
    if choice is None:
        return _("no move")
    try:
        return rules.choice_label(choice)
    except RulesError:  # a choice the ruleset refuses is shown as stored
        return choice


def check_move(
    ruleset_id: str,
    state_data: Mapping[str, Any],
    side: Side,
    text: str,
    current: str | None,
    number: int | None = None,
) -> ChoiceCheck:
    """Everything a move needs from the rules: ``state_data`` is the duel's stored state,
    ``text`` the move as typed or clicked, ``current`` the side's stored move in the round,
    if any; ``number``: the round's, for its words (the receipt's). UnknownRuleset (a
    RulesError) when the ruleset is not registered; a move the rules refuse comes back as
    ``ChoiceCheck.error``. Without ``MultiStep``: both sides are awaited and a commander
    closes the round."""
    rules = registry.get(ruleset_id)
    state = rules.state_from_dict(state_data)
    steps = capability(rules, MultiStep)
    move_id: str | None = None
    error: RulesError | None = None
    try:
        move_id = rules.parse_choice(text, state, side)
    except RulesError as exc:
        error = exc
    return ChoiceCheck(
        awaiting=SIDES if steps is None else tuple(steps.awaiting_sides(state)),
        advances_at_once=steps is not None and steps.advances_at_once(state),
        move_id=move_id,
        label=None if move_id is None else rules.choice_label(move_id),
        error=error,
        current_label=None if current is None else rules.choice_label(current),
        words=None if number is None else rules.step_words(state, number),
        ruleset_words=rules.words,
    )
