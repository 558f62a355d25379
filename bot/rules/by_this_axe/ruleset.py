"""The By This Axe ruleset: choices, resolution of a round, exact odds of a round."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction
from typing import Any

from bot.rules.base import (
    SIDES,
    DuelParam,
    Fighter,
    HouseRule,
    LegacyParam,
    LogEvent,
    MoveSpec,
    OutcomeKind,
    PreDuelStep,
    RoundResult,
    Ruleset,
    SheetField,
    Side,
    other_side,
)
from bot.rules.by_this_axe import command_line
from bot.rules.by_this_axe.allotments import (
    FLEE_LABEL,
    FLEE_SPEC,
    NOTHING,
    Allotment,
    _shown,
    check_allotment,
    choice_to_allotment,
    legal_allotments,
    parse_form,
)
from bot.rules.by_this_axe.challenge import ChallengeResult, challenge
from bot.rules.by_this_axe.forfeits import (
    FORFEIT_PREFIX,
    after_split,
    forfeit_choice_id,
    forfeit_label,
    parse_forfeit_id,
    parse_forfeit_text,
)
from bot.rules.by_this_axe.odds import (
    RoundOdds,
    _marginal,
    blows_reached,
    hits_with_flight,
    outcomes_from_joint,
    round_joint,
)
from bot.rules.by_this_axe.sheet import (
    Combatant,
    clean_sheet,
)
from bot.rules.by_this_axe.state import (
    AFTER_BLOWS,
    ALLOT_ALL,
    ATTACK_FIRST,
    BEFORE_BLOWS,
    FLIGHT_RULE,
    FORFEIT_RULE,
    HOUSE_RULES,
    PARRY_FIRST,
    TRICK_TAKES_PARAM,
    VICTIM_CHOOSES,
    DuelState,
    Flight,
    Options,
    PendingTrick,
    _flight,
    _forfeit,
    forfeit_dice,
    forfeit_splits,
    rules_in_force,
)
from bot.rules.by_this_axe.tables import (
    ARMOR_MAX,
    ARMOR_MIN,
    ARMOR_SAVE,
    ATTACK,
    BOTH_DEFEATED,
    BOTH_FLEE,
    C_ARMOR,
    C_ATTACKS,
    C_COUNTER,
    C_FLIGHT,
    C_FORFEIT,
    C_FORFEIT_CHOICE,
    C_MISSING,
    C_PARRIES,
    C_REVEAL,
    C_ROUNDS,
    C_TRICKS,
    C_WOUNDS,
    CHARACTERS,
    CONTINUE,
    COUNTERATTACK,
    DEFAULT_WOUNDS,
    DIRTY_TRICK,
    FLEE,
    FLEE_FROM_ROUND,
    FLEE_ROLL,
    FORCE_DUEL,
    FORFEIT_CHOICE,
    MAX_POOL,
    NO_SAVE,
    PARRY,
    POOLS,
    RULESET_ID,
    TITLE,
    WOUNDS_MAX,
    _hit,
    _save_text,
    _saves,
    _trick_works,
    describe_outcome,
)
from bot.rules.command_line import OddsArguments, OddsReport
from bot.rules.dice import DiceSource, Roll
from bot.rules.errors import InvalidChoice, InvalidRoundInput

CHALLENGE_STEP = PreDuelStep(
    "challenge",
    "Challenge",
    "A character challenges another within 9 inches; a refusal stands unless, with the "
    "units in contact, the challenger forces the duel on a d6 of 1-3; a leader's first "
    "refusal costs him his leadership for the turn (bot.rules.by_this_axe.challenge).",
)

# -- the round --------------------------------------------------------------------------------


class _Round:
    """Working memory of one resolution."""

    def __init__(self, state: DuelState, picks: dict[Side, str | None], dice: DiceSource):
        self.state = state
        self.picks = picks
        self.dice = dice
        self.log: list[LogEvent] = []
        self.rolls: list[Roll] = []
        self.allot: dict[Side, Allotment] = {s: choice_to_allotment(picks[s]) for s in SIDES}

    def name(self, side: Side) -> str:
        return self.state.duellist(side).name or f"Duellist {side.upper()}"

    def note(self, clause: str, text: str) -> None:
        self.log.append(LogEvent(clause, text))

    def roll(self, side: Side, purpose: str) -> int:
        made = self.dice.roll(6, side=side, purpose=purpose)
        self.rolls.append(made)
        return made.value

    def roll_many(self, side: Side, n: int, purpose: str) -> list[int]:
        return [self.roll(side, purpose) for _ in range(n)]


def _faces(values: list[int]) -> str:
    return ", ".join(str(v) for v in values)


def _dice(n: int) -> str:
    return f"{n} die" if n == 1 else f"{n} dice"


def _hits(n: int, word: str = "hit") -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


class ByThisAxe(Ruleset):
    id = RULESET_ID
    title = TITLE
    dice = (6,)
    # "rolls 1: ...", "rolls 4 dice (1, 2, 5, 4): ...", "saves on 5-6 ..., rolls 5, 4: ...",
    # "rolls a counterattack die: 3", "in contact: Ann rolls 2 and forces the duel".
    log_dice_pattern = (
        r"rolls (?:[0-9]+ dic?e \(([0-9]+(?:, [0-9]+)*)\)|([0-9]+(?:, [0-9]+)*)(?::| and )"
        r"|a counterattack die: ([0-9]+))"
    )

    sheet_fields = (
        SheetField(
            "character",
            "choice",
            "Character type; dice pool: hero 4, superhero 8, champion 12, priest 3, mage 3, "
            "high_priest 6, wizard 6",
            choices=CHARACTERS,
        ),
        SheetField(
            "armor_save",
            "int",
            "d6 result that saves a hit (5 = 5-6 saves; 0 or 7 = no save); base save, the "
            "Heroic +1 is ignored in duels. Default by type: hero/superhero/champion 5, "
            "priest/high_priest 6, mage/wizard none",
            ARMOR_MIN,
            ARMOR_MAX,
        ),
        SheetField("wounds", "int", "Unsaved hits that defeat the character", 1, WOUNDS_MAX,
                   default=DEFAULT_WOUNDS),
        SheetField("leader", "choice", "The character is a leader (challenge refusals): "
                   "yes or no", choices=("no", "yes"), default="no"),
    )

    # -- choices ------------------------------------------------------------------------

    def moves(self, state: Any = None, side: Side | None = None) -> tuple[MoveSpec, ...]:
        if isinstance(state, DuelState) and state.ended:
            return ()
        if isinstance(state, DuelState) and state.pending is not None:
            if side not in state.pending.victims:
                return ()
            return tuple(
                MoveSpec(forfeit_choice_id(split), forfeit_label(split), "forfeit")
                for split in forfeit_splits(self._tricked_allotment(state, side))
            )
        pool = MAX_POOL
        allot_all = False
        if isinstance(state, DuelState):
            allot_all = state.allot_all
            if side in SIDES:
                pool = state.duellist(side).pool
        specs = tuple(
            MoveSpec(x.id, x.label, "allotment", (f"{x.attack}/{x.parry}/{x.tricks}",))
            for x in legal_allotments(pool, allot_all=allot_all)
        )
        if not isinstance(state, DuelState) or state.round_no >= FLEE_FROM_ROUND:
            specs += (FLEE_SPEC,)
        return specs

    def parse_choice(self, text: str, state: Any = None, side: Side | None = None) -> str:
        if isinstance(state, DuelState) and state.pending is not None:
            return self._parse_forfeit(text, state, side)
        if isinstance(text, str) and text.startswith(FORFEIT_PREFIX):
            split = parse_forfeit_id(text)
            return forfeit_choice_id(split)
        form = parse_form(text)
        known = isinstance(state, DuelState)
        if form == FLEE:
            if known and state.round_no < FLEE_FROM_ROUND:
                raise InvalidChoice(
                    f"You cannot flee in round {state.round_no}: a character may attempt "
                    f"to flee a duel beginning on round {FLEE_FROM_ROUND} (By This Axe). "
                    "Allot your dice instead, e.g. 'a2 p2 t0'."
                )
            return FLEE
        assert isinstance(form, Allotment)
        if known and side in SIDES:
            me = state.duellist(side)
            who = me.name or f"Duellist {side.upper()}"
            check_allotment(
                form, me.pool, allot_all=state.allot_all, who=f"{who} ({me.character})"
            )
        else:
            check_allotment(form, MAX_POOL, allot_all=False, who="the largest character")
        return form.id

    def choice_label(self, choice: str | None) -> str:
        if choice is None:
            return "no allotment"
        if choice == FLEE:
            return FLEE_LABEL
        if choice.startswith(FORFEIT_PREFIX):
            try:
                return forfeit_label(parse_forfeit_id(choice))
            except InvalidChoice:
                return choice
        try:
            return choice_to_allotment(choice).label
        except InvalidChoice:
            return choice

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
        return HOUSE_RULES

    def duel_params(self) -> tuple[DuelParam, ...]:
        return (ALLOT_ALL,)

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

    def prompt(self, state: Any, side: Side) -> str | None:
        current = state if isinstance(state, DuelState) else DuelState.from_dict(state)
        if current.pending is None or side not in current.pending.victims:
            return None
        allot = self._tricked_allotment(current, side)
        options = ", ".join(
            f"`{forfeit_choice_id(x)}` ({forfeit_label(x)})" for x in forfeit_splits(allot)
        )
        return (
            f"Round {current.round_no}: your opponent's dirty trick worked. You allotted "
            f"{allot.label}; choose which dice you forfeit for the round: {options}. "
            "You may also say `attack`, `parry` or `one each`."
        )

    def short_name(self) -> str:
        return "By This Axe"

    def help_text(self, state: Any = None, side: Side | None = None) -> str:
        if isinstance(state, DuelState) and side in SIDES:
            asked = self.prompt(state, side)
            if asked is not None:
                return asked
        pool = ""
        if isinstance(state, DuelState) and side in SIDES:
            me = state.duellist(side)
            pool = f" You have {me.pool} dice ({me.character.replace('_', ' ')})."
        return (
            "By This Axe: send an allotment of your dice to attack, parry and dirty tricks, "
            "such as `a3 p1 t0` or `3/1/0` (at least 1 attack and 1 parry, at most 1 dirty "
            f"trick), or `flee` from round {FLEE_FROM_ROUND}.{pool}"
        )

    def outcome_sentence(self, outcome: str, a_name: str, b_name: str) -> str:
        return describe_outcome(outcome, a_name, b_name)

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
        shown = [
            ("Character", character.replace("_", " ").title()
             + (f" ({pool} dice)" if pool else "")),
            ("Armor save", "?" if save is None else _save_text(int(save))),
            ("Wounds", f"{taken} of {wounds} taken" if taken else str(wounds)),
        ]
        if side_state.get("leader"):
            shown.append(("Leader", "yes"))
        return shown

    def pre_duel_steps(self) -> tuple[PreDuelStep, ...]:
        return (CHALLENGE_STEP,)

    def run_pre_duel_step(
        self,
        step_id: str,
        a: Fighter,
        b: Fighter,
        inputs: Mapping[str, Any],
        dice: DiceSource,
    ) -> ChallengeResult:
        """The challenge: ``a`` challenges ``b``; inputs ``accepted``, ``units_in_contact``,
        ``leader_first_refusal`` (has ``b`` not refused before in this game)."""
        if step_id != CHALLENGE_STEP.id:
            return super().run_pre_duel_step(step_id, a, b, inputs, dice)  # type: ignore[no-any-return]
        return challenge(
            a,
            b,
            bool(inputs.get("accepted")),
            bool(inputs.get("units_in_contact")),
            leader_first_refusal=bool(inputs.get("leader_first_refusal", True)),
            dice=dice,
        )

    def roll_classes(self, sides: int, purpose: str) -> list[tuple[int, int]]:
        if sides != 6:
            return super().roll_classes(sides, purpose)
        if purpose == DIRTY_TRICK:
            return [(1, 2), (3, 4)]
        if purpose in (ATTACK, PARRY, COUNTERATTACK, FLEE_ROLL, FORCE_DUEL):
            return [(1, 3), (4, 3)]
        # An armor save's threshold belongs to the duellist, not the purpose: every face.
        return super().roll_classes(sides, purpose)

    # -- resolution ---------------------------------------------------------------------

    def _picks(
        self, state: DuelState, choices: Mapping[Side, str | None]
    ) -> dict[Side, str | None]:
        picks: dict[Side, str | None] = {}
        for side in SIDES:
            choice = choices.get(side)
            picks[side] = None if choice is None else self.parse_choice(choice, state, side)
        return picks

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
        options = options or Options()
        if not isinstance(state, DuelState):
            raise InvalidRoundInput("resolve needs a By This Axe duel state.")
        if state.ended:
            raise InvalidRoundInput("This duel has already ended; no more rounds resolve.")
        flight, forfeit = rules_in_force(state, options)
        # House rules given with the options at a close stay the duel's from then on.
        state = replace(state, flight=flight, forfeit=forfeit)
        if state.pending is not None:
            return self._resume(state, state.pending, choices, dice, flight)
        rnd = _Round(state, self._picks(state, choices), dice)
        rnd.note(C_ROUNDS, f"round {state.round_no}")
        forfeiter = self._missing(rnd, options)
        if forfeiter is not None:
            victor = other_side(forfeiter)
            return self._result(rnd, f"{victor}_wins", victor, state.a, state.b)
        self._reveal(rnd)
        if flight == BEFORE_BLOWS:
            fled = self._flight(rnd, [], flight)
            if fled:
                return self._conclude(rnd, {"a": state.a, "b": state.b}, [], fled)
        tricked = [other_side(s) for s in self._roll_tricks(rnd)]
        if forfeit == VICTIM_CHOOSES:
            victims = tuple(v for v in tricked if len(forfeit_splits(rnd.allot[v])) > 1)
            if victims:
                return self._halt(rnd, tuple(tricked), victims)
        for victim in tricked:
            self._forfeit(rnd, victim, forfeit_dice(rnd.allot[victim], forfeit), forfeit)
        return self._blows(rnd, flight)

    def _blows(self, rnd: _Round, flight: Flight) -> RoundResult:
        """Attacks, parries, counterattacks, armor saves and (after the blows) flight."""
        hits = {s: self._roll_area(rnd, s, ATTACK) for s in SIDES}
        parried = {s: self._roll_area(rnd, s, PARRY) for s in SIDES}
        landed = self._landed(rnd, hits, parried)
        self._counterattacks(rnd, hits, parried, landed)
        after = {s: self._armor(rnd, s, landed[s]) for s in SIDES}
        defeated = [s for s in SIDES if after[s].defeated]
        fled = self._flight(rnd, defeated, flight) if flight == AFTER_BLOWS else []
        return self._conclude(rnd, after, defeated, fled)

    def _conclude(
        self,
        rnd: _Round,
        after: Mapping[Side, Combatant],
        defeated: list[Side],
        fled: list[Side],
    ) -> RoundResult:
        state = rnd.state
        winner: Side | None = None
        if len(defeated) == 2:
            outcome = BOTH_DEFEATED
            rnd.note(C_ROUNDS, "both characters are defeated: the duel ends with no winner")
        elif defeated:
            winner = other_side(defeated[0])
            outcome = f"{winner}_wins"
            rnd.note(C_ROUNDS, f"{rnd.name(defeated[0])} is defeated: "
                     f"{rnd.name(winner)} wins the duel")
        elif len(fled) == 2:
            outcome = BOTH_FLEE
            rnd.note(C_ROUNDS, "both characters run away: the duel ends with no winner")
        elif fled:
            outcome = f"{fled[0]}_flees"
            rnd.note(C_ROUNDS, f"{rnd.name(fled[0])} runs away: the duel ends with no winner")
        else:
            outcome = CONTINUE
            rnd.note(C_ROUNDS, "nobody is defeated and nobody ran away: the duel goes on to "
                     f"round {state.round_no + 1}")
        return self._result(rnd, outcome, winner, after["a"], after["b"])

    def _halt(
        self, rnd: _Round, tricked: tuple[Side, ...], victims: tuple[Side, ...]
    ) -> RoundResult:
        """Stop after the dirty tricks: the victims choose their forfeited dice next."""
        who = " and ".join(rnd.name(v) for v in victims)
        rnd.note(C_FORFEIT_CHOICE, f"{who} must choose which dice to forfeit (house rule "
                 "forfeit = victim-chooses); the round goes on once they have chosen")
        pending = PendingTrick(dict(rnd.picks), tricked, victims)
        new_state = replace(rnd.state, pending=pending, outcome=FORFEIT_CHOICE)
        return RoundResult(
            ruleset=RULESET_ID,
            outcome=FORFEIT_CHOICE,
            winner=None,
            ended=False,
            locked=False,
            choices=dict(rnd.picks),
            rolls=tuple(rnd.rolls),
            log=tuple(rnd.log),
            state=new_state,
        )

    def _resume(
        self,
        state: DuelState,
        pending: PendingTrick,
        choices: Mapping[Side, str | None],
        dice: DiceSource,
        flight: Flight,
    ) -> RoundResult:
        """The second step of a halted round: the victims' choices, then the blows."""
        picked: dict[Side, str | None] = {}
        for side in SIDES:
            choice = choices.get(side)
            if choice is not None and side not in pending.victims:
                raise InvalidRoundInput(
                    f"Side {side} has no choice to make: the round waits for the forfeit "
                    "choice of " + " and ".join(pending.victims) + "."
                )
            picked[side] = None if choice is None else self._parse_forfeit(choice, state, side)
        rnd = _Round(replace(state, pending=None), dict(pending.picks), dice)
        rnd.note(C_ROUNDS, f"round {state.round_no} goes on: the forfeited dice")
        for victim in pending.tricked:
            allot = rnd.allot[victim]
            splits = forfeit_splits(allot)
            if victim not in pending.victims:
                self._forfeit(rnd, victim, after_split(allot, splits[0]), VICTIM_CHOOSES)
                continue
            choice = picked[victim]
            if choice is None:
                rnd.note(C_FORFEIT_CHOICE, f"{rnd.name(victim)} chose nothing by the close: "
                         "the dice are taken parry first, then attack")
                self._forfeit(rnd, victim, forfeit_dice(allot, PARRY_FIRST), PARRY_FIRST)
                continue
            self._forfeit(rnd, victim, after_split(allot, parse_forfeit_id(choice)),
                          VICTIM_CHOOSES)
        result = self._blows(rnd, flight)
        return replace(result, choices=picked)

    def _result(
        self, rnd: _Round, outcome: str, winner: Side | None, a: Combatant, b: Combatant
    ) -> RoundResult:
        ended = outcome != CONTINUE
        new_state = replace(
            rnd.state,
            a=a,
            b=b,
            round_no=rnd.state.round_no + (0 if ended else 1),
            ended=ended,
            winner=winner,
            outcome=outcome,
        )
        return RoundResult(
            ruleset=RULESET_ID,
            outcome=outcome,
            winner=winner,
            ended=ended,
            locked=False,
            choices=dict(rnd.picks),
            rolls=tuple(rnd.rolls),
            log=tuple(rnd.log),
            state=new_state,
        )

    def _missing(self, rnd: _Round, options: Options) -> Side | None:
        missing = [s for s in SIDES if rnd.picks[s] is None]
        for side in missing:
            rnd.note(C_MISSING, f"{rnd.name(side)} sent no allotment by the close: no dice in "
                     "attack, parry or dirty tricks this round")
        if options.missing_move == "forfeit" and len(missing) == 1:
            rnd.note(C_FORFEIT, f"{rnd.name(missing[0])} forfeits; "
                     f"{rnd.name(other_side(missing[0]))} wins the duel")
            return missing[0]
        if options.missing_move == "forfeit" and len(missing) == 2:
            rnd.note(C_FORFEIT, "neither duellist sent an allotment; nobody forfeits")
        return None

    def _reveal(self, rnd: _Round) -> None:
        for side in SIDES:
            pick = rnd.picks[side]
            if pick == FLEE:
                text = (f"{rnd.name(side)} attempts to flee (no attack, no parry, no dirty "
                        "tricks this round)")
            elif pick is None:
                text = f"{rnd.name(side)} has no dice in play"
            else:
                text = f"{rnd.name(side)} reveals {rnd.allot[side].label}"
            rnd.note(C_REVEAL, text)

    def _roll_tricks(self, rnd: _Round) -> list[Side]:
        """Each trick die (A, then B); the sides whose trick worked."""
        worked: list[Side] = []
        for side in SIDES:
            if rnd.allot[side].tricks == 0:
                continue
            value = rnd.roll(side, DIRTY_TRICK)
            if _trick_works(value):
                worked.append(side)
                rnd.note(C_TRICKS, f"{rnd.name(side)} rolls {value}: the dirty trick works "
                         f"(1-2), {rnd.name(other_side(side))} forfeits two dice")
            else:
                rnd.note(C_TRICKS, f"{rnd.name(side)} rolls {value}: no effect (3-6)")
        return worked

    def _forfeit(self, rnd: _Round, victim: Side, after: Allotment, how: str) -> None:
        before = rnd.allot[victim]
        rnd.allot[victim] = after
        reason = {
            PARRY_FIRST: "parry first, then attack",
            ATTACK_FIRST: "attack first, then parry",
            VICTIM_CHOOSES: f"chosen by {rnd.name(victim)}",
        }[how]
        rnd.note(
            C_TRICKS,
            f"{rnd.name(victim)} forfeits {before.attack - after.attack} attack and "
            f"{before.parry - after.parry} parry dice for the round ({reason}): "
            f"Attack {after.attack}, Parry {after.parry}",
        )

    def _tricked_allotment(self, state: DuelState, side: Side | None) -> Allotment:
        if state.pending is None or side not in SIDES:
            return NOTHING
        return choice_to_allotment(state.pending.picks.get(side))

    def _parse_forfeit(self, text: str, state: DuelState, side: Side | None) -> str:
        pending = state.pending
        assert pending is not None
        if side not in pending.victims:
            raise InvalidChoice(
                "No choice is expected from you now: the round waits for the forfeit choice "
                "of " + " and ".join(state.duellist(v).name or v for v in pending.victims)
                + "."
            )
        allot = self._tricked_allotment(state, side)
        splits = forfeit_splits(allot)
        split = parse_forfeit_text(text, allot)
        if split not in splits:
            allowed = "; ".join(f"{forfeit_choice_id(x)} ({forfeit_label(x)})" for x in splits)
            raise InvalidChoice(
                f"{_shown(text)!r} is not a forfeit you can make with {allot.label}: "
                f"forfeit {splits[0].attack + splits[0].parry} dice. Allowed: {allowed}."
            )
        return forfeit_choice_id(split)

    def _roll_area(self, rnd: _Round, side: Side, purpose: str) -> int:
        n = rnd.allot[side].attack if purpose == ATTACK else rnd.allot[side].parry
        clause = C_ATTACKS if purpose == ATTACK else C_PARRIES
        word = "hit" if purpose == ATTACK else "parry success"
        if n == 0:
            rnd.note(clause, f"{rnd.name(side)} has no {purpose} dice")
            return 0
        values = rnd.roll_many(side, n, purpose)
        count = sum(1 for v in values if _hit(v))
        plural = f"{count} {word}" if count == 1 else (
            f"{count} hits" if purpose == ATTACK else f"{count} parry successes")
        rnd.note(clause, f"{rnd.name(side)} rolls {_dice(n)} ({_faces(values)}): {plural} "
                 "(1-3)")
        return count

    def _landed(
        self, rnd: _Round, hits: dict[Side, int], parried: dict[Side, int]
    ) -> dict[Side, int]:
        landed: dict[Side, int] = {}
        for side in SIDES:
            incoming = hits[other_side(side)]
            negated = min(incoming, parried[side])
            landed[side] = incoming - negated
            if incoming:
                verb = "lands" if landed[side] == 1 else "land"
                rnd.note(C_PARRIES, f"{rnd.name(side)} negates {negated} of "
                         f"{rnd.name(other_side(side))}'s {_hits(incoming)}: "
                         f"{landed[side]} {verb} on {rnd.name(side)}")
        return landed

    def _counterattacks(
        self,
        rnd: _Round,
        hits: dict[Side, int],
        parried: dict[Side, int],
        landed: dict[Side, int],
    ) -> None:
        for side in SIDES:
            incoming = hits[other_side(side)]
            if parried[side] <= incoming:
                continue
            value = rnd.roll(side, COUNTERATTACK)
            target = other_side(side)
            lead = (f"{rnd.name(side)} has more parry successes ({parried[side]}) than "
                    f"incoming hits ({incoming}) and rolls a counterattack die: {value}")
            if _hit(value):
                landed[target] += 1
                rnd.note(C_COUNTER, f"{lead}, a hit on {rnd.name(target)} that cannot "
                         "be parried")
            else:
                rnd.note(C_COUNTER, f"{lead}, no hit")

    def _armor(self, rnd: _Round, side: Side, landed: int) -> Combatant:
        me = rnd.state.duellist(side)
        if landed == 0:
            return me
        save = me.armor_save
        if save == NO_SAVE:
            unsaved = landed
            rnd.note(C_ARMOR, f"{rnd.name(side)} has no armor save: {_hits(landed)} unsaved")
        else:
            values = rnd.roll_many(side, landed, ARMOR_SAVE)
            saved = sum(1 for v in values if _saves(v, save))
            unsaved = landed - saved
            rnd.note(
                C_ARMOR,
                f"{rnd.name(side)} saves on {_save_text(save)} (Heroic +1 ignored), rolls "
                f"{_faces(values)}: {saved} saved, {unsaved} unsaved",
            )
        after = replace(me, wounds_taken=me.wounds_taken + unsaved)
        if unsaved:
            state = "defeated" if after.defeated else "still standing"
            rnd.note(C_WOUNDS, f"{rnd.name(side)} takes {_hits(unsaved, 'wound')} "
                     f"({after.wounds_taken} of {after.wounds}): {state}")
        return after

    def _flight(self, rnd: _Round, defeated: list[Side], flight: Flight) -> list[Side]:
        when = ("before the blows" if flight == BEFORE_BLOWS else "after the blows")
        fled: list[Side] = []
        for side in SIDES:
            if rnd.picks[side] != FLEE:
                continue
            rnd.note(C_FLIGHT, f"{rnd.name(side)} rolls to flee {when} (house rule flight = "
                     f"{flight})")
            if side in defeated:
                rnd.note(C_FLIGHT, f"{rnd.name(side)} is defeated before getting away: "
                         "no flee roll")
                continue
            value = rnd.roll(side, FLEE_ROLL)
            if _hit(value):
                fled.append(side)
                rnd.note(C_FLIGHT, f"{rnd.name(side)} rolls {value}: flees the duel (1-3)")
            else:
                stays = (": he stays, and the blows fall on him" if flight == BEFORE_BLOWS
                         else "")
                rnd.note(C_FLIGHT, f"{rnd.name(side)} rolls {value}: fails to flee (4-6)"
                         f"{stays}")
        return fled

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
            raise InvalidRoundInput("This duel has already ended; no more rounds resolve.")
        opts = options if isinstance(options, Options) else Options()
        flight, forfeit = rules_in_force(state, opts)
        if forfeit == VICTIM_CHOOSES or state.pending is not None:
            return super().outcome_distribution(state, choices, opts)
        picks = self._picks(state, choices)
        missing = [s for s in SIDES if picks[s] is None]
        if opts.missing_move == "forfeit" and len(missing) == 1:
            return {f"{other_side(missing[0])}_wins": Fraction(1)}
        joint = round_joint(
            state.a, state.b, choice_to_allotment(picks["a"]),
            choice_to_allotment(picks["b"]), forfeit,
        )
        return outcomes_from_joint(
            joint, state.a, state.b, picks["a"] == FLEE, picks["b"] == FLEE, flight
        )

    # -- the command line (command_line.py) ---------------------------------------------

    def odds_arguments(self) -> OddsArguments:
        return command_line.ODDS_ARGUMENTS

    def odds_from_arguments(
        self, values: Mapping[str, Any], house_rules: Mapping[str, str]
    ) -> OddsReport:
        return command_line.odds_report(self, values, house_rules)


