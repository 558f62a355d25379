"""The core of the ruleset contract (docs/ruleset-contract.md): what every duel system is.

A ruleset is a pure object: it validates choices and sheets and resolves one round as a
function of (duel state, choices, dice source). It never touches Discord, a database or the
clock. Every other layer (services, Discord, CLI, exports) drives a duel through this core
and, for what only some games have, the capabilities of bot/rules/capabilities.py, asked
with ``capability(ruleset, MultiStep)``; docs/rulesets.md describes both.

This is the contract's home for the other layers: ``Ruleset`` and, re-exported from
bot/rules/terms.py, the data in its signatures (``Side``, ``SIDES``, ``Fighter``,
``MoveSpec``, ``RoundResult``). Finding a ruleset by id is the registry's
(bot/rules/registry.py), which imports the rulesets; this module imports none of them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from bot.rules.capabilities import MultiStep, capability
from bot.rules.dice import DiceSource, FairDice
from bot.rules.errors import InvalidRoundInput, RulesError
from bot.rules.terms import (
    SIDES,
    Fighter,
    MoveSpec,
    OutcomeKind,
    RoundResult,
    RulesetWords,
    SheetField,
    Side,
    StepWords,
)
from bot.rules.text import N_, Localized, RulesetText

_ = RulesetText(__package__)

__all__ = ["SIDES", "Fighter", "MoveSpec", "RoundResult", "Ruleset", "Side"]


class Ruleset(ABC):
    """What every duel system is: the core, about ten members. Subclasses are stateless
    and pure.

    The service layer drives any ruleset through this core: it builds the initial state
    from two sheets, stores ``state.to_dict()`` as JSON, asks for each side's legal choices
    (DM buttons), parses free text, and resolves a round with the round's fair dice. What
    only some games have (several steps, house rules, a pre-duel step, exact odds, a short
    `duelbot adjudicate` input, verifiable dice, sheets the duel changes) is a capability
    (bot/rules/capabilities.py) the ruleset names among its bases and implements whole; a
    ruleset without it carries none of its members.

    ==================================  ============================================  =====
    core member                         what other layers use it for                  must
    ==================================  ============================================  =====
    ``id``, ``title``                   registry key; the name in posts and exports   yes
    ``words``                           how the game speaks (issue 24 item 2)         yes
    ``sheet_fields``, ``validate_sheet``  the sheet schema; ``quick_sheet_fields``    yes
    ``initial_state``                   the duel before round 1                       yes
    ``state_from_dict``                 the state codec (``state.to_dict()`` back)    yes
    ``moves`` / ``parse_choice``        buttons / free text to a canonical choice     yes
    ``make_options``, ``resolve``       one round (step), pure                        yes
    ``public_result``/``public_state``  what may be published while the duel runs     no
    ``describe_outcome``/``result_facts``/``fighter_summary``  the public view        no
    ``outcome_kind(o, w, side)``        win/loss/draw/retreat of a side (the ladder)  no
    ==================================  ============================================  =====

    Helpers over the core (not to override): ``choice_label``, ``readjudicate``,
    ``readjudicate_round`` (the services' one call per move and per close is
    bot/rules/adjudication.py); text defaults: ``short_name``, ``help_text``,
    ``outcome_sentence``.
    """

    id: str
    title: str
    #: How the game speaks (bot/rules/terms.py): rule 2.14's neutral words by default.
    #: Read at each access, in the language of the scope that asks (``translated()``): a
    #: ruleset declares ``words = Localized(WORDS.translated)`` (a plug-in without a
    #: catalog may give plain ``RulesetWords``, read as they are).
    words = Localized(
        RulesetWords(
            ending=MappingProxyType(
                {"a_wins": N_("{a} wins the duel"), "b_wins": N_("{b} wins the duel")}
            ),
            text=_,
        ).translated
    )
    sheet_fields: tuple[SheetField, ...] = ()
    # False while the bot cannot yet run this ruleset's flow end to end (its rules are pure
    # and usable from the CLI; the services refuse to start such duels).
    playable: bool = True
    # ``words: RulesetWords`` (issue 24 item 2, branch ``words``) joins the core here.

    @abstractmethod
    def moves(self, state: Any = None, side: Side | None = None) -> tuple[MoveSpec, ...]:
        """The legal choices (for buttons). ``state``/``side`` narrow them when the ruleset
        depends on the duel's state; without them, every choice of a round."""

    @abstractmethod
    def parse_choice(self, text: str, state: Any = None, side: Side | None = None) -> str:
        """Canonical choice id for free text; raises InvalidChoice listing what is allowed."""

    def choice_label(self, choice: str | None) -> str:
        """How a canonical choice is shown to people."""
        if choice is None:
            return _("no move")
        for move in self.moves():
            if move.id == choice:
                return move.label
        return choice

    @abstractmethod
    def validate_sheet(self, sheet: Mapping[str, Any]) -> dict[str, Any]:
        """A clean copy of a duellist sheet; raises InvalidStats naming the bad field."""

    @abstractmethod
    def initial_state(self, a: Fighter, b: Fighter, params: Mapping[str, Any]) -> Any:
        """The duel's state before round 1 (``params``: per-duel settings, may be empty)."""

    @abstractmethod
    def state_from_dict(self, data: Mapping[str, Any]) -> Any:
        """Inverse of ``state.to_dict()``."""

    @abstractmethod
    def make_options(self, settings: Mapping[str, Any]) -> Any:
        """The ruleset's adjudication options from the server's settings (unknown keys
        ignored)."""

    @abstractmethod
    def resolve(
        self,
        state: Any,
        choices: Mapping[Side, str | None],
        dice: DiceSource,
        options: Any,
    ) -> RoundResult:
        """Adjudicate one round. Pure: same inputs and dice give the same result."""

    # -- presentation (pure text for posts, DMs, cards and exports) -------------------------

    def short_name(self) -> str:
        """The ruleset's name inside a sentence ("A duel begins under <short name>")."""
        return self.title

    def help_text(self, state: Any = None, side: Side | None = None) -> str:
        """DM help: how to answer and what the choices are (Markdown, one paragraph).

        ``state``/``side`` narrow it to what is asked now; without them, the general help.
        The default lists ``moves()`` (a ruleset with many or structured choices overrides
        it)."""
        listed = ", ".join(
            f"`{m.id}`" + (f" ({'/'.join(m.aliases)})" if m.aliases else "")
            for m in self.moves(state, side)[:12]
        )
        if not listed:
            return _("{ruleset}: send one of the choices in the prompt.",
                     ruleset=self.short_name())
        return _("{ruleset}: send one of {listed}.", ruleset=self.short_name(), listed=listed)

    def outcome_sentence(self, outcome: str, a_name: str, b_name: str) -> str:
        """One sentence for an outcome id with the duellists' names, from ``words.ending``;
        an outcome the words lack reads as a plain sentence too, never as its code."""
        sentence = self.words.ending_sentence(outcome, a_name, b_name)
        if sentence is not None:
            return sentence
        return _("The {round} is resolved", round=self.words.round.one)

    def round_label(self, state: Any, number: int) -> str:
        """How the round (step) numbered ``number`` in the duel's history is named, from the
        state it opens on (``state.to_dict()``, or None when unknown): "round 3", "step 5".
        A game whose word depends on the state overrides it (By This Axe: "round 1, forfeit
        choice", a step inside a combat round)."""
        return _("{round} {number}", round=self.words.round.one, number=number)

    def roll_purpose_label(self, purpose: str) -> str:
        """A roll's purpose (its id in the result, ``full_frontal_strike``) as the reader
        reads it, in the scope's language. Default: the id read as words; a ruleset with a
        catalog names its own."""
        return purpose.replace("_", " ").title()

    def unasked_label(self, state: Any, side: Side) -> str | None:
        """How a result shows the move of ``side`` when the round (step) opening on
        ``state`` did not ask it to choose (By This Axe: the allotment it made before its
        round halted for the forfeit choice). None: "not asked"."""
        return None

    def step_words(self, state: Any, number: int) -> StepWords:
        """The words of the round (step) ``number`` opening on ``state``: its label, the
        nouns, and who closes it (the step itself when the services close it as soon as
        the awaited sides have chosen, ``advances_at_once``)."""
        closes = self.words.closes
        steps = capability(self, MultiStep)
        if state is not None and steps is not None:
            try:
                parsed = state if not isinstance(state, Mapping) else self.state_from_dict(state)
                if steps.advances_at_once(parsed):
                    closes = "itself"
            except RulesError:
                pass
        return StepWords(
            label=self.round_label(state, number),
            round=self.words.round.one,
            move=self.words.move.one,
            closes=closes,
        )

    def describe_outcome(self, result: RoundResult | Mapping[str, Any]) -> str:
        """One sentence for a result (a ``RoundResult`` or its stored ``to_dict()``), with
        the names found in its state: what a result post says happened."""
        data = result.to_dict() if isinstance(result, RoundResult) else result
        state = data.get("state")
        names: dict[Side, str] = {}
        for side in SIDES:
            entry = state.get(side) if isinstance(state, Mapping) else None
            name = entry.get("name") if isinstance(entry, Mapping) else None
            names[side] = (
                name
                if isinstance(name, str) and name.strip()
                else _("Duellist {side}", side=side.upper())
            )
        return self.outcome_sentence(str(data.get("outcome") or "?"), names["a"], names["b"])

    def outcome_kind(self, outcome: str, winner: Side | None, side: Side) -> OutcomeKind:
        """How the outcome that ended a duel counts for ``side`` on the ladder: a win or a
        loss when the duel has a winner, else a draw. A ruleset where a duellist can leave
        the duel (a retreat, a flight) overrides this to say ``retreat`` for that side."""
        if winner is not None:
            return "win" if winner == side else "loss"
        return "draw"

    def fighter_summary(self, side_state: Mapping[str, Any]) -> list[tuple[str, str]]:
        """(label, value) pairs describing one duellist for cards and exports. ``side_state``
        is a sheet or the duellist's entry in ``state.to_dict()``. The default shows the
        scalar fields of ``sheet_fields`` that are present."""
        shown: list[tuple[str, str]] = []
        for field in self.sheet_fields:
            value = side_state.get(field.name) if isinstance(side_state, Mapping) else None
            if value is None or isinstance(value, Mapping):
                continue
            text = ", ".join(str(v) for v in value) if isinstance(value, list | tuple) else value
            shown.append((field.name, str(text)))
        return shown

    def result_facts(self, result: Mapping[str, Any]) -> list[tuple[str, str]]:
        """(label, value) facts of a public result (its stored ``to_dict()``) that a result
        post shows under the moves, plain text: what this ruleset alone tracks. The
        default shows none."""
        return []

    # -- re-adjudication (``duelbot adjudicate`` and ``verify``) ---------------------------

    def readjudicate(
        self,
        state_before: Mapping[str, Any],
        choices: Mapping[str, str | None],
        options: Mapping[str, Any],
        dice: DiceSource,
    ) -> RoundResult:
        """Re-run one stored round from JSON: the duel's ``state.to_dict()`` before the
        round, each side's submitted choice (``None``: nothing by the close), the options
        dict given to ``make_options`` (server settings and house rules) and the round's
        dice. Same inputs, same result as when the bot closed the round."""
        if not isinstance(state_before, Mapping):
            raise InvalidRoundInput("state_before must be a JSON object (the duel state).")
        picked: dict[Side, str | None] = {}
        for side in SIDES:
            value = choices.get(side)
            if value is not None and not isinstance(value, str):
                raise InvalidRoundInput(f"choices.{side} must be a string or null.")
            picked[side] = value
        extra = set(choices) - set(SIDES)
        if extra:
            raise InvalidRoundInput(f"choices has unknown keys {sorted(extra)}: only a and b.")
        state = self.state_from_dict(state_before)
        return self.resolve(state, picked, dice, self.make_options(dict(options or {})))

    def readjudicate_round(self, data: Mapping[str, Any]) -> RoundResult:
        """``readjudicate`` from one round as exported (docs/export-format.md): keys
        ``state_before``, ``choices``, ``options`` (optional), ``seed``, ``duel_id``,
        ``round_no``; the dice are the fair dice of that seed and label."""
        for key in ("state_before", "choices", "seed", "duel_id", "round_no"):
            if key not in data:
                raise InvalidRoundInput(f"The round has no {key!r}.")
        duel_id, round_no = data["duel_id"], data["round_no"]
        for name, value in (("duel_id", duel_id), ("round_no", round_no)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidRoundInput(f"{name} must be a whole number, not {value!r}.")
        choices = data["choices"]
        if not isinstance(choices, Mapping):
            raise InvalidRoundInput("choices must be an object {a: ..., b: ...}.")
        options = data.get("options") or {}
        if not isinstance(options, Mapping):
            raise InvalidRoundInput("options must be an object.")
        dice = FairDice(str(data["seed"]), duel_id, round_no)
        return self.readjudicate(data["state_before"], choices, options, dice)

    # -- storage -----------------------------------------------------------------------------

    #: The sheet fields (names from ``sheet_fields``, all whole numbers, in order) that the
    #: quick `/stats set member <field>...` command sets; () for none (``/sheet set`` only).
    #: Every sheet is stored the same way: the profile's ``sheets[<ruleset id>]`` entry.
    quick_sheet_fields: tuple[str, ...] = ()

    def status_notes(self, state: Mapping[str, Any]) -> tuple[str, ...]:
        """What a live duel's status says beyond "live", from its stored state
        (``state.to_dict()``), in plain words (`/duel status`, the export document's
        ``status_notes``). Nothing by default."""
        return ()

    # -- the path of a move, and what may be published --------------------------------------

    def public_result(self, result: dict[str, Any]) -> dict[str, Any]:
        """``result.to_dict()`` as it may be stored and published (secrets removed while the
        duel runs). The default: all of it (a game without secrets between rounds)."""
        return result

    def public_state(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """A running duel's ``state.to_dict()`` as it may be published (an export's
        ``state_before``): what ``public_result`` keeps of a result's state. The default
        keeps everything (a ruleset without secrets between rounds)."""
        return dict(state)
