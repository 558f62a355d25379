"""The terms of the ruleset contract: the plain, frozen data every ruleset and every layer
speaks (a side, a fighter, a legal move, a log line, a round's result, a sheet field, a step
before round 1 with its inputs, outcome and penalties), and the ``PreDuel`` capability those
steps belong to (bot/rules/capabilities.py lists it with the others). The ``Ruleset`` class
itself is in bot/rules/base.py, house rules and per-duel settings in bot/rules/params.py."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, Protocol, runtime_checkable

from bot.rules.dice import DiceSource, Roll
from bot.rules.errors import RulesError
from bot.rules.text import N_, RulesetText

_ = RulesetText(__package__)

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
class Noun:
    """A word of a ruleset, in the singular and the plural ("step", "steps")."""

    one: str
    many: str

    def count(self, n: int) -> str:
        """``n`` and the noun: "1 step", "3 steps"."""
        return f"{n} {self.one if n == 1 else self.many}"


#: Who closes a round (step): a commander (or its deadline), or the step itself as soon as
#: every awaited duellist has chosen.
Closer = Literal["commander", "itself"]


def _no_endings() -> Mapping[str, str]:
    return MappingProxyType({})


@dataclass(frozen=True)
class RulesetWords:
    """How a ruleset's game speaks (docs/ruleset-contract.md, "The words"): what it calls a
    round ("round" for rule 2.14, "step" where the game plays steps) and a move ("move",
    "allotment", "declaration"), who closes one (``closes``), and each outcome code as a
    plain sentence (``ending``: templates over ``{a}`` and ``{b}``, the duellists' names).
    Every post, DM, receipt, card, export and page takes its nouns from here; no outcome
    code is ever shown to people.

    A ruleset declares its words in English, with ``text``, the ``RulesetText`` of its
    package (issue 28; the neutral words: bot/rules' own), and ``Ruleset.words`` gives
    them ``translated()``, in the language of the scope that asks (bot/i18n/context.py).
    Words already translated have no ``text``: they are plain strings, read as they are."""

    round: Noun = Noun(N_("round"), N_("rounds"))
    move: Noun = Noun(N_("move"), N_("moves"))
    closes: Closer = "commander"
    ending: Mapping[str, str] = field(default_factory=_no_endings)
    text: RulesetText | None = field(default=_, compare=False)

    def translated(self) -> RulesetWords:
        """These words in the language of the scope that asks, from the catalog of
        ``text``'s package (a word it lacks stays English); themselves without ``text``."""
        text = self.text
        if text is None:
            return self
        return RulesetWords(
            round=Noun(text(self.round.one), text(self.round.many)),
            move=Noun(text(self.move.one), text(self.move.many)),
            closes=self.closes,
            ending=MappingProxyType({k: text.raw(v) for k, v in self.ending.items()}),
            text=None,
        )

    def ending_sentence(self, outcome: str, a_name: str, b_name: str) -> str | None:
        """The plain sentence of ``outcome`` with the names, None when the words lack it."""
        template = self.ending.get(outcome)
        return None if template is None else template.format(a=a_name, b=b_name)


@dataclass(frozen=True, slots=True)
class StepWords:
    """How one round (step) of a duel is spoken of, worked out once from the state it opens
    on (``Ruleset.step_words``) and carried by its messages: its ``label`` ("round 3",
    "step 5", "round 1, forfeit choice"), the ruleset's nouns for a round and a move, and
    who closes this one."""

    label: str
    round: str = "round"
    move: str = "move"
    closes: Closer = "commander"

    def to_dict(self) -> dict[str, str]:
        return {"label": self.label, "round": self.round, "move": self.move, "closes": self.closes}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> StepWords:
        closes: Closer = "itself" if data.get("closes") == "itself" else "commander"
        return cls(
            str(data.get("label") or "round"),
            str(data.get("round") or "round"),
            str(data.get("move") or "move"),
            closes,
        )


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
    """Everything one adjudicated round produced. ``state`` is the duel after the round
    (whatever a game tracks beyond the outcome lives there)."""

    ruleset: str
    outcome: str
    winner: Side | None
    ended: bool
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
            "choices": dict(self.choices),
            "rolls": [r.to_dict() for r in self.rolls],
            "log": [str(e) for e in self.log],
            "state": self.state.to_dict(),
        }



@dataclass(frozen=True, slots=True)
class Fighter:
    """A duellist as a ruleset sees them at the start: a display name and the ruleset's sheet
    (its ``sheet_fields``)."""

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


#: The kinds of value a pre-duel step's input takes: yes/no, one of its ``choices``, or a
#: whole number (within ``minimum``/``maximum`` when given).
PreDuelInputKind = Literal["bool", "choice", "int"]


@dataclass(frozen=True, slots=True)
class PreDuelInput:
    """One input the commander gives a pre-duel step (a yes/no "accepted", say). ``key``
    is also the slash command's option name (lower case, at most 32 characters);
    ``label`` names it in sentences and errors; ``help`` is the option's description (at
    most 100 characters). An input that is not ``required`` takes ``default`` when not
    given."""

    key: str
    kind: PreDuelInputKind
    label: str
    help: str
    required: bool = False
    default: bool | int | str | None = None
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None


@dataclass(frozen=True, slots=True)
class PreDuelStep:
    """Something that happens before round 1 (a challenge): ``id`` names it for
    ``PreDuel.run_pre_duel_step`` (``/duel challenge`` settles the steps whose id is
    ``challenge``). Its words: ``title`` (a noun: "Challenge"), ``headline`` (a sentence
    template over ``{a}``, who starts the step, and ``{b}``: "{a} challenges {b}"),
    ``summary`` (a few words on what may come of it, for the command's description) and
    ``help`` (what the step decides, for help and docs). ``inputs``: what the commander
    gives it."""

    id: str
    title: str
    help: str
    headline: str = "{a} and {b}"
    summary: str = ""
    inputs: tuple[PreDuelInput, ...] = ()

    def headline_for(self, a: str, b: str) -> str:
        return self.headline.format(a=a, b=b)


@dataclass(frozen=True, slots=True)
class Penalty:
    """What a pre-duel step costs one side beyond the step (a refusal that costs the
    refuser something for a while, say). The services remember it in that member's
    profile sheets under the ruleset (``<ruleset id>:<key>``) and tell the step which keys
    are on record the next time (``run_pre_duel_step(..., remembered=...)``). ``sentence``
    is plain words for posts."""

    key: str
    side: Side
    sentence: str

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "side": self.side, "sentence": self.sentence}


