"""A German duel for the archive and export tests (issue 28): a rule 2.14 duel whose
language is ``de`` (``duels.language``, as a German server's duel gets it at its start),
and its export read model as the services give it."""

from __future__ import annotations

from typing import Any

from bot.db.engine import Database
from bot.db.models import Duel
from bot.services.container import Services
from bot.services.views import DuelHistory
from tests.archive.duels import rule_2_14_duel
from tests.services.helpers import GUILD


class _DuelSpeaking:
    """The read model's duel with its language, for a read model that does not carry
    ``language`` yet (it reads the column the services write; issue 28)."""

    def __init__(self, duel: Any, language: str | None) -> None:
        self._duel = duel
        self.language = language

    def __getattr__(self, name: str) -> Any:
        return getattr(self._duel, name)


async def german_duel(services: Services, database: Database, *, finish: bool = True) -> int:
    """A whole rule 2.14 duel (one round undone) whose language is German."""
    duel_id = await rule_2_14_duel(services, finish=finish)
    async with database.transaction() as session:
        duel = await session.get(Duel, duel_id)
        assert duel is not None
        duel.language = "de"
    return duel_id


async def history_of(services: Services, database: Database, duel_id: int) -> DuelHistory:
    """The duel's export read model, carrying the duel's stored language."""
    history = await services.duels.history(duel_id, GUILD)
    async with database.transaction() as session:
        duel = await session.get(Duel, duel_id)
        assert duel is not None
        stored = duel.language
    if getattr(history.duel, "language", None) == stored:
        return history
    return DuelHistory(_DuelSpeaking(history.duel, stored), history.rounds)  # type: ignore[arg-type]
