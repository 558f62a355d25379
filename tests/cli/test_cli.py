"""The `duelbot` console script, run as a subprocess exactly as users run it."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from tests.rules.reference import MOVES, reference_distribution

DUELBOT = Path(sys.executable).parent / "duelbot"
SEED = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
COMMITMENT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"

ROUND: dict[str, Any] = {
    "a": {"name": "Alice", "str": 8, "agi": 3},
    "b": {"name": "Bob", "str": 2, "agi": 5},
    "moves": {"a": "full_frontal_strike", "b": "evade"},
    "locked": False,
    "seed": SEED,
    "duel_id": 1,
    "round_no": 1,
}

PUBLISHED = {
    "outcome": "a_wins",
    "winner": "Alice",
    "locked": False,
    "rolls": [
        {"label": "duel:1:round:1:roll:0", "sides": -3, "value": 0, "for": "b",
         "purpose": "evade"},
        {"label": "duel:1:round:1:roll:1", "sides": 3, "value": 2, "for": "a",
         "purpose": "full_frontal_strike"},
    ],
    "seed": SEED,
    "commitment": COMMITMENT,
}


def duelbot(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    assert DUELBOT.exists(), f"console script not installed at {DUELBOT}"
    return subprocess.run(
        [str(DUELBOT), *args], input=stdin, capture_output=True, text=True, timeout=60
    )


def assert_bad_input(run: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert run.returncode == 2, run
    assert "Traceback" not in run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


# -- odds ------------------------------------------------------------------------------


def test_odds_json_matches_the_reference() -> None:
    run = duelbot("odds", "--a-str", "5", "--a-agi", "3", "--b-str", "7", "--b-agi", "2",
                  "--json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["ruleset"] == "rule-2.14"
    assert len(data["matchups"]) == 25
    assert [(m["a_move"], m["b_move"]) for m in data["matchups"]] == [
        (a, b) for a in MOVES for b in MOVES
    ]
    for m in data["matchups"]:
        outcomes = {k: Fraction(v) for k, v in m["outcomes"].items()}
        assert sum(outcomes.values()) == 1
        for text in m["outcomes"].values():
            assert text == str(Fraction(text))  # lowest terms, str(Fraction) form
            assert text != "0"
        assert outcomes == {
            k: v
            for k, v in reference_distribution((5, 3), (7, 2), m["a_move"], m["b_move"]).items()
            if v
        }


def test_odds_json_fractions() -> None:
    # A: STR 5 vs B AGI 2 -> DICE3 strike: 2/3 win; B evade DICE(2 - 5) = 0.
    run = duelbot("odds", "--a-str", "5", "--a-agi", "0", "--b-str", "0", "--b-agi", "2",
                  "--json")
    matchups = json.loads(run.stdout)["matchups"]
    by_pair = {(m["a_move"], m["b_move"]): m["outcomes"] for m in matchups}
    assert by_pair[("full_frontal_strike", "side_swipe")] == {"b_wins": "1"}
    assert by_pair[("full_frontal_strike", "retreat")] == {"a_wins": "2/3", "b_retreats": "1/3"}


def test_odds_accepts_negative_and_huge_stats() -> None:
    run = duelbot("odds", "--a-str", "-4", "--a-agi", "1000000000", "--b-str", "0",
                  "--b-agi", "-7", "--json")
    assert run.returncode == 0, run.stderr
    assert len(json.loads(run.stdout)["matchups"]) == 25


def test_odds_table_text() -> None:
    run = duelbot("odds", "--a-str", "5", "--a-agi", "0", "--b-str", "0", "--b-agi", "2")
    assert run.returncode == 0
    lines = run.stdout.splitlines()
    assert "STR 5, AGI 0" in lines[0]
    assert lines[2].split()[:3] == ["A", "move", "B"]
    rows = [line for line in lines if line.startswith(MOVES)]
    assert len(rows) == 25
    row = next(r for r in rows if r.split()[:2] == ["full_frontal_strike", "retreat"])
    assert "2/3" in row and "1/3" in row


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["odds", "--a-str", "x", "--a-agi", "1", "--b-str", "1", "--b-agi", "1"], "--a-str"),
        (["odds", "--a-str", "1", "--a-agi", "1", "--b-str", "1"], "--b-agi"),
        (["frobnicate"], "frobnicate"),
    ],
)
def test_odds_bad_arguments(args: list[str], needle: str) -> None:
    assert_bad_input(duelbot(*args), needle)


# -- adjudicate ------------------------------------------------------------------------


def test_adjudicate_json_from_stdin() -> None:
    run = duelbot("adjudicate", "--json", "-", stdin=json.dumps(ROUND))
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert list(out) == ["outcome", "winner", "locked", "rolls", "log", "seed", "commitment"]
    assert {k: v for k, v in out.items() if k != "log"} == PUBLISHED
    assert out["log"][0].startswith("2.14 Defences, Evade: ")
    assert out["log"][-1] == (
        "2.14 Attacks, Full Frontal Strike: the attack succeeds: Alice wins the duel"
    )


def test_adjudicate_from_a_file_and_stdin_without_argument(tmp_path: Path) -> None:
    path = tmp_path / "round.json"
    path.write_text(json.dumps(ROUND), encoding="utf-8")
    from_file = duelbot("adjudicate", "--json", str(path))
    from_stdin = duelbot("adjudicate", "--json", stdin=json.dumps(ROUND))
    assert from_file.returncode == 0 and from_stdin.returncode == 0
    assert from_file.stdout == from_stdin.stdout


def test_adjudicate_markdown_is_the_default() -> None:
    run = duelbot("adjudicate", stdin=json.dumps(ROUND))
    assert run.returncode == 0, run.stderr
    md = run.stdout
    assert "**Duel 1, round 1: Alice vs Bob**" in md
    assert "STR 8, AGI 3; move: **Full Frontal Strike**" in md
    assert "STR 2, AGI 5; move: **Evade**" in md
    assert "`duel:1:round:1:roll:0`: DICE-3 = 0" in md
    assert "`duel:1:round:1:roll:1`: DICE3 = 2 for Alice (Full Frontal Strike)" in md
    assert "**Outcome: Alice wins the duel**" in md and "a_wins" not in md
    assert "Winner: Alice" in md
    assert "Locked in combat: no" in md
    assert SEED in md and COMMITMENT in md
    assert "duelbot verify" in md
    assert "2.14 Attacks, Full Frontal Strike" in md


def test_adjudicate_bbcode() -> None:
    run = duelbot("adjudicate", "--bbcode", stdin=json.dumps(ROUND))
    assert run.returncode == 0, run.stderr
    bb = run.stdout
    assert "[b]Duel 1, round 1: Alice vs Bob[/b]" in bb
    assert "[*]duel:1:round:1:roll:1: DICE3 = 2 for Alice (Full Frontal Strike)" in bb
    assert bb.count("[list]") == bb.count("[/list]") == 3
    assert SEED in bb and COMMITMENT in bb
    assert "**" not in bb


def test_adjudicate_accepts_short_forms_null_moves_and_options() -> None:
    data = dict(ROUND, moves={"a": "FFS", "b": None}, options={"missing_move": "forfeit"})
    out = json.loads(duelbot("adjudicate", "--json", stdin=json.dumps(data)).stdout)
    assert out["outcome"] == "a_wins"
    assert out["rolls"] == []
    data = dict(ROUND, moves={"a": "flee", "b": "lock"}, locked=True,
                options={"locked_blocks_retreat": True})
    out = json.loads(duelbot("adjudicate", "--json", stdin=json.dumps(data)).stdout)
    assert out["outcome"] == "no_effect"
    assert out["locked"] is True
    assert out["winner"] is None


def test_adjudicate_draws_and_prints_a_seed_when_none_is_given() -> None:
    data = {k: v for k, v in ROUND.items() if k != "seed"}
    run = duelbot("adjudicate", "--json", stdin=json.dumps(data))
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert len(out["seed"]) == 64 and out["seed"] != SEED
    assert out["seed"] in run.stderr
    import hashlib

    assert out["commitment"] == hashlib.sha256(bytes.fromhex(out["seed"])).hexdigest()
    md = duelbot("adjudicate", stdin=json.dumps(data))
    assert "Seed (revealed): `" in md.stdout


def _with(**changes: Any) -> str:
    data = json.loads(json.dumps(ROUND))
    for path, value in changes.items():
        *parents, last = path.split("__")
        target = data
        for p in parents:
            target = target[p]
        if value is _DELETE:
            del target[last]
        else:
            target[last] = value
    return json.dumps(data)


_DELETE = object()


@pytest.mark.parametrize(
    ("stdin", "needles"),
    [
        ("{", ["not valid JSON", "line 1"]),
        ("[]", ["the input must be a JSON object"]),
        (_with(a=_DELETE), ["a is missing"]),
        (_with(a__str="5"), ["a.str", "whole number", "'5'"]),
        (_with(b__agi=1.5), ["b.agi", "whole number"]),
        (_with(b__name=""), ["b.name", "non-empty string"]),
        (_with(a__strength=3), ["a has unknown key(s) strength", "name, str, agi"]),
        (_with(moves__a="kick"), ["moves.a", "'kick' is not a move", "full_frontal_strike"]),
        (_with(moves__b=3), ["moves.b", "a move or null"]),
        (_with(moves__b=_DELETE), ["moves.b is missing"]),
        (_with(seed="abc"), ["seed", "64 hexadecimal"]),
        (_with(seed=42), ["seed", "64 hexadecimal"]),
        (_with(locked="no"), ["locked", "true or false"]),
        (_with(duel_id=_DELETE), ["duel_id is missing"]),
        (_with(round_no="1"), ["round_no", "whole number"]),
        (_with(options={"missing_move": "lose"}), ["options.missing_move", "none, forfeit"]),
        (_with(options={"locked_blocks_retreat": 1}), ["options.locked_blocks_retreat"]),
        (_with(options={"frobnicate": 1}), ["options has unknown key(s) frobnicate"]),
        (_with(lockd=True), ["unknown key(s) lockd"]),
        (_with(ruleset="foeq"), ["ruleset", "rule-2.14"]),
        (_with(a__str=10**30, moves={"a": "ffs", "b": None}), ["2**64"]),
    ],
)
def test_adjudicate_bad_input(stdin: str, needles: list[str]) -> None:
    assert_bad_input(duelbot("adjudicate", "--json", stdin=stdin), *needles)


def test_adjudicate_missing_file(tmp_path: Path) -> None:
    assert_bad_input(duelbot("adjudicate", str(tmp_path / "nope.json")), "cannot read")


def test_adjudicate_json_and_bbcode_are_exclusive() -> None:
    assert_bad_input(duelbot("adjudicate", "--json", "--bbcode"), "not allowed")


# -- verify ----------------------------------------------------------------------------


def nested(**published_changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = dict(json.loads(json.dumps(PUBLISHED)), log=[], input=ROUND)
    data.update(published_changes)
    return data


def flat(**changes: Any) -> dict[str, Any]:
    data = dict(json.loads(json.dumps(ROUND)))
    data.update(
        commitment=COMMITMENT,
        outcome=PUBLISHED["outcome"],
        winner=PUBLISHED["winner"],
        rolls=json.loads(json.dumps(PUBLISHED["rolls"])),
    )
    data.update(changes)
    return data


def verify(data: Any, *args: str) -> subprocess.CompletedProcess[str]:
    return duelbot("verify", *args, stdin=json.dumps(data))


def test_verify_the_adjudicate_output_merged_with_its_input(tmp_path: Path) -> None:
    published = json.loads(duelbot("adjudicate", "--json", stdin=json.dumps(ROUND)).stdout)
    path = tmp_path / "check.json"
    path.write_text(json.dumps(dict(published, input=ROUND)), encoding="utf-8")
    run = duelbot("verify", str(path))
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.startswith("OK")


def test_verify_flat_shape() -> None:
    run = verify(flat())
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.startswith("OK")
    assert verify(flat(locked_after=False)).returncode == 0
    assert verify(flat(locked_after=True)).returncode == 1


def test_verify_a_fresh_random_round() -> None:
    data = dict(ROUND, moves={"a": "evade", "b": "ffs"})
    data.pop("seed")
    data["a"] = {"name": "Alice", "str": 2, "agi": 9}
    published = json.loads(duelbot("adjudicate", "--json", stdin=json.dumps(data)).stdout)
    assert verify(dict(published, input=data)).returncode == 0


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        (nested(outcome="b_wins"), 'outcome: published "b_wins", the rules give "a_wins"'),
        (nested(winner="Bob"), "winner:"),
        (nested(winner=None), "winner:"),
        (nested(locked=True), "locked:"),
        (nested(rolls=[PUBLISHED["rolls"][0],
                       dict(PUBLISHED["rolls"][1], value=3)]),
         "rolls[1].value: published 3, re-derived from the seed 2"),
        (nested(rolls=[PUBLISHED["rolls"][0]]), "rolls: published 1 roll(s), the rules make 2"),
        (nested(rolls=[PUBLISHED["rolls"][0],
                       dict(PUBLISHED["rolls"][1], label="duel:1:round:2:roll:1")]),
         "rolls[1].label"),
        (nested(commitment="0" * 64), "commitment: published"),
        (nested(commitment="not even hex"), "commitment: published"),
        (flat(commitment="f" * 64), "commitment: published"),
        (flat(outcome="no_effect"), "outcome:"),
        (nested(input=dict(ROUND, moves={"a": "ss", "b": "evade"})), "outcome:"),
        (nested(input=dict(ROUND, seed="ff" * 32)), "seed: the input's seed"),
    ],
)
def test_verify_catches_tampering(data: dict[str, Any], needle: str) -> None:
    run = verify(data)
    assert run.returncode == 1, run.stdout + run.stderr
    assert run.stdout.startswith("NOT VERIFIED")
    assert needle in run.stdout, run.stdout


def test_verify_another_seed_with_its_own_commitment_is_caught_by_the_rolls() -> None:
    import hashlib

    other = "ab" * 32
    data = nested(seed=other, commitment=hashlib.sha256(bytes.fromhex(other)).hexdigest(),
                  input={k: v for k, v in ROUND.items() if k != "seed"})
    run = verify(data)
    # Same commitment check passes, but the rolls derived from the other seed differ.
    assert run.returncode == 1
    assert "rolls[1]" in run.stdout or "outcome" in run.stdout


def test_verify_json_report() -> None:
    run = verify(nested(outcome="b_wins"), "--json")
    assert run.returncode == 1
    report = json.loads(run.stdout)
    assert report["verified"] is False
    assert report["mismatches"] and report["expected"]["outcome"] == "a_wins"
    ok = json.loads(verify(nested(), "--json").stdout)
    assert ok["verified"] is True and ok["mismatches"] == []


@pytest.mark.parametrize(
    ("data", "needles"),
    [
        ([], ["JSON object"]),
        ({k: v for k, v in flat().items() if k != "seed"}, ["seed is missing"]),
        ({k: v for k, v in flat().items() if k != "commitment"}, ["commitment is missing"]),
        ({k: v for k, v in flat().items() if k != "outcome"}, ["outcome is missing"]),
        (flat(rolls="many"), ["rolls must be a list"]),
        (flat(seed="zz"), ["seed", "64 hexadecimal"]),
        (nested(input=dict(ROUND, a={"name": "A", "str": 1})), ["input.a.agi is missing"]),
        (nested(extra=1), ["unknown key(s) extra"]),
        (flat(commitment=5), ["commitment must be a string"]),
    ],
)
def test_verify_bad_input(data: Any, needles: list[str]) -> None:
    assert_bad_input(verify(data), *needles)


def test_verify_bad_json() -> None:
    assert_bad_input(duelbot("verify", stdin="not json"), "not valid JSON")


# -- the other subcommands -------------------------------------------------------------


def test_seed_command() -> None:
    import hashlib

    out = json.loads(duelbot("seed", "--json").stdout)
    assert out["commitment"] == hashlib.sha256(bytes.fromhex(out["seed"])).hexdigest()


def test_help_documents_the_verify_shapes() -> None:
    run = duelbot("verify", "--help")
    assert run.returncode == 0
    assert "locked_after" in run.stdout and '"input"' in run.stdout


_HIDE_MODULE = """
import importlib.abc
import sys


class Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == {module!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None


sys.meta_path.insert(0, Hide())
from bot.cli import main

raise SystemExit(main({args!r}))
"""


@pytest.mark.parametrize(
    ("args", "module"),
    [(["run"], "bot.cli.run"), (["db", "upgrade"], "bot.db.migrate"),
     (["health"], "bot.discord.health")],
)
def test_stub_commands_say_not_available_when_their_module_is_missing(
    args: list[str], module: str
) -> None:
    """The module is hidden from the import system, as before its author lands it."""
    run = subprocess.run(
        [sys.executable, "-c", _HIDE_MODULE.format(module=module, args=args)],
        capture_output=True, text=True, timeout=60,
    )
    assert_bad_input(run, "not available yet", module)


def test_stub_wrapper_unit() -> None:
    from bot.cli.common import NotAvailable, _lazy

    with pytest.raises(NotAvailable, match="not available yet"):
        _lazy("bot.discord.no_such_module_xyz", "check", "health")
    with pytest.raises(NotAvailable, match="does not exist"):
        _lazy("bot.exports.report", "no_such_function", "health")


def test_db_upgrade_with_a_missing_config_file_is_a_clean_error(tmp_path: Path) -> None:
    run = duelbot("db", "upgrade", "--config", str(tmp_path / "missing.toml"))
    assert_bad_input(run, "duelbot db upgrade: error:", "does not exist")
