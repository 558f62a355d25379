"""Typed service errors with structured fields (after Red-DiscordBot's errors).

``message`` is plain text about the duel and fit to show a user as it is: it names no command
of any front end, and it speaks the language of the scope it was raised in (issue 28: the
Discord layer calls the services inside its reader's ``speaking``): build it with ``_()`` where
it is raised. What the user can do next is ``next_step`` (a ``NextStep``) with the fields
it needs (``duel_id``, ``ruleset``...): the front end that shows the error words it in its own
syntax (bot/discord/errors.py adds slash-command hints; the command line shows the message).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from bot.i18n.context import _


class NextStep(StrEnum):
    """What a user can do about an error; each front end says how in its own words."""

    CLOSE_ROUND = "close_round"  # close the open round of duel_id
    LIST_DUELS = "list_duels"  # list this server's duels
    LIST_OWN_ROUNDS = "list_own_rounds"  # (in a DM) list the sender's open rounds
    SET_SHEET = "set_sheet"  # a commander sets the member's sheet of ``ruleset``
    SET_STATS = "set_stats"  # a commander sets the member's stats (the column-stored sheet)
    USE_SHEET = "use_sheet"  # use the sheet commands instead of the stats ones
    NAME_THE_DUEL = "name_the_duel"  # put the duel's number (duel_id: the first) before the move
    ODDS_OFFLINE = "odds_offline"  # compute the odds of chosen moves of ``ruleset`` offline


class DomainError(Exception):
    """Root of every error a service raises on purpose. ``language``: the language its
    message speaks when the service chose it (a DM move from a member the caller could not
    place, ``submit_move(find_language=True)``); None: the caller's scope."""

    language: str | None = None

    def __init__(
        self,
        message: str,
        *,
        duel_id: int | None = None,
        round_no: int | None = None,
        ruleset: str | None = None,
        allowed: Sequence[str] = (),
        next_step: NextStep | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.duel_id = duel_id
        self.round_no = round_no
        self.ruleset = ruleset
        self.allowed = tuple(allowed)
        self.next_step = next_step


class NotFound(DomainError):
    """No such duel, round or profile (in this server)."""


class InvalidInput(DomainError):
    """A value given by the user is malformed or out of range."""


class NotAllowed(DomainError):
    """The caller is not the right person for this action (e.g. not a duellist of the duel)."""


class ConflictOfInterest(NotAllowed):
    """A commander acting on their own duel (close, undo, end) or their own stats or sheet:
    another commander (or the deadline) must do it."""


class StateConflict(DomainError):
    """The action does not fit the duel's current state (round already open, duel ended...)."""


class RoundNotOpen(StateConflict):
    """A move or a close arrived when the round was not open (e.g. it lost a race to a close)."""


class BeforeDeadline(StateConflict):
    """A commander closed a round before its announced deadline while a duellist had not
    moved yet: the duellist was promised until the deadline (issue 23)."""


class MoveAlreadyLocked(StateConflict):
    """Change of choice is off and the duellist already submitted a move this round."""

    def __init__(
        self, message: str, locked_move: str, *, duel_id: int, round_no: int
    ) -> None:
        super().__init__(message, duel_id=duel_id, round_no=round_no)
        self.locked_move = locked_move


class TooManyChanges(StateConflict):
    """Change of choice is on, but this side has changed its move as often as allowed."""

    def __init__(
        self, message: str, changes: int, current_move: str, *, duel_id: int, round_no: int
    ) -> None:
        super().__init__(message, duel_id=duel_id, round_no=round_no)
        self.changes = changes
        self.current_move = current_move


class AmbiguousDuel(DomainError):
    """A duellist in several open duels sent a move without saying which duel."""

    def __init__(self, message: str, duel_ids: tuple[int, ...]) -> None:
        super().__init__(message, duel_id=duel_ids[0], next_step=NextStep.NAME_THE_DUEL)
        self.duel_ids = duel_ids


class Unavailable(DomainError):
    """The database could not be reached; nothing was written. Try again. ``detail``: what
    the database driver said (for logs and the command line, not for members)."""

    def __init__(self, detail: str) -> None:
        super().__init__(
            _("The duel database is unavailable right now, so nothing was recorded.")
        )
        self.detail = detail
