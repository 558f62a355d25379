"""One FoEQ step: applies the choices, then plays every part of the duel that needs only dice."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from bot.rules.base import (
    SIDES,
    LogEvent,
    RoundResult,
    Side,
    other_side,
)
from bot.rules.dice import DiceSource, Roll
from bot.rules.errors import DiceError
from bot.rules.foeq.parsing import (
    parse_consequence,
    parse_move,
    parse_setup,
    parse_style_change,
    parse_twist,
)
from bot.rules.foeq.phases import (
    _d,
    consequence_options,
    default_consequence,
    score_chooser,
    twist_pool,
)
from bot.rules.foeq.sheet import (
    Duellist,
)
from bot.rules.foeq.state import (
    AUTO_WIN,
    DISRUPTIVE_RULE,
    PUBLIC_STAKES,
    SHOT_TIE_RULE,
    STRONG_AGAINST_RULE,
    Corner,
    FoeqState,
    Options,
)
from bot.rules.foeq.tables import (
    ADVANTAGE_AGAINST,
    BIG_WIN,
    BLUFF,
    C_FORFEIT,
    C_MISSING,
    C_SCORE,
    C_SHOT_CAST,
    C_SHOT_FAULTS,
    C_SHOT_INIT,
    C_SHOT_RESULT,
    C_SHOT_REVEAL,
    C_SHOT_TRICKS,
    C_SHOT_TWIST,
    C_STAKES,
    C_STARE_FIRST,
    C_STARE_INIT,
    C_STARE_RESOLVE,
    C_STARE_ROLL,
    C_STARE_SECOND,
    C_STYLE,
    CONSEQUENCE_LABELS,
    DEATH,
    DISRUPTIVE,
    EYE_OF_THE_BEHOLDER,
    FAULT,
    FIRST_BLOOD,
    HIT_DIE,
    KEEP,
    MAX_TIES,
    OVER,
    PRIDE,
    PRIDE_SCHOOLS,
    RULESET_ID,
    SAGE_ADVICE,
    SCORE_CHOICE,
    SECRET_CHOICE,
    SECRET_PHASES,
    SEE_THROUGH_THEM,
    SHOT_TWIST,
    SHOW_OFF,
    SKILL_LABELS,
    STAKE_LABELS,
    STAKE_RANK,
    STARE,
    STARE_FIRST,
    STARE_ROUNDS,
    STARE_SECOND,
    STARE_STYLE,
    STEADFAST,
    STYLE_LABELS,
    TACTICAL_ANALYSIS,
    THE_LOOK,
    TRICK,
    TWITCH,
)

# -- one step ----------------------------------------------------------------------------


class _Step:
    """Working memory of one resolution; frozen into the next state at the end."""

    def __init__(self, state: FoeqState, dice: DiceSource, options: Options) -> None:
        self.s = state
        self.dice = dice
        self.options = options
        #: The house rules in force: the options' over the duel's own.
        self.rules: dict[str, str] = {**state.house_rules, **options.house_rules}
        self.duellists: dict[Side, Duellist] = {"a": state.a, "b": state.b}
        self.corners: dict[Side, Corner] = {"a": state.corner_a, "b": state.corner_b}
        self.log: list[LogEvent] = []
        self.rolls: list[Roll] = []
        self.notes: list[tuple[Side, str]] = []
        self.consequences: list[str] = list(state.consequences)
        self.phase = state.phase
        self.awaiting: tuple[Side, ...] = ()
        self.public = True
        self.stare_round = state.stare_round
        self.first = state.first
        self.twist_queue = state.twist_queue
        self.shot_winner = state.shot_winner
        self.ended = False
        self.winner: Side | None = None
        self.outcome = ""

    # small tools
    def name(self, side: Side) -> str:
        return self.duellists[side].name or f"Duellist {side.upper()}"

    def note(self, clause: str, text: str) -> None:
        self.log.append(LogEvent(clause, text))

    def tell(self, side: Side, text: str) -> None:
        self.notes.append((side, text))

    def set(self, side: Side, **changes: Any) -> None:
        self.corners[side] = replace(self.corners[side], **changes)

    def roll(self, sides: int, side: Side, purpose: str) -> int:
        made = self.dice.roll(sides, side=side, purpose=purpose)
        self.rolls.append(made)
        return made.value

    def wait(self, phase: str, *sides: Side) -> None:
        self.phase = phase
        self.awaiting = sides
        self.public = phase not in SECRET_PHASES

    def d20(self, side: Side, purpose: str, advantage: bool) -> tuple[int, ...]:
        first = self.roll(20, side, purpose)
        return (first, self.roll(20, side, purpose)) if advantage else (first,)

    @staticmethod
    def show_d20(values: tuple[int, ...]) -> str:
        if len(values) == 2:
            return f"d20 {values[0]} and {values[1]} with advantage, keeps {max(values)}"
        return f"d20 {values[0]}"

    def initiative(self, purpose: str, clause: str) -> None:
        """Both roll d20 + initiative modifier, A then B; a tie is rerolled by both."""
        for _ in range(MAX_TIES):
            totals: dict[Side, int] = {}
            for side in SIDES:
                value = self.roll(20, side, purpose)
                mod = self.duellists[side].initiative
                totals[side] = value + mod
                self.note(
                    clause, f"{self.name(side)} rolls d20 {value} {mod:+d} = {totals[side]}"
                )
            if totals["a"] != totals["b"]:
                for side in SIDES:
                    self.set(side, initiative=totals[side])
                self.first = "a" if totals["a"] < totals["b"] else "b"
                return
            self.note(clause, f"a tie at {totals['a']}: both reroll")
        raise DiceError(f"{MAX_TIES} ties in a row: the dice are not random.")

    # -- phases ----------------------------------------------------------------------
    def setup(self, choices: Mapping[Side, str | None]) -> None:
        missing = [side for side in SIDES if choices.get(side) is None]
        if missing and self.options.missing_move == "forfeit":
            self.forfeit(missing, C_FORFEIT)
            return
        for side in SIDES:
            choice = choices.get(side)
            if choice is None:
                stake, style, slot = self.s.public_stake, STEADFAST, 0
                self.note(
                    C_MISSING,
                    f"{self.name(side)} set nothing by the close: the public stake, the "
                    "Steadfast Style and a cantrip (slot 0) are taken for them",
                )
            else:
                stake, style, slot = parse_setup(choice)
            self.set(side, stake=stake, style=style, slot=slot)
            free = slot in self.duellists[side].free_cast_levels and slot > 0
            self.tell(
                side,
                f"Your secret choices: true stake {STAKE_LABELS[stake]}, Style "
                f"{STYLE_LABELS[style]}, spell slot level {slot}"
                + (" (a cantrip)" if slot == 0 else "")
                + (" (cast without expending a slot)" if free else "")
                + ".",
            )
        self.note(
            C_STAKES,
            f"the public stake, chosen by the challenger {self.name(self.s.challenger)}, "
            f"is {STAKE_LABELS[self.s.public_stake]}; each duellist has secretly written "
            "down their true stake",
        )
        self.note(C_STYLE, "each duellist has secretly chosen a Style and a spell slot level")
        self.outcome = "setup"
        self.start_stare_round(1)

    def start_stare_round(self, number: int) -> None:
        self.stare_round = number
        for side in SIDES:
            self.set(side, move=None)
        self.initiative(f"stare{number}_initiative", f"{C_STARE_INIT} (round {number})")
        lower = self.first or "a"
        self.note(
            C_STARE_INIT,
            f"{self.name(lower)} has the lower Initiative and declares first",
        )
        self.wait(STARE_FIRST, lower)

    def declare(self, side: Side, choice: str | None, clause: str) -> bool:
        """Records a declaration; False when the duel ended by a forfeit."""
        if choice is None:
            if self.options.missing_move == "forfeit":
                self.forfeit([side], C_FORFEIT)
                return False
            self.note(C_MISSING, f"{self.name(side)} declares no Move this round")
            return True
        move = parse_move(choice)
        self.set(side, move=move)
        self.note(clause, f"{self.name(side)} declares {STARE[move].label}")
        return True

    def declare_first(self, side: Side, choice: str | None) -> None:
        if self.declare(side, choice, C_STARE_FIRST):
            self.outcome = "declared"
            self.wait(STARE_SECOND, other_side(side))

    def declare_second(self, side: Side, choice: str | None) -> None:
        if self.declare(side, choice, C_STARE_SECOND):
            self.stare_check()

    def stare_check(self) -> None:
        r = self.stare_round
        moves = {side: self.corners[side].move for side in SIDES}
        declared = [side for side in SIDES if moves[side] is not None]
        if not declared:
            self.note(C_STARE_RESOLVE, "neither duellist declared a Move: nobody benefits")
            self.outcome = "stare_none"
            self.after_stare_round()
            return
        if len(declared) == 1:
            only = declared[0]
            self.note(
                C_STARE_RESOLVE,
                f"{self.name(other_side(only))} made no Move: {self.name(only)} wins "
                "the check uncontested (no roll; the benefit without its 5-or-more part)",
            )
            self.outcome = f"stare_{only}"
            self.benefit(only, None)
            return
        advantage: dict[Side, bool] = {}
        for side in SIDES:
            mine, theirs = STARE[moves[side] or ""], moves[other_side(side)]
            advantage[side] = mine.strong_against == theirs
        strong = [side for side in SIDES if advantage[side]]
        if self.rules[STRONG_AGAINST_RULE.key] == AUTO_WIN and len(strong) == 1:
            only = strong[0]
            mine = STARE[moves[only] or ""]
            self.note(
                C_STARE_RESOLVE,
                f"{mine.label} is Strong Against {STARE[moves[other_side(only)] or ''].label}: "
                f"{self.name(only)} wins the check outright (house rule strong-against = "
                "auto-win; no roll, the benefit without its 5-or-more part)",
            )
            self.outcome = f"stare_{only}"
            self.benefit(only, None)
            return
        for side in SIDES:
            mine, theirs = STARE[moves[side] or ""], moves[other_side(side)]
            if advantage[side]:
                self.note(
                    C_STARE_ROLL,
                    f"{mine.label} is Strong Against {STARE[theirs or ''].label}: "
                    f"{self.name(side)} has advantage on the check",
                )
        for _ in range(MAX_TIES):
            totals: dict[Side, int] = {}
            for side in SIDES:
                move = STARE[moves[side] or ""]
                kept = self.d20(side, f"stare{r}_check", advantage[side])
                mod = self.duellists[side].skill(move.skill)
                totals[side] = max(kept) + mod
                self.note(
                    C_STARE_ROLL,
                    f"{self.name(side)} ({move.label}, {SKILL_LABELS[move.skill]}) rolls "
                    f"{self.show_d20(kept)} {mod:+d} = {totals[side]}",
                )
            if totals["a"] != totals["b"]:
                winner: Side = "a" if totals["a"] > totals["b"] else "b"
                margin = totals[winner] - totals[other_side(winner)]
                self.note(
                    C_STARE_RESOLVE, f"{self.name(winner)} wins the check by {margin}"
                )
                self.outcome = f"stare_{winner}"
                self.benefit(winner, margin)
                return
            self.note(C_STARE_RESOLVE, f"a tie at {totals['a']}: both duellists reroll")
        raise DiceError(f"{MAX_TIES} ties in a row: the dice are not random.")

    def gain(self, side: Side, kind: str, count: int = 1) -> None:
        corner = self.corners[side]
        held = corner.trick if kind == TRICK else corner.fault
        after = max(0, held + count)
        self.set(side, **{kind: after})
        label = "Trick" if kind == TRICK else "Fault"
        if count > 0:
            self.note(
                C_STARE_RESOLVE,
                f"{self.name(side)} gains a {label} die (now {_d(after)})",
            )
        elif held == 0:
            self.note(
                C_STARE_RESOLVE, f"{self.name(side)} has no {label} die to lose"
            )
        else:
            self.note(
                C_STARE_RESOLVE, f"{self.name(side)} loses a {label} die (now {_d(after)})"
            )

    def learn_style(self, side: Side) -> None:
        opponent = other_side(side)
        style = self.corners[opponent].style or STEADFAST
        self.note(
            C_STARE_RESOLVE,
            f"{self.name(side)} learns {self.name(opponent)}'s current Style (told privately)",
        )
        self.tell(
            side,
            f"Stare round {self.stare_round}: you learn {self.name(opponent)}'s current "
            f"Style: {STYLE_LABELS[style]}.",
        )

    def offer_style_change(self, side: Side) -> None:
        self.note(
            C_STARE_RESOLVE,
            f"{self.name(side)} may change their Style if they choose (decided privately)",
        )
        self.wait(STARE_STYLE, side)

    def benefit(self, w: Side, margin: int | None) -> None:
        """The winner's Move's benefit. ``margin`` None: won uncontested (no 5-or-more)."""
        move = self.corners[w].move or ""
        loser = other_side(w)
        big = margin is not None and margin >= BIG_WIN
        label = STARE[move].label
        self.note(
            C_STARE_RESOLVE,
            f"{self.name(w)} gains the benefit of {label}"
            + (" (won by 5 or more)" if big else ""),
        )
        change = False
        if move == TWITCH:
            self.gain(w, TRICK)
            if big:
                self.gain(w, TRICK)
        elif move == SHOW_OFF:
            self.gain(w, TRICK)
            if big:
                self.gain(loser, FAULT)
        elif move == BLUFF:
            self.gain(loser, FAULT)
            if big:
                self.gain(w, TRICK)
        elif move == THE_LOOK:
            self.gain(loser, FAULT)
            if big:
                self.gain(loser, FAULT)
        elif move == EYE_OF_THE_BEHOLDER:
            self.gain(w, FAULT, -1)
            if big:
                self.gain(loser, FAULT)
        elif move == SEE_THROUGH_THEM:
            self.gain(loser, TRICK, -1)
            if big:
                self.gain(w, TRICK)
        elif move == SAGE_ADVICE:
            if big:
                self.learn_style(w)
            change = True
        elif move == TACTICAL_ANALYSIS:
            self.learn_style(w)
            change = big
        if change:
            self.offer_style_change(w)
        else:
            self.after_stare_round()

    def style_change(self, side: Side, choice: str | None) -> None:
        decision = KEEP if choice is None else parse_style_change(choice)
        current = self.corners[side].style or STEADFAST
        if decision == KEEP or decision == f"style={current}":
            self.tell(side, f"You keep your Style: {STYLE_LABELS[current]}.")
        else:
            style = decision.split("=", 1)[1]
            self.set(side, style=style)
            self.tell(
                side,
                f"You change your Style from {STYLE_LABELS[current]} to "
                f"{STYLE_LABELS[style]}.",
            )
        self.note(
            C_STARE_RESOLVE, f"{self.name(side)} has privately decided about their Style"
        )
        self.outcome = "style_decided"
        self.after_stare_round()

    def after_stare_round(self) -> None:
        if self.stare_round < STARE_ROUNDS:
            self.start_stare_round(self.stare_round + 1)
        else:
            self.shot()

    def shot(self) -> None:
        for side in SIDES:
            self.set(side, move=None)
        self.initiative("shot_initiative", C_SHOT_INIT)
        # Reveal Style and Power; expend the slots.
        for side in SIDES:
            corner, me = self.corners[side], self.duellists[side]
            slot = corner.slot or 0
            if slot == 0:
                how = "a cantrip (slot 0)"
            elif slot in me.free_cast_levels:
                how = f"a level {slot} spell cast without expending a spell slot"
            else:
                how = f"a level {slot} spell slot"
                slots = list(me.spell_slots)
                slots[slot - 1] = max(0, slots[slot - 1] - 1)
                self.duellists[side] = replace(me, spell_slots=tuple(slots))
            self.note(
                C_SHOT_REVEAL,
                f"{self.name(side)} reveals the {STYLE_LABELS[corner.style or STEADFAST]} "
                f"Style and {how}",
            )
        slot_a, slot_b = (self.corners[s].slot or 0 for s in SIDES)
        if slot_a != slot_b:
            higher: Side = "a" if slot_a > slot_b else "b"
            self.set(higher, trick=self.corners[higher].trick + 1)
            self.note(
                C_SHOT_REVEAL,
                f"{self.name(higher)} expended the higher level and gains a Trick die "
                f"(now {_d(self.corners[higher].trick)})",
            )
        # Cast!
        for side in SIDES:
            mine = self.corners[side].style or STEADFAST
            theirs = self.corners[other_side(side)].style or STEADFAST
            advantage = theirs in ADVANTAGE_AGAINST[mine]
            if advantage:
                self.note(
                    C_SHOT_CAST,
                    f"{self.name(side)} ({STYLE_LABELS[mine]}) has advantage against the "
                    f"{STYLE_LABELS[theirs]} Style",
                )
            kept = self.d20(side, "shot_attack", advantage)
            self.set(side, attack=kept)
            bonus = self.duellists[side].spell_attack
            self.note(
                C_SHOT_CAST,
                f"{self.name(side)}'s ranged spell attack: {self.show_d20(kept)} "
                f"{bonus:+d} = {max(kept) + bonus}",
            )
        for kind, clause in ((TRICK, C_SHOT_TRICKS), (FAULT, C_SHOT_FAULTS)):
            for side in SIDES:
                count = self.corners[side].trick if kind == TRICK else self.corners[side].fault
                values = tuple(self.roll(6, side, f"shot_{kind}") for _ in range(count))
                self.set(side, **{f"{kind}_dice": values})
                if values:
                    self.note(
                        clause,
                        f"{self.name(side)} rolls {_d(count)} of {kind.capitalize()}: "
                        f"{', '.join(str(v) for v in values)} "
                        f"({'+' if kind == TRICK else '-'}{sum(values)})",
                    )
        self.note(
            C_SHOT_RESULT,
            "standing: " + "; ".join(f"{self.name(s)} {self.total(s)}" for s in SIDES),
        )
        lower = self.first or "a"
        self.twist_queue = (lower, other_side(lower))
        self.next_twist()

    def total(self, side: Side) -> int:
        corner = self.corners[side]
        return (
            max(corner.attack or (0,))
            + self.duellists[side].spell_attack
            + sum(corner.trick_dice)
            - sum(corner.fault_dice)
        )

    def view(self) -> FoeqState:
        return replace(
            self.s,
            corner_a=self.corners["a"],
            corner_b=self.corners["b"],
            a=self.duellists["a"],
            b=self.duellists["b"],
        )

    def next_twist(self) -> None:
        while self.twist_queue:
            side, self.twist_queue = self.twist_queue[0], self.twist_queue[1:]
            pool = twist_pool(self.view(), side)
            style = STYLE_LABELS[self.corners[side].style or STEADFAST]
            if pool is None:
                self.note(C_SHOT_TWIST, f"{self.name(side)}'s {style} Style grants no reroll")
                continue
            kind, owner, values = pool
            if not values:
                self.note(
                    C_SHOT_TWIST,
                    f"{self.name(side)} ({style}) could reroll one of {self.name(owner)}'s "
                    f"{kind.capitalize()} dice, but there are none",
                )
                continue
            self.note(
                C_SHOT_TWIST,
                f"{self.name(side)} ({style}) may reroll one of {self.name(owner)}'s "
                f"{kind.capitalize()} dice",
            )
            self.wait(SHOT_TWIST, side)
            return
        self.shot_result()

    def twist(self, side: Side, choice: str | None) -> None:
        self.outcome = "twist"
        pool = twist_pool(self.view(), side)
        parsed = None if choice is None else parse_twist(choice)
        if pool is None or parsed is None:
            self.note(C_SHOT_TWIST, f"{self.name(side)} rerolls nothing")
            self.next_twist()
            return
        kind, owner, values = pool
        _, index = parsed
        new = self.roll(6, side, "shot_twist")
        old = values[index - 1]
        changed = list(values)
        changed[index - 1] = new
        self.set(owner, **{f"{kind}_dice": tuple(changed)})
        self.note(
            C_SHOT_TWIST,
            f"{self.name(side)} rerolls {self.name(owner)}'s {kind.capitalize()} die "
            f"#{index} ({old}): it is now {new}, and must be used",
        )
        self.next_twist()

    def shot_result(self) -> None:
        totals = {side: self.total(side) for side in SIDES}
        for side in SIDES:
            c, bonus = self.corners[side], self.duellists[side].spell_attack
            self.note(
                C_SHOT_RESULT,
                f"{self.name(side)}: {max(c.attack or (0,))} {bonus:+d}"
                f" + Tricks {sum(c.trick_dice)} - Faults {sum(c.fault_dice)} = {totals[side]}",
            )
        if totals["a"] == totals["b"]:
            self.note(
                C_SHOT_RESULT, f"a tie at {totals['a']}: both duellists suffer the stakes"
            )
            self.tie()
            return
        w: Side = "a" if totals["a"] > totals["b"] else "b"
        self.shot_winner = w
        self.note(C_SHOT_RESULT, f"{self.name(w)} wins the Shot and the duel")
        rule = self.rules[DISRUPTIVE_RULE.key]
        options = consequence_options(self.view(), w, rule)
        chooser = score_chooser(self.view(), w, rule)
        if len(options) > 1:
            if chooser != w:
                reason = (
                    "their Disruptive Style lets the loser choose the consequence they face "
                    "(house rule disruptive = either)"
                )
            elif self.corners[w].style == DISRUPTIVE:
                reason = "the Disruptive Style lets them choose the consequence"
            else:
                reason = "their stake is Pride and they can cast " + ", ".join(
                    o.capitalize() for o in options if o in PRIDE_SCHOOLS
                )
            self.note(C_SCORE, f"{self.name(chooser)} chooses the consequence: {reason}")
            self.outcome = f"shot_{w}"
            self.wait(SCORE_CHOICE, chooser)
            return
        self.consequence(w, options[0])
        self.end(w)

    def score_choice(self, side: Side, choice: str | None) -> None:
        """``side`` chose (or not) the consequence the loser of the Shot faces."""
        victor = self.shot_winner or side
        options = consequence_options(self.view(), victor, self.rules[DISRUPTIVE_RULE.key])
        picked = default_consequence(self.corners[victor].stake)
        if choice is None:
            picked = picked if picked in options else options[0]
            self.note(
                C_MISSING,
                f"{self.name(side)} chose nothing: {CONSEQUENCE_LABELS[picked]} applies",
            )
        else:
            picked = parse_consequence(choice)
            self.note(C_SCORE, f"{self.name(side)} chooses {CONSEQUENCE_LABELS[picked]}")
        self.consequence(victor, picked)
        self.end(victor)

    def consequence(self, victor: Side, what: str, clause: str = C_SCORE) -> None:
        loser = other_side(victor)
        me = self.duellists[loser]
        who, by = self.name(loser), self.name(victor)
        if what == HIT_DIE:
            after = max(0, me.hit_dice - 1)
            self.duellists[loser] = replace(me, hit_dice=after)
            text = (
                f"{who} loses one Hit Die ({me.hit_dice} -> {after})"
                if me.hit_dice
                else f"{who} has no Hit Die left to lose"
            )
            clause = f"{clause}, Pride"
        elif what == FIRST_BLOOD:
            half = me.hp_max // 2
            target = max(1, half) if me.hp >= half else 1
            after = min(me.hp, target)
            self.duellists[loser] = replace(me, hp=after)
            why = "half the maximum" if me.hp >= half else "1, being below half already"
            text = f"{who} is reduced to {why}: HP {me.hp} -> {after}"
            clause = f"{clause}, First Blood"
        elif what == DEATH:
            self.duellists[loser] = replace(me, hp=0)
            text = f"{who} is reduced to 0 Hit Points (HP {me.hp} -> 0)"
            clause = f"{clause}, Death"
        else:
            slot = self.corners[victor].slot or 0
            text = {
                "necromancy": f"{who} is Poisoned for 1 minute",
                "abjuration": f"one random spell or magical effect on {who} of level {slot} "
                "or lower ends",
                "divination": f"{by} learns the surface thoughts of {who}",
                "enchantment": f"{who} is Charmed by {by} for 10 minutes",
                "illusion": f"{who} is Frightened of {by} for 10 minutes",
            }[what]
            clause = f"{clause}, Pride ({what.capitalize()})"
        self.note(clause, text)
        self.consequences.append(text)

    def tie(self) -> None:
        public = self.s.public_stake
        for side in SIDES:
            if self.rules[SHOT_TIE_RULE.key] == PUBLIC_STAKES:
                stake: str | None = public
                why = f"tie: {self.name(side)} suffers the public stake (house rule shot-tie = "
                why += "public-stakes)"
            else:
                stake = self.corners[other_side(side)].stake
                why = f"tie: {self.name(side)} suffers {self.name(other_side(side))}'s stake"
            self.consequence(other_side(side), default_consequence(stake), f"{C_SCORE} ({why})")
        self.end(None)

    def forfeit(self, missing: list[Side], clause: str) -> None:
        if len(missing) == 2:
            self.note(clause, "neither duellist chose by the close: the duel ends, no winner")
            self.end(None, score=False)
            self.outcome = "no_winner"
            return
        loser = missing[0]
        winner = other_side(loser)
        self.note(
            clause,
            f"{self.name(loser)} chose nothing by the close and forfeits: "
            f"{self.name(winner)} wins the duel (no Shot, no Score)",
        )
        self.end(winner, score=False)

    def end(self, winner: Side | None, *, score: bool = True) -> None:
        self.ended = True
        self.winner = winner
        self.outcome = f"{winner}_wins" if winner else "tie"
        self.wait(OVER)
        public = self.s.public_stake
        for side in SIDES:
            stake = self.corners[side].stake
            if stake is None:
                continue
            self.note(
                C_STAKES,
                f"{self.name(side)}'s true stake was {STAKE_LABELS[stake]} "
                f"(the public stake: {STAKE_LABELS[public]})",
            )
            if public == PRIDE and STAKE_RANK[stake] > STAKE_RANK[PRIDE]:
                aim = "kill" if stake == DEATH else "draw blood"
                self.note(
                    C_STAKES,
                    f"dishonourable: the stated stake was Pride, but {self.name(side)} "
                    f"shot to {aim} (true stake {STAKE_LABELS[stake]})",
                )
            elif STAKE_RANK[stake] > STAKE_RANK[public]:
                self.note(
                    C_STAKES,
                    f"{self.name(side)}'s true stake was deadlier than the public stake",
                )
        if not score:
            self.note(C_SCORE, "no consequence is applied")

    def finish(self, choices: Mapping[Side, str | None]) -> RoundResult:
        secret = self.s.phase in SECRET_PHASES
        shown: dict[Side, str | None] = {}
        for side in SIDES:
            choice = choices.get(side)
            shown[side] = (SECRET_CHOICE if secret and choice is not None else choice)
        state = replace(
            self.view(),
            phase=self.phase,
            awaiting=self.awaiting,
            public=self.public,
            stare_round=self.stare_round,
            first=self.first,
            twist_queue=self.twist_queue,
            shot_winner=self.shot_winner,
            step=self.s.step + 1,
            ended=self.ended,
            winner=self.winner,
            notes=tuple(self.notes),
            consequences=tuple(self.consequences),
            house_rules=dict(self.rules),  # options given at a close stay the duel's
        )
        return RoundResult(
            ruleset=RULESET_ID,
            outcome=self.outcome,
            winner=self.winner,
            ended=self.ended,
            locked=False,
            choices=shown,
            rolls=tuple(self.rolls),
            log=tuple(self.log),
            state=state,
        )



