"""Hostile exports (issue 23, items 6 and 7): real whole-duel exports of every ruleset, ended
and running, mutated by Hypothesis (keys deleted, values replaced by wrong types, 1e400,
10**30, empty objects, strings where lists belong, nested junk), through ``duelbot verify``
in-process (``bot.cli.main``) and a few through the real ``duelbot`` command.

Every run exits 0, 1 or 2 with no traceback; exit 2 is one line on stderr and nothing on
stdout; exit 1 names a round (or the duel) and a field; and a changed value of a field
verify compares (seed, commitment, a roll, the outcome, a choice, the result's state...) of
a round it checks never exits 0.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.cli.duels import duelbot
from tests.cli.exports import KINDS, Exports
from tests.fuzz.test_cli_json import run

INF = float("inf")
#: Values an attacker puts where something else belongs.
junk_leaf = st.one_of(
    st.sampled_from(
        [None, True, False, 0, -1, 1, 2, 10**30, -(10**30), 2**64 + 1, INF, -INF, 1.5,
         "", "x", "a", "b", "closed", "ended", "secret", "ab" * 32, {}, [], [[]], {"a": 1},
         {"a": {}, "b": []}, ["choices.b"], ["state_before"], [INF], {"corners": {"a": 1}}]
    ),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False),
    st.text(max_size=12),
)
junk = st.recursive(
    junk_leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)

#: The values of the report (issue 23): an empty object, true for a list, 1e400, 10**30, an
#: object of numbers; drawn as often as everything else together.
hostile = st.sampled_from([{}, True, INF, 10**30, {"a": 1}, 1, "x", [], None, [[]]])
replacement = st.one_of(hostile, junk)

SETTINGS = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)


def verify(doc: Any, *extra: str) -> tuple[int, str, str]:
    return run(["verify", *extra, "-"], json.dumps(doc).encode())


def check(doc: Any) -> tuple[int, str, str]:
    """One verify run on a hostile document: exit 0, 1 or 2, never a traceback; exit 2 is
    one line; exit 1 names the round (or the duel) and the field."""
    code, out, err = verify(doc)
    assert code in (0, 1, 2), (code, out, err)
    assert "Traceback" not in out + err, err
    if code == 2:
        assert out == "", out
        assert len(err.splitlines()) == 1, err
        assert err.startswith("duelbot verify: error: ") and len(err) > 30, err
    else:
        assert err == "", err
        # (split at newlines only: a quoted value may hold U+2028, not a line break on a
        # terminal)
        last = out.rstrip("\n").split("\n")[-1]
        if code == 1:
            assert re.match(r"NOT VERIFIED: (round \d+|duel): \S.*: ", last), last
        else:
            assert last.startswith("OK: duel "), last
    return code, out, err


def readjudicated_rounds(doc: dict[str, Any]) -> set[int]:
    code, out, _ = verify(doc, "--json")
    assert code == 0, out
    return {r["number"] for r in json.loads(out)["rounds"] if r["re_adjudicated"]}


_REDONE: dict[tuple[str, str], set[int]] = {}


def redone(exports: Exports, kind: tuple[str, str]) -> set[int]:
    """The rounds verify re-adjudicates in the unchanged export (once per export)."""
    if kind not in _REDONE:
        _REDONE[kind] = readjudicated_rounds(exports[kind])
    return _REDONE[kind]


def test_every_real_export_verifies(exports: Exports) -> None:
    for (ruleset, kind), doc in exports.items():
        code, out, _ = check(doc)
        assert code == 0, (ruleset, kind, out)
        if kind == "ended":  # nothing is withheld: every round is re-adjudicated
            assert len(readjudicated_rounds(doc)) == len(doc["rounds"]), out


# -- any mutation: never a traceback -----------------------------------------------------


def _containers(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every path to a key or an index of ``value``."""
    if isinstance(value, dict):
        for key, sub in value.items():
            yield (*path, key)
            yield from _containers(sub, (*path, key))
    elif isinstance(value, list):
        for i, sub in enumerate(value):
            yield (*path, i)
            yield from _containers(sub, (*path, i))


def _parent(doc: Any, path: tuple[Any, ...]) -> Any:
    for step in path[:-1]:
        doc = doc[step]
    return doc


class Mutated:
    """A mutated export; shown as what was changed (the document is long)."""

    def __init__(self, doc: dict[str, Any], changes: list[str]) -> None:
        self.doc = doc
        self.changes = changes

    def __repr__(self) -> str:
        return "; ".join(self.changes)


def _where(path: tuple[Any, ...]) -> str:
    return "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in path)


#: The parts of a round the mutations aim at most.
ROUND_PARTS = ("state_before", "withheld", "choices", "options", "result", "seed", "outcome")


