"""The By This Axe challenge: accepted, refused, or forced on a 1-3 when units are in contact."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from bot.rules.by_this_axe.tables import (
    C_CHALLENGE,
    C_FORCE,
    C_REFUSAL,
    FORCE_DUEL,
    _hit,
)
from bot.rules.by_this_axe.text import _
from bot.rules.dice import DiceSource, Roll
from bot.rules.terms import Fighter, LogEvent, Penalty, PreDuelOutcome

# -- the challenge --------------------------------------------------------------------------

ChallengeOutcome = Literal["accepted", "forced", "refused"]


@dataclass(frozen=True, slots=True)
class ChallengeResult:
    """What became of a challenge. ``duel``: a duel is fought. ``declined``: the refusal
    stands (no duel). ``leadership_lost``: the challenged leader's first refusal costs him
    his leadership for this turn; the caller records that the free first refusal is used."""

    outcome: ChallengeOutcome
    duel: bool
    declined: bool
    leadership_lost: bool
    roll: Roll | None
    log: tuple[LogEvent, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "duel": self.duel,
            "declined": self.declined,
            "leadership_lost": self.leadership_lost,
            "roll": None if self.roll is None else self.roll.to_dict(),
            "log": [str(e) for e in self.log],
        }


def challenge(
    challenger: Fighter,
    challenged: Fighter,
    accepted: bool,
    units_in_contact: bool,
    leader_first_refusal: bool,
    dice: DiceSource,
    *,
    attempt_force: bool = True,
) -> ChallengeResult:
    """Settle a challenge. The challenger is side "a" for the force roll.

    Accepted: a duel. Refused: when the units are in contact (and the challenger tries,
    ``attempt_force``), a d6 of 1-3 forces the duel anyway and the refusal does not count;
    otherwise the refusal stands and, when the challenged is a leader
    (``challenged.sheet["leader"]``) refusing for the first time in the game
    (``leader_first_refusal``), he loses his leadership for the turn. Later refusals are
    free (the caller passes ``leader_first_refusal=False``)."""
    log: list[LogEvent] = []

    def note(clause: str, text: str) -> None:
        log.append(LogEvent(_(clause), text))  # the log in the scope's language

    who = challenger.name or _("The challenger")
    them = challenged.name or _("the challenged character")
    note(C_CHALLENGE, _("{who} challenges {them} to personal combat", who=who, them=them))
    if accepted:
        note(C_CHALLENGE, _("{them} accepts: the duel is fought", them=them))
        return ChallengeResult("accepted", True, False, False, None, tuple(log))
    note(C_REFUSAL, _("{them} refuses the challenge", them=them))
    roll: Roll | None = None
    if units_in_contact and attempt_force:
        roll = dice.roll(6, side="a", purpose=FORCE_DUEL)
        # Translators: keep "rolls {value} and" in the form "würfelt {value} und" (the
        # log's dice are read by a pattern, ByThisAxe.log_dice_pattern).
        if _hit(roll.value):
            note(C_FORCE, _("the units are in contact: {who} rolls {value} and forces the "
                            "duel (1-3); the refusal does not stand",
                            who=who, value=roll.value))
            return ChallengeResult("forced", True, False, False, roll, tuple(log))
        note(C_FORCE, _("the units are in contact: {who} rolls {value} and fails to force "
                        "the duel (4-6)", who=who, value=roll.value))
    is_leader = bool(challenged.sheet.get("leader", False))
    lost = is_leader and leader_first_refusal
    if lost:
        note(C_REFUSAL, _(
            "{them}'s first refusal as a leader: he loses all leadership value for this "
            "turn only: he may not participate in an attack this turn, may not "
            "voluntarily move to a new unit and may not rally a unit this turn",
            them=them,
        ))
    elif is_leader:
        note(C_REFUSAL, _("{them} has declined before: this refusal is without penalty",
                          them=them))
    else:
        note(C_REFUSAL, _("{them} is not a leader: no leadership to lose", them=them))
    return ChallengeResult("refused", False, True, lost, roll, tuple(log))


#: The penalty a leader's first refusal costs; remembered by the services under this key
#: (the profile's ``by-this-axe:refusals`` entry), so later refusals are free.
REFUSAL_PENALTY = "refusals"


def settled(result: ChallengeResult, challenger: Fighter, challenged: Fighter) -> PreDuelOutcome:
    """The challenge as the pre-duel capability reports it: its sentence and penalty in
    plain words."""
    who = challenger.name or _("The challenger")
    them = challenged.name or _("The challenged character")
    if result.outcome == "accepted":
        sentence = _("{them} accepts the challenge: the duel is fought", them=them)
    elif result.outcome == "forced":
        value = "?" if result.roll is None else result.roll.value
        sentence = _(
            "{them} refuses, but {who} forces the duel on a {value} (units in contact)",
            them=them, who=who, value=value,
        )
    else:
        sentence = _("{them} refuses the challenge: no duel", them=them)
    penalties = (
        (Penalty(REFUSAL_PENALTY, "b",
                 _("{them} loses his leadership for this turn", them=them)),)
        if result.leadership_lost
        else ()
    )
    return PreDuelOutcome(
        result.outcome, sentence, result.duel, penalties, result.roll, result.log
    )
