"""Real whole-duel exports of every ruleset, ended and running, made once per test session
(played through the services on SQLite, exported by the function behind `duelbot export`),
for the hostile-input tests of `duelbot verify` (issue 23)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from bot.db import migrate
from bot.db.engine import make_database
from bot.exports.document import duel_document
from bot.services.container import Services
from tests.cli.duels import RULESETS, play_duel

#: (ruleset, "ended" | "live"), every combination.
KINDS = [(ruleset, kind) for ruleset in RULESETS for kind in ("ended", "live")]


class Exports(dict[tuple[str, str], dict[str, Any]]):
    """(ruleset, "ended" | "live") -> the export document."""

    def __repr__(self) -> str:  # Hypothesis prints a test's arguments: keep it short
        return f"Exports({sorted(self)})"


async def _export(url: str, ruleset: str, finish: bool) -> dict[str, Any]:
    duel_id = await play_duel(url, ruleset, finish=finish)
    db = make_database(url)
    try:
        history = await Services.create(db).exports.duel_export(duel_id)
    finally:
        await db.dispose()
    return json.loads(json.dumps(duel_document(history)))  # as `duelbot export` prints it


@pytest.fixture(scope="session")
def exports(tmp_path_factory: pytest.TempPathFactory) -> Exports:
    path = tmp_path_factory.mktemp("exports") / "duels.db"
    url = f"sqlite+aiosqlite:///{path}"
    migrate.upgrade_sync(url)
    return Exports(
        {
            (ruleset, kind): asyncio.run(_export(url, ruleset, kind == "ended"))
            for ruleset, kind in KINDS
        }
    )
