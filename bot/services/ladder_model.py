"""The ladder's arithmetic: a member's standing and how one ended duel changes it.

Pure (no database): the services fold ended duels through ``play`` in replay order. The
rating maths is openskill's (Weng-Lin Bayesian rating, Plackett-Luce model, the library's
default parameters); nothing here computes a rating by hand. docs/ladder.md says why.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from openskill.models import PlackettLuce

#: What one ended duel counted as for one member: the ruleset's outcome kind, or
#: ``commander`` for a duel ended by /duel end (counted, never rated).
EntryKind = Literal["win", "loss", "draw", "retreat", "commander"]
ENTRY_KINDS: tuple[EntryKind, ...] = ("win", "loss", "draw", "retreat", "commander")

#: openskill's Plackett-Luce model with its defaults: mu 25, sigma 25/3, beta 25/6,
#: tau 25/300 (sigma grows a little before each duel, so ratings keep moving), kappa 1e-4.
MODEL = PlackettLuce()
# Finishing place of each kind in a two-member "match": a draw or retreat ties.
_PLACE: dict[EntryKind, int] = {"win": 1, "draw": 2, "retreat": 2, "loss": 3}


@dataclass(frozen=True, slots=True)
class Standing:
    """A member's ladder state after some duels."""

    mu: float
    sigma: float
    duels: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    retreats: int = 0
    commander_ended: int = 0
    streak: int = 0  # +n: n wins in a row, -n: n losses in a row

    @classmethod
    def fresh(cls) -> Standing:
        start = MODEL.rating()
        return cls(mu=float(start.mu), sigma=float(start.sigma))

    @property
    def rating(self) -> float:
        """What the ladder ranks by: openskill's ordinal, mu - 3 sigma (0 for a newcomer)."""
        return float(MODEL.rating(mu=self.mu, sigma=self.sigma).ordinal())

    @property
    def rated(self) -> int:
        return self.wins + self.losses + self.draws + self.retreats


def counted(standing: Standing, kind: EntryKind) -> Standing:
    """``standing`` with one more duel of ``kind`` on the record (the rating untouched).

    The streak counts wins (or losses) in a row; a draw or retreat ends it; a duel ended by
    a commander has no result, so it leaves the streak as it was."""
    streak = standing.streak
    if kind == "win":
        streak = streak + 1 if streak > 0 else 1
    elif kind == "loss":
        streak = streak - 1 if streak < 0 else -1
    elif kind in ("draw", "retreat"):
        streak = 0
    return replace(
        standing,
        duels=standing.duels + 1,
        wins=standing.wins + (kind == "win"),
        losses=standing.losses + (kind == "loss"),
        draws=standing.draws + (kind == "draw"),
        retreats=standing.retreats + (kind == "retreat"),
        commander_ended=standing.commander_ended + (kind == "commander"),
        streak=streak,
    )


def play(
    a: Standing, b: Standing, a_kind: EntryKind, b_kind: EntryKind
) -> tuple[Standing, Standing]:
    """Both members after one duel between them. A duel ended by a commander (either kind
    ``commander``) is counted but not rated; any other is rated as a win, loss or tie by
    the kinds' places (a retreat rates as a draw: the duel ended with no winner)."""
    if "commander" in (a_kind, b_kind):
        return counted(a, a_kind), counted(b, b_kind)
    teams = [[MODEL.rating(mu=a.mu, sigma=a.sigma)], [MODEL.rating(mu=b.mu, sigma=b.sigma)]]
    [[new_a], [new_b]] = MODEL.rate(teams, ranks=[_PLACE[a_kind], _PLACE[b_kind]])
    a = replace(a, mu=float(new_a.mu), sigma=float(new_a.sigma))
    b = replace(b, mu=float(new_b.mu), sigma=float(new_b.sigma))
    return counted(a, a_kind), counted(b, b_kind)
