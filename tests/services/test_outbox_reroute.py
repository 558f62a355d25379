"""Issue 23 item 9, the outbox's part: a duel's post whose thread or forum post is gone is
given up there and queued again, in the same transaction as the duel's audit entry, to the
channel the poster found or else the commander's DM; never twice, never in a loop, and when
there is nowhere to send it the audit says so. Real database (SQLite and PostgreSQL)."""

from __future__ import annotations

from bot.db.engine import Database
from bot.services.container import Services
from bot.services.outbox import REROUTED_CHANNEL, REROUTED_DM
from tests.services.helpers import COMMANDER, audit_rows, new_duel, outbox_rows

OTHER_CHANNEL = 3000
GONE = "NotFound: 404 Not Found (error code: 10003): Unknown Channel"


async def the_card(database: Database, services: Services) -> int:
    duel = await new_duel(services)
    (card,) = await outbox_rows(database, duel_id=duel.id)
    return card.id


async def test_to_the_channel_then_if_that_is_gone_too_to_the_dm(
    database: Database, services: Services
) -> None:
    card = await the_card(database, services)
    assert await services.outbox.reroute(card, GONE, channel_id=OTHER_CHANNEL) == "channel"
    assert await services.outbox.reroute(card, GONE, channel_id=OTHER_CHANNEL) is None  # once
    rows = await outbox_rows(database)
    original, copy = rows
    assert original.status == "failed" and "re-sent as" in (original.last_error or "")
    assert (copy.target, copy.target_id, copy.status) == ("channel", OTHER_CHANNEL, "pending")
    assert copy.dedupe_key.endswith(REROUTED_CHANNEL) and copy.payload == original.payload

    # The fallback channel is gone too: the DM, not the same channel again.
    assert await services.outbox.reroute(copy.id, GONE, channel_id=OTHER_CHANNEL) == "dm"
    dm = (await outbox_rows(database))[-1]
    assert (dm.target, dm.target_id) == ("user", COMMANDER)
    assert dm.dedupe_key.endswith(REROUTED_DM) and REROUTED_CHANNEL not in dm.dedupe_key
    entries = await audit_rows(database, "post.rerouted")
    audit = [(a.details["to"], a.details["to_id"]) for a in entries]
    assert audit == [("channel", OTHER_CHANNEL), ("dm", COMMANDER)]


async def test_without_a_channel_the_commander_gets_it_by_dm(
    database: Database, services: Services
) -> None:
    card = await the_card(database, services)
    assert await services.outbox.reroute(card, GONE, channel_id=None) == "dm"
    (entry,) = await audit_rows(database, "post.rerouted")
    assert entry.details["to"] == "dm" and "10003" in entry.details["reason"]
