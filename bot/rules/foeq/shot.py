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
    SCHOOL_LABELS,
    SCORE_CHOICE,
    SHOT_TWIST,
    STEADFAST,
    STYLE_LABELS,
    TRICK,
)
from bot.rules.foeq.text import _, _n
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
        self.initiative("shot_initiative", _(C_SHOT_INIT))
        # Reveal Style and Power; expend the slots.
        for side in SIDES:
            corner, me = self.corners[side], self.duellists[side]
            slot = corner.slot or 0
            fields = {
                "name": self.name(side),
                "style": _(STYLE_LABELS[corner.style or STEADFAST]),
                "slot": slot,
            }
            if slot == 0:
                text = _("{name} reveals the {style} Style and a cantrip (slot 0)", **fields)
            elif slot in me.free_cast_levels:
                text = _("{name} reveals the {style} Style and a level {slot} spell cast "
                         "without expending a spell slot", **fields)
            else:
                text = _("{name} reveals the {style} Style and a level {slot} spell slot",
                         **fields)
                slots = list(me.spell_slots)
                slots[slot - 1] = max(0, slots[slot - 1] - 1)
                self.duellists[side] = replace(me, spell_slots=tuple(slots))
            self.note(_(C_SHOT_REVEAL), text)
        slot_a, slot_b = (self.corners[s].slot or 0 for s in SIDES)
        if slot_a != slot_b:
            higher: Side = "a" if slot_a > slot_b else "b"
            self.set(higher, trick=self.corners[higher].trick + 1)
            self.note(
                _(C_SHOT_REVEAL),
                _("{name} expended the higher level and gains a Trick die (now {dice})",
                  name=self.name(higher), dice=_d(self.corners[higher].trick)),
            )
        # Cast!
        for side in SIDES:
            mine = self.corners[side].style or STEADFAST
            theirs = self.corners[other_side(side)].style or STEADFAST
            advantage = theirs in ADVANTAGE_AGAINST[mine]
            if advantage:
                self.note(
                    _(C_SHOT_CAST),
                    _("{name} ({style}) has advantage against the {other} Style",
                      name=self.name(side), style=_(STYLE_LABELS[mine]),
                      other=_(STYLE_LABELS[theirs])),
                )
            kept = self.d20(side, "shot_attack", advantage)
            self.set(side, attack=kept)
            bonus = self.duellists[side].spell_attack
            self.note(
                _(C_SHOT_CAST),
                _("{name}'s ranged spell attack: {d20} {bonus} = {total}",
                  name=self.name(side), d20=self.show_d20(kept), bonus=f"{bonus:+d}",
                  total=max(kept) + bonus),
            )
        for kind, clause in ((TRICK, C_SHOT_TRICKS), (FAULT, C_SHOT_FAULTS)):
            for side in SIDES:
                count = self.corners[side].trick if kind == TRICK else self.corners[side].fault
                values = tuple(self.roll(6, side, f"shot_{kind}") for _die in range(count))
                self.set(side, **{f"{kind}_dice": values})
                if values:
                    self.note(_(clause), _rolled_text(kind, self.name(side), values))
        self.note(
            _(C_SHOT_RESULT),
            _("standing: {standings}",
              standings="; ".join(f"{self.name(s)} {self.total(s)}" for s in SIDES)),
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
            style = _(STYLE_LABELS[self.corners[side].style or STEADFAST])
            if pool is None:
                self.note(
                    _(C_SHOT_TWIST),
                    _("{name}'s {style} Style grants no reroll", name=self.name(side),
                      style=style),
                )
                continue
            kind, owner, values = pool
            self.note(
                _(C_SHOT_TWIST),
                _twist_text(kind, bool(values), self.name(side), style, self.name(owner)),
            )
            if not values:
                continue
            self.wait(SHOT_TWIST, side)
            return
        self.shot_result()

    def twist(self, side: Side, choice: str | None) -> None:
        self.outcome = "twist"
        pool = twist_pool(self.view(), side)
        parsed = None if choice is None else parse_twist(choice)
        if pool is None or parsed is None:
            self.note(_(C_SHOT_TWIST), _("{name} rerolls nothing", name=self.name(side)))
            self.next_twist()
            return
        kind, owner, values = pool
        _wanted, index = parsed
        new = self.roll(6, side, "shot_twist")
        old = values[index - 1]
        changed = list(values)
        changed[index - 1] = new
        self.set(owner, **{f"{kind}_dice": tuple(changed)})
        fields = {"name": self.name(side), "owner": self.name(owner), "index": index,
                  "old": old, "new": new}
        # Translators: keep "{new}" right after the words before it: verification reads
        # the new die from "it is now {new}" (German "zeigt jetzt {new}":
        # FoeqSpellDuel.log_dice_pattern; a new language adds its words to the pattern).
        if kind == TRICK:
            text = _("{name} rerolls {owner}'s Trick die #{index} ({old}): it is now {new}, "
                     "and must be used", **fields)
        else:
            # Translators: keep "{new}" right after the words before it (see the Trick die).
            text = _("{name} rerolls {owner}'s Fault die #{index} ({old}): it is now {new}, "
                     "and must be used", **fields)
        self.note(_(C_SHOT_TWIST), text)
        self.next_twist()

    def shot_result(self) -> None:
        totals = {side: self.total(side) for side in SIDES}
        for side in SIDES:
            c, bonus = self.corners[side], self.duellists[side].spell_attack
            self.note(
                _(C_SHOT_RESULT),
                _("{name}: {attack} {bonus} + Tricks {tricks} - Faults {faults} = {total}",
                  name=self.name(side), attack=max(c.attack or (0,)), bonus=f"{bonus:+d}",
                  tricks=sum(c.trick_dice), faults=sum(c.fault_dice), total=totals[side]),
            )
        if totals["a"] == totals["b"]:
            self.note(
                _(C_SHOT_RESULT),
                _("a tie at {total}: both duellists suffer the stakes", total=totals["a"]),
            )
            self.tie()
            return
        w: Side = "a" if totals["a"] > totals["b"] else "b"
        self.shot_winner = w
        self.note(_(C_SHOT_RESULT), _("{name} wins the Shot and the duel", name=self.name(w)))
        rule = self.rules[DISRUPTIVE_RULE.key]
        options = consequence_options(self.view(), w, rule)
        chooser = score_chooser(self.view(), w, rule)
        if len(options) > 1:
            name = self.name(chooser)
            if chooser != w:
                text = _("{name} chooses the consequence: their Disruptive Style lets the "
                         "loser choose the consequence they face (house rule disruptive = "
                         "either)", name=name)
            elif self.corners[w].style == DISRUPTIVE:
                text = _("{name} chooses the consequence: the Disruptive Style lets them "
                         "choose the consequence", name=name)
            else:
                text = _("{name} chooses the consequence: their stake is Pride and they can "
                         "cast {schools}", name=name, schools=", ".join(
                             _school(o) for o in options if o in PRIDE_SCHOOLS))
            self.note(_(C_SCORE), text)
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
                _("{name} chose nothing: {consequence} applies", name=self.name(side),
                  consequence=_(CONSEQUENCE_LABELS[picked])),
            )
        else:
            picked = parse_consequence(choice)
            self.note(
                _(C_SCORE),
                _("{name} chooses {consequence}", name=self.name(side),
                  consequence=_(CONSEQUENCE_LABELS[picked])),
            )
        self.consequence(victor, picked)
        self.end(victor)

    def consequence(self, victor: Side, what: str, heading: str | None = None) -> None:
        """The Score's consequence ``what`` for the loser of a Shot won by ``victor``;
        ``heading``: the Score's heading in the reader's language (a tie says why)."""
        heading = heading or _(C_SCORE)
        loser = other_side(victor)
        me = self.duellists[loser]
        who, by = self.name(loser), self.name(victor)
        if what == HIT_DIE:
            after = max(0, me.hit_dice - 1)
            self.duellists[loser] = replace(me, hit_dice=after)
            text = (
                _("{who} loses one Hit Die ({before} -> {after})", who=who,
                  before=me.hit_dice, after=after)
                if me.hit_dice
                else _("{who} has no Hit Die left to lose", who=who)
            )
            clause = _("{heading}, Pride", heading=heading)
        elif what == FIRST_BLOOD:
            half = me.hp_max // 2
            target = max(1, half) if me.hp >= half else 1
            after = min(me.hp, target)
            self.duellists[loser] = replace(me, hp=after)
            if me.hp >= half:
                text = _("{who} is reduced to half the maximum: HP {before} -> {after}",
                         who=who, before=me.hp, after=after)
            else:
                text = _("{who} is reduced to 1, being below half already: HP {before} -> "
                         "{after}", who=who, before=me.hp, after=after)
            clause = _("{heading}, First Blood", heading=heading)
        elif what == DEATH:
            self.duellists[loser] = replace(me, hp=0)
            text = _("{who} is reduced to 0 Hit Points (HP {before} -> 0)", who=who,
                     before=me.hp)
            clause = _("{heading}, Death", heading=heading)
        else:
            slot = self.corners[victor].slot or 0
            text = {
                "necromancy": _("{who} is Poisoned for 1 minute", who=who),
                "abjuration": _("one random spell or magical effect on {who} of level {slot} "
                                "or lower ends", who=who, slot=slot),
                "divination": _("{by} learns the surface thoughts of {who}", by=by, who=who),
                "enchantment": _("{who} is Charmed by {by} for 10 minutes", who=who, by=by),
                "illusion": _("{who} is Frightened of {by} for 10 minutes", who=who, by=by),
            }[what]
            clause = _("{heading}, Pride ({school})", heading=heading, school=_school(what))
        self.note(clause, text)
        self.consequences.append(text)

    def tie(self) -> None:
        public = self.s.public_stake
        for side in SIDES:
            if self.rules[SHOT_TIE_RULE.key] == PUBLIC_STAKES:
                stake: str | None = public
                heading = _("The Score (tie: {name} suffers the public stake (house rule "
                            "shot-tie = public-stakes))", name=self.name(side))
            else:
                stake = self.corners[other_side(side)].stake
                heading = _("The Score (tie: {name} suffers {other}'s stake)",
                            name=self.name(side), other=self.name(other_side(side)))
            self.consequence(other_side(side), default_consequence(stake), heading)
        self.end(None)


