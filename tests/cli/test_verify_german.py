"""`duelbot verify` of a German duel's export (issue 28): the rounds were adjudicated in
German (the duel's language, the server's at its start) and their logs are German; verify
re-adjudicates each round in the document's ``language`` and passes, its own output staying
English; tampering is still caught. A ruleset may keep texts in its state (FoEQ's notes):
re-adjudicated in another language they would not match, so verify speaks the duel's."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from bot.db.engine import Database
from bot.exports.formats import duel_json
from bot.exports.verify import UnreadableExport, verify_duel
from bot.i18n.context import current_language
from bot.rules import registry
from bot.services.container import Services
from tests.archive.duels import rule_2_14_duel
from tests.cli.duels import FOEQ, _foeq, _play, duelbot
from tests.services.helpers import ALICE, BOB, CHANNEL, COMMANDER, GUILD
from tests.services.test_foeq_flow import ALICE_SHEET, BOB_SHEET


@pytest.fixture
def services(database: Database) -> Services:
    return Services.create(database)


async def german_export(services: Services, database: Database, ruleset: str) -> dict[str, Any]:
    """A whole duel on a server whose language is German, exported."""
    await services.settings.set_language(GUILD, COMMANDER, "de")
    if ruleset == FOEQ:
        await services.profiles.set_sheet(GUILD, COMMANDER, ALICE, ruleset, ALICE_SHEET)
        await services.profiles.set_sheet(GUILD, COMMANDER, BOB, ruleset, BOB_SHEET)
        duel = await services.duels.start_duel(
            guild_id=GUILD, channel_id=CHANNEL, actor_id=COMMANDER, a=ALICE, b=BOB,
            ruleset=ruleset, params={"public_stake": "pride", "challenger": "a"},
        )  # fmt: skip
        await _play(services, database, duel.id, _foeq)
        duel_id = duel.id
    else:
        duel_id = await rule_2_14_duel(services)
    return duel_json(await services.exports.duel_export(duel_id, GUILD))


def _verify(doc: dict[str, Any]) -> tuple[int, str]:
    done = duelbot("verify", "-", stdin=json.dumps(doc))
    assert done.stderr == "", done.stderr
    return done.returncode, done.stdout


async def test_a_german_rule_2_14_duel_verifies_and_tampering_is_caught(
    services: Services, database: Database
) -> None:
    doc = await german_export(services, database, "rule-2.14")
    assert doc["language"] == "de"
    logs = [line for r in doc["rounds"] for line in (r.get("result") or {}).get("log", [])]
    assert any(" würfelt DICE" in line for line in logs), logs
    assert not any(" rolls DICE" in line for line in logs), logs

    code, out = _verify(doc)
    assert code == 0, out
    assert out.splitlines()[-1].startswith(f"OK: duel {doc['duel_id']} (rule-2.14)")

    closed = next(
        r for r in reversed(doc["rounds"])
        if r["status"] == "closed" and any(x["sides"] > 1 for x in r["result"]["rolls"])
    )  # fmt: skip
    index = doc["rounds"].index(closed)
    rolled = copy.deepcopy(doc)
    roll = rolled["rounds"][index]["result"]["rolls"][-1]
    roll["value"] = roll["value"] % roll["sides"] + 1
    code, out = _verify(rolled)
    assert code == 1 and "NOT VERIFIED" in out and "value" in out, out

    decided = copy.deepcopy(doc)
    decided["rounds"][index]["result"]["winner"] = (
        "b" if closed["result"]["winner"] == "a" else "a"
    )
    code, out = _verify(decided)
    assert code == 1 and f"round {closed['number']}" in out and "winner" in out, out


async def test_a_german_foeq_duel_verifies_in_its_language(
    services: Services, database: Database
) -> None:
    doc = await german_export(services, database, FOEQ)
    assert doc["language"] == "de"
    check = verify_duel(doc)
    assert check.verified, check.first_mismatch
    assert check.summary().startswith("OK: duel")
    code, out = _verify(doc)
    assert code == 0, out


@pytest.mark.parametrize("language", [7, "", ["de"]])
def test_a_language_that_is_no_name_is_refused(language: Any) -> None:
    doc = {"format": "duelbot-duel", "version": 1, "duel_id": 1, "ruleset": "rule-2.14",
           "rounds": [], "status": "live", "language": language}  # fmt: skip
    with pytest.raises(UnreadableExport, match="language must be"):
        verify_duel(doc)


async def test_verify_re_adjudicates_in_the_documents_language(
    services: Services, database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = await german_export(services, database, "rule-2.14")
    rules = registry.get("rule-2.14")
    spoken: list[str] = []
    readjudicate_round = rules.readjudicate_round

    def recording(data: Any) -> Any:
        spoken.append(current_language())
        return readjudicate_round(data)

    monkeypatch.setattr(rules, "readjudicate_round", recording)
    assert verify_duel(doc).verified
    assert spoken and set(spoken) == {"de"}
    spoken.clear()
    assert verify_duel({**doc, "language": None}).verified  # rule 2.14 keeps no text
    assert set(spoken) == {"en"}
    assert current_language() == "en"