def round_odds(
    state: DuelState, a_choice: str, b_choice: str, options: Options | None = None
) -> RoundOdds:
    """Exact unsaved hits on each side and the outcome distribution for one round, under
    the house rules in force (``options`` over the state's). ``forfeit = victim-chooses``
    has no exact odds (the split is the victim's decision): InvalidRoundInput."""
    flight, forfeit = rules_in_force(state, options or Options())
    if forfeit == VICTIM_CHOOSES:
        raise InvalidRoundInput(
            "forfeit = victim-chooses leaves the forfeited dice to the victim's decision, "
            "so a round has no exact odds; use forfeit = parry-first or attack-first."
        )
    picks = BY_THIS_AXE._picks(state, {"a": a_choice, "b": b_choice})
    a_flees, b_flees = picks["a"] == FLEE, picks["b"] == FLEE
    joint = round_joint(
        state.a, state.b, choice_to_allotment(picks["a"]), choice_to_allotment(picks["b"]),
        forfeit,
    )
    hits = hits_with_flight(joint, blows_reached(a_flees, b_flees, flight))
    return RoundOdds(
        a_allot=picks["a"] or "",
        b_allot=picks["b"] or "",
        on_a=_marginal(hits, 0),
        on_b=_marginal(hits, 1),
        outcomes=outcomes_from_joint(joint, state.a, state.b, a_flees, b_flees, flight),
    )


BY_THIS_AXE = ByThisAxe()


