"""Typed service errors. ``message`` is shown to the user as it is: keep it specific."""

from __future__ import annotations


class DomainError(Exception):
    """Root of every error a service raises on purpose."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


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


class MoveAlreadyLocked(StateConflict):
    """Change of choice is off and the duellist already submitted a move this round."""

    def __init__(self, message: str, locked_move: str) -> None:
        super().__init__(message)
        self.locked_move = locked_move


class TooManyChanges(StateConflict):
    """Change of choice is on, but this side has changed its move as often as allowed."""

    def __init__(self, message: str, changes: int, current_move: str) -> None:
        super().__init__(message)
        self.changes = changes
        self.current_move = current_move


class AmbiguousDuel(DomainError):
    """A duellist in several open duels sent a move without saying which duel."""

    def __init__(self, message: str, duel_ids: tuple[int, ...]) -> None:
        super().__init__(message)
        self.duel_ids = duel_ids


class Unavailable(DomainError):
    """The database could not be reached; nothing was written. Try again."""