@st.composite
def mutated(draw: st.DrawFn, exports: Exports) -> Mutated:
    kind = draw(st.sampled_from(KINDS))
    doc = copy.deepcopy(exports[kind])
    changes = [f"{kind[0]} {kind[1]}"]
    for _ in range(draw(st.integers(1, 3))):
        paths = list(_containers(doc))
        if draw(st.integers(0, 3)):
            # mostly what re-adjudication reads and compares, else anywhere in the document
            i = draw(st.integers(0, len(doc["rounds"]) - 1)) if doc.get("rounds") else 0
            key = draw(st.sampled_from(ROUND_PARTS))
            under = [p for p in paths if p[:3] == ("rounds", i, key)]
            if under and draw(st.booleans()):
                under = under[:1]  # the part itself ({} for the state, true for withheld)
            paths = under or paths
        path = draw(st.sampled_from(paths))
        parent = _parent(doc, path)
        if isinstance(parent, dict) and draw(st.booleans()):
            del parent[path[-1]]
            changes.append(f"del {_where(path)}")
        else:
            parent[path[-1]] = value = draw(replacement)
            changes.append(f"{_where(path)} = {value!r}")
    return Mutated(doc, changes)


@SETTINGS
@given(data=st.data())
def test_a_mutated_export_never_crashes_verify(exports: Exports, data: st.DataObject) -> None:
    check(data.draw(mutated(exports)).doc)


@settings(SETTINGS, max_examples=3)
@given(data=st.data())
def test_mutated_exports_through_the_real_command(exports: Exports, data: st.DataObject) -> None:
    """A few of them through the installed `duelbot` (a process of its own)."""
    forged = data.draw(mutated(exports))
    done = duelbot("verify", "-", stdin=json.dumps(forged.doc))
    assert done.returncode in (0, 1, 2), (forged, done.stderr)
    assert "Traceback" not in done.stderr, (forged, done.stderr)
    if done.returncode == 2:
        assert done.stdout == "" and done.stderr.count("\n") == 1, (forged, done.stderr)


# -- a changed compared field: never exit 0 -----------------------------------------------

#: What verify compares of every closed or undone round (commitment, seed, rolls, the
#: round's outcome) and, of a round it re-adjudicates, the result and the choices.
ALWAYS = ("seed", "commitment", "outcome", "result.rolls")
READJUDICATED = (
    "choices.a", "choices.b", "result.choices", "result.outcome", "result.winner",
    "result.ended", "result.state",
)  # fmt: skip
# (rule 2.14's lock is in result.state: a version 3 result has no top-level "locked")


@st.composite
def changed_compared_field(draw: st.DrawFn, exports: Exports) -> Mutated:
    kind = draw(st.sampled_from(KINDS))
    doc = copy.deepcopy(exports[kind])
    rounds = [r for r in doc["rounds"] if r["status"] in ("closed", "undone")]
    r = draw(st.sampled_from(rounds))
    checked = r["number"] in redone(exports, kind)
    fields = ALWAYS + (READJUDICATED if checked else ())
    name = draw(st.sampled_from(fields))
    *head, last = name.split(".")
    parent = r
    for key in head:
        parent = parent[key]
    old = parent[last]
    # deeper: a part of the value (a roll's value, a key of the state)
    if isinstance(old, list | dict) and old and draw(st.booleans()):
        paths = list(_containers(old))
        sub = draw(st.sampled_from(paths))
        if not checked and sub[-1] in ("for", "purpose"):
            # whose die and why follow from the rules: only a re-adjudication knows them
            sub = (*sub[:-1], "value")
        parent, last = _parent(old, sub), sub[-1]
        old = parent[last]
        name += _where(sub)
    # a choice spelled another way the rules read the same ("FFS"); (hex is hex in any case)
    respelled = [old.upper()] if isinstance(old, str) and name.startswith("choices") else []
    new = draw(junk | st.just(copy.deepcopy(old)).map(_nudge) | st.sampled_from(respelled or [1]))
    if _same(new, old):
        new = _nudge(old)
    parent[last] = new
    return Mutated(doc, [f"{kind[0]} {kind[1]}: round {r['number']} {name}: {old!r} -> {new!r}"])


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _nudge(value: Any) -> Any:
    """A value of the same type that differs."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return value + "x" if value else "x"
    if isinstance(value, list):
        return [*value, value[0] if value else 1]
    if isinstance(value, dict):
        return {**value, "x": 1} if value else {"a": 1}
    return "x" if value is None else None


@SETTINGS
@given(data=st.data())
def test_a_changed_compared_field_never_verifies(exports: Exports, data: st.DataObject) -> None:
    forged = data.draw(changed_compared_field(exports))
    code, out, _ = check(forged.doc)
    assert code != 0, (forged, out)
