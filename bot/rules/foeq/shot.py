"""The Shot and the Score of a FoEQ step: initiative, the reveal of Style and Power, the
ranged spell attacks, Trick and Fault dice, the twists (rerolls), the result and the
consequence the loser faces (the victor's or the loser's choice, or a tie's stakes)."""

from __future__ import annotations

from dataclasses import replace

from bot.rules.foeq.parsing import (
    parse_consequence,
    parse_twist,
)
from bot.rules.foeq.phases import (
    _d,
    consequence_options,
    default_consequence,
    score_chooser,
    twist_pool,
)
from bot.rules.foeq.state import (
    DISRUPTIVE_RULE,
    PUBLIC_STAKES,
    SHOT_TIE_RULE,
)
from bot.rules.foeq.step_base import StepBase
from bot.rules.foeq.tables import (
    ADVANTAGE_AGAINST,
    C_MISSING,
    C_SCORE,
    C_SHOT_CAST,
    C_SHOT_FAULTS,
    C_SHOT_INIT,
    C_SHOT_RESULT,
    C_SHOT_REVEAL,
    C_SHOT_TRICKS,
    C_SHOT_TWIST,
    CONSEQUENCE_LABELS,
    DEATH,
    DISRUPTIVE,
    FAULT,
    FIRST_BLOOD,
    HIT_DIE,
    PRIDE_SCHOOLS,
    SCORE_CHOICE,
    SHOT_TWIST,
    STEADFAST,
    STYLE_LABELS,
    TRICK,
)
from bot.rules.terms import (
    SIDES,
    Side,
    other_side,
)


class ShotPhase(StepBase):
    """The phases from the Shot to the end of the duel."""

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

