"""The ruleset interface, frozen result objects and exact enumeration.

A ruleset is a pure object: it validates choices and sheets and resolves one
round as a function of (duel state, choices, dice source). It never touches
Discord, a database or the clock. Every other layer (services, Discord, CLI, exports)
drives a duel through this interface alone; docs/rulesets.md describes it and how to add
a ruleset (one package under bot/rules/ and one line in bot/rules/registry.py).

``register``, ``get_ruleset`` and ``ruleset_ids`` are kept here for the callers that
import them from ``bot.rules.base``; they delegate to ``bot.rules.registry``.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

from bot.rules.command_line import OddsArguments, OddsReport, ShortRound
from bot.rules.dice import DiceSource, FairDice, Roll, ScriptedDice, ScriptExhausted
from bot.rules.errors import InvalidHouseRule, InvalidRoundInput, RulesError

Side = Literal["a", "b"]
SIDES: tuple[Side, Side] = ("a", "b")
#: How the outcome that ended a duel counts for one side on the ladder (records, ratings).
OutcomeKind = Literal["win", "loss", "draw", "retreat"]
#: What the export of a running duel may leave out of a closed round, when its ruleset says
#: so (``Ruleset.withholdable``; docs/export-format.md, "What is public").
Withholdable = Literal["state_before", "choices.a", "choices.b"]


def other_side(side: Side) -> Side:
    return "b" if side == "a" else "a"


@dataclass(frozen=True, slots=True)
class LogEvent:
    """One line of the adjudication log, citing the clause of the rule it applied."""

    clause: str
    text: str

    def __str__(self) -> str:
        return f"{self.clause}: {self.text}"


@dataclass(frozen=True, slots=True)
class MoveSpec:
    """A legal choice: canonical id, display label, kind, and accepted short forms."""

    id: str
    label: str
    kind: str
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RoundResult:
    """Everything one adjudicated round produced. ``state`` is the duel after the round."""

    ruleset: str
    outcome: str
    winner: Side | None
    ended: bool
    locked: bool
    choices: Mapping[Side, str | None]
    rolls: tuple[Roll, ...]
    log: tuple[LogEvent, ...]
    state: Any

    def to_dict(self) -> dict[str, Any]:
        return {
            "ruleset": self.ruleset,
            "outcome": self.outcome,
            "winner": self.winner,
            "ended": self.ended,
            "locked": self.locked,
            "choices": dict(self.choices),
            "rolls": [r.to_dict() for r in self.rolls],
            "log": [str(e) for e in self.log],
            "state": self.state.to_dict(),
        }


RollClasses = Callable[[int, str], list[tuple[int, int]]]


@dataclass(frozen=True, slots=True)
class ChoiceCheck:
    """What the rules say of a move typed or clicked by ``side`` (Ruleset.check_choice):
    the sides awaited now, whether this step closes as soon as they have chosen, and the
    move's canonical id and label, or why it is not a move (``error``). The services decide
    what to refuse first (bot/services/acceptance.py)."""

    awaiting: tuple[Side, ...]
    advances_at_once: bool
    move_id: str | None
    label: str | None
    error: RulesError | None
    current_label: str | None  # the label of the side's stored move, if it has one


@dataclass(frozen=True, slots=True)
class Fighter:
    """A duellist as a ruleset sees them at the start: a display name and the ruleset's sheet
    (rule 2.14: {"str", "agi"}; other rulesets their own fields)."""

    name: str
    sheet: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class SheetField:
    """One field of a duellist sheet, for validation, slash command help and docs."""

    name: str
    kind: str  # "int", "str", "choice", "list"
    help: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()
    default: Any = None


@dataclass(frozen=True, slots=True)
class HouseRule:
    """A per-duel option where the seed text allows several readings.

    ``key`` and ``values`` are what a commander types (``flight=after-blows``); ``default``
    is the reading a player of the game would expect (the ruleset's docs say why)."""

    key: str
    values: tuple[str, ...]
    default: str
    help: str

    def __post_init__(self) -> None:
        if self.default not in self.values:
            raise ValueError(f"house rule {self.key}: default {self.default!r} not in values")

    def allowed_text(self) -> str:
        return ", ".join(self.values)


@dataclass(frozen=True, slots=True)
class PreDuelStep:
    """Something that happens before round 1 (the By This Axe challenge): ``id`` names it
    for ``Ruleset.run_pre_duel_step``; ``help`` says what the step decides."""

    id: str
    title: str
    help: str


@dataclass(frozen=True, slots=True)
class DuelParam:
    """A per-duel setting that is not a house rule (``allot_all``, ``locked``): its key as
    stored, its declared type and default. ``kind``: ``bool`` (true/false, yes/no, 1/0, as
    JSON or text) or ``choice`` (one of ``values``; ``aliases`` are (alias, value) pairs)."""

    key: str
    kind: Literal["bool", "choice"]
    default: Any
    help: str
    values: tuple[str, ...] = ()
    aliases: tuple[tuple[str, str], ...] = ()

    def allowed_text(self) -> str:
        return "true or false" if self.kind == "bool" else ", ".join(self.values)


@dataclass(frozen=True, slots=True)
class LegacyParam:
    """A key older duels were started with, still accepted: ``key`` maps to the house rule or
    param ``canonical``, each legacy value (``values``: (legacy, canonical) pairs) to its
    canonical value. Normalisation rewrites it, so nothing downstream ever sees it."""

    key: str
    canonical: str
    values: tuple[tuple[str, str], ...]


#: Booleans as a commander may type them; anything else is refused (``bool("false")`` is
#: True, which once started a duel locked while its status said it was not).
_TRUE = frozenset({"true", "yes", "1", "on"})
_FALSE = frozenset({"false", "no", "0", "off"})


def _house_key(key: object) -> str:
    return str(key).strip().casefold().replace("_", "-")


def _house_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value).strip().casefold().replace("_", "-").replace(" ", "-")


