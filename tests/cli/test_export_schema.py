"""The export document is the codec's output (issue 25): its JSON Schema, generated from its
types, is the one docs/export-format.md publishes; every ruleset's export reads back strictly
as those types; and an export whose results were stored before the published round was
typed (no ``version`` in a result) still verifies.

Run as a script to write the generated schema into the doc:
``.venv/bin/python -m tests.cli.test_export_schema``.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest

from bot.exports.document import DuelDocument, document_schema
from bot.exports.verify import verify_duel
from bot.services.published import PUBLISHED_VERSION, json_object
from tests.cli.exports import KINDS, Exports

DOC = Path(__file__).resolve().parents[2] / "docs" / "export-format.md"
BLOCK = re.compile(r"(<!-- schema:begin -->\n```json\n)(.*?)(\n```\n<!-- schema:end -->)", re.S)


def generated_schema_text() -> str:
    return json.dumps(document_schema(), indent=2, ensure_ascii=False)


def published_schema_text() -> str:
    found = BLOCK.search(DOC.read_text(encoding="utf-8"))
    assert found is not None, f"{DOC} has no schema block (<!-- schema:begin --> ... end)"
    return found.group(2)


def test_the_published_schema_is_the_generated_one() -> None:
    assert json.loads(published_schema_text()) == document_schema(), (
        "docs/export-format.md's schema differs from the export types: run "
        "`.venv/bin/python -m tests.cli.test_export_schema` and review the change "
        "(a removed or renamed field needs a new export version)"
    )


def test_the_schema_check_notices_a_changed_field() -> None:
    schema = document_schema()
    changed = copy.deepcopy(schema)
    changed["$defs"]["RoundDocument"]["properties"].pop("seed")
    assert changed != schema  # what the test above compares is the whole schema
    assert "PublishedRound" in schema["$defs"]  # a round's result is typed in it too


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: f"{k[0]}-{k[1]}")
def test_every_export_reads_back_strictly_as_its_types(
    exports: Exports, kind: tuple[str, str]
) -> None:
    document = exports[kind]
    typed = msgspec.json.decode(json.dumps(document), type=DuelDocument, strict=True)
    assert json_object(typed) == document  # the document is exactly the codec's output
    closed = [r for r in typed.rounds if r.result is not None]
    assert closed, "a played duel has published rounds"
    for r in closed:
        assert r.result is not None and r.outcome == r.result.outcome
        assert r.result.names.a == document["duellists"]["a"]["name"]
    raw = [r["result"] for r in document["rounds"] if r["result"] is not None]
    assert {result["version"] for result in raw} == {PUBLISHED_VERSION}


def test_a_document_of_another_shape_is_refused_by_the_types(exports: Exports) -> None:
    document = copy.deepcopy(exports[("rule-2.14", "ended")])
    document["rounds"][0]["result"]["rolls"][0]["sides"] = "six"
    with pytest.raises(msgspec.ValidationError, match=r"rounds\[0\].result.rolls\[0\].sides"):
        msgspec.convert(document, DuelDocument)


def _as_stored_before(document: dict[str, Any]) -> dict[str, Any]:
    """An export whose results were stored before the published round was typed: no
    ``version`` and no ``names`` in a result, ``via`` only of the sides that moved."""
    old = copy.deepcopy(document)
    for r in old["rounds"]:
        result = r["result"]
        if result is None:
            continue
        del result["version"], result["names"]
        result["via"] = {s: v for s, v in result["via"].items() if v is not None}
    return old


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: f"{k[0]}-{k[1]}")
def test_an_export_of_results_stored_before_still_verifies(
    exports: Exports, kind: tuple[str, str]
) -> None:
    assert verify_duel(exports[kind]).verified
    old = _as_stored_before(exports[kind])
    assert all("version" not in (r["result"] or {}) for r in old["rounds"])
    check = verify_duel(old)
    assert check.verified, check.first_mismatch


def main() -> None:
    text = DOC.read_text(encoding="utf-8")
    if BLOCK.search(text) is None:
        raise SystemExit(f"{DOC} has no schema block to replace")
    DOC.write_text(
        BLOCK.sub(lambda m: m.group(1) + generated_schema_text() + m.group(3), text),
        encoding="utf-8",
    )
    print(f"wrote the generated schema into {DOC}")


if __name__ == "__main__":
    main()
