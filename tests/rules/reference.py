"""An independent reference for rule 2.14, written from issue 2's text alone.

It shares no code with bot.rules: it enumerates every face of every die (no roll
classes, no dice source) and returns exact outcome probabilities.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

FFS, SS, LOCK, EVADE, RETREAT = (
    "full_frontal_strike",
    "side_swipe",
    "lock_attempt",
    "evade",
    "retreat",
)
MOVES = (FFS, SS, LOCK, EVADE, RETREAT)
ATTACKS = (FFS, SS)
DEFENCES = (LOCK, EVADE)
OTHER = {"a": "b", "b": "a"}


def faces(x: int) -> list[int]:
    """Every result of DICEX, each equally likely; X <= 0 always yields 0."""
    return [0] if x <= 0 else list(range(1, x + 1))


def reference_distribution(
    a: tuple[int, int],
    b: tuple[int, int],
    a_move: str | None,
    b_move: str | None,
    *,
    locked: bool = False,
    missing_move: str = "none",
    locked_blocks_retreat: bool = False,
) -> dict[str, Fraction]:
    """Outcome -> probability. ``a`` and ``b`` are (STR, AGI)."""
    strength = {"a": a[0], "b": b[0]}
    agility = {"a": a[1], "b": b[1]}
    move = {"a": a_move, "b": b_move}
    dist: dict[str, Fraction] = {}

    if missing_move == "forfeit" and (a_move is None) != (b_move is None):
        return {"b_wins" if a_move is None else "a_wins": Fraction(1)}

    both_defend = a_move in DEFENCES and b_move in DEFENCES
    lock_from_defence = False
    evaders: list[str] = []
    if not both_defend:
        for s in "ab":
            if move[s] == LOCK and strength[s] > agility[OTHER[s]]:
                lock_from_defence = True
            if move[s] == EVADE:
                evaders.append(s)

    evade_dice = [faces(agility[s] - strength[OTHER[s]]) for s in evaders]
    for evade_results in product(*evade_dice):
        w_evade = Fraction(1)
        for die in evade_dice:
            w_evade /= len(die)
        cancelled = {
            OTHER[s]
            for s, v in zip(evaders, evade_results, strict=True)
            if v > 1 and move[OTHER[s]] in ATTACKS
        }
        lock = lock_from_defence
        sure_winner = None
        strikers: list[str] = []
        for s in "ab":
            if move[s] not in ATTACKS or s in cancelled:
                continue
            theirs = move[OTHER[s]]
            if move[s] == FFS:
                if theirs == FFS:
                    lock = True
                elif theirs != SS:
                    strikers.append(s)
            elif theirs == FFS:
                sure_winner = s
        strike_dice = [faces(strength[s] - agility[OTHER[s]]) for s in strikers]
        for strike_results in product(*strike_dice):
            w = w_evade
            for die in strike_dice:
                w /= len(die)
            winners = [s for s, v in zip(strikers, strike_results, strict=True) if v > 1]
            if sure_winner is not None:
                winners.append(sure_winner)
            assert len(winners) <= 1, "two winners"
            winner = winners[0] if winners else None
            retreated = [
                s
                for s in "ab"
                if move[s] == RETREAT
                and winner is None
                and not (locked_blocks_retreat and (locked or lock))
            ]
            if winner is not None:
                outcome = f"{winner}_wins"
            elif len(retreated) == 2:
                outcome = "both_retreat"
            elif retreated:
                outcome = f"{retreated[0]}_retreats"
            elif lock:
                outcome = "locked"
            else:
                outcome = "no_effect"
            dist[outcome] = dist.get(outcome, Fraction(0)) + w
    return dist