def _param_value(param: DuelParam, raw_value: object) -> Any:
    """``raw_value`` parsed by ``param``'s declared type (InvalidHouseRule when it is not)."""
    if param.kind == "bool":
        if isinstance(raw_value, bool):
            return raw_value
        if isinstance(raw_value, int) and raw_value in (0, 1):
            return raw_value == 1
        text = str(raw_value).strip().casefold() if isinstance(raw_value, str) else None
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise InvalidHouseRule(
            f"{param.key} must be true or false (true/false, yes/no, 1/0), not {raw_value!r}."
        )
    given = _house_value(raw_value) if isinstance(raw_value, str) else None
    for value in param.values:
        if given == _house_value(value):
            return value
    for alias, value in param.aliases:
        if given == _house_value(alias):
            return value
    raise InvalidHouseRule(
        f"{param.key} must be one of {param.allowed_text()}, not {raw_value!r}."
    )


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
        """One sentence for an outcome id with the duellists' names. Override per ruleset;
        the default knows only the generic ``a_wins``/``b_wins``."""
        generic = {
            "a_wins": f"{a_name} wins the duel",
            "b_wins": f"{b_name} wins the duel",
        }
        return generic.get(outcome, outcome)

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
        rules = {rule.key: rule for rule in self.house_rules()}
        chosen = {key: rule.default for key, rule in rules.items()}
        for raw_key, raw_value in params.items():
            key = _house_key(raw_key)
            rule = rules.get(key)
            if rule is None:
                if ignore_unknown:
                    continue
                raise InvalidHouseRule(self._unknown_house_rule(str(raw_key)))
            value = _house_value(raw_value)
            if value not in rule.values:
                raise InvalidHouseRule(
                    f"{rule.key} must be one of {rule.allowed_text()}, not {str(raw_value)!r}."
                )
            chosen[key] = value
        return chosen

    def explicit_house_rules(self, params: Mapping[str, Any]) -> dict[str, str]:
        """Only the house rules ``params`` names (validated), other keys ignored."""
        given = {_house_key(k) for k in params}
        values = self.parse_house_rules(params, ignore_unknown=True)
        return {key: value for key, value in values.items() if key in given}

    def _unknown_house_rule(self, key: str) -> str:
        rules = self.house_rules()
        if not rules:
            return f"{key!r} is not a house rule: {self.title} has no house rules."
        listed = "; ".join(f"{r.key} ({r.allowed_text()})" for r in rules)
        return f"{key!r} is not a house rule of {self.title}. House rules: {listed}."

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
        rules = {_house_key(r.key): r for r in self.house_rules()}
        settings = {_house_key(p.key): p for p in self.duel_params()}
        legacy = {_house_key(x.key): x for x in self.legacy_params()}
        out: dict[str, Any] = {}
        mapped: dict[str, tuple[str, Any]] = {}  # canonical key -> (legacy key, value)
        for raw_key, raw_value in params.items():
            key = _house_key(raw_key)
            if key in legacy:
                old = legacy[key]
                value = dict(old.values).get(_house_value(raw_value).replace("-", "_"))
                if value is None:
                    allowed = ", ".join(v for v, _ in old.values)
                    raise InvalidHouseRule(
                        f"{old.key} (the older name of {old.canonical}) must be one of "
                        f"{allowed}, not {str(raw_value)!r}."
                    )
                mapped[_house_key(old.canonical)] = (old.key, value)
                continue
            if key in rules:
                rule = rules[key]
                out[rule.key] = self._house_rule_value(rule, raw_value)
            elif key in settings:
                out[settings[key].key] = _param_value(settings[key], raw_value)
            else:
                raise InvalidHouseRule(self._unknown_param(str(raw_key)))
        for key, (old_key, value) in mapped.items():
            name = rules[key].key if key in rules else settings[key].key
            canonical = (
                self._house_rule_value(rules[key], value)
                if key in rules
                else _param_value(settings[key], value)
            )
            if name in out and out[name] != canonical:
                raise InvalidHouseRule(
                    f"{old_key} and {name} disagree ({old_key} means {name}={canonical}, but "
                    f"{name}={out[name]} was given): give {name} alone."
                )
            out[name] = canonical
        return out

    @staticmethod
    def _house_rule_value(rule: HouseRule, raw_value: object) -> str:
        value = _house_value(raw_value)
        if value not in rule.values:
            raise InvalidHouseRule(
                f"{rule.key} must be one of {rule.allowed_text()}, not {str(raw_value)!r}."
            )
        return value

    def _unknown_param(self, key: str) -> str:
        listed = [f"{p.key} ({p.allowed_text()})" for p in self.duel_params()]
        listed += [f"{r.key} ({r.allowed_text()})" for r in self.house_rules()]
        listed += [f"{x.key} (older name of {x.canonical})" for x in self.legacy_params()]
        none = "" if self.house_rules() else f" {self.title} has no house rules."
        if not listed:
            return f"{key!r} is not a {self.title} duel setting: it takes none.{none}"
        allowed = "; ".join(listed)
        return f"{key!r} is not a {self.title} duel setting.{none} Allowed: {allowed}."

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
    ) -> Any:
        """Settle the pre-duel step ``step_id`` between ``a`` (who starts it) and ``b``.

        Returns a frozen result with at least ``outcome`` (str), ``duel`` (bool: the duel is
        fought), ``leadership_lost`` (bool: a penalty the services remember), ``roll`` (the
        die rolled, or None), ``log`` and ``to_dict()``. ``inputs`` are the step's own
        (the challenge: ``accepted``, ``units_in_contact``, ``leader_first_refusal``)."""
        raise InvalidRoundInput(f"{self.title} has no pre-duel step {step_id!r}.")

    # -- storage -----------------------------------------------------------------------------

    #: (sheet field, profile column) pairs when this ruleset's sheet is stored in the profile's
    #: own columns (rule 2.14's STR/AGI predate the per-ruleset sheets); empty: the sheet is
    #: the profile's ``sheets[<ruleset id>]`` entry.
    sheet_columns: tuple[tuple[str, str], ...] = ()

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
        self, state_data: Mapping[str, Any], side: Side, text: str, current: str | None
    ) -> ChoiceCheck:
        """Everything a move needs from the rules in one call (issue 25: the move's path
        asks the rules once): ``state_data`` is the duel's stored state, ``current`` the
        side's stored move in the round, if any."""
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


def enumerate_outcomes(
    run: Callable[[ScriptedDice], str], roll_classes: RollClasses
) -> dict[str, Fraction]:
    """Exact distribution of ``run``'s result over all dice, depth first over a roll script."""
    distribution: dict[str, Fraction] = {}
    pending: list[tuple[tuple[int, ...], Fraction]] = [((), Fraction(1))]
    while pending:
        script, weight = pending.pop()
        try:
            outcome = run(ScriptedDice(script))
        except ScriptExhausted as need:
            for face, count in roll_classes(need.sides, need.purpose):
                pending.append(((*script, face), weight * Fraction(count, need.sides)))
            continue
        distribution[outcome] = distribution.get(outcome, Fraction(0)) + weight
    return distribution


def register(ruleset: Ruleset) -> Ruleset:
    """Add a ruleset to the registry (the built-in ones are listed in bot/rules/registry.py;
    tests register their own)."""
    from bot.rules import registry  # the registry imports every ruleset package

    return registry.register(ruleset)


def get_ruleset(ruleset_id: str) -> Ruleset:
    from bot.rules import registry

    return registry.get(ruleset_id)


def ruleset_ids() -> tuple[str, ...]:
    from bot.rules import registry

    return registry.ids()
