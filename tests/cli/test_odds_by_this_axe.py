"""`duelbot odds --ruleset by-this-axe` through the console script."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from tests.cli.test_cli import assert_bad_input, duelbot
from tests.rules.by_this_axe_reference import reference_joint, reference_outcomes

BASE = (
    "odds", "--ruleset", "by-this-axe",
    "--a-character", "hero", "--a-armor", "5", "--a-allot", "a3p1t0",
    "--b-character", "priest", "--b-allot", "a1 p1 t1",
)  # fmt: skip


def _marginal(joint: dict[tuple[int, int], Fraction], index: int) -> dict[str, str]:
    out: dict[int, Fraction] = {}
    for key, p in joint.items():
        out[key[index]] = out.get(key[index], Fraction(0)) + p
    return {str(k): str(v) for k, v in sorted(out.items()) if v}


def test_json_is_exact_and_matches_the_reference() -> None:
    run = duelbot(*BASE, "--json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["ruleset"] == "by-this-axe"
    assert (data["a_allot"], data["b_allot"]) == ("a3p1t0", "a1p1t1")
    assert data["a"]["character"] == "hero" and data["b"]["armor_save"] == 6
    joint = reference_joint((3, 1, 0), (1, 1, 1), 5, 6)
    assert data["unsaved_hits"] == {"on_a": _marginal(joint, 0), "on_b": _marginal(joint, 1)}
    assert data["outcomes"] == {
        k: str(v) for k, v in reference_outcomes((3, 1, 0), (1, 1, 1), 5, 6, 1, 1).items()
    }
    for table in (data["unsaved_hits"]["on_a"], data["unsaved_hits"]["on_b"], data["outcomes"]):
        assert sum(Fraction(v) for v in table.values()) == 1
        assert all(v == str(Fraction(v)) and v != "0" for v in table.values())


def test_text_output() -> None:
    run = duelbot(*BASE, "--a-name", "Conan")
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert out.startswith("By This Axe, round 1: exact odds\n")
    assert "A = Conan: hero (pool 4, saves on 5+, 1 wound(s)) allots Attack 3, Parry 1, " in out
    assert "unsaved hits on A" in out and "unsaved hits on B" in out
    assert "outcome of the round" in out and "a_wins" in out


def test_flee_wounds_taken_and_settings() -> None:
    run = duelbot(
        "odds", "--ruleset", "by-this-axe", "--a-character", "wizard", "--a-allot", "flee",
        "--a-wounds", "2", "--a-taken", "1", "--b-character", "champion", "--b-allot",
        "6/6/0", "--round", "2", "--allot-all", "--trick-takes", "attack_first", "--json",
    )
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["a_allot"] == "flee" and data["round"] == 2
    assert data["unsaved_hits"]["on_b"] == {"0": "1"}
    # The default house rule flight = before-blows: the flee die comes first.
    want = reference_outcomes("flee", (6, 6, 0), 0, 5, 1, 1, flee_first=True)
    assert data["outcomes"] == {k: str(v) for k, v in want.items()}
    assert data["house_rules"] == {"flight": "before-blows", "forfeit": "attack-first"}


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (("--a-allot", "flee"), ["--a-allot", "round 1"]),
        (("--a-allot", "a4p1"), ["--a-allot", "pool of 4 dice"]),
        (("--a-allot", "a2p0"), ["--a-allot", "at least one die must be allotted to parry"]),
        (("--a-allot", "a2p1t2"), ["--a-allot", "only one die"]),
        (("--a-armor", "1"), ["--a-armor", "1 would save every hit"]),
        (("--b-wounds", "0"), ["--b-wounds"]),
        (("--a-character", "orc"), ["--a-character", "hero (4 dice)"]),
        (("--a-taken", "1"), ["--a-taken", "already defeats"]),
        (("--a-str", "3"), ["--a-str", "cannot be used with --ruleset by-this-axe"]),
        (("--locked",), ["--locked", "cannot be used"]),
        (("--round", "0"), ["--round"]),
        (("--allot-all", "--b-allot", "a1p1"), ["--b-allot", "every die of the pool"]),
    ],
)
def test_bad_arguments(args: tuple[str, ...], needles: list[str]) -> None:
    # Later flags override BASE's.
    assert_bad_input(duelbot(*BASE, *args), *needles)


def test_required_flags() -> None:
    run = duelbot("odds", "--ruleset", "by-this-axe", "--a-character", "hero")
    assert_bad_input(run, "required", "--a-allot", "--b-character", "--b-allot")


def test_rule_2_14_flags_refuse_by_this_axe_flags() -> None:
    run = duelbot("odds", "--a-str", "1", "--a-agi", "1", "--b-str", "1", "--b-agi", "1",
                  "--a-allot", "a1p1")
    assert_bad_input(run, "--a-allot", "cannot be used with --ruleset rule-2.14")


def test_unknown_ruleset() -> None:
    assert_bad_input(duelbot("odds", "--ruleset", "chess"), "--ruleset")


# -- house rules (--option KEY=VALUE) -----------------------------------------------------------

HERO_FLEES = (
    "odds", "--ruleset", "by-this-axe", "--round", "2",
    "--a-character", "hero", "--a-allot", "flee",
    "--b-character", "hero", "--b-allot", "a3p1t0", "--json",
)  # fmt: skip


def _escape_after_blows_by_hand() -> Fraction:
    """A hero (save 5-6, 1 wound) fleeing a hero who allots a3p1t0, flee die after the
    blows: he must take no unsaved hit, then roll 1-3. Every die face enumerated."""
    from itertools import product

    escaped = Fraction(0)
    sixth = Fraction(1, 6)
    for attack in product(range(1, 7), repeat=3):
        for parry in range(1, 7):
            hits = sum(1 for v in attack if v <= 3)
            counter = parry <= 3  # any parry success beats 0 incoming hits
            for counter_face in range(1, 7) if counter else (0,):
                landed = hits + (1 if counter and counter_face <= 3 else 0)
                weight = sixth**4 * (sixth if counter else 1)
                for saves in product(range(1, 7), repeat=landed):
                    if all(v >= 5 for v in saves):
                        escaped += weight * sixth**landed * Fraction(1, 2)
    return escaped


@pytest.mark.parametrize(
    ("options", "escapes"),
    [((), Fraction(1, 2)), (("--option", "flight=before-blows"), Fraction(1, 2)),
     (("--option", "flight=after-blows"), Fraction(10, 81))],
)
def test_a_hero_fleeing_a_hero(options: tuple[str, ...], escapes: Fraction) -> None:
    run = duelbot(*HERO_FLEES, *options)
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert Fraction(data["outcomes"]["a_flees"]) == escapes
    assert sum(Fraction(v) for v in data["outcomes"].values()) == 1
    flee_first = data["house_rules"]["flight"] == "before-blows"
    want = reference_outcomes("flee", (3, 1, 0), 5, 5, 1, 1, flee_first=flee_first)
    assert data["outcomes"] == {k: str(v) for k, v in want.items()}


def test_the_after_blows_number_by_hand() -> None:
    assert _escape_after_blows_by_hand() == Fraction(10, 81)


def test_forfeit_option_changes_the_odds_and_equals_trick_takes() -> None:
    base = (*BASE, "--json")
    attack_first = json.loads(duelbot(*base, "--option", "forfeit=attack-first").stdout)
    parry_first = json.loads(duelbot(*base, "--option", "forfeit=parry_first").stdout)
    legacy = json.loads(duelbot(*base, "--trick-takes", "attack_first").stdout)
    assert attack_first["outcomes"] != parry_first["outcomes"]
    assert attack_first["outcomes"] == legacy["outcomes"]
    want = reference_outcomes((3, 1, 0), (1, 1, 1), 5, 6, 1, 1, parry_first=False)
    assert attack_first["outcomes"] == {k: str(v) for k, v in want.items()}


def test_the_text_output_names_the_house_rules() -> None:
    run = duelbot(*HERO_FLEES[:-1], "--option", "flight=after-blows")
    assert "House rules: flight=after-blows, forfeit=parry-first" in run.stdout


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (("--option", "fligth=after-blows"), ["fligth", "flight (before-blows, after-blows)",
                                              "forfeit (victim-chooses, parry-first"]),
        (("--option", "flight=sideways"), ["flight", "before-blows, after-blows", "sideways"]),
        (("--option", "flight"), ["--option", "KEY=VALUE"]),
        (("--option", "forfeit=victim-chooses"), ["victim-chooses", "parry-first"]),
        (("--option", "forfeit=attack-first", "--trick-takes", "parry_first"),
         ["--trick-takes", "forfeit"]),
    ],
)
def test_bad_options(args: tuple[str, ...], needles: list[str]) -> None:
    assert_bad_input(duelbot(*BASE, *args), *needles)


def test_rule_2_14_has_one_house_rule() -> None:
    run = duelbot("odds", "--a-str", "1", "--a-agi", "1", "--b-str", "1", "--b-agi", "1",
                  "--option", "flight=after-blows")
    assert_bad_input(run, "flight", "locked-blocks-retreat (no, yes)")
    # Its house rule (issue 24) by --option is the --locked-blocks-retreat switch.
    stats = ("--a-str", "5", "--a-agi", "3", "--b-str", "4", "--b-agi", "2", "--locked",
             "--json")
    plain, switch, option = (
        duelbot("odds", *stats, *extra)
        for extra in ((), ("--locked-blocks-retreat",),
                      ("--option", "locked-blocks-retreat=yes"))
    )
    assert plain.returncode == switch.returncode == option.returncode == 0, option.stderr
    assert json.loads(option.stdout) == json.loads(switch.stdout) != json.loads(plain.stdout)
