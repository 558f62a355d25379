"""The fencing bout with a pre-duel step of its own, for the tests of ``/duel challenge``:
the glove thrown down. Taken up, a bout is fought with the weapon named and the crowns
staked; declined, the fencer is posted as a coward at the hall (a penalty the services
remember: a second refusal is posted "again"). Only the tests that register it know it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.rules.dice import DiceSource
from bot.rules.errors import InvalidRoundInput
from bot.rules.terms import (
    NOTHING_REMEMBERED,
    Fighter,
    LogEvent,
    Penalty,
    PreDuel,
    PreDuelInput,
    PreDuelOutcome,
    PreDuelStep,
    Side,
)
from tests.rulesets.fencing import Fencing

COWARD = "posted-coward"

GLOVE = PreDuelStep(
    "challenge",
    "Glove",
    "A fencer throws down the glove; taken up, the bout is fought with the weapon named "
    "for the crowns staked; declined, the fencer is posted as a coward at the hall.",
    headline="{a} throws down the glove before {b}",
    summary="taken up or declined",
    inputs=(
        # The same key and kind as By This Axe's: the two share the command's option.
        PreDuelInput("accepted", "bool", "glove taken up", "Does the fencer take up the glove?",
                     required=True),
        PreDuelInput("weapon", "choice", "weapon", "The weapon of the bout",
                     default="foil", choices=("foil", "epee", "sabre")),
        PreDuelInput("stake", "int", "crowns staked", "Crowns staked on the bout (1-5)",
                     default=1, minimum=1, maximum=5),
    ),
)


class ChallengingFencing(Fencing, PreDuel):
    """The fencing bout of tests/rulesets/fencing with the glove as its pre-duel step."""

    def pre_duel_steps(self) -> tuple[PreDuelStep, ...]:
        return (GLOVE,)

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
        if step_id != GLOVE.id:
            raise InvalidRoundInput(f"{self.title} has no pre-duel step {step_id!r}.")
        if inputs["accepted"]:
            weapon = str(inputs["weapon"])
            sentence = (
                f"{b.name} takes up the glove: a bout with the {weapon} for "
                f"{inputs['stake']} crowns"
            )
            log = (LogEvent("glove", f"{b.name} takes up {a.name}'s glove"),)
            return PreDuelOutcome("taken_up", sentence, True, (), None, log)
        again = " again" if COWARD in remembered.get("b", frozenset()) else ""
        penalty = Penalty(COWARD, "b", f"{b.name} is posted{again} as a coward at the hall")
        log = (LogEvent("glove", f"{b.name} leaves {a.name}'s glove where it lies"),)
        return PreDuelOutcome(
            "declined", f"{b.name} declines the glove: no bout", False, (penalty,), None, log
        )


CHALLENGING_FENCING = ChallengingFencing()
