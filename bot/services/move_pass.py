"""A move's pass, the one step of its transaction (``Work.run``; on SQLite one call on the
lane's connection, inline): read the duel, its open round and the round's stored moves (locked),
decide (``acceptance.accept``), store. ``RoundCommands.submit_move`` hands it over and
does the rest (the close a completing move triggers, the receipt)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection

from bot.config import DuelSettings
from bot.db import queries
from bot.db.models import fits_id
from bot.i18n.context import speaking
from bot.services.acceptance import (
    Accepted,
    DuelSnapshot,
    MoveRequest,
    RoundSnapshot,
    SideMoves,
    accept,
    choose_round,
)
from bot.services.errors import DomainError
from bot.services.languages import dm_language_from
from bot.services.scope import DuelScope

Taken = tuple[DuelSnapshot, RoundSnapshot, Accepted]


def take_move(
    req: MoveRequest, scope: DuelScope, defaults: DuelSettings, conn: Connection
) -> tuple[tuple[DuelSnapshot, RoundSnapshot, Accepted, str | None], bool]:
    """The move's whole pass on a sync connection (``Work.run``): the duel and its open
    round (locked) with the round's stored moves, the decision (``acceptance.accept``), the
    store. A refusal raises (the transaction rolls back). Answers whether the
    transaction is finished: yes unless the move completes the round (the close follows
    in the same transaction). With ``req.find_language`` the pass runs in the language the
    sender's DMs speak, read first, and answers it too (else None)."""
    if not req.find_language:
        (duel, rnd, took), finished = _take_move_in_scope(req, scope, defaults, conn)
        return (duel, rnd, took, None), finished
    stored, newest = queries.dm_language_rows(conn, req.user_id)
    language = dm_language_from(stored, newest)
    with speaking(language):
        try:
            (duel, rnd, took), finished = _take_move_in_scope(req, scope, defaults, conn)
        except DomainError as refused:
            refused.language = language
            raise
    return (duel, rnd, took, language), finished


def _take_move_in_scope(
    req: MoveRequest, scope: DuelScope, defaults: DuelSettings, conn: Connection
) -> tuple[Taken, bool]:
    if req.duel_id is not None and not fits_id(req.duel_id):
        raise scope.not_found(req.duel_id)
    duel, rnd, stored = _move_snapshot(conn, req)
    if not scope.includes(duel):
        raise scope.not_found(duel.id)
    moves = {side: SideMoves(*found) for side, found in stored.items()}
    now = datetime.now(UTC)  # the services' clock (bot.services.clock's), once locked
    took = accept(req, duel, rnd, moves, defaults, now)
    assert rnd is not None  # accept refuses a move without an open round
    queries.store_move(
        conn,
        round_id=rnd.id,
        side=took.side,
        user_id=req.user_id,
        move=took.move_id,
        via=req.via,
        at=now,
        supersede_id=took.supersedes,
    )
    return (duel, rnd, took), not took.completes_round


StoredMoves = dict[str, tuple[int, int | None, str | None]]


def _move_snapshot(
    conn: Connection, req: MoveRequest
) -> tuple[DuelSnapshot, RoundSnapshot | None, StoredMoves]:
    """The duel a move goes to, its open round (None: no round open; the acceptance says
    why), row-locked, and the round's stored moves. A DM without "#N" finds the sender's
    one open round."""
    if req.duel_id is None:
        found = queries.move_targets_with_moves(conn, user_id=req.user_id)
        by_round = {int(row[queries.TARGET_ROUND_ID]): moves for row, moves in found}
        duel, rnd = choose_round([_target(row) for row, _moves in found], req.user_id)
        return duel, rnd, by_round[rnd.id]
    found = queries.move_targets_with_moves(conn, duel_id=req.duel_id)
    if found:
        row, moves = found[0]
        duel, rnd = _target(row)
        return duel, rnd, moves
    alone = queries.move_duel(conn, req.duel_id)
    if alone is None:
        raise DuelScope.of_duellist(req.user_id, req.guild_id).not_found(req.duel_id)
    return _duel(alone), None, {}


def _duel(row: Any) -> DuelSnapshot:
    return DuelSnapshot(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7])


def _target(row: Any) -> tuple[DuelSnapshot, RoundSnapshot]:
    return _duel(row), RoundSnapshot(row[8], row[9], row[10])
