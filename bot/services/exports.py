"""The read model behind exports (`/duel export`, `duelbot export`): a duel's history with,
per round, the state before it, each side's choices and the options it was adjudicated with,
so that anyone can re-adjudicate it (`duelbot verify`, docs/export-format.md).

Secrets stay sealed exactly as everywhere else: an open round gives only its number,
commitment and deadline (never its seed or moves); a cancelled round's moves are never
shown; while the duel runs, the state before a round is only its public part
(``Ruleset.public_state``) and a side's choice only when the round's published result shows
it (a FoEQ secret step does not). Once the duel has ended, everything is revealed.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

from bot.db import queries
from bot.db.engine import Database
from bot.db.models import Duel, Round, fits_id
from bot.rules.adjudication import adjudication_keys
from bot.rules.base import Ruleset
from bot.rules.capabilities import HouseRules, capability
from bot.rules.errors import RulesError
from bot.services.duel_support import (
    duel_view,
    is_sealed,
    round_record,
    ruleset_of,
)
from bot.services.published import read_published
from bot.services.scope import DuelScope
from bot.services.unit import transaction
from bot.services.views import DuelHistory, RoundRecord

#: What a round's ``withheld`` list names (docs/export-format.md).
WITHHELD_SEED = "seed"
WITHHELD_RESULT = "result"
WITHHELD_STATE = "state_before"


def adjudication_options(rules: Ruleset, in_force: Mapping[str, Any]) -> dict[str, Any]:
    """The options a round's close gave ``Ruleset.make_options``: the outcome-changing server
    settings fixed for the duel, its explicit house rules (already in its state too) and
    every house rule in force (a server's default among them, which a ruleset such as
    rule 2.14 does not record in its state: without it a re-run could differ)."""
    options = {key: in_force[key] for key in adjudication_keys(rules) if key in in_force}
    house_rules = capability(rules, HouseRules)
    if house_rules is None:  # no house rule can be in force
        return options
    params = in_force.get("params")
    if isinstance(params, Mapping):
        # Normalised as read: a legacy key counts as the house rule it stands for.
        options.update(house_rules.explicit_house_rules(house_rules.stored_params(params)))
    house = in_force.get("house_rules")
    if isinstance(house, Mapping):
        # One stored under an older reading is skipped: the state's own apply, as they did
        # at the close.
        with contextlib.suppress(RulesError):
            options.update(house_rules.explicit_house_rules(house))
    return options


class ExportService:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def duel_export(self, duel_id: int, guild_id: int | None = None) -> DuelHistory:
        """The duel's history for an export: this server's duel (``guild_id``; None, the
        command line: any duel), every round with what may be published of it."""
        scope = DuelScope(guild_id=guild_id)
        async with transaction(self._db) as session:
            if not fits_id(duel_id):
                raise scope.not_found(duel_id)
            duel = await queries.duel(session, duel_id)
            if duel is None or not scope.includes(duel):
                raise scope.not_found(duel_id)
            return (await self._histories(session, [duel]))[0]

    async def guild_ids(self) -> list[int]:
        """The servers that have duels (`duelbot archive` without --guild)."""
        async with transaction(self._db) as session:
            return await queries.guild_ids_with_duels(session)

    async def guild_exports(self, guild_id: int) -> list[DuelHistory]:
        """Every duel of ``guild_id`` (live and ended, oldest first) as ``duel_export`` gives
        it, in one transaction (the archive site, issue 15)."""
        async with transaction(self._db) as session:
            return await self._histories(session, await queries.duels_of_guild(session, guild_id))

    async def _histories(self, session: Any, duels: list[Duel]) -> list[DuelHistory]:
        rounds = await queries.rounds_of_duels(session, [d.id for d in duels])
        chosen = await queries.standing_choices(
            session, [r.id for rs in rounds.values() for r in rs]
        )
        histories = []
        for duel in duels:
            rules = ruleset_of(duel.ruleset)
            revealed = duel.status == "ended"
            records = [
                self._record(rules, dict(duel.options or {}), r, chosen.get(r.id, {}), revealed)
                for r in rounds[duel.id]
            ]
            open_round = next((r for r in rounds[duel.id] if r.status == "open"), None)
            sides = set(chosen.get(open_round.id, {})) if open_round is not None else set()
            histories.append(DuelHistory(duel_view(duel, open_round, sides), tuple(records)))
        return histories

    @staticmethod
    def _record(
        rules: Ruleset,
        duel_options: dict[str, Any],
        r: Round,
        submitted: Mapping[str, str],
        revealed: bool,
    ) -> RoundRecord:
        withheld: list[str] = []
        sealed = is_sealed(r)
        before = dict(r.state_before or {})
        state_before = before if revealed else rules.public_state(before)
        if state_before != before:
            withheld.append(WITHHELD_STATE)
        result = None if sealed or r.result is None else read_published(r.result)
        choices: dict[str, str | None] | None = None
        if sealed:
            withheld += [WITHHELD_SEED, "choices.a", "choices.b", WITHHELD_RESULT]
        elif result is None:
            # A cancelled round never resolved: its moves stay sealed for good.
            withheld += ["choices.a", "choices.b"]
        else:
            choices = {}
            for side in ("a", "b"):
                move = submitted.get(side)
                if revealed or move is None or result.choices.of(side) == move:
                    choices[side] = move
                else:
                    choices[side] = None
                    withheld.append(f"choices.{side}")
        in_force = (result.options.as_mapping() if result is not None else None) or duel_options
        return round_record(
            r,
            state_before=state_before,
            choices=choices,
            options=adjudication_options(rules, in_force),
            withheld=tuple(withheld),
        )
