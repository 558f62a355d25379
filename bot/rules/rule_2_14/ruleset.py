"""The rule 2.14 ruleset: resolution of a round (interpretation in docs/rules/rule-2.14.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction
from typing import Any

from bot.rules.base import Ruleset
from bot.rules.capabilities import (
    DiceByPattern,
    ExactOdds,
    HouseRulesFromDeclarations,
    ShortAdjudication,
)
from bot.rules.command_line import OddsArguments, OddsReport, ShortRound
from bot.rules.dice import DiceSource, Roll, enumerate_outcomes
from bot.rules.errors import InvalidChoice, InvalidRoundInput
from bot.rules.params import YES_NO_ALIASES, DuelParam, HouseRule
from bot.rules.rule_2_14 import command_line
from bot.rules.rule_2_14.moves import (
    ATTACKS,
    DEFENCES,
    EVADE,
    FULL_FRONTAL_STRIKE,
    LABELS,
    LOCK_ATTEMPT,
    MOVE_IDS,
    MOVES,
    RETREAT,
    RULESET_ID,
    SIDE_SWIPE,
    STAT_MAX,
    STAT_MIN,
    allowed_moves_text,
    check_stat,
    moves_shown,
    parse_move,
)
from bot.rules.rule_2_14.state import (
    Duellist,
    DuelState,
    Options,
)
from bot.rules.rule_2_14.text import N_, NP_, _
from bot.rules.terms import (
    SIDES,
    Fighter,
    LogEvent,
    MoveSpec,
    Noun,
    OutcomeKind,
    RoundResult,
    RulesetWords,
    SheetField,
    Side,
    other_side,
)
from bot.rules.text import Localized

#: Rule 2.14's one per-duel setting: the duellists start locked in combat.
LOCKED = DuelParam(
    "locked", "bool", False, N_("the duellists start locked in combat (true/false)")
)

#: duelbot's house rule: a duellist locked in combat cannot retreat (2.14.1 does not say
#: so). A server sets its default (`/config locked-blocks-retreat`, `/config house-rule`);
#: a duel started before it was a house rule stored ``locked_blocks_retreat: true|false``
#: in its options, which the aliases read as yes/no.
LOCKED_BLOCKS_RETREAT = HouseRule(
    "locked-blocks-retreat",
    ("no", "yes"),
    "no",
    N_("a duellist locked in combat cannot retreat: the retreat fails"),
    aliases=YES_NO_ALIASES,
    server_alias=NP_("command name", "locked-blocks-retreat"),
    former_setting="locked_blocks_retreat",
)


#: The clauses the adjudication log cites: the headings of the rule text
#: (docs/rules/rule-2.14.md, "Log clause names"), each in the reader's language at use
#: (``_(CLAUSE)``); the rule numbers stay.
ROUNDS = N_("2.14.1 Rounds")
ROUNDS_LOCKED_BLOCKS_RETREAT = N_("2.14.1 Rounds (duelbot locked_blocks_retreat)")
MISSING_MOVE_FORFEIT = N_("duelbot missing_move = forfeit")
DEFENCES_CLAUSE = N_("2.14 Defences")
LOCK_ATTEMPT_CLAUSE = N_("2.14 Defences, Lock Attempt")
EVADE_CLAUSE = N_("2.14 Defences, Evade")
FULL_FRONTAL_STRIKE_CLAUSE = N_("2.14 Attacks, Full Frontal Strike")
SIDE_SWIPE_CLAUSE = N_("2.14 Attacks, Side Swipe")
DUELLING = N_("2.14 Duelling")


class _Round:
    """Working memory of one resolution; the public result is frozen at the end."""

    def __init__(self, state: DuelState, moves: dict[Side, str | None], dice: DiceSource):
        self.state = state
        self.moves = moves
        self.dice = dice
        self.log: list[LogEvent] = []
        self.winner: Side | None = None
        self.locked_now = False
        self.cancelled: set[Side] = set()
        self.rolls: list[Roll] = []

    def name(self, side: Side) -> str:
        return self.state.duellist(side).name or _("Duellist {side}", side=side.upper())

    def note(self, clause: str, text: str) -> None:
        """Log ``text`` (already in the reader's language) citing ``clause`` (a heading
        above, translated here)."""
        self.log.append(LogEvent(_(clause), text))

    def dicex(self, side: Side, sides: int, purpose: str, formula: str, clause: str) -> bool:
        """Roll DICE``sides`` and log it. Every language writes the roll as
        ``DICE<sides> (<formula>)`` followed by its value, the first number after the
        closing parenthesis: ``log_dice_pattern`` reads it so in every language."""
        roll = self.dice.roll(sides, side=side, purpose=purpose)
        self.rolls.append(roll)
        success = roll.value > 1
        name = self.name(side)
        if sides <= 0:
            text = _(
                "{name} rolls DICE{sides} ({formula}) is 0 (Glossary: DICEX with X <= 0 "
                "yields 0): not greater than 1, fails",
                name=name, sides=sides, formula=formula,
            )
        elif success:
            text = _(
                "{name} rolls DICE{sides} ({formula}) rolled {value}: greater than 1, "
                "succeeds",
                name=name, sides=sides, formula=formula, value=roll.value,
            )
        else:
            text = _(
                "{name} rolls DICE{sides} ({formula}) rolled {value}: not greater than 1, "
                "fails",
                name=name, sides=sides, formula=formula, value=roll.value,
            )
        self.note(clause, text)
        return success


#: Rule 2.14 plays rounds of moves, each closed by a commander (or its deadline).
#: (English here; ``words`` gives them in the reader's language: ``translated()``.)
WORDS = RulesetWords(
    round=Noun(N_("round"), N_("rounds")),
    move=Noun(N_("move"), N_("moves")),
    ending={
        "a_wins": N_("{a} wins the duel"),
        "b_wins": N_("{b} wins the duel"),
        "a_retreats": N_("{a} retreats; the duel ends with no winner"),
        "b_retreats": N_("{b} retreats; the duel ends with no winner"),
        "both_retreat": N_("Both duellists retreat; the duel ends with no winner"),
        "locked": N_("The duellists are locked in combat; the duel goes on"),
        "no_effect": N_("No effect; the duel goes on"),
    },
    text=_,
)


def _sheet_fields() -> tuple[SheetField, ...]:
    return (
        SheetField(NP_("command name", "str"), "int", _("Strength (STR)"), STAT_MIN, STAT_MAX),
        SheetField(NP_("command name", "agi"), "int", _("Agility (AGI)"), STAT_MIN, STAT_MAX),
    )


class Rule214(
    Ruleset, HouseRulesFromDeclarations, ExactOdds, ShortAdjudication, DiceByPattern
):
    """Rule 2.14 and its capabilities: house rules, exact odds, the short `duelbot
    adjudicate` input and verifiable dice (one round a step: no ``MultiStep``)."""

    id = RULESET_ID
    # Read in the reader's language at each access (bot/rules/text.py).
    title = Localized(lambda: _("Rule 2.14 Duelling"))
    words = Localized(WORDS.translated)

    sheet_fields = Localized(_sheet_fields)
    # `/stats set member str agi`: the quick command for the two numbers every duel needs.
    quick_sheet_fields = ("str", "agi")
    # The dice depend on the sheets (``dice_for``). The log states a roll the same way in
    # every language: the dice notation with its formula, then the value, the first number
    # after it ("Alice rolls DICE3 (STR 8 - AGI 5) rolled 2", "Bob würfelt DICE-3 (AGI 2 -
    # STR 5) und erhält 0 (...)"); the pattern reads that, no verb of any language, so it
    # reads every log published before (English) too. Python and JavaScript syntax alike.
    dice: tuple[int, ...] = ()
    log_dice_pattern: str | None = r"\bDICE-?[0-9]+ \([^()]*\)[^0-9]*([0-9]+)"

    def dice_for(self, sheets: Mapping[str, Any]) -> tuple[int, ...] | None:
        """Evade rolls DICE(AGI - their STR), Full Frontal Strike DICE(STR - their AGI); the
        stats do not change during a duel, so these four dice are all a duel can roll."""
        stats: dict[str, tuple[int, int]] = {}
        for side in SIDES:
            sheet = sheets.get(side)
            strength = sheet.get("str") if isinstance(sheet, Mapping) else None
            agility = sheet.get("agi") if isinstance(sheet, Mapping) else None
            if type(strength) is not int or type(agility) is not int:  # not bool, not absent
                return None
            stats[side] = (strength, agility)
        dice: list[int] = []
        for me, them in (("a", "b"), ("b", "a")):
            dice += [stats[me][1] - stats[them][0], stats[me][0] - stats[them][1]]
        return tuple(dice)

    def moves(self, state: Any = None, side: Side | None = None) -> tuple[MoveSpec, ...]:
        return moves_shown()

    # -- text ---------------------------------------------------------------------------

    def roll_purpose_label(self, purpose: str) -> str:
        """A roll is for a move (evade, full_frontal_strike): the move's own label."""
        known = LABELS.get(purpose)
        return _(known) if known is not None else super().roll_purpose_label(purpose)

    def short_name(self) -> str:
        return _("rule 2.14")

    def help_text(self, state: Any = None, side: Side | None = None) -> str:
        listed = ", ".join(f"`{m.id}` ({'/'.join(m.aliases)})" for m in MOVES)
        return _("Rule 2.14 moves: {listed}. Send one move per round, e.g. `evade`.",
                 listed=listed)


    def outcome_kind(self, outcome: str, winner: Side | None, side: Side) -> OutcomeKind:
        """A duellist whose retreat ended the duel (``a_retreats``, ``both_retreat``) counts
        a retreat; the other side of a one-sided retreat a draw (no winner, 2.14.1)."""
        if winner is None and outcome in (f"{side}_retreats", "both_retreat"):
            return "retreat"
        return super().outcome_kind(outcome, winner, side)

    def result_facts(self, result: Mapping[str, Any]) -> list[tuple[str, str]]:
        """Whether the duellists are locked in combat after the round (2.14 Locked): its
        state says so (a result stored before issue 24 also said it at the top)."""
        state = result.get("state")
        locked = state.get("locked") if isinstance(state, Mapping) else None
        if locked is None:
            locked = result.get("locked")
        return [(_("Locked in combat"), _("yes") if locked else _("no"))]

    def fighter_summary(self, side_state: Mapping[str, Any]) -> list[tuple[str, str]]:
        """STR and AGI (what cards and exports show)."""
        return [
            ("STR", str(side_state.get("str", "?"))),
            ("AGI", str(side_state.get("agi", "?"))),
        ]

    def parse_choice(self, text: str, state: Any = None, side: Side | None = None) -> str:
        return parse_move(text)

    def validate_sheet(self, sheet: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "str": check_stat("STR", sheet.get("str")),
            "agi": check_stat("AGI", sheet.get("agi")),
        }

    def initial_state(self, a: Fighter, b: Fighter, params: Mapping[str, Any]) -> DuelState:
        def duellist(f: Fighter) -> Duellist:
            sheet = self.validate_sheet(f.sheet)
            return Duellist(f.name, sheet["str"], sheet["agi"])

        # The one normalisation: "false" is False here (bool("false") once locked a duel).
        given = self.normalize_params(params)
        return DuelState(a=duellist(a), b=duellist(b), locked=bool(given.get(LOCKED.key, False)))

    def duel_params(self) -> tuple[DuelParam, ...]:
        return (replace(LOCKED, help=_(LOCKED.help)),)

    def house_rules(self) -> tuple[HouseRule, ...]:
        return (replace(LOCKED_BLOCKS_RETREAT, help=_(LOCKED_BLOCKS_RETREAT.help)),)

    def status_notes(self, state: Mapping[str, Any]) -> tuple[str, ...]:
        """A live duel whose duellists are locked says so (`/duel status`)."""
        return (_("locked in combat"),) if self.is_locked(state) else ()

    def is_locked(self, state: Mapping[str, Any]) -> bool:
        return bool(state.get("locked", False))

    def state_from_dict(self, data: Mapping[str, Any]) -> DuelState:
        return DuelState.from_dict(data)

    def make_options(self, settings: Mapping[str, Any]) -> Options:
        """``settings``: ``missing_move`` (none, forfeit) and the house rule
        ``locked-blocks-retreat`` (yes/no; an older duel's ``locked_blocks_retreat``
        true/false is the same key); other keys are ignored."""
        policy = settings.get("missing_move", "none")
        house = self.explicit_house_rules(settings)
        return Options(
            missing_move="forfeit" if policy == "forfeit" else "none",
            locked_blocks_retreat=house.get(LOCKED_BLOCKS_RETREAT.key) == "yes",
        )

    def roll_classes(self, sides: int, purpose: str) -> list[tuple[int, int]]:
        # Every DICEX here only asks "greater than 1?": face 1 fails, faces 2..X succeed.
        return [(1, 1)] if sides == 1 else [(1, 1), (2, sides - 1)]

    def outcome_distribution(
        self, state: Any, choices: Mapping[Side, str | None], options: Any
    ) -> dict[str, Fraction]:
        return enumerate_outcomes(
            lambda dice: self.resolve(state, choices, dice, options).outcome, self.roll_classes
        )

    def resolve(
        self,
        state: DuelState,
        choices: Mapping[Side, str | None],
        dice: DiceSource,
        options: Options | None = None,
    ) -> RoundResult:
        options = options or Options()
        if state.ended:
            raise InvalidRoundInput(_("This duel has already ended; no more rounds resolve."))
        moves: dict[Side, str | None] = {}
        for side in SIDES:
            move = choices.get(side)
            if move is not None and move not in MOVE_IDS:
                raise InvalidChoice(
                    _("{text} is not a move. Allowed: {allowed}.", text=repr(move),
                      allowed=allowed_moves_text())
                )
            moves[side] = move
        rnd = _Round(state, moves, dice)
        if not self._missing_moves(rnd, options):
            self._defences(rnd)
            self._attacks(rnd)
        retreated = self._retreats(rnd, options)
        return self._result(rnd, retreated)

    # -- phases -------------------------------------------------------------------------

    def _missing_moves(self, rnd: _Round, options: Options) -> bool:
        """Logs absent moves; True when a forfeit decided the round."""
        missing = [s for s in SIDES if rnd.moves[s] is None]
        for side in missing:
            rnd.note(ROUNDS, _("{name} sent no move by the close", name=rnd.name(side)))
        if options.missing_move == "forfeit" and len(missing) == 1:
            rnd.winner = other_side(missing[0])
            rnd.note(
                MISSING_MOVE_FORFEIT,
                _("{loser} forfeits; {winner} wins the duel",
                  loser=rnd.name(missing[0]), winner=rnd.name(rnd.winner)),
            )
            return True
        if options.missing_move == "forfeit" and len(missing) == 2:
            rnd.note(MISSING_MOVE_FORFEIT, _("neither duellist moved; nobody forfeits"))
        return False

    def _defences(self, rnd: _Round) -> None:
        defenders = [s for s in SIDES if rnd.moves[s] in DEFENCES]
        if len(defenders) == 2:
            rnd.note(
                DEFENCES_CLAUSE,
                _("both duellists made a defence this round: both defences fail "
                  "and no effect is administered"),
            )
            return
        for side in defenders:
            opponent = other_side(side)
            me, them = rnd.state.duellist(side), rnd.state.duellist(opponent)
            if rnd.moves[side] == LOCK_ATTEMPT:
                fields = {
                    "name": rnd.name(side), "strength": me.strength,
                    "opponent": rnd.name(opponent), "agility": them.agility,
                }
                if me.strength > them.agility:
                    rnd.locked_now = True
                    rnd.note(
                        LOCK_ATTEMPT_CLAUSE,
                        _("{name}'s STR {strength} is greater than {opponent}'s AGI "
                          "{agility}: the defence succeeds and the duellists are locked in "
                          "combat", **fields),
                    )
                else:
                    rnd.note(
                        LOCK_ATTEMPT_CLAUSE,
                        _("{name}'s STR {strength} is not greater than {opponent}'s AGI "
                          "{agility}: the defence fails", **fields),
                    )
            else:
                sides = me.agility - them.strength
                formula = f"AGI {me.agility} - STR {them.strength}"
                if rnd.dicex(side, sides, EVADE, formula, EVADE_CLAUSE):
                    if rnd.moves[opponent] in ATTACKS:
                        rnd.cancelled.add(opponent)
                        rnd.note(
                            EVADE_CLAUSE,
                            _("{opponent}'s {attack} fails automatically",
                              opponent=rnd.name(opponent),
                              attack=_(LABELS[rnd.moves[opponent] or ""])),
                        )
                    else:
                        rnd.note(
                            EVADE_CLAUSE,
                            _("{opponent} made no attack to evade", opponent=rnd.name(opponent)),
                        )

    def _attacks(self, rnd: _Round) -> None:
        for side in SIDES:
            move = rnd.moves[side]
            if move not in ATTACKS or side in rnd.cancelled:
                continue
            opponent = other_side(side)
            theirs = rnd.moves[opponent]
            if move == FULL_FRONTAL_STRIKE:
                clause = FULL_FRONTAL_STRIKE_CLAUSE
                if theirs == FULL_FRONTAL_STRIKE:
                    if side == "a":  # one lock for the pair, logged once
                        rnd.locked_now = True
                        rnd.note(
                            clause,
                            _("both duellists used Full Frontal Strike: "
                              "the duellists are locked in combat"),
                        )
                elif theirs == SIDE_SWIPE:
                    rnd.note(
                        clause,
                        _("{opponent} used Side Swipe, whose clause names Full Frontal "
                          "Strike and prevails: no roll", opponent=rnd.name(opponent)),
                    )
                else:
                    me, them = rnd.state.duellist(side), rnd.state.duellist(opponent)
                    sides = me.strength - them.agility
                    formula = f"STR {me.strength} - AGI {them.agility}"
                    if rnd.dicex(side, sides, FULL_FRONTAL_STRIKE, formula, clause):
                        rnd.winner = side
                        rnd.note(
                            clause,
                            _("the attack succeeds: {name} wins the duel", name=rnd.name(side)),
                        )
            else:
                clause = SIDE_SWIPE_CLAUSE
                if theirs == FULL_FRONTAL_STRIKE:
                    rnd.winner = side
                    rnd.note(
                        clause,
                        _("{opponent} used Full Frontal Strike: {name} (the attacker) wins "
                          "the duel", opponent=rnd.name(opponent), name=rnd.name(side)),
                    )
                elif theirs == SIDE_SWIPE:
                    if side == "a":
                        rnd.note(
                            clause, _("both duellists used Side Swipe: both attacks fail")
                        )
                else:
                    rnd.note(
                        clause,
                        _("{opponent} did not use Full Frontal Strike: no effect",
                          opponent=rnd.name(opponent)),
                    )

    def _retreats(self, rnd: _Round, options: Options) -> list[Side]:
        locked_after = rnd.state.locked or rnd.locked_now
        retreated: list[Side] = []
        for side in SIDES:
            if rnd.moves[side] != RETREAT:
                continue
            name = rnd.name(side)
            if rnd.winner == side:
                # Only a forfeit can make a retreating duellist the winner.
                rnd.note(
                    ROUNDS,
                    _("{name} has already won the duel: the retreat does not take effect "
                      "(a win counts before a retreat)", name=name),
                )
            elif rnd.winner is not None:
                rnd.note(
                    ROUNDS, _("{name} was struck down before the retreat took effect", name=name)
                )
            elif options.locked_blocks_retreat and locked_after:
                rnd.note(
                    ROUNDS_LOCKED_BLOCKS_RETREAT,
                    _("{name} is locked in combat: the retreat fails", name=name),
                )
            else:
                retreated.append(side)
                rnd.note(ROUNDS, _("{name} retreats from the duel", name=name))
        return retreated

    def _result(self, rnd: _Round, retreated: list[Side]) -> RoundResult:
        locked_after = rnd.state.locked or rnd.locked_now
        if rnd.winner is not None:
            outcome = f"{rnd.winner}_wins"
        elif len(retreated) == 2:
            outcome = "both_retreat"
        elif retreated:
            outcome = f"{retreated[0]}_retreats"
        elif rnd.locked_now:
            outcome = "locked"
        else:
            outcome = "no_effect"
        ended = rnd.winner is not None or bool(retreated)
        if outcome == "no_effect":
            rnd.note(DUELLING, _("the round ends with no effect"))
        elif outcome == "locked":
            rnd.note(DUELLING, _("the duellists are locked in combat; the duel goes on"))
        elif rnd.winner is None:
            rnd.note(ROUNDS, _("the duel ends with no winner"))
        new_state = replace(rnd.state, locked=locked_after, ended=ended, winner=rnd.winner)
        return RoundResult(
            ruleset=RULESET_ID,
            outcome=outcome,
            winner=rnd.winner,
            ended=ended,
            choices=dict(rnd.moves),
            rolls=tuple(rnd.rolls),
            log=tuple(rnd.log),
            state=new_state,
        )

    # -- odds ---------------------------------------------------------------------------

    def odds_table(


        self, a: Duellist, b: Duellist, options: Options | None = None, locked: bool = False
    ) -> list[tuple[str, str, dict[str, Fraction]]]:
        """Exact outcome probabilities for all 25 move pairs."""
        return command_line.odds_table(self, a, b, options, locked)

    # -- the command line (command_line.py) ---------------------------------------------

    short_round_keys = command_line.SHORT_ROUND_KEYS
    short_round_help = command_line.SHORT_ROUND_HELP
    short_result_keys = command_line.SHORT_RESULT_KEYS
    short_verify_help = command_line.SHORT_VERIFY_HELP

    def parse_short_round(self, data: Mapping[str, Any], where: str) -> ShortRound:
        return command_line.parse_short_round(data, where)

    def short_input(self, state_before: Mapping[str, Any]) -> dict[str, Any]:
        return command_line.short_input(state_before)

    def short_result(self, state_after: Mapping[str, Any]) -> dict[str, Any]:
        return command_line.short_result(state_after)

    def odds_arguments(self) -> OddsArguments:
        return command_line.ODDS_ARGUMENTS

    def odds_from_arguments(
        self, values: Mapping[str, Any], house_rules: Mapping[str, str]
    ) -> OddsReport:
        return command_line.odds_report(self, values, house_rules)


RULE_2_14 = Rule214()
