"""The ruleset interface: what every duel system implements.

A ruleset is a pure object: it validates choices and sheets and resolves one
round as a function of (duel state, choices, dice source). It never touches
Discord, a database or the clock. Every other layer (services, Discord, CLI, exports)
drives a duel through this interface alone; docs/rulesets.md describes it and how to add
a ruleset (one package under bot/rules/ and one line in bot/rules/registry.py).

This is the contract's home for the other layers: ``Ruleset`` and, re-exported from
bot/rules/terms.py, the data in its signatures (``Side``, ``SIDES``, ``Fighter``,
``MoveSpec``, ``RoundResult``). Inside bot/rules, modules import those from terms.py, house
rules and per-duel settings from params.py. Finding a ruleset by id is the registry's
(bot/rules/registry.py), which imports the rulesets; this module imports none of them.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Mapping
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from bot.rules.command_line import OddsArguments, OddsReport, ShortRound
from bot.rules.dice import DiceSource, FairDice, enumerate_outcomes
from bot.rules.errors import InvalidHouseRule, InvalidRoundInput, RulesError
from bot.rules.params import (
    DuelParam,
    HouseRule,
    LegacyParam,
    explicit_house_rule_values,
    house_rule_values,
    normalize,
)
from bot.rules.terms import (
    NOTHING_REMEMBERED,
    SIDES,
    ChoiceCheck,
    Fighter,
    MoveSpec,
    OutcomeKind,
    PreDuelOutcome,
    PreDuelStep,
    RoundResult,
    RulesetWords,
    SheetField,
    Side,
    StepWords,
    Withholdable,
)

__all__ = ["SIDES", "Fighter", "MoveSpec", "RoundResult", "Ruleset", "Side"]


class Ruleset(ABC):
    """What every duel system implements. Subclasses are stateless and pure.

    The service layer drives any ruleset through this interface alone: it builds the
    initial state from two sheets, stores ``state.to_dict()`` as JSON, asks for each side's
    legal choices (DM buttons), parses free text, and resolves a round with the round's
    fair dice. A ruleset whose round has several phases keeps the phase in its state.

    What a ruleset must implement (abstract): ``moves``, ``parse_choice``,
    ``validate_sheet``, ``initial_state``, ``state_from_dict``, ``make_options``,
    ``resolve``. Everything else has a default here, so a minimal ruleset is small:

    ============================  ==============================================  =========
    member                        what other layers use it for                    default
    ============================  ==============================================  =========
    ``id``, ``title``             registry key; the name in posts and exports     required
    ``short_name()``              "a duel under <short name>" in sentences        title
    ``sheet_fields``              sheet schema (slash help, docs, validation)     ()
    ``validate_sheet(sheet)``     a clean sheet or InvalidStats                   required
    ``help_text(state, side)``    DM help: how to answer and the choices          generic
    ``moves`` / ``parse_choice``  buttons / free text to a canonical choice       required
    ``prompt(state, side)``       DM prompt of a multi-step step                  None
    ``resolve``                   one round (step)                                required
    ``public_result(result)``     what may be stored/published while running      identity
    ``public_state(state)``       a running duel's state as it may be published   identity
    ``private_notes(result)``     what one side alone may learn                   {}
    ``describe_outcome(result)``  one sentence for a result post                  generic
    ``outcome_kind(o, w, side)``  win/loss/draw/retreat of a side (the ladder)    winner
    ``fighter_summary(side)``     (label, value) pairs for cards and exports      sheet
    ``result_facts(result)``      (label, value) facts a result post shows        ()
    ``house_rules()``             per-duel options with defaults                  ()
    ``parse_house_rules(params)`` validated house-rule values                     base
    ``readjudicate(...)``         re-run a stored round (adjudicate, verify)      base
    ``outcome_distribution``      exact odds by enumeration                       base
    ``pre_duel_steps()``          steps before round 1 (a challenge)              ()
    ``dice`` / ``dice_for``       the dice a duel rolls (archive page's check)    () / None
    ``log_dice_pattern``          how the log states dice (archive page's check)  None
    ============================  ==============================================  =========
    """

    id: str
    title: str
    #: How the game speaks (bot/rules/terms.py): rule 2.14's neutral words by default.
    words: RulesetWords = RulesetWords(
        ending=MappingProxyType({"a_wins": "{a} wins the duel", "b_wins": "{b} wins the duel"})
    )
    sheet_fields: tuple[SheetField, ...] = ()
    # False while the bot cannot yet run this ruleset's flow end to end (its rules are pure
    # and usable from the CLI; the services refuse to start such duels).
    playable: bool = True
    #: Every die (its number of sides) the ruleset ever rolls, when that is fixed (d6, d20):
    #: the archive page (docs/archive.md) refuses a published roll of any other die, such as
    #: a roll rewritten as DICE0, which gives 0 from any seed. () when the dice depend on the
    #: duellists: override ``dice_for``.
    dice: tuple[int, ...] = ()
    #: How the log states the dice, for the archive page: a regular expression (in the
    #: syntax Python's ``re`` and JavaScript share) whose matches in a log line give, in the
    #: groups that took part, the values of the dice that line reports, in order (a group
    #: may hold a list, "1, 2, 5"). The page checks that a round's log states exactly its
    #: recorded rolls. None: the ruleset does not say, and the page does not check it.
    log_dice_pattern: str | None = None

    def dice_for(self, sheets: Mapping[str, Any]) -> tuple[int, ...] | None:
        """The dice a duel between these duellists can roll (``sheets``: the export's
        ``duellists``, each side's sheet as snapshotted at the start), or None when the
        ruleset cannot say (then the archive page does not check the dice)."""
        return self.dice or None

    def stated_dice(self, log: object) -> list[int] | None:
        """The dice values a round's log states, in order, by ``log_dice_pattern`` (the
        archive page's ``statedValues``, and ``duelbot verify``'s check of a round it cannot
        re-adjudicate); None when the ruleset does not say how its log states dice. A log
        that is not a list of lines states nothing."""
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
            return "no move"
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
        return f"{self.short_name()}: send one of {listed or 'the choices in the prompt'}."

    def outcome_sentence(self, outcome: str, a_name: str, b_name: str) -> str:
        """One sentence for an outcome id with the duellists' names, from ``words.ending``;
        an outcome the words lack reads as a plain sentence too, never as its code."""
        sentence = self.words.ending_sentence(outcome, a_name, b_name)
        if sentence is not None:
            return sentence
        return f"The {self.words.round.one} is resolved"

    def round_label(self, state: Any, number: int) -> str:
        """How the round (step) numbered ``number`` in the duel's history is named, from the
        state it opens on (``state.to_dict()``, or None when unknown): "round 3", "step 5".
        A game whose word depends on the state overrides it (By This Axe: "round 1, forfeit
        choice", a step inside a combat round)."""
        return f"{self.words.round.one} {number}"

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
        if state is not None:
            try:
                parsed = state if not isinstance(state, Mapping) else self.state_from_dict(state)
                if self.advances_at_once(parsed):
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
                name if isinstance(name, str) and name.strip() else f"Duellist {side.upper()}"
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
        post shows under the moves, plain text: what this ruleset alone tracks (rule 2.14:
        whether the duellists are locked in combat). The default shows none."""
        return []

    # -- house rules (per-duel options where the seed allows several readings) --------------

    def house_rules(self) -> tuple[HouseRule, ...]:
        """The ruleset's house rules, each with its allowed values and default."""
        return ()

    def parse_house_rules(
        self, params: Mapping[str, Any], *, ignore_unknown: bool = False
    ) -> dict[str, str]:
        """Every house rule's value for a duel: ``params`` validated, defaults filled in.

        Keys and values are matched without regard to case, and ``_`` equals ``-``
        (``shot_tie=Public_Stakes`` is ``shot-tie=public-stakes``). A bad value raises
        InvalidHouseRule naming the key and its allowed values; an unknown key does too
        (naming every house rule), unless ``ignore_unknown`` (params that also carry other
        per-duel settings, or server settings)."""
        return house_rule_values(
            self.house_rules(), params, title=self.title, ignore_unknown=ignore_unknown
        )

    def explicit_house_rules(self, params: Mapping[str, Any]) -> dict[str, str]:
        """Only the house rules ``params`` names (validated), other keys ignored."""
        return explicit_house_rule_values(self.house_rules(), params, title=self.title)

    def duel_params(self) -> tuple[DuelParam, ...]:
        """The per-duel settings that are not house rules (typed, with defaults)."""
        return ()

    def legacy_params(self) -> tuple[LegacyParam, ...]:
        """Keys older duels used, each mapped to a house rule or param (normalised away)."""
        return ()

    def normalize_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """The one normalisation of a duel's ``params``: every key spelt as declared (house
        rules and ``duel_params``; case and ``_``/``-`` forgiven), a legacy key mapped to its
        canonical one, every value parsed by its type (a house rule's allowed value, a bool as
        a bool). Only the keys given are returned; what is stored, run and shown is this.
        Idempotent. An unknown key, a bad value, or a legacy key that contradicts its
        canonical key raises InvalidHouseRule naming what is allowed."""
        return normalize(
            params,
            title=self.title,
            rules=self.house_rules(),
            settings=self.duel_params(),
            legacy=self.legacy_params(),
        )

    def stored_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """``normalize_params`` of params read back from storage: a duel started before the
        normalisation (a legacy key, ``"false"`` as text) reads as it runs now; params that
        no longer validate are returned as stored rather than lost."""
        try:
            return self.normalize_params(params)
        except InvalidHouseRule:
            return dict(params)

    def house_rules_summary(self, values: Mapping[str, Any]) -> list[tuple[str, str]]:
        """(key, value) pairs of every house rule in force (defaults filled), for the duel
        card, result posts and exports."""
        filled = self.parse_house_rules(values, ignore_unknown=True)
        return [(rule.key, filled[rule.key]) for rule in self.house_rules()]

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

    # -- steps before round 1 --------------------------------------------------------------

    def pre_duel_steps(self) -> tuple[PreDuelStep, ...]:
        """What happens before round 1 (none by default)."""
        return ()

    def run_pre_duel_step(
        self,
        step_id: str,
        a: Fighter,
        b: Fighter,
        inputs: Mapping[str, Any],
        dice: DiceSource,
        *,
        remembered: Mapping[Side, frozenset[str]] = NOTHING_REMEMBERED,
    ) -> PreDuelOutcome:
        """Settle the pre-duel step ``step_id`` between ``a`` (who starts it) and ``b``
        (the ``PreDuel`` capability, bot/rules/terms.py). ``inputs``: the step's declared
        inputs by key, validated and with defaults filled by the caller; ``remembered``:
        per side, the keys of the penalties this ruleset's steps cost that member before."""
        raise InvalidRoundInput(f"{self.title} has no pre-duel step {step_id!r}.")

    # -- storage -----------------------------------------------------------------------------

    #: The sheet fields (names from ``sheet_fields``, all whole numbers, in order) that the
    #: quick `/stats set member <field>...` command sets; () for none (``/sheet set`` only).
    #: Every sheet is stored the same way: the profile's ``sheets[<ruleset id>]`` entry.
    quick_sheet_fields: tuple[str, ...] = ()

    def status_notes(self, state: Mapping[str, Any]) -> tuple[str, ...]:
        """What a live duel's status says beyond "live", from its stored state
        (``state.to_dict()``), in plain words (rule 2.14: "locked in combat"). Nothing by
        default."""
        return ()

    def is_locked(self, state: Mapping[str, Any]) -> bool:
        """Whether a stored state (``state.to_dict()``) is locked, as its last
        ``RoundResult.locked`` said (`/duel status`, exports): False unless the game locks."""
        return False

    # -- multi-step rulesets ---------------------------------------------------------------
    # A ruleset whose duel is a sequence of steps (who must choose, in secret or in the
    # open, changes from step to step) overrides these. The defaults describe rule 2.14 and
    # By This Axe: both sides choose in secret every round, nothing is told privately, the
    # whole result is public, and a commander opens every round.

    #: True: when a step closes and the duel goes on, the services open the next step at
    #: once (and close a step as soon as every awaited side has chosen).
    auto_advance: bool = False

    def awaiting_sides(self, state: Any) -> tuple[Side, ...]:
        """The sides that must choose in the next round (step), in order."""
        return SIDES

    def advances_at_once(self, state: Any) -> bool:
        """True when the step about to be played in ``state`` is opened by the services as
        soon as the previous one closes, and closed as soon as every awaited side has
        chosen (no commander in between). Default: ``auto_advance``; a ruleset whose round
        sometimes halts for a player's choice (By This Axe's victim picking the forfeited
        dice) says so for those states only."""
        return self.auto_advance

    def check_choice(
        self,
        state_data: Mapping[str, Any],
        side: Side,
        text: str,
        current: str | None,
        number: int | None = None,
    ) -> ChoiceCheck:
        """Everything a move needs from the rules in one call (issue 25: the move's path
        asks the rules once): ``state_data`` is the duel's stored state, ``current`` the
        side's stored move in the round, if any; ``number``: the round's, for its words
        (the receipt's)."""
        state = self.state_from_dict(state_data)
        move_id: str | None = None
        error: RulesError | None = None
        try:
            move_id = self.parse_choice(text, state, side)
        except RulesError as exc:
            error = exc
        return ChoiceCheck(
            awaiting=tuple(self.awaiting_sides(state)),
            advances_at_once=self.advances_at_once(state),
            move_id=move_id,
            label=None if move_id is None else self.choice_label(move_id),
            error=error,
            current_label=None if current is None else self.choice_label(current),
            words=None if number is None else self.step_words(state, number),
        )

    def is_secret(self, state: Any) -> bool:
        """True when the next round's choices are secret until it closes."""
        return True

    def private_notes(self, result: RoundResult) -> dict[Side, list[str]]:
        """What only one duellist may learn from a round (sent by DM, never published)."""
        return {}

    def public_result(self, result: dict[str, Any]) -> dict[str, Any]:
        """``result.to_dict()`` as it may be stored and published (secrets removed while the
        duel runs)."""
        return result

    def public_state(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """A running duel's ``state.to_dict()`` as it may be published (an export's
        ``state_before``): what ``public_result`` keeps of a result's state. The default
        keeps everything (a ruleset without secrets between rounds)."""
        return dict(state)

    def withholdable(self, state_before: Mapping[str, Any]) -> frozenset[Withholdable]:
        """What the export of a running duel may withhold of a closed (or undone) round
        whose published ``state_before`` is given: ``state_before`` when only its public
        part may be shown, ``choices.a``/``choices.b`` when that side's choice stays secret
        after the close. `duelbot verify` refuses any other claim (a forged round could
        otherwise hide behind one); open and cancelled rounds, and ended duels, follow the
        export's own rules. Default: nothing (every choice is published and the whole
        state is public)."""
        return frozenset()

    def prompt(self, state: Any, side: Side) -> str | None:
        """What a DM prompt asks of ``side`` in the next round (None: the generic text)."""
        return None

    def sheet_updates(self, final_state: Any) -> dict[Side, dict[str, Any]]:
        """Sheet fields the duel changed, per side, to write back to the profiles at the
        end."""
        return {}

    def roll_classes(self, sides: int, purpose: str) -> list[tuple[int, int]]:
        """Groups of die faces the rules cannot tell apart: (representative, count).

        Enumeration explores one branch per class, so exact odds stay cheap for large dice.
        The default treats every face as distinct.
        """
        return [(face, 1) for face in range(1, sides + 1)]

    def outcome_distribution(
        self,
        state: Any,
        choices: Mapping[Side, str | None],
        options: Any,
    ) -> dict[str, Fraction]:
        """Exact probability of each outcome, by enumerating every dice branch."""
        return enumerate_outcomes(
            lambda dice: self.resolve(state, choices, dice, options).outcome,
            self.roll_classes,
        )

    # -- the command line (bot/rules/command_line.py) -----------------------------------

    #: Every key of the ruleset's short `duelbot adjudicate` input (the default ruleset's
    #: is read when a round has no ``state_before``); empty: it has none.
    short_round_keys: tuple[str, ...] = ()
    #: Its shape for `duelbot adjudicate --help`.
    short_round_help: str = ""

    def parse_short_round(self, data: Mapping[str, Any], where: str) -> ShortRound:
        """The state, choices and options of the short input ``data`` (its keys already
        checked against ``short_round_keys``; ``where`` prefixes every field named)."""
        raise InvalidRoundInput(
            f"{self.title} has no short round input: give the round as exported "
            "(state_before, choices; docs/export-format.md)."
        )

    def odds_arguments(self) -> OddsArguments | None:
        """The flags of its `duelbot odds` report; None: it has none on the command line."""
        return None

    def odds_from_arguments(
        self, values: Mapping[str, Any], house_rules: Mapping[str, str]
    ) -> OddsReport:
        """The odds report from ``values`` (each of its flags' value by dest, None when not
        given, plus ``a_name`` and ``b_name``) and the house rules given (``--option``,
        validated). A bad value raises a RulesError naming its flag."""
        raise InvalidRoundInput(f"{self.title} has no odds report on the command line.")
