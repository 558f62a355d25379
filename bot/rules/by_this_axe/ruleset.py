"""The By This Axe ruleset: the ``Ruleset`` over its modules (choices.py: what a side may
choose; resolution.py: one round; odds.py: exact odds; challenge.py: the pre-duel
challenge; command_line.py: its `duelbot odds` report)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction
from typing import Any

from bot.rules.base import Ruleset
from bot.rules.by_this_axe import command_line
from bot.rules.by_this_axe.allotments import choice_to_allotment
from bot.rules.by_this_axe.challenge import REFUSAL_PENALTY, challenge, settled
from bot.rules.by_this_axe.choices import (
    choice_label,
    legal_moves,
    parse_choice,
    picks,
    tricked_allotment,
)
from bot.rules.by_this_axe.forfeits import forfeit_choice_id, forfeit_label
from bot.rules.by_this_axe.odds import outcomes_from_joint, round_joint
from bot.rules.by_this_axe.resolution import resolve_round
from bot.rules.by_this_axe.sheet import Combatant, clean_sheet
from bot.rules.by_this_axe.state import (
    ALLOT_ALL,
    FLIGHT_RULE,
    FORFEIT_RULE,
    HOUSE_RULES,
    TRICK_TAKES_PARAM,
    VICTIM_CHOOSES,
    DuelState,
    Options,
    _flight,
    _forfeit,
    forfeit_splits,
    rules_in_force,
)
from bot.rules.by_this_axe.tables import (
    ARMOR_MAX,
    ARMOR_MIN,
    ATTACK,
    BOTH_FLEE,
    CHARACTERS,
    COUNTERATTACK,
    DEFAULT_WOUNDS,
    DIRTY_TRICK,
    ENDINGS,
    FLEE,
    FLEE_FROM_ROUND,
    FLEE_ROLL,
    FORCE_DUEL,
    PARRY,
    POOLS,
    PURPOSE_LABELS,
    RULESET_ID,
    TITLE,
    WOUNDS_MAX,
    character_name,
    save_shown,
)
from bot.rules.by_this_axe.text import N_, NP_, _
from bot.rules.capabilities import (
    DiceByPattern,
    ExactOdds,
    HouseRulesFromDeclarations,
    MultiStep,
)
from bot.rules.command_line import OddsArguments, OddsReport
from bot.rules.dice import DiceSource, enumerate_outcomes, every_face
from bot.rules.errors import InvalidRoundInput, RulesError
from bot.rules.params import DuelParam, HouseRule, LegacyParam
from bot.rules.terms import (
    NOTHING_REMEMBERED,
    SIDES,
    Fighter,
    MoveSpec,
    Noun,
    OutcomeKind,
    PreDuel,
    PreDuelInput,
    PreDuelOutcome,
    PreDuelStep,
    RoundResult,
    RulesetWords,
    SheetField,
    Side,
    StepWords,
    Withholdable,
    other_side,
)
from bot.rules.text import Localized

#: The pre-duel step's id (``/duel challenge``).
CHALLENGE_ID = "challenge"
#: The challenge's headline, a template over the names (filled in by ``headline_for``).
CHALLENGE_HEADLINE = N_("{a} challenges {b}")


def challenge_step() -> PreDuelStep:
    """The challenge before the duel, its words in the reader's language."""
    return PreDuelStep(
        CHALLENGE_ID,
        _("Challenge"),
        _(
            "A character challenges another within 9 inches; a refusal stands unless, with "
            "the units in contact, the challenger forces the duel on a d6 of 1-3; a "
            "leader's first refusal costs him his leadership for the turn "
            "(bot.rules.by_this_axe.challenge)."
        ),
        headline=_.raw(CHALLENGE_HEADLINE),
        summary=_("accepted, refused, or forced on 1-3"),
        # The keys are the /duel challenge option names since the command began.
        inputs=(
            PreDuelInput(
                NP_("command name", "accepted"), "bool", _("accepted"),
                _("Did the challenged accept?"), required=True,
            ),
            PreDuelInput(
                NP_("command name", "contact"), "bool", _("units in contact"),
                _("Are both characters' units in contact (a refusal can then be forced)?"),
                default=False,
            ),
        ),
    )