def _school(school: str) -> str:
    """A school of magic as the Score names it, "Necromancy" (in the reader's language)."""
    name = _(SCHOOL_LABELS[school]) if school in SCHOOL_LABELS else school
    return name[:1].upper() + name[1:]


def _rolled_text(kind: str, name: str, values: tuple[int, ...]) -> str:
    """The log's words for the Trick (added) or Fault (subtracted) dice ``name`` rolled.
    Verification reads the values back (``log_dice_pattern``): "dice of Trick: 3, 5"."""
    fields = {"name": name, "values": ", ".join(str(v) for v in values), "sum": sum(values)}
    if kind == TRICK:
        # Translators: keep "{values}" right after the words before it: verification reads
        # the dice from "dice of Trick: {values}" (German "Trickwürfel: {values}":
        # FoeqSpellDuel.log_dice_pattern; a new language adds its words to the pattern).
        return _n("{name} rolls {count} die of Trick: {values} (+{sum})",
                  "{name} rolls {count} dice of Trick: {values} (+{sum})", len(values), **fields)
    # Translators: keep "{values}" right after the words before it: verification reads
    # the dice from "dice of Fault: {values}" (German "Patzerwürfel: {values}").
    return _n("{name} rolls {count} die of Fault: {values} (-{sum})",
              "{name} rolls {count} dice of Fault: {values} (-{sum})", len(values), **fields)


def _twist_text(kind: str, any_dice: bool, name: str, style: str, owner: str) -> str:
    """The Strategic Twist a Style grants ``name``: over ``owner``'s Trick or Fault dice,
    none of which may have been rolled. One whole sentence each way."""
    fields = {"name": name, "style": style, "owner": owner}
    if kind == TRICK:
        if any_dice:
            return _("{name} ({style}) may reroll one of {owner}'s Trick dice", **fields)
        return _("{name} ({style}) could reroll one of {owner}'s Trick dice, but there are "
                 "none", **fields)
    if any_dice:
        return _("{name} ({style}) may reroll one of {owner}'s Fault dice", **fields)
    return _("{name} ({style}) could reroll one of {owner}'s Fault dice, but there are none",
             **fields)
