"""The capabilities of a ruleset (docs/ruleset-contract.md): what a ruleset has only when
its game has it, beyond the core of bot/rules/base.py.

Each capability is a ``typing.Protocol`` (``runtime_checkable``). A ruleset *claims* one by
naming it among its bases (``class MyGame(Ruleset, HouseRulesFromDeclarations, ...)``)
and then implements all of it; the registry checks that at registration
(``capability_problems``, through ``registry.check_ruleset``). A ruleset that has not a
capability carries none of its members, not even a no-op: the services ask
``capability(ruleset, MultiStep)`` and handle ``None`` (a single-step game, no house
rules, no exact odds...). Nothing else asks: no
``isinstance`` on a concrete ruleset, no ruleset id outside its package.

The ``...FromDeclarations``/``...ByPattern`` classes are optional helpers: a ruleset that
claims the capability through them writes only the declarations (its house rules, its dice
and how its log states them) and gets the rest.

This module imports no ruleset and not the base class (bot/rules/base.py imports it), so
the rules' import graph stays without a cycle.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any, Protocol, TypeVar, runtime_checkable

from bot.rules.command_line import OddsArguments, OddsReport, ShortRound
from bot.rules.errors import InvalidHouseRule, RulesError
from bot.rules.params import (
    DuelParam,
    HouseRule,
    LegacyParam,
    explicit_house_rule_values,
    house_rule_values,
    normalize,
)
from bot.rules.terms import PreDuel, RoundResult, Side, Withholdable

__all__ = [
    "CAPABILITIES",
    "DiceByPattern",
    "ExactOdds",
    "HouseRules",
    "HouseRulesFromDeclarations",
    "InvalidRuleset",
    "MultiStep",
    "PreDuel",
    "SheetProgress",
    "ShortAdjudication",
    "VerifiableDice",
    "capabilities_of",
    "capability",
    "capability_members",
    "capability_problems",
    "check_ruleset",
]

C = TypeVar("C")
R = TypeVar("R")


@runtime_checkable
class MultiStep(Protocol):
    """A duel played as a sequence of steps whose awaited sides, secrecy and pace change
    from step to step (By This Axe's forfeit choices, FoEQ). Without it: both sides choose
    in secret every round, a commander opens and closes each, nothing is told privately,
    every choice and the whole state are published at the close."""

    def awaiting_sides(self, state: Any) -> tuple[Side, ...]:
        """The sides that must choose in the next step, in order."""
        ...

    def advances_at_once(self, state: Any) -> bool:
        """True when the step about to be played in ``state`` is opened by the services as
        soon as the previous one closes, and closed as soon as every awaited side has
        chosen (no commander in between)."""
        ...

    def is_secret(self, state: Any) -> bool:
        """True when the next step's choices are secret until it closes."""
        ...

    def prompt(self, state: Any, side: Side) -> str | None:
        """What a DM prompt asks of ``side`` in the next step (None: the generic text)."""
        ...

    def private_notes(self, result: RoundResult) -> dict[Side, list[str]]:
        """What only one duellist may learn from a step (sent by DM, never published)."""
        ...

    def withholdable(self, state_before: Mapping[str, Any]) -> frozenset[Withholdable]:
        """What the export of a running duel may withhold of a closed (or undone) step whose
        published ``state_before`` is given: ``state_before`` when only its public part may
        be shown, ``choices.a``/``choices.b`` when that side's choice stays secret after the
        close. `duelbot verify` refuses any other claim."""
        ...


@runtime_checkable
class HouseRules(Protocol):
    """Per-duel options where the seed allows several readings, and per-duel settings.
    Without it a duel takes no params: any given is refused, none is shown."""

    def house_rules(self) -> tuple[HouseRule, ...]:
        """The ruleset's house rules, each with its allowed values and default."""
        ...

    def duel_params(self) -> tuple[DuelParam, ...]:
        """The per-duel settings that are not house rules (typed, with defaults)."""
        ...

    def legacy_params(self) -> tuple[LegacyParam, ...]:
        """Keys older duels used, each mapped to a house rule or param (normalised away)."""
        ...

    def parse_house_rules(
        self, params: Mapping[str, Any], *, ignore_unknown: bool = False
    ) -> dict[str, str]:
        """Every house rule's value for a duel: ``params`` validated, defaults filled in."""
        ...

    def explicit_house_rules(self, params: Mapping[str, Any]) -> dict[str, str]:
        """Only the house rules ``params`` names (validated), other keys ignored."""
        ...

    def normalize_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """The one normalisation of a duel's ``params`` (what is stored, run and shown)."""
        ...

    def stored_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """``normalize_params`` of params read back from storage (as stored if they no
        longer validate)."""
        ...

    def house_rules_summary(self, values: Mapping[str, Any]) -> list[tuple[str, str]]:
        """(key, value) pairs of every house rule in force (defaults filled)."""
        ...


@runtime_checkable
class ExactOdds(Protocol):
    """Exact odds by enumeration (`/duel status` odds, `duelbot odds`) and the ruleset's
    own `duelbot odds` flags."""

    def outcome_distribution(
        self, state: Any, choices: Mapping[Side, str | None], options: Any
    ) -> dict[str, Fraction]:
        """Exact probability of each outcome of the next round, by every dice branch."""
        ...

    def odds_arguments(self) -> OddsArguments:
        """The flags of its `duelbot odds` report (bot/rules/command_line.py)."""
        ...

    def odds_from_arguments(
        self, values: Mapping[str, Any], house_rules: Mapping[str, str]
    ) -> OddsReport:
        """The odds report from ``values`` (each flag's value by dest, None when not given,
        plus ``a_name`` and ``b_name``) and the house rules given. A bad value raises a
        RulesError naming its flag."""
        ...


@runtime_checkable
class ShortAdjudication(Protocol):
    """A short `duelbot adjudicate` input (a round without an exported ``state_before``)."""

    #: Every key of the short input.
    short_round_keys: tuple[str, ...]
    #: Its shape for `duelbot adjudicate --help`.
    short_round_help: str
    #: The short result's own keys (after outcome and winner in `duelbot adjudicate
    #: --json`), each with its name in the flat `duelbot verify` input, and what
    #: `duelbot verify --help` says of them.
    short_result_keys: Mapping[str, str]
    short_verify_help: str

    def parse_short_round(self, data: Mapping[str, Any], where: str) -> ShortRound:
        """The state, choices and options of the short input ``data`` (its keys already
        checked against ``short_round_keys``; ``where`` prefixes every field named)."""
        ...

    def short_input(self, state_before: Mapping[str, Any]) -> dict[str, Any]:
        """The short input's own keys for a stored round (``state.to_dict()`` before it)."""
        ...

    def short_result(self, state_after: Mapping[str, Any]) -> dict[str, Any]:
        """The short result's own keys (``short_result_keys``) from the state after it."""
        ...


@runtime_checkable
class VerifiableDice(Protocol):
    """The dice a duel may roll and how its log states them: the archive page and `duelbot
    verify` check a published round against them. Without it the check is skipped."""

    #: Every die (its number of sides) the ruleset ever rolls, when that is fixed; () when
    #: the dice depend on the duellists (then ``dice_for`` says).
    dice: tuple[int, ...]
    #: A regular expression (Python and JavaScript syntax) whose matches in a log line give,
    #: in the groups that took part, the dice values that line reports, in order; None: the
    #: log does not say.
    log_dice_pattern: str | None

    def dice_for(self, sheets: Mapping[str, Any]) -> tuple[int, ...] | None:
        """The dice a duel between these duellists (the export's ``duellists``) can roll,
        or None when the ruleset cannot say."""
        ...

    def stated_dice(self, log: object) -> list[int] | None:
        """The dice values a round's log states, in order (None: it does not say)."""
        ...


@runtime_checkable
class SheetProgress(Protocol):
    """A duel that changes the duellists' sheets (FoEQ's pride, spells learnt)."""

    def sheet_updates(self, final_state: Any) -> dict[Side, dict[str, Any]]:
        """Sheet fields the duel changed, per side, to write back at its end."""
        ...


#: Every capability, in the order the docs list them.
CAPABILITIES: tuple[type, ...] = (
    MultiStep,
    HouseRules,
    PreDuel,
    ExactOdds,
    ShortAdjudication,
    VerifiableDice,
    SheetProgress,
)


def capability(ruleset: object, kind: type[C]) -> C | None:
    """``ruleset`` as the capability ``kind`` when it claims it (names it among its bases),
    else None. The one way the services, the CLI and the exports ask what a ruleset has."""
    if kind not in CAPABILITIES:
        raise TypeError(f"{kind!r} is not a ruleset capability")
    claimed: Any = ruleset if kind in type(ruleset).__mro__ else None
    return claimed  # type: ignore[no-any-return]


def capabilities_of(ruleset: object) -> tuple[type, ...]:
    """The capabilities ``ruleset`` claims, in ``CAPABILITIES`` order."""
    return tuple(kind for kind in CAPABILITIES if kind in type(ruleset).__mro__)


def capability_members(kind: type) -> tuple[str, ...]:
    """The members a ruleset claiming ``kind`` implements: its methods and attributes."""
    names: list[str] = []
    for cls in reversed(kind.__mro__):
        if cls in (object, Protocol) or not getattr(cls, "_is_protocol", False):
            continue
        for name in (*vars(cls).get("__annotations__", {}), *vars(cls)):
            if not name.startswith("_") and name not in names:
                names.append(name)
    return tuple(names)


def _implemented(ruleset: object, name: str) -> bool:
    """Whether ``ruleset`` has ``name`` from a class that is not a capability's own
    declaration (a protocol's ``...`` body is no implementation)."""
    for cls in type(ruleset).__mro__:
        if name in vars(cls):
            return not getattr(cls, "_is_protocol", False)
    return False


def capability_problems(ruleset: object) -> list[str]:
    """Why ``ruleset`` may not be registered, as sentences (none: it may): a capability it
    claims with members it does not implement, or members of a capability it does not
    claim (the services would never call them)."""
    problems: list[str] = []
    title = getattr(ruleset, "title", type(ruleset).__name__)
    for kind in CAPABILITIES:
        members = capability_members(kind)
        if kind in type(ruleset).__mro__:
            missing = [name for name in members if not _implemented(ruleset, name)]
            if missing:
                problems.append(
                    f"{title} claims {kind.__name__} but does not implement "
                    + ", ".join(missing)
                )
        else:
            stray = [name for name in members if _implemented(ruleset, name)]
            if stray:
                problems.append(
                    f"{title} has {', '.join(stray)} of {kind.__name__} without claiming it "
                    f"(name {kind.__name__} among its bases, or remove them)"
                )
    return problems


class InvalidRuleset(RulesError):
    """A ruleset that may not be registered: a capability claimed and not implemented in
    full, or members of a capability it does not claim. The message names each."""


def check_ruleset(ruleset: R) -> R:
    """``ruleset`` when its capabilities are whole (what registration runs, for a built-in
    ruleset and a plug-in alike); InvalidRuleset naming what is wrong."""
    problems = capability_problems(ruleset)
    if problems:
        raise InvalidRuleset("; ".join(problems) + ".")
    return ruleset


# -- helpers a ruleset may claim a capability through ---------------------------------------


class HouseRulesFromDeclarations(HouseRules):
    """``HouseRules`` from the declarations alone: a ruleset defines ``house_rules()`` (and,
    when it has them, ``duel_params()`` and ``legacy_params()``); the parsing, the
    normalisation and the summary follow from those."""

    title: str

    def duel_params(self) -> tuple[DuelParam, ...]:
        return ()

    def legacy_params(self) -> tuple[LegacyParam, ...]:
        return ()

    def parse_house_rules(
        self, params: Mapping[str, Any], *, ignore_unknown: bool = False
    ) -> dict[str, str]:
        """Keys and values are matched without regard to case, and ``_`` equals ``-``. A
        bad value raises InvalidHouseRule naming the key and its allowed values; an unknown
        key does too (naming every house rule), unless ``ignore_unknown``."""
        return house_rule_values(
            self.house_rules(), params, title=self.title, ignore_unknown=ignore_unknown
        )

    def explicit_house_rules(self, params: Mapping[str, Any]) -> dict[str, str]:
        return explicit_house_rule_values(self.house_rules(), params, title=self.title)

    def normalize_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Every key spelt as declared (case and ``_``/``-`` forgiven), a legacy key mapped
        to its canonical one, every value parsed by its type; only the keys given are
        returned. Idempotent. An unknown key, a bad value, or a legacy key that contradicts
        its canonical key raises InvalidHouseRule naming what is allowed."""
        return normalize(
            params,
            title=self.title,
            rules=self.house_rules(),
            settings=self.duel_params(),
            legacy=self.legacy_params(),
        )

    def stored_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        try:
            return self.normalize_params(params)
        except InvalidHouseRule:
            return dict(params)

    def house_rules_summary(self, values: Mapping[str, Any]) -> list[tuple[str, str]]:
        filled = self.parse_house_rules(values, ignore_unknown=True)
        return [(rule.key, filled[rule.key]) for rule in self.house_rules()]


class DiceByPattern(VerifiableDice):
    """``VerifiableDice`` from the declarations alone: a ruleset sets ``dice`` and
    ``log_dice_pattern`` (and overrides ``dice_for`` when its dice depend on the sheets)."""

    def dice_for(self, sheets: Mapping[str, Any]) -> tuple[int, ...] | None:
        return self.dice or None

    def stated_dice(self, log: object) -> list[int] | None:
        """Every group of every match of ``log_dice_pattern`` in the log's lines (a group
        may hold a list, "1, 2, 5"); a log that is not a list of lines states nothing."""
        if self.log_dice_pattern is None:
            return None
        values: list[int] = []
        lines = log if isinstance(log, list) else []
        for line in lines:
            if not isinstance(line, str):
                continue
            for match in re.finditer(self.log_dice_pattern, line):
                for group in match.groups():
                    if group is not None:
                        values += [int(v) for v in group.split(", ") if v.isdecimal()]
        return values
