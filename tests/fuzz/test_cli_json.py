"""Bad input, the CLI: ``duelbot adjudicate`` and ``duelbot verify`` run in-process
(bot.cli.main(argv)) on mutated, random and raw JSON. Every run ends with exit 0 (or 1 for a
well-formed verify that does not match), or exit 2 with exactly one line on stderr and
nothing on stdout; never an exception or a traceback."""

from __future__ import annotations

import copy
import io
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from bot import cli
from tests.fuzz import budget
from tests.fuzz.strategies import hostile_text

SEED = "ab" * 32
BASE: dict[str, Any] = {
    "a": {"name": "Alice", "str": 7, "agi": 4},
    "b": {"name": "Bob", "str": 3, "agi": 5},
    "moves": {"a": "full_frontal_strike", "b": "evade"},
    "locked": False,
    "seed": SEED,
    "duel_id": 1,
    "round_no": 1,
    "options": {"missing_move": "none", "locked_blocks_retreat": False},
}


@contextmanager
def real_streams(stdin: bytes) -> Iterator[tuple[io.BytesIO, io.BytesIO]]:
    """stdin/stdout/stderr as a real process has them (UTF-8; strict except stderr)."""
    out, err = io.BytesIO(), io.BytesIO()
    wrappers = (
        io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"),
        io.TextIOWrapper(out, encoding="utf-8", write_through=True),
        io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace", write_through=True),
    )
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = wrappers
    try:
        yield out, err
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
        for wrapper in wrappers:
            wrapper.detach()  # keep the BytesIO buffers open


def run(argv: list[str], stdin: bytes = b"") -> tuple[int, str, str]:
    with real_streams(stdin) as (out, err):
        try:
            code = cli.main(argv)
        except SystemExit as exc:  # argparse
            code = exc.code if isinstance(exc.code, int) else 2
        sys.stdout.flush()
        sys.stderr.flush()
    return code, out.getvalue().decode(), err.getvalue().decode()


def check_run(argv: list[str], stdin: bytes = b"", *, may_mismatch: bool = False) -> int:
    code, out, err = run(argv, stdin)
    allowed = {0, 2} | ({1} if may_mismatch else set())
    assert code in allowed, (code, out, err)
    assert "Traceback" not in err
    if code == 2:
        assert out == ""
        lines = err.splitlines()
        assert len(lines) == 1, err
        assert lines[0].startswith("duelbot") and ": error: " in lines[0] and len(lines[0]) > 30
    elif code == 1:
        assert out.startswith("NOT VERIFIED") or '"verified": false' in out
    else:
        assert out
    return code


# -- strategies ---------------------------------------------------------------------------

json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.sampled_from([0, 1, -1, 2**63, 2**64 + 1, 10**4000]),
    st.floats(allow_nan=True, allow_infinity=True),
    hostile_text,
    st.sampled_from(["ffs", "evade", "ev", "Side Swipe", SEED, "zz" * 32, "forfeit", "none"]),
)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
PATHS = [
    (),
    ("a",),
    ("b",),
    ("a", "name"),
    ("a", "str"),
    ("a", "agi"),
    ("b", "str"),
    ("moves",),
    ("moves", "a"),
    ("moves", "b"),
    ("locked",),
    ("seed",),
    ("duel_id",),
    ("round_no",),
    ("options",),
    ("options", "missing_move"),
    ("options", "locked_blocks_retreat"),
    ("ruleset",),
    ("extra",),
    ("a", "extra"),
]


@st.composite
def mutated(draw: st.DrawFn, base: dict[str, Any]) -> Any:
    doc: Any = copy.deepcopy(base)
    for _ in range(draw(st.integers(0, 3))):
        path = draw(st.sampled_from(PATHS))
        if not path:
            if draw(st.integers(0, 9)) == 0:
                doc = draw(json_value)
            continue
        parent = doc
        for key in path[:-1]:
            parent = parent.get(key) if isinstance(parent, dict) else None
        if not isinstance(parent, dict):
            continue
        if draw(st.booleans()) and path[-1] in parent:
            del parent[path[-1]]
        else:
            parent[path[-1]] = draw(json_value)
    return doc


def encode(doc: Any) -> bytes:
    return json.dumps(doc, allow_nan=True).encode()


