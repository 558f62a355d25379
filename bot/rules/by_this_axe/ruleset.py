"""The By This Axe ruleset: choices, resolution of a round, exact odds of a round."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction
from typing import Any

from bot.rules.base import (
    SIDES,
    Fighter,
    LogEvent,
    MoveSpec,
    RoundResult,
    Ruleset,
    SheetField,
    Side,
    other_side,
)
from bot.rules.by_this_axe.allotments import (
    FLEE_LABEL,
    FLEE_SPEC,
    Allotment,
    check_allotment,
    choice_to_allotment,
    legal_allotments,
    parse_form,
)
from bot.rules.by_this_axe.odds import (
    RoundOdds,
    _marginal,
    outcomes_from_joint,
    round_joint,
)
from bot.rules.by_this_axe.sheet import (
    Combatant,
    clean_sheet,
)
from bot.rules.by_this_axe.state import (
    DuelState,
    Options,
    _trick_takes,
    forfeit_dice,
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
    MAX_POOL,
    NO_SAVE,
    PARRY,
    RULESET_ID,
    TITLE,
    WOUNDS_MAX,
    _hit,
    _save_text,
    _saves,
    _trick_works,
)
from bot.rules.dice import DiceSource, Roll
from bot.rules.errors import InvalidChoice, InvalidRoundInput

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
        try:
            return choice_to_allotment(choice).label
        except InvalidChoice:
            return choice

    # -- sheets, state, options -------------------------------------------------------

    def validate_sheet(self, sheet: Mapping[str, Any]) -> dict[str, Any]:
        return clean_sheet(sheet)

    def initial_state(self, a: Fighter, b: Fighter, params: Mapping[str, Any]) -> DuelState:
        allot_all = params.get("allot_all", False)
        if not isinstance(allot_all, bool):
            raise InvalidRoundInput(f"allot_all must be true or false, not {allot_all!r}.")
        return DuelState(
            a=Combatant.from_sheet(a.name, a.sheet),
            b=Combatant.from_sheet(b.name, b.sheet),
            allot_all=allot_all,
            trick_takes=_trick_takes(params.get("trick_takes", "parry_first")),
        )

    def state_from_dict(self, data: Mapping[str, Any]) -> DuelState:
        return DuelState.from_dict(data)

    def make_options(self, settings: Mapping[str, Any]) -> Options:
        return Options(
            missing_move="forfeit" if settings.get("missing_move") == "forfeit" else "none"
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
        options = options or Options()
        if state.ended:
            raise InvalidRoundInput("This duel has already ended; no more rounds resolve.")
        rnd = _Round(state, self._picks(state, choices), dice)
        rnd.note(C_ROUNDS, f"round {state.round_no}")
        forfeiter = self._missing(rnd, options)
        if forfeiter is not None:
            victor = other_side(forfeiter)
            return self._result(rnd, f"{victor}_wins", victor, state.a, state.b)
        self._reveal(rnd)
        self._tricks(rnd)
        hits = {s: self._roll_area(rnd, s, ATTACK) for s in SIDES}
        parried = {s: self._roll_area(rnd, s, PARRY) for s in SIDES}
        landed = self._landed(rnd, hits, parried)
        self._counterattacks(rnd, hits, parried, landed)
        after = {s: self._armor(rnd, s, landed[s]) for s in SIDES}
        defeated = [s for s in SIDES if after[s].defeated]
        fled = self._flight(rnd, defeated)
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

    def _tricks(self, rnd: _Round) -> None:
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
        takes = rnd.state.trick_takes
        for side in worked:
            victim = other_side(side)
            before = rnd.allot[victim]
            after = forfeit_dice(before, takes)
            rnd.allot[victim] = after
            order = "parry first, then attack" if takes == "parry_first" else (
                "attack first, then parry")
            rnd.note(
                C_TRICKS,
                f"{rnd.name(victim)} forfeits {before.attack - after.attack} attack and "
                f"{before.parry - after.parry} parry dice for the round ({order}): "
                f"Attack {after.attack}, Parry {after.parry}",
            )

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

    def _flight(self, rnd: _Round, defeated: list[Side]) -> list[Side]:
        fled: list[Side] = []
        for side in SIDES:
            if rnd.picks[side] != FLEE:
                continue
            if side in defeated:
                rnd.note(C_FLIGHT, f"{rnd.name(side)} is defeated before getting away: "
                         "no flee roll")
                continue
            value = rnd.roll(side, FLEE_ROLL)
            if _hit(value):
                fled.append(side)
                rnd.note(C_FLIGHT, f"{rnd.name(side)} rolls {value}: flees the duel (1-3)")
            else:
                rnd.note(C_FLIGHT, f"{rnd.name(side)} rolls {value}: fails to flee (4-6)")
        return fled

    # -- exact odds ---------------------------------------------------------------------

    def outcome_distribution(
        self,
        state: Any,
        choices: Mapping[Side, str | None],
        options: Any,
    ) -> dict[str, Fraction]:
        """Exact outcome probabilities, by counting (binomials per class, see round_joint);
        equal to the base class's die-by-die enumeration, but fast for any pool."""
        if not isinstance(state, DuelState):
            raise InvalidRoundInput("outcome_distribution needs a By This Axe duel state.")
        if state.ended:
            raise InvalidRoundInput("This duel has already ended; no more rounds resolve.")
        opts = options if isinstance(options, Options) else Options()
        picks = self._picks(state, choices)
        missing = [s for s in SIDES if picks[s] is None]
        if opts.missing_move == "forfeit" and len(missing) == 1:
            return {f"{other_side(missing[0])}_wins": Fraction(1)}
        joint = round_joint(
            state.a, state.b, choice_to_allotment(picks["a"]),
            choice_to_allotment(picks["b"]), state.trick_takes,
        )
        return outcomes_from_joint(
            joint, state.a, state.b, picks["a"] == FLEE, picks["b"] == FLEE
        )




def round_odds(state: DuelState, a_choice: str, b_choice: str) -> RoundOdds:
    """Exact unsaved hits on each side and the outcome distribution for one round."""
    picks = BY_THIS_AXE._picks(state, {"a": a_choice, "b": b_choice})
    joint = round_joint(
        state.a, state.b, choice_to_allotment(picks["a"]), choice_to_allotment(picks["b"]),
        state.trick_takes,
    )
    return RoundOdds(
        a_allot=picks["a"] or "",
        b_allot=picks["b"] or "",
        on_a=_marginal(joint, 0),
        on_b=_marginal(joint, 1),
        outcomes=outcomes_from_joint(
            joint, state.a, state.b, picks["a"] == FLEE, picks["b"] == FLEE
        ),
    )



BY_THIS_AXE = ByThisAxe()


