"""The working memory of one FoEQ step and its tools: rolls, the log, private notes, the
corners as they change, waiting for the next choice, the end of the duel and the frozen
result. The phases build on it: shot.py (the Shot and the Score), stare.py (the setup and
the Stare), and step.py plays one step."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from bot.rules.dice import DiceSource, Roll
from bot.rules.errors import DiceError
from bot.rules.foeq.sheet import (
    Duellist,
)
from bot.rules.foeq.state import (
    Corner,
    FoeqState,
    Options,
)
from bot.rules.foeq.tables import (
    C_FORFEIT,
    C_MISSING,
    C_SCORE,
    C_STAKES,
    CLAUSE,
    DEATH,
    MAX_TIES,
    OVER,
    PRIDE,
    RULESET_ID,
    SECRET_CHOICE,
    SECRET_PHASES,
    STAKE_LABELS,
    STAKE_RANK,
)
from bot.rules.foeq.text import _
from bot.rules.terms import (
    SIDES,
    LogEvent,
    RoundResult,
    Side,
    other_side,
)


class StepBase:
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
        return self.duellists[side].name or _("Duellist {side}", side=side.upper())

    def note(self, clause: str, text: str) -> None:
        """A log line: ``text`` citing ``clause``, a heading of FoEQ p20 in the reader's
        language (``_(C_STAKES)``), after the game's name; or one of the bot's own settings
        (``C_FORFEIT``, ``C_MISSING``) as it is set."""
        cited = clause if clause in (C_FORFEIT, C_MISSING) else f"{CLAUSE} {clause}"
        self.log.append(LogEvent(cited, text))

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
        """A d20 as the log states it: its values are read back by ``log_dice_pattern``
        (ruleset.py), in every language: "d20 7", "d20 4 and 17 with advantage, keeps 17"."""
        if len(values) == 2:
            # Translators: keep "d20 {first}" and "{second}" as they are: verification
            # reads the dice from this text (FoeqSpellDuel.log_dice_pattern matches the German
            # "d20 4 und 17 mit Vorteil"; a new language adds its words to the pattern).
            return _("d20 {first} and {second} with advantage, keeps {kept}",
                     first=values[0], second=values[1], kept=max(values))
        return f"d20 {values[0]}"

    def initiative(self, purpose: str, clause: str) -> None:
        """Both roll d20 + initiative modifier, A then B; a tie is rerolled by both."""
        for _attempt in range(MAX_TIES):
            totals: dict[Side, int] = {}
            for side in SIDES:
                value = self.roll(20, side, purpose)
                mod = self.duellists[side].initiative
                totals[side] = value + mod
                self.note(
                    clause,
                    _("{name} rolls d20 {value} {modifier} = {total}", name=self.name(side),
                      value=value, modifier=f"{mod:+d}", total=totals[side]),
                )
            if totals["a"] != totals["b"]:
                for side in SIDES:
                    self.set(side, initiative=totals[side])
                self.first = "a" if totals["a"] < totals["b"] else "b"
                return
            self.note(clause, _("a tie at {total}: both reroll", total=totals["a"]))
        raise DiceError(f"{MAX_TIES} ties in a row: the dice are not random.")


    def view(self) -> FoeqState:
        return replace(
            self.s,
            corner_a=self.corners["a"],
            corner_b=self.corners["b"],
            a=self.duellists["a"],
            b=self.duellists["b"],
        )

    def forfeit(self, missing: list[Side], clause: str) -> None:
        if len(missing) == 2:
            self.note(
                clause, _("neither duellist chose by the close: the duel ends, no winner")
            )
            self.end(None, score=False)
            self.outcome = "no_winner"
            return
        loser = missing[0]
        winner = other_side(loser)
        self.note(
            clause,
            _("{loser} chose nothing by the close and forfeits: {winner} wins the duel "
              "(no Shot, no Score)", loser=self.name(loser), winner=self.name(winner)),
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
            name, true = self.name(side), _(STAKE_LABELS[stake])
            self.note(
                _(C_STAKES),
                _("{name}'s true stake was {stake} (the public stake: {public})",
                  name=name, stake=true, public=_(STAKE_LABELS[public])),
            )
            if public == PRIDE and STAKE_RANK[stake] > STAKE_RANK[PRIDE]:
                if stake == DEATH:
                    text = _("dishonourable: the stated stake was Pride, but {name} shot to "
                             "kill (true stake {stake})", name=name, stake=true)
                else:
                    text = _("dishonourable: the stated stake was Pride, but {name} shot to "
                             "draw blood (true stake {stake})", name=name, stake=true)
                self.note(_(C_STAKES), text)
            elif STAKE_RANK[stake] > STAKE_RANK[public]:
                self.note(
                    _(C_STAKES),
                    _("{name}'s true stake was deadlier than the public stake", name=name),
                )
        if not score:
            self.note(_(C_SCORE), _("no consequence is applied"))

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
            choices=shown,
            rolls=tuple(self.rolls),
            log=tuple(self.log),
            state=state,
        )