@dataclass(frozen=True, slots=True)
class PreDuelOutcome:
    """What a pre-duel step settled. ``outcome``: the ruleset's code (stored, never shown);
    ``sentence``: the same in plain words ("Bob refuses the challenge: no duel");
    ``fought``: a duel between the two starts now; ``penalties``: what it cost a side;
    ``roll``: the die the step rolled, if any (fair dice, revealed with their seed); ``log``:
    each clause applied."""

    outcome: str
    sentence: str
    fought: bool
    penalties: tuple[Penalty, ...] = ()
    roll: Roll | None = None
    log: tuple[LogEvent, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "sentence": self.sentence,
            "fought": self.fought,
            "penalties": [p.to_dict() for p in self.penalties],
            "roll": None if self.roll is None else self.roll.to_dict(),
            "log": [str(e) for e in self.log],
        }


#: ``remembered`` when no penalty is on record for either side.
NOTHING_REMEMBERED: Mapping[Side, frozenset[str]] = MappingProxyType({})


@runtime_checkable
class PreDuel(Protocol):
    """The pre-duel capability (docs/ruleset-contract.md): a ruleset whose duels may begin
    with a step before round 1. ``remembered``: per side, the keys of the penalties this
    ruleset's steps cost that member before (stored by the services)."""

    def pre_duel_steps(self) -> tuple[PreDuelStep, ...]: ...

    def run_pre_duel_step(
        self,
        step_id: str,
        a: Fighter,
        b: Fighter,
        inputs: Mapping[str, Any],
        dice: DiceSource,
        *,
        remembered: Mapping[Side, frozenset[str]] = NOTHING_REMEMBERED,
    ) -> PreDuelOutcome: ...


@dataclass(frozen=True, slots=True)
class ChoiceCheck:
    """What the rules say of a move typed or clicked by ``side``
    (``bot.rules.adjudication.check_move``): the sides awaited now, whether this step
    closes as soon as they have chosen, and the move's canonical id and label, or why it
    is not a move (``error``). The services decide what to refuse first
    (bot/services/acceptance.py)."""

    awaiting: tuple[Side, ...]
    advances_at_once: bool
    move_id: str | None
    label: str | None
    error: RulesError | None
    current_label: str | None  # the label of the side's stored move, if it has one
    # The round (step) in the ruleset's words, when the caller gave its number.
    words: StepWords | None = None
    # The ruleset's own nouns (a refusal names a round or step, a move or a declaration).
    ruleset_words: RulesetWords = field(default_factory=lambda: RulesetWords())