raw_inputs = st.one_of(
    st.binary(max_size=200),
    st.text(max_size=200).map(str.encode),
    st.sampled_from(
        [
            b"",
            b"{",
            b"[" * 100_000,
            b'{"a":' * 50_000,
            b'{"duel_id": ' + b"9" * 5000 + b"}",
            b'{"a": {"name": "\\ud800", "str": 1, "agi": 1}}',
            b"\xef\xbb\xbf{}",
            b"\xff\xfe{\x00}\x00",
            b"NaN",
            b'{"a": 1, "a": 2}',
        ]
    ),
)

adjudicate_docs = mutated(BASE)
FORMATS = st.sampled_from([[], ["--json"], ["--bbcode"], ["--markdown"]])


# -- adjudicate ---------------------------------------------------------------------------


def check_adjudicate(doc: Any, fmt: list[str]) -> None:
    check_run(["adjudicate", *fmt, "-"], encode(doc))


@budget.fast()
@given(adjudicate_docs, FORMATS)
@example({**BASE, "a": {"name": "\ud800", "str": 1, "agi": 1}}, [])  # was a traceback
@example({**BASE, "a\nb": 1}, ["--json"])  # an unknown key with a newline: one line
@example({**BASE, "a": {"name": "x", "str": 10**4000, "agi": 1}}, [])
def test_adjudicate(doc: Any, fmt: list[str]) -> None:
    check_adjudicate(doc, fmt)


@pytest.mark.slow
@budget.slow("cli_adjudicate")
@given(adjudicate_docs, FORMATS)
def test_adjudicate_100k(doc: Any, fmt: list[str]) -> None:
    check_adjudicate(doc, fmt)


def test_a_valid_round_still_adjudicates() -> None:
    code, out, _ = run(["adjudicate", "--json", "-"], encode(BASE))
    assert code == 0 and json.loads(out)["seed"] == SEED


# -- verify -------------------------------------------------------------------------------


def published() -> dict[str, Any]:
    code, out, _ = run(["adjudicate", "--json", "-"], encode(BASE))
    assert code == 0
    return {**json.loads(out), "input": BASE}


PUBLISHED = published()
FLAT = {
    **BASE,
    **{k: PUBLISHED[k] for k in ("commitment", "outcome", "winner", "rolls")},
    "locked_after": PUBLISHED["locked"],
}
verify_docs = st.one_of(mutated(PUBLISHED), mutated(FLAT))


def check_verify(doc: Any, fmt: list[str]) -> None:
    check_run(["verify", *fmt, "-"], encode(doc), may_mismatch=True)


@budget.fast()
@given(verify_docs, st.sampled_from([[], ["--json"]]))
@example(PUBLISHED, [])
@example({**PUBLISHED, "rolls": [{"label": "\ud800"}]}, [])
def test_verify(doc: Any, fmt: list[str]) -> None:
    check_verify(doc, fmt)


@pytest.mark.slow
@budget.slow("cli_verify")
@given(verify_docs, st.sampled_from([[], ["--json"]]))
def test_verify_100k(doc: Any, fmt: list[str]) -> None:
    check_verify(doc, fmt)


# -- raw bytes, from stdin and from a file -------------------------------------------------


def check_raw(data: bytes, command: str, tmp: Path | None) -> None:
    if tmp is None:
        check_run([command, "-"], data, may_mismatch=True)
    else:
        tmp.write_bytes(data)
        check_run([command, str(tmp)], may_mismatch=True)


@budget.fast()
@given(data=raw_inputs, command=st.sampled_from(["adjudicate", "verify"]), from_file=st.booleans())
def test_raw_bytes(data: bytes, command: str, from_file: bool, tmp_path: Path) -> None:
    check_raw(data, command, tmp_path / "in.json" if from_file else None)


@pytest.mark.slow
@budget.slow("cli_raw")
@given(data=raw_inputs, command=st.sampled_from(["adjudicate", "verify"]), from_file=st.booleans())
def test_raw_bytes_100k(data: bytes, command: str, from_file: bool, tmp_path: Path) -> None:
    check_raw(data, command, tmp_path / "in.json" if from_file else None)


@pytest.mark.parametrize(
    "argv", [["adjudicate", "/nonexistent/x.json"], ["verify", "/"], ["adjudicate", "--nope"]]
)
def test_unreadable_files_and_bad_flags(argv: list[str]) -> None:
    check_run(argv)
