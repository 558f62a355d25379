"""Whether a move is taken: ONE pure decision for every way a move comes in (a DM, a button,
/move; issue 25).

Given frozen snapshots of the duel, of its open round (if any) and of the moves already
stored in that round, and the request, ``accept`` answers:

- refused: it raises the services' typed error with the reason (not your turn, an unknown
  move, the duel has ended, no open round, a round number that is over, a past deadline, a
  change not allowed or past the cap);
- accepted: an ``Accepted`` saying which stored move it supersedes, if any, and whether it
  completes the round (every awaited side then has a move: with
  ``close_when_all_submitted``, or for a multi-step ruleset's step, the round closes in the
  same transaction).

No I/O here: the caller (RoundCommands.submit_move) reads the snapshots and writes the
outcome with the one move SQL of bot/db/queries.py, in one transaction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bot.config import DuelSettings
from bot.i18n.context import _, _n
from bot.rules.adjudication import check_move
from bot.rules.capabilities import MultiStep, capability
from bot.rules.errors import RulesError
from bot.rules.terms import StepWords
from bot.services.duel_support import RULE_SETTINGS, other_side, ruleset_of
from bot.services.errors import (
    AmbiguousDuel,
    InvalidInput,
    MoveAlreadyLocked,
    NotAllowed,
    NotFound,
    RoundNotOpen,
    TooManyChanges,
)
from bot.services.profiles import clean_name


@dataclass(frozen=True, slots=True)
class MoveRequest:
    """A move as it came in: ``duel_id`` None for a DM without ``#N``; ``round_no`` from a
    button (a move meant for an earlier round is refused); ``guild_id`` the server /move
    was used in (None: a DM). ``find_language``: the caller does not know the language to
    answer in (a DM from a member this process has not heard from): the move's hop reads it."""

    user_id: int
    move: str
    via: str
    duel_id: int | None = None
    round_no: int | None = None
    guild_id: int | None = None
    find_language: bool = False


@dataclass(frozen=True, slots=True)
class DuelSnapshot:
    id: int
    guild_id: int
    a_user_id: int
    b_user_id: int
    ruleset: str
    state: Mapping[str, Any]
    options: Mapping[str, Any] | None
    status: str


@dataclass(frozen=True, slots=True)
class RoundSnapshot:
    id: int
    number: int
    deadline: datetime | None


@dataclass(frozen=True, slots=True)
class SideMoves:
    """One side's moves in the round: how many were stored (superseded ones included: the
    change cap counts them), and the current one (id and move), if any."""

    stored: int = 0
    current_id: int | None = None
    current: str | None = None


NO_MOVES = SideMoves()


@dataclass(frozen=True, slots=True)
class Accepted:
    side: str
    move_id: str
    label: str
    supersedes: int | None  # the stored submission this move replaces
    changed_from: str | None
    changed_from_label: str | None
    completes_round: bool
    words: StepWords | None = None  # the round (step) in the ruleset's words


def side_in(duel: DuelSnapshot, user_id: int) -> str:
    return "a" if duel.a_user_id == user_id else "b"


def choose_round(
    found: Sequence[tuple[DuelSnapshot, RoundSnapshot]], user_id: int
) -> tuple[DuelSnapshot, RoundSnapshot]:
    """For a DM that names no duel: the sender's one open round (of several, those of
    multi-step duels that await someone else are left out), or the refusal (none, or
    still several)."""
    if not found:
        raise NotFound(_("You have no open round to move in right now."))
    if len(found) == 1:
        return found[0]
    mine = []
    for duel, rnd in found:
        rules = ruleset_of(duel.ruleset)
        steps = capability(rules, MultiStep)  # None: every round awaits both sides
        if steps is None or side_in(duel, user_id) in steps.awaiting_sides(
            rules.state_from_dict(duel.state)
        ):
            mine.append((duel, rnd))
    found = mine or list(found)
    if len(found) > 1:
        listing = ", ".join(
            _(
                "#{duel} vs {opponent}",
                duel=d.id,
                opponent=d.state[other_side(side_in(d, user_id))]["name"],
            )
            for d, _r in found
        )
        raise AmbiguousDuel(
            _("You are in several open duels ({duels}).", duels=listing),
            tuple(d.id for d, _r in found),
        )
    return found[0]


