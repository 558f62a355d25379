"""The command line asks the ruleset (issue 11): the test-only fourth ruleset, once
registered, has its own `duelbot odds` flags and report, and `duelbot adjudicate` takes
its rounds, with no change to bot/cli (run in this process: a subprocess could not
know a ruleset that only a test registers)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest

from bot import cli
from bot.rules import registry
from bot.rules.base import Fighter
from tests.rulesets.fencing import FENCING, RULESET_ID

ODDS = ("odds", "--ruleset", RULESET_ID, "--a-skill", "1", "--a-action", "feint",
        "--b-skill", "0", "--b-action", "f")  # fmt: skip


@pytest.fixture(autouse=True)
def fencing() -> Iterator[None]:
    registry.register(FENCING)
    try:
        yield
    finally:
        registry.unregister(RULESET_ID)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_odds_of_a_registered_ruleset(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, *ODDS, "--json")
    assert code == 0, err
    data = json.loads(out)
    # Same action: d6 + 1 against d6 + 0. Ann scores on 21 of 36, Bob on 10, no touch on 5.
    assert data == {
        "ruleset": RULESET_ID,
        "outcomes": {"a_touch": "7/12", "b_touch": "5/18", "no_touch": "5/36"},
    }
    assert sum(Fraction(p) for p in data["outcomes"].values()) == 1
    code, out, err = run(capsys, *ODDS)
    assert code == 0 and "a_touch  7/12" in out, err


def test_odds_flags_belong_to_their_ruleset(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, *ODDS, "--a-str", "3")
    assert code == 2 and f"--a-str cannot be used with --ruleset {RULESET_ID}" in err, err
    code, _, err = run(capsys, "odds", "--a-str", "1", "--a-agi", "1", "--b-str", "1",
                       "--b-agi", "1", "--a-skill", "2")
    assert code == 2 and "--a-skill cannot be used with --ruleset rule-2.14" in err, err
    code, _, err = run(capsys, "odds", "--ruleset", RULESET_ID, "--a-skill", "1")
    assert code == 2 and "required: --a-action, --b-skill, --b-action" in err, err
    code, _, err = run(capsys, *ODDS[:-1], "lunge")
    assert code == 2 and "'lunge' is not a fencing action" in err, err
    code, _, err = run(capsys, *ODDS, "--option", "touches=9")
    assert code == 2 and "touches must be one of 1, 2, 3" in err, err


def test_adjudicate_a_round_of_a_registered_ruleset(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    state = FENCING.initial_state(Fighter("Ann", {"skill": 1}), Fighter("Bob", {"skill": 1}), {})
    round_input = {
        "ruleset": RULESET_ID,
        "duel_id": 3,
        "round_no": 1,
        "state_before": state.to_dict(),
        "choices": {"a": "t", "b": "feint"},
        "seed": "ab" * 32,
    }
    path = tmp_path / "round.json"
    path.write_text(json.dumps(round_input), encoding="utf-8")
    code, out, err = run(capsys, "adjudicate", "--json", str(path))
    assert code == 0, err
    data = json.loads(out)
    assert (data["outcome"], data["winner_name"], data["choices"]) == (
        "a_touch", None, {"a": "thrust", "b": "feint"}
    )
