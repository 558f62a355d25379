"""An independent reference for By This Axe rounds, written from the seed and the doc alone.

It shares no code with bot.rules: every die is rolled over each of its six faces, one die
at a time (no binomials, no roll classes, no dice source), and the exact distribution is
accumulated in dictionaries.
"""

from __future__ import annotations

from fractions import Fraction

SIXTH = Fraction(1, 6)
FACES = range(1, 7)

Allot = tuple[int, int, int]  # (attack, parry, dirty tricks); (0, 0, 0) for flee or no move


def _add(dist: dict, key: object, p: Fraction) -> None:  # type: ignore[type-arg]
    dist[key] = dist.get(key, Fraction(0)) + p


def count(n: int, success: set[int]) -> dict[int, Fraction]:
    """How many of n dice show a face in ``success``, rolling each face of each die."""
    dist: dict[int, Fraction] = {0: Fraction(1)}
    for _ in range(n):
        nxt: dict[int, Fraction] = {}
        for k, p in dist.items():
            for face in FACES:
                _add(nxt, k + (face in success), p * SIXTH)
        dist = nxt
    return dist


def forfeit(allot: Allot, parry_first: bool) -> Allot:
    """Two dice leave the attack and/or parry areas, one at a time."""
    attack, parry, tricks = allot
    for _ in range(2):
        if parry_first:
            if parry:
                parry -= 1
            elif attack:
                attack -= 1
        elif attack:
            attack -= 1
        elif parry:
            parry -= 1
    return attack, parry, tricks


ONE_TO_THREE = {1, 2, 3}


def _trick_faces(tricks: int) -> list[tuple[bool, Fraction]]:
    if not tricks:
        return [(False, Fraction(1))]
    return [(face <= 2, SIXTH) for face in FACES]


def _counter_faces(counters: bool) -> list[tuple[int, Fraction]]:
    if not counters:
        return [(0, Fraction(1))]
    return [(1 if face <= 3 else 0, SIXTH) for face in FACES]


def _unsaved(landed: int, save: int) -> dict[int, Fraction]:
    if save in (0, 7):
        return {landed: Fraction(1)}
    return count(landed, {f for f in FACES if f < save})


def reference_joint(
    a: Allot, b: Allot, a_save: int, b_save: int, *, parry_first: bool = True
) -> dict[tuple[int, int], Fraction]:
    """Exact (unsaved hits on A, unsaved hits on B) of one round."""
    joint: dict[tuple[int, int], Fraction] = {}
    for a_trick, pta in _trick_faces(a[2]):
        for b_trick, ptb in _trick_faces(b[2]):
            ea = forfeit(a, parry_first) if b_trick else a
            eb = forfeit(b, parry_first) if a_trick else b
            hits_a, hits_b = count(ea[0], ONE_TO_THREE), count(eb[0], ONE_TO_THREE)
            par_a, par_b = count(ea[1], ONE_TO_THREE), count(eb[1], ONE_TO_THREE)
            for ha, pha in hits_a.items():
                for hb, phb in hits_b.items():
                    for sa, psa in par_a.items():
                        for sb, psb in par_b.items():
                            base = pta * ptb * pha * phb * psa * psb
                            on_a, on_b = max(0, hb - sa), max(0, ha - sb)
                            for ca, pca in _counter_faces(sa > hb):
                                for cb, pcb in _counter_faces(sb > ha):
                                    ua = _unsaved(on_a + cb, a_save)
                                    ub = _unsaved(on_b + ca, b_save)
                                    for x, px in ua.items():
                                        for y, py in ub.items():
                                            _add(joint, (x, y), base * pca * pcb * px * py)
    return joint


def reference_outcomes(
    a: Allot | str,
    b: Allot | str,
    a_save: int,
    b_save: int,
    a_left: int,
    b_left: int,
    *,
    parry_first: bool = True,
    flee_first: bool = False,
) -> dict[str, Fraction]:
    """Exact outcome of one round; "flee" allots nothing and rolls to flee (1-3);
    ``*_left``: wounds still needed to defeat each side. ``flee_first`` (house rule
    flight = before-blows): the flee dice are rolled before any other die and a fleer who
    gets away ends the round; otherwise (after-blows) they are rolled after the armor
    saves, only by a fleer still standing."""
    a_dice = (0, 0, 0) if a == "flee" else a
    b_dice = (0, 0, 0) if b == "flee" else b
    assert not isinstance(a_dice, str) and not isinstance(b_dice, str)
    a_faces = [(f <= 3, SIXTH) for f in FACES] if a == "flee" else [(False, Fraction(1))]
    b_faces = [(f <= 3, SIXTH) for f in FACES] if b == "flee" else [(False, Fraction(1))]
    out: dict[str, Fraction] = {}
    joint = reference_joint(a_dice, b_dice, a_save, b_save, parry_first=parry_first)
    if flee_first:
        for fa, pfa in a_faces:
            for fb, pfb in b_faces:
                if fa or fb:
                    key = "both_flee" if fa and fb else "a_flees" if fa else "b_flees"
                    _add(out, key, pfa * pfb)
                    continue
                for (ua, ub), p in joint.items():
                    down_a, down_b = ua >= a_left, ub >= b_left
                    key = (
                        "both_defeated" if down_a and down_b else
                        "b_wins" if down_a else "a_wins" if down_b else "continue"
                    )
                    _add(out, key, p * pfa * pfb)
        return {k: v for k, v in out.items() if v}
    for (ua, ub), p in joint.items():
        down_a, down_b = ua >= a_left, ub >= b_left
        if down_a or down_b:
            key = "both_defeated" if down_a and down_b else ("b_wins" if down_a else "a_wins")
            _add(out, key, p)
            continue
        for fa, pfa in a_faces:
            for fb, pfb in b_faces:
                key = (
                    "both_flee" if fa and fb else
                    "a_flees" if fa else "b_flees" if fb else "continue"
                )
                _add(out, key, p * pfa * pfb)
    return {k: v for k, v in out.items() if v}