def accept(
    req: MoveRequest,
    duel: DuelSnapshot,
    rnd: RoundSnapshot | None,
    moves: Mapping[str, SideMoves],
    defaults: DuelSettings,
    now: datetime,
) -> Accepted:
    """The decision on ``req`` (see the module's docstring). ``moves``: each side's stored
    moves in ``rnd`` (a side with none may be missing). The checks run in the order the
    duellist should hear them: whose turn, what the move is, then when. The rules are asked
    once (``bot.rules.adjudication.check_move``)."""
    side = side_in(duel, req.user_id)
    mine = moves.get(side, NO_MOVES)
    try:
        check = check_move(
            duel.ruleset,
            duel.state,
            side,  # type: ignore[arg-type]
            req.move,
            mine.current,
            None if rnd is None else rnd.number,
        )
    except RulesError as exc:
        raise InvalidInput(exc.message, ruleset=duel.ruleset) from None
    if duel.status == "live" and side not in check.awaiting:
        raise NotAllowed(_not_your_turn(duel, check.awaiting), duel_id=duel.id)
    if check.error is not None or check.move_id is None or check.label is None:
        message = check.error.message if check.error is not None else _("Not a move.")
        raise InvalidInput(message, duel_id=duel.id, ruleset=duel.ruleset)
    if duel.status != "live":
        raise RoundNotOpen(
            _("Duel #{duel} has ended; moves are no longer taken.", duel=duel.id),
            duel_id=duel.id,
        )
    noun, move = check.ruleset_words.round.one, check.ruleset_words.move.one
    if rnd is None:
        raise RoundNotOpen(
            _(
                "Duel #{duel} has no open {round}: wait for a commander to open the next "
                "{round} (your {move} was not recorded).",
                duel=duel.id,
                round=noun,
                move=move,
            ),
            duel_id=duel.id,
        )
    label = (
        check.words.label
        if check.words is not None
        else _("{round} {number}", round=noun, number=rnd.number)
    )
    if req.round_no is not None and rnd.number != req.round_no:
        raise RoundNotOpen(
            _(
                "That {round} of duel #{duel} is over; {label} is open now. Use the buttons of "
                "its message, or type your {move}.",
                round=noun,
                duel=duel.id,
                label=label,
                move=move,
            ),
            duel_id=duel.id,
            round_no=rnd.number,
        )
    if rnd.deadline is not None and now >= rnd.deadline:
        raise RoundNotOpen(
            _(
                "The deadline of {label} of duel #{duel} has passed; the {move} was not "
                "recorded.",
                label=label,
                duel=duel.id,
                move=move,
            ),
            duel_id=duel.id,
            round_no=rnd.number,
        )
    if mine.current is not None:
        _refuse_change(duel, rnd, label, mine, str(check.current_label), defaults, move, noun)
    # Every awaited side has a move once this one is stored: a multi-step ruleset's step
    # closes then; a round, when the server closes rounds as soon as both have moved.
    if check.advances_at_once:
        completes = all(_moved(moves, s) for s in check.awaiting if s != side)
    else:
        completes = defaults.close_when_all_submitted and _moved(moves, other_side(side))
    return Accepted(
        side,
        check.move_id,
        check.label,
        mine.current_id,
        mine.current,
        check.current_label,
        completes,
        check.words,
    )


def _not_your_turn(duel: DuelSnapshot, awaiting: Sequence[str]) -> str:
    """The refusal of a move from a side the duel does not await now."""
    names = [
        clean_name(str(duel.state[s].get("name") or _("Duellist {side}", side=s.upper())))
        for s in awaiting
    ]
    if not names:
        return _(
            "It is not your turn to choose in duel #{duel}: waiting for nobody.", duel=duel.id
        )
    if len(names) == 1:
        return _(
            "It is not your turn to choose in duel #{duel}: waiting for {name}.",
            duel=duel.id,
            name=names[0],
        )
    return _(
        "It is not your turn to choose in duel #{duel}: waiting for {first} and {second}.",
        duel=duel.id,
        first=names[0],
        second=" and ".join(names[1:]),
    )


def _moved(moves: Mapping[str, SideMoves], side: str) -> bool:
    return moves.get(side, NO_MOVES).current is not None


def _refuse_change(
    duel: DuelSnapshot,
    rnd: RoundSnapshot,
    label: str,
    mine: SideMoves,
    current_label: str,
    defaults: DuelSettings,
    move: str = "move",
    noun: str = "round",
) -> None:
    """A change of a stored move: refused when the duel was started without change of
    choice, or past ``max_move_changes`` (the first move plus that many changes are
    stored, nothing more)."""
    assert mine.current is not None
    rules = {key: getattr(defaults, key) for key in RULE_SETTINGS}
    rules.update(duel.options or {})
    if not rules["change_of_choice"]:
        raise MoveAlreadyLocked(
            _(
                "You already locked in {current} for {label} of duel #{duel}, and this duel "
                "does not allow changing a {move} before the {round} closes (change of "
                "choice was off when it started).",
                current=current_label,
                label=label,
                duel=duel.id,
                move=move,
                round=noun,
            ),
            mine.current,
            duel_id=duel.id,
            round_no=rnd.number,
        )
    changes = mine.stored - 1
    if changes >= defaults.max_move_changes:
        raise TooManyChanges(
            _n(
                "You have changed your {move} {count} time in {label} of duel #{duel}, the "
                "most allowed; your current {move} stays {current}.",
                "You have changed your {move} {count} times in {label} of duel #{duel}, the "
                "most allowed; your current {move} stays {current}.",
                changes,
                move=move,
                label=label,
                duel=duel.id,
                current=current_label,
            ),
            changes,
            mine.current,
            duel_id=duel.id,
            round_no=rnd.number,
        )
