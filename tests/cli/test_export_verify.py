"""`duelbot export` and `duelbot verify FILE|-` for a whole duel of every ruleset: a duel
played through the services, exported from the database (SQLite and PostgreSQL) in the
versioned JSON format, verified; then each kind of tampering is caught, naming the round and
the field; garbage is refused with exit 2. Also `duelbot adjudicate` of an exported round."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from bot.rules import registry
from tests.cli.duels import FOEQ, RULE_2_14, RULESETS, duelbot, play_duel


def _export(url: str, duel_id: int, fmt: str = "json") -> str:
    done = duelbot("export", "--duel", str(duel_id), "--format", fmt, url=url)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return done.stdout


def _verify(doc: dict[str, Any]) -> tuple[int, str]:
    done = duelbot("verify", "-", stdin=json.dumps(doc))
    assert done.stderr == "" or done.returncode == 2, done.stderr
    return done.returncode, done.stdout


def _checked_round(doc: dict[str, Any], *, rolls: bool = True) -> dict[str, Any]:
    """The last closed round that has a roll of a real die (a value to tamper with)."""
    for r in reversed(doc["rounds"]):
        if r["status"] == "closed" and (
            not rolls or any(x["sides"] > 1 for x in r["result"]["rolls"])
        ):
            return dict(r)
    raise AssertionError("no closed round with a die roll")


def _other_choice(doc: dict[str, Any], r: dict[str, Any]) -> tuple[str, str]:
    """A side that chose in round ``r`` and another legal choice it could have made, which
    the published result shows (a public choice)."""
    rules = registry.get(doc["ruleset"])
    state = rules.state_from_dict(r["state_before"])
    for side in ("a", "b"):
        chosen = r["choices"][side]
        if chosen is None or r["result"]["choices"].get(side) != chosen:
            continue
        for move in rules.moves(state, side):  # type: ignore[arg-type]
            if move.id != chosen:
                return side, move.id
    raise AssertionError(f"round {r['number']} has no public choice to change")


def _public_choice_round(doc: dict[str, Any]) -> dict[str, Any]:
    rules = registry.get(doc["ruleset"])
    for r in doc["rounds"]:
        if r["status"] != "closed":
            continue
        state = rules.state_from_dict(r["state_before"])
        for side in ("a", "b"):
            chosen = r["choices"][side]
            shown = chosen is not None and r["result"]["choices"].get(side) == chosen
            if shown and len(rules.moves(state, side)) > 1:  # type: ignore[arg-type]
                return r
    raise AssertionError("no round with a public choice")


def _tampered(doc: dict[str, Any], number: int, change: Any) -> dict[str, Any]:
    forged = copy.deepcopy(doc)
    for r in forged["rounds"]:
        if r["number"] == number:
            change(r)
    return forged


@pytest.mark.parametrize("ruleset", RULESETS)
async def test_a_whole_duel_exports_verifies_and_every_tampering_is_named(
    migrated_db_url: str, ruleset: str
) -> None:
    duel_id = await play_duel(migrated_db_url, ruleset)
    doc = json.loads(_export(migrated_db_url, duel_id))

    # the documented, versioned format (docs/export-format.md)
    assert doc["format"] == "duelbot-duel" and doc["version"] == 1
    assert doc["duel_id"] == duel_id and doc["ruleset"] == ruleset
    assert doc["status"] == "ended" and doc["secrets_revealed"] is True
    assert set(doc["options"]) >= {"change_of_choice", "missing_move"}
    rules = registry.get(ruleset)
    assert list(doc["house_rules"]) == [r.key for r in rules.house_rules()]
    assert doc["duellists"]["a"]["name"] == "Alice" and doc["duellists"]["a"]["summary"]
    for r in doc["rounds"]:
        assert r["status"] in ("closed", "undone")
        assert r["withheld"] == [] and r["seed"] and r["commitment"]
        assert isinstance(r["state_before"], dict) and set(r["choices"]) == {"a", "b"}
        for k, roll in enumerate(r["result"]["rolls"]):
            assert roll["label"] == f"duel:{duel_id}:round:{r['number']}:roll:{k}"
            assert set(roll) == {"label", "sides", "value", "for", "purpose"}
    if ruleset != FOEQ:  # FoEQ steps cannot be undone mid-duel (the next step is open)
        # The first round closed with no step opened at once is undone (in By This Axe a
        # forfeit opens the victim's choice at once: then a later round is).
        statuses = [r["status"] for r in doc["rounds"]]
        first = statuses.index("undone")
        assert doc["rounds"][first]["undo_reason"] == "misclick"
        assert doc["rounds"][first + 1]["follows_undo_of"] == doc["rounds"][first]["number"]

    code, out = _verify(doc)
    assert code == 0, out
    lines = out.splitlines()
    assert len(lines) == len(doc["rounds"]) + 1  # one line per round and a summary
    assert lines[-1].startswith(f"OK: duel {duel_id}")
    assert all("re-adjudicated" in line for line in lines[:-1])

    # one roll's value
    r = _checked_round(doc)
    k = next(i for i, x in enumerate(r["result"]["rolls"]) if x["sides"] > 1)
    roll = r["result"]["rolls"][k]
    forged = _tampered(
        doc,
        r["number"],
        lambda x: x["result"]["rolls"][k].update(value=roll["value"] % roll["sides"] + 1),
    )
    code, out = _verify(forged)
    assert code == 1
    assert out.splitlines()[-1].startswith(f"NOT VERIFIED: round {r['number']}: ")
    assert f"round {r['number']}: rolls[{k}].value: published" in out

    # a seed (another valid seed: the rolls no longer re-derive from it)
    other_seed = ("0" if r["seed"][0] != "0" else "1") + r["seed"][1:]
    code, out = _verify(_tampered(doc, r["number"], lambda x: x.update(seed=other_seed)))
    # (with few rolls verify cannot tell a changed seed from a changed commitment)
    assert code == 1 and f"NOT VERIFIED: round {r['number']}: seed" in out

    # a commitment
    other_commitment = ("0" if r["commitment"][0] != "0" else "1") + r["commitment"][1:]
    code, out = _verify(
        _tampered(doc, r["number"], lambda x: x.update(commitment=other_commitment))
    )
    summary = out.splitlines()[-1]
    assert code == 1 and summary.startswith(f"NOT VERIFIED: round {r['number']}: ")
    assert "commitment" in summary.split(":")[2]

    # a choice
    c = _public_choice_round(doc)
    side, move = _other_choice(doc, c)
    code, out = _verify(_tampered(doc, c["number"], lambda x: x["choices"].update({side: move})))
    assert code == 1, out
    assert f"NOT VERIFIED: round {c['number']}: choices.{side}:" in out

    # an outcome: in the result, and the round's own copy of it
    def other_outcome(x: dict[str, Any]) -> str:
        return "b_wins" if x["outcome"] != "b_wins" else "a_wins"

    code, out = _verify(
        _tampered(doc, r["number"], lambda x: x["result"].update(outcome=other_outcome(x)))
    )
    assert code == 1 and f"NOT VERIFIED: round {r['number']}: outcome:" in out
    code, out = _verify(_tampered(doc, r["number"], lambda x: x.update(outcome=other_outcome(x))))
    assert code == 1 and f"NOT VERIFIED: round {r['number']}: outcome:" in out

    # the state before a round (a fighter's sheet changed between rounds)
    last = doc["rounds"][-1]
    if last["number"] > 1:
        def stronger(x: dict[str, Any]) -> None:
            x["state_before"]["a"]["name"] = "Mallory"

        code, out = _verify(_tampered(doc, last["number"], stronger))
        assert code == 1 and f"round {last['number']}: state_before.a.name:" in out


@pytest.mark.parametrize("ruleset", RULESETS)
async def test_a_running_duel_exports_only_what_is_public(
    migrated_db_url: str, ruleset: str
) -> None:
    duel_id = await play_duel(migrated_db_url, ruleset, finish=False)
    text = _export(migrated_db_url, duel_id)
    doc = json.loads(text)
    assert doc["status"] == "live" and doc["secrets_revealed"] is False
    open_round = doc["rounds"][-1]
    assert open_round["status"] == "open"
    assert open_round["seed"] is None and open_round["result"] is None
    assert open_round["choices"] is None and open_round["outcome"] is None
    assert {"seed", "choices.a", "choices.b", "result"} <= set(open_round["withheld"])
    if ruleset == FOEQ:
        # no true stake, Style, slot or private note while the duel runs
        for secret in ('"stake":', '"style":', '"slot":', '"notes"', "death", "quick"):
            assert secret not in text, secret
        assert doc["rounds"][0]["choices"] == {"a": None, "b": None}
    code, out = _verify(doc)
    assert code == 0, out
    lines = out.splitlines()
    assert f"round {open_round['number']} (open): not re-adjudicated" in lines[-2]
    assert "not re-adjudicated" in lines[-1]
    if ruleset == FOEQ:
        assert "withheld while the duel runs" in lines[0]
    else:
        assert all(": OK: " in line for line in lines[:-2])


async def test_export_of_an_unknown_duel_is_one_line_and_exit_2(migrated_db_url: str) -> None:
    done = duelbot("export", "--duel", "999", "--format", "json", url=migrated_db_url)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "no duel #999" in done.stderr
    huge = duelbot("export", "--duel", str(2**40), url=migrated_db_url)
    assert huge.returncode == 2 and huge.stderr.count("\n") == 1


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("fmt", ["markdown", "bbcode"])
async def test_markdown_and_bbcode_export_of_every_ruleset(
    migrated_db_url: str, ruleset: str, fmt: str
) -> None:
    duel_id = await play_duel(migrated_db_url, ruleset)
    done = duelbot("export", "--duel", str(duel_id), "--format", fmt, url=migrated_db_url)
    assert done.returncode == 0, done.stderr[-2000:]
    heading = f"# Duel {duel_id}: Alice vs Bob" if fmt == "markdown" else f"[b]Duel {duel_id}:"
    assert done.stdout.startswith(heading)
    doc = json.loads(_export(migrated_db_url, duel_id))
    for r in doc["rounds"]:
        assert r["seed"] in done.stdout  # every round is in it, with its seed


async def test_export_to_a_file(migrated_db_url: str, tmp_path: Any) -> None:
    duel_id = await play_duel(migrated_db_url, RULE_2_14)
    target = tmp_path / "duel.json"
    done = duelbot("export", "--duel", str(duel_id), "--output", str(target), url=migrated_db_url)
    assert done.returncode == 0 and done.stdout == ""
    assert duelbot("verify", str(target)).returncode == 0


@pytest.mark.parametrize("ruleset", RULESETS)
async def test_adjudicate_a_round_of_the_export(migrated_db_url: str, ruleset: str) -> None:
    """`duelbot adjudicate` takes a round as exported plus the ruleset and the duel id, and
    gives the published result."""
    duel_id = await play_duel(migrated_db_url, ruleset)
    doc = json.loads(_export(migrated_db_url, duel_id))
    r = _checked_round(doc, rolls=False)
    given = {"ruleset": ruleset, "duel_id": duel_id, **r}
    done = duelbot("adjudicate", "--json", "-", stdin=json.dumps(given))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["outcome"] == r["result"]["outcome"] == r["outcome"]
    assert out["winner"] == r["result"]["winner"]
    assert out["rolls"] == r["result"]["rolls"]
    assert out["seed"] == r["seed"] and out["commitment"] == r["commitment"]
    assert out["round_no"] == r["number"] and out["ruleset"] == ruleset
    # the minimal input: only what adjudication needs
    minimal = {
        key: given[key] for key in ("ruleset", "duel_id", "state_before", "choices", "seed")
    }
    minimal |= {"round_no": r["number"], "options": r["options"]}
    again = duelbot("adjudicate", "--json", "-", stdin=json.dumps(minimal))
    assert again.returncode == 0 and json.loads(again.stdout)["rolls"] == out["rolls"]


def test_adjudicate_refuses_a_bad_round_of_any_ruleset() -> None:
    state = {"a": {"name": "A", "str": 1, "agi": 1}, "b": {"name": "B", "str": 1, "agi": 1}}
    cases = [
        ({"ruleset": "chess", "duel_id": 1, "round_no": 1, "state_before": state,
          "choices": {}}, "ruleset: Unknown ruleset 'chess'"),
        ({"duel_id": 1, "round_no": 1, "state_before": state, "choices": {"c": "x"}},
         "choices has unknown key(s) c"),
        ({"duel_id": 1, "state_before": state, "choices": {}}, "round_no is missing"),
        ({"duel_id": 1, "round_no": 1, "state_before": [], "choices": {}},
         "state_before must be a JSON object"),
        ({"duel_id": 1, "round_no": 1, "state_before": state, "choices": {"a": 3}},
         "choices.a must be a string or null"),
        ({"duel_id": 1, "round_no": 1, "state_before": state, "choices": {"a": "dance"}},
         "dance"),
    ]  # fmt: skip
    for given, message in cases:
        done = duelbot("adjudicate", "--json", "-", stdin=json.dumps(given))
        assert done.returncode == 2, (given, done.stdout)
        assert message in done.stderr and done.stderr.count("\n") == 1, done.stderr


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json at all", "not valid JSON"),
        ('{"format": "duelbot-duel", "version": 99, "rounds": []}', "version 99 is not"),
        ('{"format": "duelbot-duel", "version": 1, "duel_id": 1, "ruleset": "rule-2.14", '
         '"rounds": {}}', "rounds must be a list"),
        ('{"format": "duelbot-duel", "version": 1, "duel_id": 1, "ruleset": "chess", '
         '"rounds": []}', "Unknown ruleset"),
        ('{"format": "duelbot-duel", "version": 1, "duel_id": 1, "ruleset": "rule-2.14", '
         '"rounds": [{"number": 1, "status": "won"}]}', "rounds[0].status must be one of"),
        ("[1, 2]", "must be a JSON object"),
    ],
)
def test_verify_refuses_unreadable_input_with_exit_2(text: str, message: str) -> None:
    done = duelbot("verify", "-", stdin=text)
    assert done.returncode == 2 and done.stdout == ""
    assert message in done.stderr and done.stderr.count("\n") == 1, done.stderr
