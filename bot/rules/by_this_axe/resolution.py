"""One By This Axe round, resolved: the reveal, dirty tricks (and a round halted for the
victim's forfeit choice), attacks, parries, counterattacks, armor saves, flight, and the
result. ``resolve_round`` is ``ByThisAxe.resolve`` (ruleset.py); every roll comes from the
round's DiceSource and every step is written to the log with its clause.

The log is written in the scope's language (the duel's: bot/services/rounds.py), each line
a whole sentence of the package's catalog. Its dice stay machine-readable in every
language: each sentence that reports dice keeps one of the forms ``log_dice_pattern``
(ruleset.py) reads, "rolls 4 dice (3, 6, 4, 4)", "rolls 3: ...", "rolls 5, 4: ...", "rolls a
counterattack die: 3" (German: "würfelt 4 Würfel (3, 6, 4, 4)", "würfelt 3: ...",
"würfelt einen Gegenangriffswürfel: 3")."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from bot.rules.by_this_axe.allotments import Allotment, choice_to_allotment
from bot.rules.by_this_axe.choices import parse_forfeit, picks
from bot.rules.by_this_axe.forfeits import after_split, parse_forfeit_id
from bot.rules.by_this_axe.sheet import Combatant
from bot.rules.by_this_axe.state import (
    AFTER_BLOWS,
    ATTACK_FIRST,
    BEFORE_BLOWS,
    PARRY_FIRST,
    VICTIM_CHOOSES,
    DuelState,
    Flight,
    Options,
    PendingTrick,
    forfeit_dice,
    forfeit_splits,
    rules_in_force,
)
from bot.rules.by_this_axe.tables import (
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
    CONTINUE,
    COUNTERATTACK,
    DIRTY_TRICK,
    FLEE,
    FLEE_ROLL,
    FORFEIT_CHOICE,
    NO_SAVE,
    PARRY,
    RULESET_ID,
    _hit,
    _save_text,
    _saves,
    _trick_works,
)
from bot.rules.by_this_axe.text import _, _n
from bot.rules.dice import DiceSource, Roll
from bot.rules.errors import InvalidRoundInput
from bot.rules.terms import SIDES, LogEvent, RoundResult, Side, other_side


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
        return self.state.duellist(side).name or _("Duellist {side}", side=side.upper())

    def note(self, clause: str, text: str) -> None:
        """A line citing ``clause`` (a marked constant of tables.py, translated here)."""
        self.log.append(LogEvent(_(clause), text))

    def roll(self, side: Side, purpose: str) -> int:
        made = self.dice.roll(6, side=side, purpose=purpose)
        self.rolls.append(made)
        return made.value

    def roll_many(self, side: Side, n: int, purpose: str) -> list[int]:
        return [self.roll(side, purpose) for _ in range(n)]


def _faces(values: list[int]) -> str:
    return ", ".join(str(v) for v in values)


def _dice(n: int) -> str:
    # Translators: inside "rolls {dice} (3, 6, 4)": keep the number first and the
    # same word for every number (German "{count} Würfel"): the log's dice are read
    # by a pattern (ByThisAxe.log_dice_pattern).
    return _n("{count} die", "{count} dice", n)


def _hits(n: int) -> str:
    return _n("{count} hit", "{count} hits", n)


def resolve_round(
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
        raise InvalidRoundInput(_("This duel has already ended; no more rounds resolve."))
    flight, forfeit = rules_in_force(state, options)
    # House rules given with the options at a close stay the duel's from then on.
    state = replace(state, flight=flight, forfeit=forfeit)
    if state.pending is not None:
        return _resume(state, state.pending, choices, dice, flight)
    rnd = _Round(state, picks(state, choices), dice)
    rnd.note(C_ROUNDS, _("round {number}", number=state.round_no))
    forfeiter = _missing(rnd, options)
    if forfeiter is not None:
        victor = other_side(forfeiter)
        return _result(rnd, f"{victor}_wins", victor, state.a, state.b)
    _reveal(rnd)
    if flight == BEFORE_BLOWS:
        fled = _flight(rnd, [], flight)
        if fled:
            return _conclude(rnd, {"a": state.a, "b": state.b}, [], fled)
    tricked = [other_side(s) for s in _roll_tricks(rnd)]
    if forfeit == VICTIM_CHOOSES:
        victims = tuple(v for v in tricked if len(forfeit_splits(rnd.allot[v])) > 1)
        if victims:
            return _halt(rnd, tuple(tricked), victims)
    for victim in tricked:
        _forfeit(rnd, victim, forfeit_dice(rnd.allot[victim], forfeit), forfeit)
    return _blows(rnd, flight)

def _blows(rnd: _Round, flight: Flight) -> RoundResult:
    """Attacks, parries, counterattacks, armor saves and (after the blows) flight."""
    hits = {s: _roll_area(rnd, s, ATTACK) for s in SIDES}
    parried = {s: _roll_area(rnd, s, PARRY) for s in SIDES}
    landed = _landed(rnd, hits, parried)
    _counterattacks(rnd, hits, parried, landed)
    after = {s: _armor(rnd, s, landed[s]) for s in SIDES}
    defeated = [s for s in SIDES if after[s].defeated]
    fled = _flight(rnd, defeated, flight) if flight == AFTER_BLOWS else []
    return _conclude(rnd, after, defeated, fled)

def _conclude(
    rnd: _Round,
    after: Mapping[Side, Combatant],
    defeated: list[Side],
    fled: list[Side],
) -> RoundResult:
    state = rnd.state
    winner: Side | None = None
    if len(defeated) == 2:
        outcome = BOTH_DEFEATED
        rnd.note(C_ROUNDS, _("both characters are defeated: the duel ends with no winner"))
    elif defeated:
        winner = other_side(defeated[0])
        outcome = f"{winner}_wins"
        rnd.note(C_ROUNDS, _("{loser} is defeated: {winner} wins the duel",
                             loser=rnd.name(defeated[0]), winner=rnd.name(winner)))
    elif len(fled) == 2:
        outcome = BOTH_FLEE
        rnd.note(C_ROUNDS, _("both characters run away: the duel ends with no winner"))
    elif fled:
        outcome = f"{fled[0]}_flees"
        rnd.note(C_ROUNDS, _("{name} runs away: the duel ends with no winner",
                             name=rnd.name(fled[0])))
    else:
        outcome = CONTINUE
        rnd.note(C_ROUNDS, _("nobody is defeated and nobody ran away: the duel goes on to "
                             "round {number}", number=state.round_no + 1))
    return _result(rnd, outcome, winner, after["a"], after["b"])

def _halt(
    rnd: _Round, tricked: tuple[Side, ...], victims: tuple[Side, ...]
) -> RoundResult:
    """Stop after the dirty tricks: the victims choose their forfeited dice next."""
    names = [rnd.name(v) for v in victims]
    if len(names) == 1:
        rnd.note(C_FORFEIT_CHOICE, _(
            "{name} must choose which dice to forfeit (house rule forfeit = "
            "victim-chooses); the round goes on once they have chosen", name=names[0]))
    else:
        rnd.note(C_FORFEIT_CHOICE, _(
            "{first} and {second} must choose which dice to forfeit (house rule forfeit = "
            "victim-chooses); the round goes on once they have chosen",
            first=names[0], second=names[-1]))
    pending = PendingTrick(dict(rnd.picks), tricked, victims)
    new_state = replace(rnd.state, pending=pending, outcome=FORFEIT_CHOICE)
    return RoundResult(
        ruleset=RULESET_ID,
        outcome=FORFEIT_CHOICE,
        winner=None,
        ended=False,
        choices=dict(rnd.picks),
        rolls=tuple(rnd.rolls),
        log=tuple(rnd.log),
        state=new_state,
    )

def _resume(
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
            waited = " and ".join(pending.victims)  # one victim: its side letter
            raise InvalidRoundInput(
                _("Side {side} has no choice to make: the round waits for the forfeit "
                  "choice of {waited}.", side=side, waited=waited)
            )
        picked[side] = None if choice is None else parse_forfeit(choice, state, side)
    rnd = _Round(replace(state, pending=None), dict(pending.picks), dice)
    rnd.note(C_ROUNDS, _("round {number} goes on: the forfeited dice", number=state.round_no))
    for victim in pending.tricked:
        allot = rnd.allot[victim]
        splits = forfeit_splits(allot)
        if victim not in pending.victims:
            _forfeit(rnd, victim, after_split(allot, splits[0]), VICTIM_CHOOSES)
            continue
        choice = picked[victim]
        if choice is None:
            rnd.note(C_FORFEIT_CHOICE, _("{name} chose nothing by the close: the dice are "
                                         "taken parry first, then attack",
                                         name=rnd.name(victim)))
            _forfeit(rnd, victim, forfeit_dice(allot, PARRY_FIRST), PARRY_FIRST)
            continue
        _forfeit(rnd, victim, after_split(allot, parse_forfeit_id(choice)),
                      VICTIM_CHOOSES)
    result = _blows(rnd, flight)
    return replace(result, choices=picked)

def _result(
    rnd: _Round, outcome: str, winner: Side | None, a: Combatant, b: Combatant
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
        choices=dict(rnd.picks),
        rolls=tuple(rnd.rolls),
        log=tuple(rnd.log),
        state=new_state,
    )

def _missing(rnd: _Round, options: Options) -> Side | None:
    missing = [s for s in SIDES if rnd.picks[s] is None]
    for side in missing:
        rnd.note(C_MISSING, _("{name} sent no allotment by the close: no dice in attack, "
                              "parry or dirty tricks this round", name=rnd.name(side)))
    if options.missing_move == "forfeit" and len(missing) == 1:
        rnd.note(C_FORFEIT, _("{loser} forfeits; {winner} wins the duel",
                              loser=rnd.name(missing[0]),
                              winner=rnd.name(other_side(missing[0]))))
        return missing[0]
    if options.missing_move == "forfeit" and len(missing) == 2:
        rnd.note(C_FORFEIT, _("neither duellist sent an allotment; nobody forfeits"))
    return None

def _reveal(rnd: _Round) -> None:
    for side in SIDES:
        pick = rnd.picks[side]
        if pick == FLEE:
            text = _("{name} attempts to flee (no attack, no parry, no dirty tricks this "
                     "round)", name=rnd.name(side))
        elif pick is None:
            text = _("{name} has no dice in play", name=rnd.name(side))
        else:
            text = _("{name} reveals {allotment}", name=rnd.name(side),
                     allotment=rnd.allot[side].shown)
        rnd.note(C_REVEAL, text)

def _roll_tricks(rnd: _Round) -> list[Side]:
    """Each trick die (A, then B); the sides whose trick worked."""
    worked: list[Side] = []
    for side in SIDES:
        if rnd.allot[side].tricks == 0:
            continue
        value = rnd.roll(side, DIRTY_TRICK)
        if _trick_works(value):
            worked.append(side)
            # Translators: keep "rolls {value}:" in the form "würfelt {value}:" (the
            # log's dice are read by a pattern, ByThisAxe.log_dice_pattern).
            rnd.note(C_TRICKS, _("{name} rolls {value}: the dirty trick works (1-2), "
                                 "{victim} forfeits two dice", name=rnd.name(side),
                                 value=value, victim=rnd.name(other_side(side))))
        else:
            rnd.note(C_TRICKS, _("{name} rolls {value}: no effect (3-6)",
                                 name=rnd.name(side), value=value))
    return worked

def _forfeit(rnd: _Round, victim: Side, after: Allotment, how: str) -> None:
    before = rnd.allot[victim]
    rnd.allot[victim] = after
    fields = {
        "name": rnd.name(victim),
        "attack": before.attack - after.attack,
        "parry": before.parry - after.parry,
        "left_attack": after.attack,
        "left_parry": after.parry,
    }
    if how == PARRY_FIRST:
        text = _("{name} forfeits {attack} attack and {parry} parry dice for the round "
                 "(parry first, then attack): Attack {left_attack}, Parry {left_parry}",
                 **fields)
    elif how == ATTACK_FIRST:
        text = _("{name} forfeits {attack} attack and {parry} parry dice for the round "
                 "(attack first, then parry): Attack {left_attack}, Parry {left_parry}",
                 **fields)
    else:
        text = _("{name} forfeits {attack} attack and {parry} parry dice for the round "
                 "(chosen by {name}): Attack {left_attack}, Parry {left_parry}", **fields)
    rnd.note(C_TRICKS, text)

def _roll_area(rnd: _Round, side: Side, purpose: str) -> int:
    n = rnd.allot[side].attack if purpose == ATTACK else rnd.allot[side].parry
    clause = C_ATTACKS if purpose == ATTACK else C_PARRIES
    if n == 0:
        if purpose == ATTACK:
            rnd.note(clause, _("{name} has no attack dice", name=rnd.name(side)))
        else:
            rnd.note(clause, _("{name} has no parry dice", name=rnd.name(side)))
        return 0
    values = rnd.roll_many(side, n, purpose)
    count = sum(1 for v in values if _hit(v))
    successes = (
        _hits(count) if purpose == ATTACK
        else _n("{count} parry success", "{count} parry successes", count)
    )
    # Translators: keep "rolls {dice} ({faces})" in this form, "würfelt {dice} ({faces})":
    # the log's dice are read by a pattern (ByThisAxe.log_dice_pattern).
    rnd.note(clause, _("{name} rolls {dice} ({faces}): {successes} (1-3)",
                       name=rnd.name(side), dice=_dice(n), faces=_faces(values),
                       successes=successes))
    return count

def _landed(
    rnd: _Round, hits: dict[Side, int], parried: dict[Side, int]
) -> dict[Side, int]:
    landed: dict[Side, int] = {}
    for side in SIDES:
        incoming = hits[other_side(side)]
        negated = min(incoming, parried[side])
        landed[side] = incoming - negated
        if incoming:
            rnd.note(C_PARRIES, _n(
                "{name} negates {negated} of {other}'s {hits}: {count} lands on {name}",
                "{name} negates {negated} of {other}'s {hits}: {count} land on {name}",
                landed[side],
                name=rnd.name(side),
                negated=negated,
                other=rnd.name(other_side(side)),
                hits=_hits(incoming),
            ))
    return landed

def _counterattacks(
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
        fields = {"name": rnd.name(side), "parried": parried[side], "incoming": incoming,
                  "value": value, "target": rnd.name(target)}
        # Translators: keep "rolls a counterattack die: {value}" in the form "würfelt
        # einen Gegenangriffswürfel: {value}" (read by ByThisAxe.log_dice_pattern).
        if _hit(value):
            landed[target] += 1
            rnd.note(C_COUNTER, _(
                "{name} has more parry successes ({parried}) than incoming hits "
                "({incoming}) and rolls a counterattack die: {value}, a hit on {target} "
                "that cannot be parried", **fields))
        else:
            rnd.note(C_COUNTER, _(
                "{name} has more parry successes ({parried}) than incoming hits "
                "({incoming}) and rolls a counterattack die: {value}, no hit", **fields))

def _armor(rnd: _Round, side: Side, landed: int) -> Combatant:
    me = rnd.state.duellist(side)
    if landed == 0:
        return me
    save = me.armor_save
    if save == NO_SAVE:
        unsaved = landed
        rnd.note(C_ARMOR, _n("{name} has no armor save: {count} hit unsaved",
                             "{name} has no armor save: {count} hits unsaved",
                             landed, name=rnd.name(side)))
    else:
        values = rnd.roll_many(side, landed, ARMOR_SAVE)
        saved = sum(1 for v in values if _saves(v, save))
        unsaved = landed - saved
        # Translators: keep "rolls {faces}:" in the form "würfelt {faces}:" (read by
        # ByThisAxe.log_dice_pattern).
        rnd.note(C_ARMOR, _(
            "{name} saves on {save} (Heroic +1 ignored), rolls {faces}: {saved} saved, "
            "{unsaved} unsaved", name=rnd.name(side), save=_save_text(save),
            faces=_faces(values), saved=saved, unsaved=unsaved))
    after = replace(me, wounds_taken=me.wounds_taken + unsaved)
    if unsaved:
        fields = {"name": rnd.name(side), "taken": after.wounds_taken, "wounds": after.wounds}
        if after.defeated:
            text = _n("{name} takes {count} wound ({taken} of {wounds}): defeated",
                      "{name} takes {count} wounds ({taken} of {wounds}): defeated",
                      unsaved, **fields)
        else:
            text = _n("{name} takes {count} wound ({taken} of {wounds}): still standing",
                      "{name} takes {count} wounds ({taken} of {wounds}): still standing",
                      unsaved, **fields)
        rnd.note(C_WOUNDS, text)
    return after

def _flight(rnd: _Round, defeated: list[Side], flight: Flight) -> list[Side]:
    fled: list[Side] = []
    for side in SIDES:
        if rnd.picks[side] != FLEE:
            continue
        name = rnd.name(side)
        if flight == BEFORE_BLOWS:
            rnd.note(C_FLIGHT, _("{name} rolls to flee before the blows (house rule "
                                 "flight = {flight})", name=name, flight=flight))
        else:
            rnd.note(C_FLIGHT, _("{name} rolls to flee after the blows (house rule "
                                 "flight = {flight})", name=name, flight=flight))
        if side in defeated:
            rnd.note(C_FLIGHT, _("{name} is defeated before getting away: no flee roll",
                                 name=name))
            continue
        value = rnd.roll(side, FLEE_ROLL)
        # Translators: keep "rolls {value}:" in the form "würfelt {value}:" (read by
        # ByThisAxe.log_dice_pattern).
        if _hit(value):
            fled.append(side)
            rnd.note(C_FLIGHT, _("{name} rolls {value}: flees the duel (1-3)",
                                 name=name, value=value))
        elif flight == BEFORE_BLOWS:
            rnd.note(C_FLIGHT, _("{name} rolls {value}: fails to flee (4-6): he stays, and "
                                 "the blows fall on him", name=name, value=value))
        else:
            rnd.note(C_FLIGHT, _("{name} rolls {value}: fails to flee (4-6)",
                                 name=name, value=value))
    return fled
