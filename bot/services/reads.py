"""Read models of duels: a duel, the server's list, a duellist's open rounds and choices,
the odds of the next round, the open round's status, the history and a published round.
Nothing here writes; each method is one (read) transaction and returns plain views."""

from __future__ import annotations

from typing import Any

from bot.db import queries
from bot.db.models import fits_id
from bot.i18n.context import _, speaking
from bot.rules import registry
from bot.rules.adjudication import adjudication_keys, adjudication_settings
from bot.rules.base import SIDES
from bot.rules.capabilities import ExactOdds, MultiStep, ShortAdjudication, capability
from bot.services.duel_support import (
    DuelUseCases,
    duel_view,
    legal_moves,
    other_side,
    round_record,
    ruleset_of,
    side_of,
)
from bot.services.errors import InvalidInput, NextStep, NotFound, StateConflict
from bot.services.published import read_published
from bot.services.scope import DuelScope
from bot.services.unit import transaction
from bot.services.views import (
    DuelHistory,
    DuelOdds,
    DuelView,
    OpenDuelForUser,
    RoundStatus,
)

ODDS_MAX_PAIRS = 25  # one table in one embed


class DuelReads(DuelUseCases):
    async def get_duel(
        self, duel_id: int, guild_id: int | None = None, *, scope: DuelScope | None = None
    ) -> DuelView:
        async with transaction(self._db) as session:
            duel = await self._get_duel(session, duel_id, guild_id, scope=scope)
            return await self._view(session, duel)

    async def list_duels(
        self, guild_id: int, *, include_ended: bool = False, limit: int = 25
    ) -> list[DuelView]:
        return await self.duels_in_scope(
            DuelScope(guild_id=guild_id), include_ended=include_ended, limit=limit
        )

    async def duels_in_scope(
        self, scope: DuelScope, *, include_ended: bool = False, limit: int = 25
    ) -> list[DuelView]:
        """The newest duels the scope includes (a server's, or a user's own)."""
        if scope.unrestricted:
            raise ValueError("listing duels needs a server or a duellist")
        async with transaction(self._db) as session:
            duels = await queries.newest_duels(
                session,
                guild_id=scope.guild_id,
                duellist_id=scope.duellist_id,
                include_ended=include_ended,
                limit=limit,
            )
            rounds = await queries.open_rounds_by_duel(session, [d.id for d in duels])
            sides = await queries.submitted_sides(session, [r.id for r in rounds.values()])
            return [
                duel_view(
                    d, rounds.get(d.id), sides.get(rounds[d.id].id) if d.id in rounds else None
                )
                for d in duels
            ]

    async def open_rounds_for_user(self, user_id: int) -> list[OpenDuelForUser]:
        async with transaction(self._db) as session:
            found = []
            for duel, rnd in await queries.open_rounds_of_user(session, user_id):
                side = side_of(duel, user_id)
                found.append(
                    OpenDuelForUser(
                        duel_id=duel.id,
                        guild_id=duel.guild_id,
                        round_no=rnd.number,
                        side=side,
                        opponent_name=duel.state[other_side(side)]["name"],
                        deadline=rnd.deadline,
                    )
                )
            return found

    async def choices_for(
        self, duel_id: int, user_id: int, guild_id: int | None = None
    ) -> list[dict[str, str]]:
        """The legal choices of ``user_id`` in the duel now (for /move autocomplete): none
        when not awaited; NotFound, as for any unknown number, when it is not their duel
        (of this server, when asked in one)."""
        scope = DuelScope.of_duellist(user_id, guild_id)
        async with transaction(self._db) as session:
            duel = await self._get_duel(session, duel_id, guild_id, scope=scope)
            if duel.status != "live":
                return []
            return [
                {"id": m.id, "label": m.label}
                for m in legal_moves(duel.ruleset, duel.state, side_of(duel, user_id))
            ]

    async def odds(self, duel_id: int, scope: DuelScope) -> DuelOdds:
        """Exact odds of each pair of legal choices in the duel's next round, under the
        rules fixed for it. Only for a round where both sides choose from at most
        ODDS_MAX_PAIRS pairs and the state holds no secret (a multi-step ruleset's does)."""
        async with transaction(self._db) as session:
            duel = await self._get_duel(session, duel_id, None, scope=scope)
            view = await self._view(session, duel)
            rules = ruleset_of(duel.ruleset)
            state = rules.state_from_dict(duel.state)
            if duel.status != "live":
                raise InvalidInput(
                    _("Duel #{duel} has ended: no round is left to play.", duel=duel.id),
                    duel_id=duel.id,
                )
            steps = capability(rules, MultiStep)
            stepwise = steps is not None and (
                steps.advances_at_once(state) or tuple(steps.awaiting_sides(state)) != SIDES
            )
            exact = capability(rules, ExactOdds)
            a_moves = [] if stepwise else rules.moves(state, "a")
            b_moves = [] if stepwise else rules.moves(state, "b")
            why = ""
            if stepwise:
                why = _(
                    "Duel #{duel} is {ruleset}: its odds depend on choices made step by step, "
                    "some of them secret.",
                    duel=duel.id,
                    ruleset=rules.title,
                )
            elif exact is None:
                why = _(
                    "Duel #{duel} is {ruleset}, which has no exact odds.",
                    duel=duel.id,
                    ruleset=rules.title,
                )
            elif not a_moves or not b_moves or len(a_moves) * len(b_moves) > ODDS_MAX_PAIRS:
                why = _(
                    "Duel #{duel} has too many choices for one table ({a} x {b}).",
                    duel=duel.id,
                    a=len(a_moves),
                    b=len(b_moves),
                )
            if why or exact is None:
                raise InvalidInput(
                    why, duel_id=duel.id, ruleset=rules.id, next_step=NextStep.ODDS_OFFLINE
                )
            options = rules.make_options(adjudication_settings(rules, self._rules_of(duel)))
            rows = []
            for a_move in a_moves:
                for b_move in b_moves:
                    dist = exact.outcome_distribution(
                        state, {"a": a_move.id, "b": b_move.id}, options
                    )
                    rows.append(
                        (a_move.label, b_move.label, {o: p for o, p in dist.items() if p})
                    )
            return DuelOdds(view, tuple(rows))

    async def round_status(self, duel_id: int, guild_id: int | None = None) -> RoundStatus:
        """Who has moved in the open round: never what, and never when."""
        async with transaction(self._db) as session:
            duel = await self._get_duel(session, duel_id, guild_id)
            view = await self._view(session, duel)
            if view.open_round is None:
                last = await queries.last_round_number(session, duel.id)
                return RoundStatus(view, last or None, False, None, {})
            return RoundStatus(
                view,
                view.open_round.number,
                True,
                view.open_round.deadline,
                dict(view.open_round.submitted),
                view.open_round.words,
            )

    async def history(self, duel_id: int, guild_id: int | None = None) -> DuelHistory:
        async with transaction(self._db) as session:
            duel = await self._get_duel(session, duel_id, guild_id)
            records = tuple(round_record(r) for r in await queries.rounds_of(session, duel.id))
            # The duel's record, in its language as its rounds were published (an export
            # and the archive page show it whole): how it ended reads as its posts did.
            with speaking(duel.language):
                return DuelHistory(await self._view(session, duel), records)

    async def published_round(self, duel_id: int, round_no: int) -> dict[str, Any]:
        """A closed (or undone) round as `duelbot verify` reads it: the adjudicate input
        (state before the round, moves, options, seed) plus the published result."""
        async with transaction(self._db) as session:
            duel = await self._get_duel(session, duel_id, None)
            rnd = None
            if fits_id(round_no):  # checked before the query, as every number from input
                rnd = await queries.round_numbered(session, duel.id, round_no)
            if rnd is None:
                raise NotFound(
                    _("Duel #{duel} has no round {round}.", duel=duel.id, round=round_no),
                    duel_id=duel.id,
                    round_no=round_no,
                )
            if rnd.result is None or rnd.closed_at is None:
                raise StateConflict(
                    _(
                        "Round {round} of duel #{duel} has no published result yet: its seed "
                        "stays secret until the round closes.",
                        round=round_no,
                        duel=duel.id,
                    ),
                    duel_id=duel.id,
                    round_no=round_no,
                )
            before, result = rnd.state_before, read_published(rnd.result)
            # The short shape's own keys (the ruleset's ``ShortAdjudication``; none without).
            short = capability(registry.get_or_none(duel.ruleset), ShortAdjudication)
            short_input = short.short_input(before) if short is not None else {}
            short_result = short.short_result(result.state) if short is not None else {}
            return {
                "input": {
                    "ruleset": duel.ruleset,
                    "a": before["a"],
                    "b": before["b"],
                    "moves": {"a": result.choices.a, "b": result.choices.b},
                    **short_input,
                    "options": {
                        **{
                            k: v
                            for k, v in result.options.as_mapping().items()
                            if k in adjudication_keys(registry.get_or_none(duel.ruleset))
                        },
                        # The house rules in force (a server's default among them).
                        **dict(result.options.house_rules or {}),
                    },
                    "duel_id": duel.id,
                    "round_no": rnd.number,
                },
                "outcome": result.outcome,
                "winner": result.winner_name,
                # The short verify shape's own keys (the default ruleset's), from the state
                # after the round.
                **short_result,
                "rolls": result.to_json()["rolls"],
                "log": list(result.log),
                "seed": rnd.seed,
                "commitment": rnd.commitment,
            }
