"""The archive's read side (ExportService.guild_exports): every duel of one server with its
rounds, as `duel_export` gives each, in one read; open rounds stay sealed; other servers'
duels never appear."""

from __future__ import annotations

from bot.db.engine import Database
from bot.services.container import Services
from tests.archive.duels import rule_2_14_duel
from tests.services.helpers import CAROL, CHANNEL, COMMANDER, DAVE, GUILD

OTHER_GUILD = GUILD + 1


async def test_guild_exports_match_the_export_of_each_duel(
    database: Database, services: Services
) -> None:
    archive = services.exports
    assert await archive.guild_exports(GUILD) == []
    ended = await rule_2_14_duel(services)
    live = await rule_2_14_duel(services, CAROL, DAVE, finish=False)
    for m in (CAROL, DAVE):
        await services.profiles.set_stats(OTHER_GUILD, COMMANDER, m, 3, 3)
    elsewhere = await services.duels.start_duel(
        guild_id=OTHER_GUILD, channel_id=CHANNEL + 1, actor_id=COMMANDER, a=CAROL, b=DAVE
    )

    histories = await archive.guild_exports(GUILD)
    assert [h.duel.id for h in histories] == [ended, live]
    assert histories == [await archive.duel_export(d, GUILD) for d in (ended, live)]
    assert [h.duel.id for h in await archive.guild_exports(OTHER_GUILD)] == [elsewhere.id]
    assert await archive.guild_ids() == [GUILD, OTHER_GUILD]

    # The open round of the live duel: its commitment, never its seed or result.
    last = histories[1].rounds[-1]
    assert last.status == "open" and last.seed is None and last.result is None
    assert last.commitment
    assert histories[1].duel.open_round is not None
    assert any(r.status == "undone" and r.undo_reason for r in histories[0].rounds)
