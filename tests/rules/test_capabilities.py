"""The ruleset contract (docs/ruleset-contract.md): a core base of about ten members and the
capabilities a ruleset claims only when its game has them; ``capability`` is how the other
layers ask, and registration refuses a capability claimed in part or used unclaimed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from bot.rules import registry
from bot.rules.adjudication import check_move
from bot.rules.base import Fighter, MoveSpec, RoundResult, Ruleset, Side
from bot.rules.by_this_axe.ruleset import BY_THIS_AXE
from bot.rules.capabilities import (
    CAPABILITIES,
    ExactOdds,
    HouseRules,
    InvalidRuleset,
    MultiStep,
    PreDuel,
    SheetProgress,
    ShortAdjudication,
    VerifiableDice,
    capabilities_of,
    capability,
    capability_members,
    check_ruleset,
)
from bot.rules.dice import DiceSource
from bot.rules.foeq.ruleset import FOEQ
from bot.rules.rule_2_14.ruleset import RULE_2_14
from tests.rulesets.fencing import FENCING

#: Who has what (docs/rulesets.md's table says the same).
EXPECTED: dict[str, tuple[type, ...]] = {
    RULE_2_14.id: (HouseRules, ExactOdds, ShortAdjudication, VerifiableDice),
    BY_THIS_AXE.id: (MultiStep, HouseRules, PreDuel, ExactOdds, VerifiableDice),
    FOEQ.id: (MultiStep, HouseRules, VerifiableDice, SheetProgress),
    FENCING.id: (HouseRules, ExactOdds),
}


class CoreOnly(Ruleset):
    """The smallest ruleset: the core and no capability at all."""

    id = "test-core-only"
    title = "Core only"

    def moves(self, state: Any = None, side: Side | None = None) -> tuple[MoveSpec, ...]:
        return (MoveSpec("wait", "Wait", "other"),)

    def parse_choice(self, text: str, state: Any = None, side: Side | None = None) -> str:
        return "wait"

    def validate_sheet(self, sheet: Mapping[str, Any]) -> dict[str, Any]:
        return {}

    def initial_state(self, a: Fighter, b: Fighter, params: Mapping[str, Any]) -> Any:
        return {}

    def state_from_dict(self, data: Mapping[str, Any]) -> Any:
        return dict(data)

    def make_options(self, settings: Mapping[str, Any]) -> Any:
        return None

    def resolve(
        self, state: Any, choices: Mapping[Side, str | None], dice: DiceSource, options: Any
    ) -> RoundResult:
        raise NotImplementedError


@pytest.mark.parametrize("rules", [RULE_2_14, BY_THIS_AXE, FOEQ, FENCING], ids=lambda r: r.id)
def test_each_ruleset_claims_what_it_has_and_implements_all_of_it(rules: Ruleset) -> None:
    assert capabilities_of(rules) == EXPECTED[rules.id]
    assert check_ruleset(rules) is rules
    for kind in CAPABILITIES:
        has = capability(rules, kind)
        assert (has is rules) == (kind in EXPECTED[rules.id])
        # A capability it has not leaves no member behind, not even a default no-op.
        if has is None:
            assert [m for m in capability_members(kind) if hasattr(rules, m)] == []
        else:
            assert isinstance(rules, kind)  # the runtime_checkable protocol agrees


def test_the_base_is_the_core_alone() -> None:
    every_member = {m for kind in CAPABILITIES for m in capability_members(kind)}
    assert every_member & set(dir(Ruleset)) == set()
    public = {name for name in vars(Ruleset) if not name.startswith("_")}
    # About ten members, the helpers over them (labels, re-adjudication) and the words'
    # hooks with their defaults (words, round_label, step_words, unasked_label,
    # status_notes: issue 24 item 2).
    assert len(public) <= 28, sorted(public)


def test_a_ruleset_with_no_capability_registers_and_answers_none_everywhere() -> None:
    core = CoreOnly()
    try:
        assert registry.register(core) is core
        assert capabilities_of(core) == ()
        assert all(capability(core, kind) is None for kind in CAPABILITIES)
        # Without MultiStep a move waits for both sides and a commander closes the round.
        check = check_move(core.id, {}, "a", "wait", None)
        assert check.awaiting == ("a", "b") and not check.advances_at_once
    finally:
        registry.unregister(core.id)


def test_a_capability_claimed_in_part_is_refused_naming_what_is_missing() -> None:
    class HalfSteps(CoreOnly, MultiStep):
        id = "test-half-steps"
        title = "Half steps"

        def awaiting_sides(self, state: Any) -> tuple[Side, ...]:
            return ("a",)

    with pytest.raises(InvalidRuleset) as caught:
        registry.register(HalfSteps())
    message = str(caught.value)
    assert "Half steps claims MultiStep but does not implement" in message
    for missing in ("advances_at_once", "is_secret", "prompt", "private_notes", "withholdable"):
        assert missing in message
    assert "awaiting_sides" not in message
    assert registry.get_or_none("test-half-steps") is None


def test_a_capability_attribute_left_unset_is_missing() -> None:
    class NoPattern(CoreOnly, VerifiableDice):
        id = "test-no-pattern"
        title = "No pattern"
        dice = (6,)

        def dice_for(self, sheets: Mapping[str, Any]) -> tuple[int, ...] | None:
            return self.dice

        def stated_dice(self, log: object) -> list[int] | None:
            return None

    with pytest.raises(InvalidRuleset, match="does not implement log_dice_pattern"):
        registry.register(NoPattern())


def test_members_of_a_capability_not_claimed_are_refused() -> None:
    class Unclaimed(CoreOnly):
        id = "test-unclaimed"
        title = "Unclaimed"

        def sheet_updates(self, final_state: Any) -> dict[Side, dict[str, Any]]:
            return {}

    with pytest.raises(InvalidRuleset, match="sheet_updates of SheetProgress without"):
        registry.register(Unclaimed())


def test_the_built_in_rulesets_are_checked_when_the_registry_loads_them() -> None:
    for rules in (RULE_2_14, BY_THIS_AXE, FOEQ):
        assert registry.get(rules.id) is rules
    # The registry's own names for the check (what its callers and plug-in loaders use).
    assert registry.check_ruleset is check_ruleset
    assert registry.InvalidRuleset is InvalidRuleset
    assert registry.capability is capability


def test_only_capabilities_can_be_asked_for() -> None:
    with pytest.raises(TypeError):
        capability(RULE_2_14, Ruleset)
    assert capability(None, HouseRules) is None  # a reader of a ruleset no longer registered