#: By This Axe plays rounds of secret allotments, closed by a commander (a round halted for
#: a forfeit choice goes on by itself once the victims have chosen: ``step_words``).
WORDS = RulesetWords(
    round=Noun(N_("round"), N_("rounds")),
    move=Noun(N_("allotment"), N_("allotments")),
    ending=ENDINGS,
    text=_,
)
#: The name of the step a round halts for (its label: "round 3, forfeit choice").
FORFEIT_STEP = "forfeit choice"


def _sheet_fields() -> tuple[SheetField, ...]:
    """The sheet's fields, their help in the reader's language."""
    return (
        SheetField(
            "character",
            "choice",
            _(
                "Character type; dice pool: hero 4, superhero 8, champion 12, priest 3, "
                "mage 3, high_priest 6, wizard 6"
            ),
            choices=CHARACTERS,
        ),
        SheetField(
            "armor_save",
            "int",
            _(
                "d6 result that saves a hit (5 = 5-6 saves; 0 or 7 = no save); base save, "
                "the Heroic +1 is ignored in duels. Default by type: "
                "hero/superhero/champion 5, priest/high_priest 6, mage/wizard none"
            ),
            ARMOR_MIN,
            ARMOR_MAX,
        ),
        SheetField("wounds", "int", _("Unsaved hits that defeat the character"), 1,
                   WOUNDS_MAX, default=DEFAULT_WOUNDS),
        SheetField("leader", "choice",
                   _("The character is a leader (challenge refusals): yes or no"),
                   choices=("no", "yes"), default="no"),
    )


