"""Undo: void a duel's latest round's result, accountably (who, why, and only within the
server's undo window, before the next round opens; issue 23)."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from bot.db import queries
from bot.db.models import Duel, Round
from bot.i18n.context import _, speaking
from bot.rules.base import SIDES
from bot.services import ratings
from bot.services.clock import utcnow
from bot.services.duel_support import (
    DuelUseCases,
    announce,
    clean_reason,
    duel_view,
    ruleset_of,
)
from bot.services.errors import NotAllowed, StateConflict
from bot.services.messages import RoundUndone
from bot.services.settings import load_settings_row, undo_window
from bot.services.unit import transaction
from bot.services.views import DuelView, window_text


class UndoCommands(DuelUseCases):
    async def undo_round(
        self,
        *,
        duel_id: int,
        guild_id: int | None,
        actor_id: int,
        reason: str,
        round_no: int | None = None,
    ) -> DuelView:
        """Void the duel's latest round's result: the duel returns to its state before it;
        the undone result stays in the ledger with who undid it and why (``reason`` is
        required: an undo followed by a new close is a re-roll, so it is accountable).

        Accountable in time too (issue 23): only the latest round of the duel (``round_no``,
        if given, must name it), only while no later round has opened, and only within the
        server's undo window after its close (``/config undo-window``, default 24 h)."""
        reason = clean_reason(reason, "undo")
        async with transaction(self._db) as session:
            duel = await self._commanded_duel(session, duel_id, guild_id, actor_id, "undo")
            if duel.status == "ended" and duel.end_kind != "result":
                raise StateConflict(
                    _(
                        "Duel #{duel} was ended by a commander; its rounds can no longer be "
                        "undone.",
                        duel=duel.id,
                    ),
                    duel_id=duel.id,
                )
            rnd = await self._undoable_round(session, duel, round_no)
            now = utcnow()
            rnd.status = "undone"
            rnd.undone_by = actor_id
            rnd.undone_at = now
            rnd.undo_reason = reason
            before = rnd.state_before
            duel.state = dict(before)
            duel.winner = before.get("winner") if before.get("winner") in SIDES else None
            duel.status = "live"
            duel.ended_at = None
            duel.end_reason = None
            duel.end_kind = None
            duel.rounds_played -= 1
            await ratings.duel_reopened(session, duel)
            await session.flush()
            view = duel_view(duel)
            with speaking(duel.language):  # the post's words: the duel's language
                words = ruleset_of(duel.ruleset).step_words(before, rnd.number)
            undone = RoundUndone(duel.id, rnd.number, rnd.outcome, actor_id, reason, words)
            announce(
                session,
                view,
                undone,
                key=f"{rnd.id}",
                on_behalf_of=actor_id,
                actor_id=actor_id,
                action="round.undo",
                details={"round": rnd.number, "undone_outcome": rnd.outcome, "reason": reason},
            )
            return view

    async def _undoable_round(
        self, session: AsyncSession, duel: Duel, round_no: int | None
    ) -> Round:
        """The round an undo of ``duel`` may void, row-locked: its latest round, closed,
        within the server's undo window; anything else is refused naming what is allowed."""
        latest = await queries.last_round_for_update(session, duel.id)
        if (
            latest is None
            or latest.status == "cancelled"
            or (latest.status == "open" and latest.number == 1)
        ):
            raise StateConflict(
                _("Duel #{duel} has no closed round to undo.", duel=duel.id), duel_id=duel.id
            )
        if latest.status == "open":
            raise StateConflict(
                _(
                    "Round {round} of duel #{duel} is open: a result can be undone only until "
                    "the next round opens, so the earlier rounds are settled. Only the latest "
                    "round, once closed, can be undone.",
                    round=latest.number,
                    duel=duel.id,
                ),
                duel_id=duel.id,
                round_no=latest.number,
            )
        if latest.status == "undone":
            raise StateConflict(
                _(
                    "Round {round} of duel #{duel} is already undone, and the rounds before it "
                    "are settled: only the latest round of a duel can be undone, until the next "
                    "round opens. Open the next round to play it again.",
                    round=latest.number,
                    duel=duel.id,
                ),
                duel_id=duel.id,
                round_no=latest.number,
            )
        if round_no is not None and round_no != latest.number:
            raise StateConflict(
                _(
                    "Round {round} of duel #{duel} cannot be undone: only the latest round of a "
                    "duel can be, and that is round {latest}.",
                    round=round_no,
                    duel=duel.id,
                    latest=latest.number,
                ),
                duel_id=duel.id,
                round_no=latest.number,
            )
        settings = await load_settings_row(session, duel.guild_id, self._defaults)
        window = undo_window(settings, self._defaults)
        closed_at = latest.closed_at or latest.opened_at
        if not window:
            raise NotAllowed(
                _(
                    "Undo is off in this server: round {round} of duel #{duel} stays as it is. "
                    "A server admin can turn undo on with an undo window.",
                    round=latest.number,
                    duel=duel.id,
                ),
                duel_id=duel.id,
                round_no=latest.number,
            )
        if utcnow() > closed_at + window:
            raise StateConflict(
                _(
                    "Round {round} of duel #{duel} closed at {closed_at} UTC: a result can be "
                    "undone for {window} after its close in this server, so it is settled now.",
                    round=latest.number,
                    duel=duel.id,
                    closed_at=f"{closed_at:%Y-%m-%d %H:%M}",
                    window=window_text(window),
                ),
                duel_id=duel.id,
                round_no=latest.number,
            )
        return latest
