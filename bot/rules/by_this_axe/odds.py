"""By This Axe exact odds by counting (binomials per class), for any pool."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import Any

from bot.rules.by_this_axe.allotments import (
    NOTHING,
    Allotment,
    check_allotment,
    parse_form,
)
from bot.rules.by_this_axe.sheet import (
    Combatant,
)
from bot.rules.by_this_axe.state import (
    BEFORE_BLOWS,
    Forfeit,
    forfeit_dice,
)
from bot.rules.by_this_axe.tables import (
    A_FLEES,
    A_WINS,
    B_FLEES,
    B_WINS,
    BOTH_DEFEATED,
    BOTH_FLEE,
    CONTINUE,
    FLEE,
    NO_SAVE,
    OUTCOMES,
    TrickTakes,
)

# -- exact counting -------------------------------------------------------------------------

HALF = Fraction(1, 2)
TRICK_P = Fraction(2, 6)


@lru_cache(maxsize=4096)
def binomial(n: int, p: Fraction) -> tuple[Fraction, ...]:
    """P(k successes) for k = 0..n of n independent trials with success chance p."""
    return tuple(Fraction(comb(n, k)) * p**k * (1 - p) ** (n - k) for k in range(n + 1))


def fail_chance(armor_save: int) -> Fraction:
    """Chance one landed hit is not saved: (save - 1)/6, or 1 with no save."""
    return Fraction(1) if armor_save == NO_SAVE else Fraction(armor_save - 1, 6)


def _add(dist: dict[Any, Fraction], key: Any, p: Fraction) -> None:
    if p:
        dist[key] = dist.get(key, Fraction(0)) + p


def _exchange(attack: int, parry: int) -> dict[tuple[int, bool], Fraction]:
    """One direction of blows: (hits landing past the parries, the parrier counterattacks)."""
    out: dict[tuple[int, bool], Fraction] = {}
    for h, ph in enumerate(binomial(attack, HALF)):
        for s, ps in enumerate(binomial(parry, HALF)):
            _add(out, (max(0, h - s), s > h), ph * ps)
    return out


def landed_joint(
    a_allot: Allotment, b_allot: Allotment, takes: TrickTakes | Forfeit = "parry_first"
) -> dict[tuple[int, int], Fraction]:
    """Exact joint distribution of (hits landing on A, hits landing on B) before saves."""
    trick_a = ((True, TRICK_P), (False, 1 - TRICK_P)) if a_allot.tricks else ((False, 1),)
    trick_b = ((True, TRICK_P), (False, 1 - TRICK_P)) if b_allot.tricks else ((False, 1),)
    out: dict[tuple[int, int], Fraction] = {}
    for a_works, pa in trick_a:
        for b_works, pb in trick_b:
            eff_a = forfeit_dice(a_allot, takes) if b_works else a_allot
            eff_b = forfeit_dice(b_allot, takes) if a_works else b_allot
            on_b = _exchange(eff_a.attack, eff_b.parry)  # (landed on B, B counters)
            on_a = _exchange(eff_b.attack, eff_a.parry)  # (landed on A, A counters)
            for (direct_b, b_counters), px in on_b.items():
                for (direct_a, a_counters), py in on_a.items():
                    weight = Fraction(pa) * Fraction(pb) * px * py
                    for extra_a, pca in ((1, HALF), (0, HALF)) if b_counters else ((0, 1),):
                        for extra_b, pcb in ((1, HALF), (0, HALF)) if a_counters else (
                            (0, 1),
                        ):
                            _add(out, (direct_a + extra_a, direct_b + extra_b),
                                 weight * pca * pcb)
    return out


def round_joint(
    a: Combatant, b: Combatant, a_allot: Allotment, b_allot: Allotment,
    takes: TrickTakes | Forfeit = "parry_first",
) -> dict[tuple[int, int], Fraction]:
    """Exact joint distribution of (unsaved hits on A, unsaved hits on B) in one round."""
    out: dict[tuple[int, int], Fraction] = {}
    fail_a, fail_b = fail_chance(a.armor_save), fail_chance(b.armor_save)
    for (la, lb), p in landed_joint(a_allot, b_allot, takes).items():
        for ua, pua in enumerate(binomial(la, fail_a)):
            for ub, pub in enumerate(binomial(lb, fail_b)):
                _add(out, (ua, ub), p * pua * pub)
    return out


def outcomes_from_joint(
    joint: Mapping[tuple[int, int], Fraction],
    a: Combatant,
    b: Combatant,
    a_flees: bool,
    b_flees: bool,
    flight: str = BEFORE_BLOWS,
) -> dict[str, Fraction]:
    """The outcome distribution from the joint unsaved hits and who flees. ``flight``:
    before-blows, the flee dice come first and a duellist who gets away ends the round
    before any blow (the joint applies only when nobody got away); after-blows, they are
    rolled after the armor saves by a fleer still standing."""
    out: dict[str, Fraction] = {}
    pa = HALF if a_flees else Fraction(0)
    pb = HALF if b_flees else Fraction(0)
    stay = Fraction(1)
    if flight == BEFORE_BLOWS:
        _add(out, BOTH_FLEE, pa * pb)
        _add(out, A_FLEES, pa * (1 - pb))
        _add(out, B_FLEES, (1 - pa) * pb)
        stay = (1 - pa) * (1 - pb)
        pa = pb = Fraction(0)  # a fleer who stayed has no second try this round
    for (ua, ub), p in joint.items():
        p = p * stay
        down_a = a.wounds_taken + ua >= a.wounds
        down_b = b.wounds_taken + ub >= b.wounds
        if down_a and down_b:
            _add(out, BOTH_DEFEATED, p)
        elif down_a:
            _add(out, B_WINS, p)
        elif down_b:
            _add(out, A_WINS, p)
        else:
            _add(out, BOTH_FLEE, p * pa * pb)
            _add(out, A_FLEES, p * pa * (1 - pb))
            _add(out, B_FLEES, p * (1 - pa) * pb)
            _add(out, CONTINUE, p * (1 - pa) * (1 - pb))
    return {o: out[o] for o in OUTCOMES if o in out}


def blows_reached(a_flees: bool, b_flees: bool, flight: str) -> Fraction:
    """The chance the round comes to blows (before-blows: nobody got away first)."""
    if flight != BEFORE_BLOWS:
        return Fraction(1)
    return (HALF if a_flees else Fraction(1)) * (HALF if b_flees else Fraction(1))


def hits_with_flight(
    joint: Mapping[tuple[int, int], Fraction], reached: Fraction
) -> dict[tuple[int, int], Fraction]:
    """The joint unsaved hits when the blows happen only with chance ``reached`` (no hit
    otherwise)."""
    out: dict[tuple[int, int], Fraction] = {}
    for key, p in joint.items():
        _add(out, key, p * reached)
    _add(out, (0, 0), 1 - reached)
    return out


def _marginal(joint: Mapping[tuple[int, int], Fraction], index: int) -> dict[int, Fraction]:
    out: dict[int, Fraction] = {}
    for key, p in joint.items():
        _add(out, key[index], p)
    return dict(sorted(out.items()))


def _allotment_for(text: str, pool: int, who: str) -> Allotment:
    form = parse_form(text)
    if form == FLEE:
        return NOTHING
    assert isinstance(form, Allotment)
    return check_allotment(form, pool, who=who)


def unsaved_hits_distribution(
    attacker_sheet: Mapping[str, Any],
    defender_sheet: Mapping[str, Any],
    a_allot: str,
    b_allot: str,
    *,
    takes: TrickTakes | Forfeit = "parry_first",
) -> dict[int, Fraction]:
    """Exact distribution of the unsaved hits the attacker deals the defender in one round
    (attacks past the parries plus a counterattack, after the defender's armor saves), when
    the attacker allots ``a_allot`` and the defender ``b_allot`` ("flee" allots nothing).
    Swap the arguments for the other direction."""
    attacker = Combatant.from_sheet("attacker", attacker_sheet)
    defender = Combatant.from_sheet("defender", defender_sheet)
    joint = round_joint(
        attacker,
        defender,
        _allotment_for(a_allot, attacker.pool, f"the attacker ({attacker.character})"),
        _allotment_for(b_allot, defender.pool, f"the defender ({defender.character})"),
        takes,
    )
    return _marginal(joint, 1)


@dataclass(frozen=True, slots=True)
class RoundOdds:
    """Exact odds of one round for two allotments."""

    a_allot: str
    b_allot: str
    on_a: dict[int, Fraction]
    on_b: dict[int, Fraction]
    outcomes: dict[str, Fraction]



