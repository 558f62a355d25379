"""The move hot path (issue 14): group commit and Core statements.

Moves that arrive together share one transaction: the first move starts a batch, every move
that comes while a batch is being written waits for the next one (at most ``MAX_BATCH``).
Each move of a batch is taken in turn on the batch's connection with Core statements (the
duel and its open round locked in one read, the side's current move, the insert), so a move
sees the earlier moves of its batch as it would see earlier transactions. Each caller gets
its receipt only after the batch's COMMIT returned: a move is acknowledged only when
durable, exactly as with one transaction per move.

What the fast path does not handle it hands back untouched (it has written nothing for that
move yet): every refusal (no open round, not your turn, an unknown move, a change not
allowed or past the cap, a past deadline, a round number that is over), a DM that names no
duel and finds none or several open rounds, a multi-step ruleset's step (it closes as soon
as every awaited side has chosen), and with ``close_when_all_submitted`` the move that
completes a round (the other side has moved). The caller then runs the step-by-step path
(RoundCommands._submit_step_by_step) in a transaction of its own, which gives the detailed
refusals and the exactly-once close.

If a statement of a batch fails (a constraint, a deadlock, a bug), the batch is rolled back
and each of its moves is retried alone on the step-by-step path: nothing of the batch was
acknowledged. If the database is locked past the busy timeout or cannot be reached, every
move of the batch gets ``Unavailable`` at once, as a single transaction's caller would
(nothing was written). If the COMMIT itself fails, every move the batch took gets that
error too (whether the COMMIT took effect is unknown, so retrying could store a move
twice).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from bot.config import DuelSettings
from bot.db import queries, sqlite_moves
from bot.db.engine import Database, DatabaseUnavailable
from bot.db.models import utcnow
from bot.rules.base import Ruleset
from bot.rules.errors import RulesError
from bot.services.duel_support import RULE_SETTINGS, move_receipt, other_side, ruleset_of
from bot.services.errors import DomainError, Unavailable
from bot.services.scope import DuelScope
from bot.services.views import SubmissionReceipt

log = logging.getLogger(__name__)

MAX_BATCH = 64


@dataclass(frozen=True)
class MoveRequest:
    user_id: int
    move: str
    via: str
    duel_id: int | None
    round_no: int | None
    guild_id: int | None


class _StepByStep(Exception):
    """This move needs the step-by-step path; nothing was written for it."""


# A batch's outcome for one move: its receipt, or "run it step by step".
STEP_BY_STEP = object()
Outcome = SubmissionReceipt | BaseException | object


@dataclass(frozen=True)
class _Move:
    row: Any  # the duel and its open round (a Row, or sqlite_moves.MoveTarget)
    side: str
    ruleset: Ruleset
    move_id: str
    at: datetime

    def store_args(self, req: MoveRequest, supersede_id: int | None) -> dict[str, Any]:
        return {
            "round_id": self.row.round_id,
            "side": self.side,
            "user_id": req.user_id,
            "move": self.move_id,
            "via": req.via,
            "at": self.at,
            "supersede_id": supersede_id,
        }

    def receipt(self, changed_from: str | None) -> SubmissionReceipt:
        row = self.row
        where = (row.id, row.guild_id, row.state), (row.round_number, row.round_deadline)
        return move_receipt(self.ruleset, *where, self.side, self.move_id, changed_from)


class GroupCommit:
    """Batches the moves of one process (one per DuelService)."""

    def __init__(self, db: Database, defaults: DuelSettings) -> None:
        self._db = db
        self._defaults = defaults
        self._queue: list[tuple[MoveRequest, asyncio.Future[Outcome]]] = []
        self._worker: asyncio.Task[None] | None = None
        self.batches = 0  # statistics, for tests and benchmarks
        self.batched_moves = 0

    async def submit(
        self, req: MoveRequest, step_by_step: Callable[[MoveRequest], Awaitable[SubmissionReceipt]]
    ) -> SubmissionReceipt:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Outcome] = loop.create_future()
        self._queue.append((req, future))
        if self._worker is None or self._worker.done():
            self._worker = loop.create_task(self._drain(), name="duelbot-group-commit")
        outcome = await future
        if isinstance(outcome, SubmissionReceipt):
            return outcome
        if isinstance(outcome, BaseException):
            raise outcome
        return await step_by_step(req)

    async def _drain(self) -> None:
        while self._queue:
            batch = self._queue[:MAX_BATCH]
            del self._queue[:MAX_BATCH]
            try:
                await self._write(batch)
            finally:  # whatever happened, nobody waits forever: unresolved -> step by step
                for _req, future in batch:
                    if not future.done():
                        future.set_result(STEP_BY_STEP)

    async def _write(self, batch: list[tuple[MoveRequest, asyncio.Future[Outcome]]]) -> None:
        outcomes: list[Outcome] = []
        committing = False
        try:
            async with self._db.core_transaction() as conn:
                if self._db.dialect == "sqlite":  # the whole batch in one thread call
                    outcomes = await sqlite_moves.run_batch(
                        conn, lambda c: self._take_all_sync(c, batch)
                    )
                else:
                    for req, future in batch:
                        if future.done():  # the caller gave up (cancelled): not taken
                            outcomes.append(STEP_BY_STEP)
                            continue
                        try:
                            outcomes.append(await self._take(conn, req))
                        except _StepByStep:
                            outcomes.append(STEP_BY_STEP)
                committing = True
        except Exception as exc:
            committing = committing or isinstance(exc, sqlite_moves.CommitFailed)
            unavailable = isinstance(exc, DatabaseUnavailable) and "deadlock" not in str(exc)
            if not committing and not unavailable:
                # A statement failed (a conflict, a bug): the whole batch rolled back; each
                # move alone, step by step (it gets its own error there if it has one).
                log.debug("A batch of %d moves rolled back; retrying one by one", len(batch))
                return
            # The database is locked or gone (nothing written, as for one transaction: the
            # user hears "try again" after the busy timeout, not after several), or the
            # COMMIT failed (its effect unknown: no retry that could store a move twice).
            error: BaseException = Unavailable(str(exc)) if unavailable else exc
            if committing:
                for (_req, future), outcome in zip(batch, outcomes, strict=True):
                    if not future.done() and isinstance(outcome, SubmissionReceipt):
                        future.set_result(error)
            else:
                for _req, future in batch:
                    if not future.done():
                        future.set_result(error)
            return
        self.batches += 1
        self.batched_moves += sum(isinstance(o, SubmissionReceipt) for o in outcomes)
        for (_req, future), outcome in zip(batch, outcomes, strict=True):
            if not future.done():
                future.set_result(outcome)

    async def _take(self, conn: AsyncConnection, req: MoveRequest) -> SubmissionReceipt:
        """One move on the batch's connection (PostgreSQL); _StepByStep before any write if
        this path does not handle it."""
        if req.duel_id is not None:
            rows = await queries.move_targets(conn, duel_id=req.duel_id)
        else:
            rows = await queries.move_targets(conn, user_id=req.user_id)
        move = self._checked(rows, req)
        found = await queries.side_moves(conn, move.row.round_id, move.side)
        supersede = self._change_checked(move, *found)
        if self._defaults.close_when_all_submitted:  # would this move close the round?
            other = await queries.side_moves(conn, move.row.round_id, other_side(move.side))
            self._not_closing(other[1])
        await queries.store_move(conn, **move.store_args(req, supersede))
        return move.receipt(found[2])

    def _take_sync(self, c: sqlite3.Connection, req: MoveRequest) -> SubmissionReceipt:
        """The same on SQLite, in aiosqlite's thread (bot/db/sqlite_moves.py)."""
        if req.duel_id is not None:
            rows = sqlite_moves.move_targets(c, duel_id=req.duel_id)
        else:
            rows = sqlite_moves.move_targets(c, user_id=req.user_id)
        move = self._checked(rows, req)
        found = sqlite_moves.side_moves(c, move.row.round_id, move.side)
        supersede = self._change_checked(move, *found)
        if self._defaults.close_when_all_submitted:
            other = sqlite_moves.side_moves(c, move.row.round_id, other_side(move.side))
            self._not_closing(other[1])
        sqlite_moves.store_move(c, **move.store_args(req, supersede))
        return move.receipt(found[2])

    @staticmethod
    def _not_closing(other_current_id: int | None) -> None:
        """With ``close_when_all_submitted`` a move that completes the round closes it: that
        is the step-by-step path's (the close and its exactly-once guarantees live there)."""
        if other_current_id is not None:
            raise _StepByStep

    def _checked(self, rows: Sequence[Any], req: MoveRequest) -> _Move:
        """The move's duel, side and move id, or _StepByStep (a refusal, a DM that finds no
        or several open rounds, a duel whose steps close at once)."""
        if len(rows) != 1:
            raise _StepByStep
        row = rows[0]
        if row.status != "live" or not DuelScope.of_duellist(req.user_id, req.guild_id).includes(
            row
        ):
            raise _StepByStep
        side = "a" if row.a_user_id == req.user_id else "b"
        try:
            ruleset = ruleset_of(row.ruleset)
            state = ruleset.state_from_dict(row.state)
            if ruleset.advances_at_once(state) or side not in ruleset.awaiting_sides(state):
                raise _StepByStep
            move_id = ruleset.parse_choice(req.move, state, side)  # type: ignore[arg-type,unused-ignore]
        except (RulesError, DomainError):
            raise _StepByStep from None
        if req.round_no is not None and row.round_number != req.round_no:
            raise _StepByStep
        now = utcnow()
        if row.round_deadline is not None and now >= row.round_deadline:
            raise _StepByStep
        return _Move(row, side, ruleset, move_id, now)

    def _change_checked(
        self, move: _Move, stored: int, current_id: int | None, _current: str | None
    ) -> int | None:
        """The id of the submission this move supersedes (None for a first move), or
        _StepByStep when the change is not allowed or past the cap."""
        if current_id is not None:
            if not self._change_of_choice(move.row.options):
                raise _StepByStep
            if stored - 1 >= self._defaults.max_move_changes:  # changes made so far
                raise _StepByStep
        return current_id

    def _take_all_sync(
        self, c: sqlite3.Connection, batch: list[tuple[MoveRequest, asyncio.Future[Outcome]]]
    ) -> list[Outcome]:
        outcomes: list[Outcome] = []
        for req, future in batch:
            if future.done():  # read across threads: a stale False only means it is taken
                outcomes.append(STEP_BY_STEP)
                continue
            try:
                outcomes.append(self._take_sync(c, req))
            except _StepByStep:
                outcomes.append(STEP_BY_STEP)
        return outcomes

    def _change_of_choice(self, options: dict[str, Any] | None) -> bool:
        rules = {key: getattr(self._defaults, key) for key in RULE_SETTINGS}
        rules.update(options or {})
        return bool(rules["change_of_choice"])
