"""The setup and the Stare of a FoEQ step: the secret stakes, Styles and slots, then three
Stare rounds (initiative, two public declarations, the check and its benefit, a private
change of Style); the third goes on to the Shot (shot.py)."""

from __future__ import annotations

from collections.abc import Mapping

from bot.rules.errors import DiceError
from bot.rules.foeq.parsing import (
    parse_move,
    parse_setup,
    parse_style_change,
)
from bot.rules.foeq.phases import (
    _d,
)
from bot.rules.foeq.shot import ShotPhase
from bot.rules.foeq.state import (
    AUTO_WIN,
    STRONG_AGAINST_RULE,
)
from bot.rules.foeq.tables import (
    BIG_WIN,
    BLUFF,
    C_FORFEIT,
    C_MISSING,
    C_STAKES,
    C_STARE_FIRST,
    C_STARE_INIT,
    C_STARE_RESOLVE,
    C_STARE_ROLL,
    C_STARE_SECOND,
    C_STYLE,
    EYE_OF_THE_BEHOLDER,
    FAULT,
    KEEP,
    MAX_TIES,
    SAGE_ADVICE,
    SEE_THROUGH_THEM,
    SHOW_OFF,
    SKILL_LABELS,
    STAKE_LABELS,
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
from bot.rules.foeq.text import _
from bot.rules.terms import (
    SIDES,
    Side,
    other_side,
)


class StarePhase(ShotPhase):
    """The phases from the setup to the Shot: every phase of a step, with ShotPhase's."""

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
                    _("{name} set nothing by the close: the public stake, the Steadfast "
                      "Style and a cantrip (slot 0) are taken for them", name=self.name(side)),
                )
            else:
                stake, style, slot = parse_setup(choice)
            self.set(side, stake=stake, style=style, slot=slot)
            free = slot in self.duellists[side].free_cast_levels and slot > 0
            self.tell(side, _secret_choices(stake, style, slot, free))
        self.note(
            _(C_STAKES),
            _("the public stake, chosen by the challenger {name}, is {stake}; each duellist "
              "has secretly written down their true stake", name=self.name(self.s.challenger),
              stake=_(STAKE_LABELS[self.s.public_stake])),
        )
        self.note(
            _(C_STYLE), _("each duellist has secretly chosen a Style and a spell slot level")
        )
        self.outcome = "setup"
        self.start_stare_round(1)

    def start_stare_round(self, number: int) -> None:
        self.stare_round = number
        for side in SIDES:
            self.set(side, move=None)
        self.initiative(
            f"stare{number}_initiative",
            _("The Stare, Roll for Initiative (round {round})", round=number),
        )
        lower = self.first or "a"
        self.note(
            _(C_STARE_INIT),
            _("{name} has the lower Initiative and declares first", name=self.name(lower)),
        )
        self.wait(STARE_FIRST, lower)

    def declare(self, side: Side, choice: str | None, clause: str) -> bool:
        """Records a declaration; False when the duel ended by a forfeit."""
        if choice is None:
            if self.options.missing_move == "forfeit":
                self.forfeit([side], C_FORFEIT)
                return False
            self.note(C_MISSING, _("{name} declares no Move this round", name=self.name(side)))
            return True
        move = parse_move(choice)
        self.set(side, move=move)
        self.note(
            _(clause),
            _("{name} declares {move}", name=self.name(side), move=_(STARE[move].label)),
        )
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
            self.note(
                _(C_STARE_RESOLVE), _("neither duellist declared a Move: nobody benefits")
            )
            self.outcome = "stare_none"
            self.after_stare_round()
            return
        if len(declared) == 1:
            only = declared[0]
            self.note(
                _(C_STARE_RESOLVE),
                _("{other} made no Move: {name} wins the check uncontested (no roll; the "
                  "benefit without its 5-or-more part)", other=self.name(other_side(only)),
                  name=self.name(only)),
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
                _(C_STARE_RESOLVE),
                _("{move} is Strong Against {other}: {name} wins the check outright (house "
                  "rule strong-against = auto-win; no roll, the benefit without its 5-or-more "
                  "part)", move=_(mine.label),
                  other=_(STARE[moves[other_side(only)] or ""].label), name=self.name(only)),
            )
            self.outcome = f"stare_{only}"
            self.benefit(only, None)
            return
        for side in SIDES:
            mine, theirs = STARE[moves[side] or ""], moves[other_side(side)]
            if advantage[side]:
                self.note(
                    _(C_STARE_ROLL),
                    _("{move} is Strong Against {other}: {name} has advantage on the check",
                      move=_(mine.label), other=_(STARE[theirs or ""].label),
                      name=self.name(side)),
                )
        for _attempt in range(MAX_TIES):
            totals: dict[Side, int] = {}
            for side in SIDES:
                move = STARE[moves[side] or ""]
                kept = self.d20(side, f"stare{r}_check", advantage[side])
                mod = self.duellists[side].skill(move.skill)
                totals[side] = max(kept) + mod
                self.note(
                    _(C_STARE_ROLL),
                    _("{name} ({move}, {skill}) rolls {d20} {modifier} = {total}",
                      name=self.name(side), move=_(move.label),
                      skill=_(SKILL_LABELS[move.skill]), d20=self.show_d20(kept),
                      modifier=f"{mod:+d}", total=totals[side]),
                )
            if totals["a"] != totals["b"]:
                winner: Side = "a" if totals["a"] > totals["b"] else "b"
                margin = totals[winner] - totals[other_side(winner)]
                self.note(
                    _(C_STARE_RESOLVE),
                    _("{name} wins the check by {margin}", name=self.name(winner),
                      margin=margin),
                )
                self.outcome = f"stare_{winner}"
                self.benefit(winner, margin)
                return
            self.note(
                _(C_STARE_RESOLVE),
                _("a tie at {total}: both duellists reroll", total=totals["a"]),
            )
        raise DiceError(f"{MAX_TIES} ties in a row: the dice are not random.")

    def gain(self, side: Side, kind: str, count: int = 1) -> None:
        corner = self.corners[side]
        held = corner.trick if kind == TRICK else corner.fault
        after = max(0, held + count)
        self.set(side, **{kind: after})
        self.note(_(C_STARE_RESOLVE), _gain_text(kind, count, held, self.name(side), after))

    def learn_style(self, side: Side) -> None:
        opponent = other_side(side)
        style = self.corners[opponent].style or STEADFAST
        self.note(
            _(C_STARE_RESOLVE),
            _("{name} learns {opponent}'s current Style (told privately)",
              name=self.name(side), opponent=self.name(opponent)),
        )
        self.tell(
            side,
            _("Stare round {round}: you learn {opponent}'s current Style: {style}.",
              round=self.stare_round, opponent=self.name(opponent),
              style=_(STYLE_LABELS[style])),
        )

    def offer_style_change(self, side: Side) -> None:
        self.note(
            _(C_STARE_RESOLVE),
            _("{name} may change their Style if they choose (decided privately)",
              name=self.name(side)),
        )
        self.wait(STARE_STYLE, side)

    def benefit(self, w: Side, margin: int | None) -> None:
        """The winner's Move's benefit. ``margin`` None: won uncontested (no 5-or-more)."""
        move = self.corners[w].move or ""
        loser = other_side(w)
        big = margin is not None and margin >= BIG_WIN
        fields = {"name": self.name(w), "move": _(STARE[move].label)}
        self.note(
            _(C_STARE_RESOLVE),
            _("{name} gains the benefit of {move} (won by 5 or more)", **fields)
            if big
            else _("{name} gains the benefit of {move}", **fields),
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
            self.tell(side, _("You keep your Style: {style}.", style=_(STYLE_LABELS[current])))
        else:
            style = decision.split("=", 1)[1]
            self.set(side, style=style)
            self.tell(
                side,
                _("You change your Style from {old} to {new}.",
                  old=_(STYLE_LABELS[current]), new=_(STYLE_LABELS[style])),
            )
        self.note(
            _(C_STARE_RESOLVE),
            _("{name} has privately decided about their Style", name=self.name(side)),
        )
        self.outcome = "style_decided"
        self.after_stare_round()

    def after_stare_round(self) -> None:
        if self.stare_round < STARE_ROUNDS:
            self.start_stare_round(self.stare_round + 1)
        else:
            self.shot()


def _gain_text(kind: str, count: int, held: int, name: str, after: int) -> str:
    """The log's words for a Trick or Fault die won (``count`` > 0) or lost by ``name``
    who held ``held`` and now holds ``after``: one whole sentence each way."""
    dice = _d(after)
    if kind == TRICK:
        if count > 0:
            return _("{name} gains a Trick die (now {dice})", name=name, dice=dice)
        if held == 0:
            return _("{name} has no Trick die to lose", name=name)
        return _("{name} loses a Trick die (now {dice})", name=name, dice=dice)
    if count > 0:
        return _("{name} gains a Fault die (now {dice})", name=name, dice=dice)
    if held == 0:
        return _("{name} has no Fault die to lose", name=name)
    return _("{name} loses a Fault die (now {dice})", name=name, dice=dice)


def _secret_choices(stake: str, style: str, slot: int, free: bool) -> str:
    """The private note confirming a side's secret setup: one whole sentence each way."""
    fields = {"stake": _(STAKE_LABELS[stake]), "style": _(STYLE_LABELS[style]), "slot": slot}
    if slot == 0:
        return _(
            "Your secret choices: true stake {stake}, Style {style}, spell slot level {slot} "
            "(a cantrip).", **fields
        )
    if free:
        return _(
            "Your secret choices: true stake {stake}, Style {style}, spell slot level {slot} "
            "(cast without expending a slot).", **fields
        )
    return _(
        "Your secret choices: true stake {stake}, Style {style}, spell slot level {slot}.",
        **fields,
    )