class ByThisAxe(
    Ruleset, MultiStep, HouseRulesFromDeclarations, PreDuel, ExactOdds, DiceByPattern
):
    """By This Axe and its capabilities: several steps (a round halts for a victim's
    forfeit choice), house rules, the challenge before the duel, exact odds, verifiable
    dice."""

    id = RULESET_ID
    # Read in the reader's language at each access (bot/rules/text.py).
    title = Localized(lambda: _(TITLE))
    words = Localized(WORDS.translated)
    dice: tuple[int, ...] = (6,)
    # "rolls 1: ...", "rolls 4 dice (1, 2, 5, 4): ...", "saves on 5-6 ..., rolls 5, 4: ...",
    # "rolls a counterattack die: 3", "in contact: Ann rolls 2 and forces the duel"; in
    # German (resolution.py, its catalog) "würfelt 1: ...", "würfelt 4 Würfel (1, 2, 5, 4):
    # ...", "würfelt 5, 4: ...", "würfelt einen Gegenangriffswürfel: 3", "würfelt 2 und
    # erzwingt ...". Every log published before reads as it did (English only). Python `re`
    # and JavaScript RegExp alike (the archive page runs it): no named groups, no lookbehind.
    log_dice_pattern: str | None = (
        r"(?:rolls|w\u00fcrfelt) (?:[0-9]+ (?:dic?e|W\u00fcrfel) \(([0-9]+(?:, [0-9]+)*)\)"
        r"|([0-9]+(?:, [0-9]+)*)(?::| and | und )"
        r"|(?:a counterattack die|einen Gegenangriffsw\u00fcrfel): ([0-9]+))"
    )

    sheet_fields = Localized(_sheet_fields)

    # -- choices ------------------------------------------------------------------------

    def moves(self, state: Any = None, side: Side | None = None) -> tuple[MoveSpec, ...]:
        return legal_moves(state, side)

    def parse_choice(self, text: str, state: Any = None, side: Side | None = None) -> str:
        return parse_choice(text, state, side)

    def choice_label(self, choice: str | None) -> str:
        return choice_label(choice)

    # -- sheets, state, options -------------------------------------------------------

    def validate_sheet(self, sheet: Mapping[str, Any]) -> dict[str, Any]:
        return clean_sheet(sheet)

    def initial_state(self, a: Fighter, b: Fighter, params: Mapping[str, Any]) -> DuelState:
        """``params``: ``allot_all`` (bool), the house rules ``flight`` and ``forfeit``
        (recorded in the state: the duel keeps them), and the legacy ``trick_takes``
        (parry_first, attack_first: ``forfeit`` when that is not given)."""
        given = self.normalize_params(params)  # the one normalisation: typed, legacy mapped
        allot_all = bool(given.get(ALLOT_ALL.key, ALLOT_ALL.default))
        house = self.parse_house_rules(given, ignore_unknown=True)
        return DuelState(
            a=Combatant.from_sheet(a.name, a.sheet),
            b=Combatant.from_sheet(b.name, b.sheet),
            allot_all=allot_all,
            flight=_flight(house[FLIGHT_RULE.key]),
            forfeit=_forfeit(house[FORFEIT_RULE.key]),
        )

    def state_from_dict(self, data: Mapping[str, Any]) -> DuelState:
        return DuelState.from_dict(data)

    def make_options(self, settings: Mapping[str, Any]) -> Options:
        """``settings``: ``missing_move`` (none, forfeit) and any house rule (``flight``,
        ``forfeit``), which then overrides the duel's own; other keys are ignored."""
        house = self.explicit_house_rules(settings)
        flight = house.get(FLIGHT_RULE.key)
        forfeit = house.get(FORFEIT_RULE.key)
        return Options(
            missing_move="forfeit" if settings.get("missing_move") == "forfeit" else "none",
            flight=None if flight is None else _flight(flight),
            forfeit=None if forfeit is None else _forfeit(forfeit),
        )

    def house_rules(self) -> tuple[HouseRule, ...]:
        return tuple(replace(rule, help=_(rule.help)) for rule in HOUSE_RULES)

    def duel_params(self) -> tuple[DuelParam, ...]:
        return (replace(ALLOT_ALL, help=_(ALLOT_ALL.help)),)

    def legacy_params(self) -> tuple[LegacyParam, ...]:
        return (TRICK_TAKES_PARAM,)

    # -- steps, text --------------------------------------------------------------------

    def awaiting_sides(self, state: Any) -> tuple[Side, ...]:
        """Both sides allot every round; a round halted for a forfeit waits for its
        victims."""
        current = state if isinstance(state, DuelState) else DuelState.from_dict(state)
        if current.ended:
            return ()
        return current.pending.victims if current.pending is not None else SIDES

    def advances_at_once(self, state: Any) -> bool:
        """A round halted for the victim's forfeit choice goes on as soon as the victim has
        chosen: the services open that step at once and close it when they have."""
        current = state if isinstance(state, DuelState) else DuelState.from_dict(state)
        return current.pending is not None and not current.ended

    def is_secret(self, state: Any) -> bool:
        """Allotments and forfeit choices alike stay secret until the step closes."""
        return True

    def private_notes(self, result: RoundResult) -> dict[Side, list[str]]:
        """Nothing: every result is published whole."""
        return {}

    def withholdable(self, state_before: Mapping[str, Any]) -> frozenset[Withholdable]:
        """Nothing: every choice is published at the close, and the whole state."""
        return frozenset()

    def round_label(self, state: Any, number: int) -> str:
        """The combat round the state is in ("round 3"), and "round 3, forfeit choice" for
        the step of a round halted until its victims choose their forfeited dice: the
        game's own count, not the number of steps the duel has played."""
        if state is None:
            return super().round_label(state, number)
        try:
            current = state if isinstance(state, DuelState) else DuelState.from_dict(state)
        except RulesError:
            return super().round_label(state, number)
        if current.pending is not None:
            return _("round {number}, forfeit choice", number=current.round_no)
        return _("round {number}", number=current.round_no)

    def step_words(self, state: Any, number: int) -> StepWords:
        """A forfeit choice is a step inside its combat round, closing by itself once the
        victims have chosen: it is spoken of as a step, and its answer as a choice."""
        words = super().step_words(state, number)
        if _halted(state):
            return replace(words, round=_("step"), move=_("choice"), closes="itself")
        return words

    def roll_purpose_label(self, purpose: str) -> str:
        """A roll's purpose in the reader's language ("Dirty Trick", "Schmutziger Trick")."""
        known = PURPOSE_LABELS.get(purpose)
        return _(known) if known is not None else super().roll_purpose_label(purpose)

    def unasked_label(self, state: Any, side: Side) -> str | None:
        """In a forfeit choice, a side not asked still fights with the dice it allotted
        for the round: the result shows that allotment, never "no allotment"."""
        current = state if isinstance(state, DuelState) else DuelState.from_dict(state)
        if current.pending is None:
            return None
        allotted = choice_label(current.pending.picks.get(side))
        return _("{allotted} (allotted before the forfeit choice)", allotted=allotted)

    def prompt(self, state: Any, side: Side) -> str | None:
        current = state if isinstance(state, DuelState) else DuelState.from_dict(state)
        if current.pending is None or side not in current.pending.victims:
            return None
        allot = tricked_allotment(current, side)
        options = ", ".join(
            f"`{forfeit_choice_id(x)}` ({forfeit_label(x)})" for x in forfeit_splits(allot)
        )
        return _(
            "Round {number}: your opponent's dirty trick worked. You allotted "
            "{allotment}; choose which dice you forfeit for the round: {options}. "
            "You may also say `attack`, `parry` or `one each`.",
            number=current.round_no,
            allotment=allot.shown,
            options=options,
        )

    def short_name(self) -> str:
        return _("By This Axe")

    def help_text(self, state: Any = None, side: Side | None = None) -> str:
        if isinstance(state, DuelState) and side in SIDES:
            asked = self.prompt(state, side)
            if asked is not None:
                return asked
        if isinstance(state, DuelState) and side in SIDES:
            me = state.duellist(side)
            return _(
                "By This Axe: send an allotment of your dice to attack, parry and dirty "
                "tricks, such as `a3 p1 t0` or `3/1/0` (at least 1 attack and 1 parry, at "
                "most 1 dirty trick), or `flee` from round {round}. You have {pool} dice "
                "({character}).",
                round=FLEE_FROM_ROUND,
                pool=me.pool,
                character=character_name(me.character),
            )
        return _(
            "By This Axe: send an allotment of your dice to attack, parry and dirty tricks, "
            "such as `a3 p1 t0` or `3/1/0` (at least 1 attack and 1 parry, at most 1 dirty "
            "trick), or `flee` from round {round}.",
            round=FLEE_FROM_ROUND,
        )

    def outcome_kind(self, outcome: str, winner: Side | None, side: Side) -> OutcomeKind:
        """A character who ran away (``a_flees``, ``both_flee``) counts a flight, kept with
        retreats; the other side of a one-sided flight a draw (no winner)."""
        if winner is None and outcome in (f"{side}_flees", BOTH_FLEE):
            return "retreat"
        return super().outcome_kind(outcome, winner, side)

    def fighter_summary(self, side_state: Mapping[str, Any]) -> list[tuple[str, str]]:
        """Character (pool), armor save, wounds (taken of total), leader."""
        character = str(side_state.get("character", "?"))
        pool = POOLS.get(character)
        save = side_state.get("armor_save")
        wounds = side_state.get("wounds", DEFAULT_WOUNDS)
        taken = side_state.get("wounds_taken")
        name = character_name(character).title()
        shown = [
            (_("Character"),
             _("{character} ({pool} dice)", character=name, pool=pool) if pool else name),
            (_("Armor save"), "?" if save is None else save_shown(int(save))),
            (_("Wounds"),
             _("{taken} of {wounds} taken", taken=taken, wounds=wounds)
             if taken else str(wounds)),
        ]
        if side_state.get("leader"):
            shown.append((_("Leader"), _("yes")))
        return shown

    def pre_duel_steps(self) -> tuple[PreDuelStep, ...]:
        return (challenge_step(),)

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
        """The challenge: ``a`` challenges ``b``; inputs ``accepted`` and ``contact``; a
        leader's refusal is his first unless ``refusals`` is remembered for ``b``."""
        if step_id != CHALLENGE_ID:
            raise InvalidRoundInput(
                _("{title} has no pre-duel step {step}.", title=self.title, step=repr(step_id))
            )
        result = challenge(
            a,
            b,
            bool(inputs.get("accepted")),
            bool(inputs.get("contact")),
            leader_first_refusal=REFUSAL_PENALTY not in remembered.get("b", frozenset()),
            dice=dice,
        )
        return settled(result, a, b)

    def roll_classes(self, sides: int, purpose: str) -> list[tuple[int, int]]:
        if sides != 6:
            return every_face(sides, purpose)
        if purpose == DIRTY_TRICK:
            return [(1, 2), (3, 4)]
        if purpose in (ATTACK, PARRY, COUNTERATTACK, FLEE_ROLL, FORCE_DUEL):
            return [(1, 3), (4, 3)]
        # An armor save's threshold belongs to the duellist, not the purpose: every face.
        return every_face(sides, purpose)

    # -- resolution (resolution.py) -------------------------------------------------------

    def resolve(
        self,
        state: DuelState,
        choices: Mapping[Side, str | None],
        dice: DiceSource,
        options: Options | None = None,
    ) -> RoundResult:
        """One round; with ``forfeit = victim-chooses`` a round whose dirty trick works
        halts (outcome ``forfeit_choice``) and the next call, with the victims' choices,
        finishes it."""
        return resolve_round(state, choices, dice, options)

    # -- exact odds ---------------------------------------------------------------------

    def outcome_distribution(
        self,
        state: Any,
        choices: Mapping[Side, str | None],
        options: Any,
    ) -> dict[str, Fraction]:
        """Exact outcome probabilities under the house rules in force, by counting
        (binomials per class, see round_joint); equal to the base class's die-by-die
        enumeration, but fast for any pool. With ``forfeit = victim-chooses`` the split is a
        player's decision: the distribution is the die-by-die one, where ``forfeit_choice``
        is the chance the round halts for it."""
        if not isinstance(state, DuelState):
            raise InvalidRoundInput("outcome_distribution needs a By This Axe duel state.")
        if state.ended:
            raise InvalidRoundInput(_("This duel has already ended; no more rounds resolve."))
        opts = options if isinstance(options, Options) else Options()
        flight, forfeit = rules_in_force(state, opts)
        if forfeit == VICTIM_CHOOSES or state.pending is not None:
            return enumerate_outcomes(
                lambda dice: self.resolve(state, choices, dice, opts).outcome, self.roll_classes
            )
        picked = picks(state, choices)
        missing = [s for s in SIDES if picked[s] is None]
        if opts.missing_move == "forfeit" and len(missing) == 1:
            return {f"{other_side(missing[0])}_wins": Fraction(1)}
        joint = round_joint(
            state.a, state.b, choice_to_allotment(picked["a"]),
            choice_to_allotment(picked["b"]), forfeit,
        )
        return outcomes_from_joint(
            joint, state.a, state.b, picked["a"] == FLEE, picked["b"] == FLEE, flight
        )

    # -- the command line (command_line.py) ---------------------------------------------

    def odds_arguments(self) -> OddsArguments:
        return command_line.ODDS_ARGUMENTS

    def odds_from_arguments(
        self, values: Mapping[str, Any], house_rules: Mapping[str, str]
    ) -> OddsReport:
        return command_line.odds_report(self, values, house_rules)


def _halted(state: Any) -> bool:
    """Whether the round (step) opening on ``state`` is a forfeit choice."""
    if state is None:
        return False
    try:
        current = state if isinstance(state, DuelState) else DuelState.from_dict(state)
    except RulesError:
        return False
    return current.pending is not None


BY_THIS_AXE = ByThisAxe()
