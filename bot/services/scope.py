"""Which duels exist for whoever names one by its number: the one rule every lookup follows.

In a server, that server's duels; in a DM, only the duels the caller fights in (a move, even
in a server, also only the caller's own duels). A duel outside the scope answers exactly as a
duel that does not exist: the same message, so no reply tells a stranger that duel #N exists.
Numbers outside our id range (bot.db.models.fits_id) are answered the same way, before any
query.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from bot.db.models import ID_MAX, ID_MIN
from bot.i18n.context import _
from bot.services.errors import NextStep, NotFound

# The numbers a duel can have (what a front end lets its users type); any other number is
# answered as an unknown duel.
DUEL_NUMBER_MIN = ID_MIN
DUEL_NUMBER_MAX = ID_MAX


class DuelParties(Protocol):
    """What a scope looks at: a stored duel, or a move's snapshot of one."""

    @property
    def guild_id(self) -> int: ...
    @property
    def a_user_id(self) -> int: ...
    @property
    def b_user_id(self) -> int: ...


@dataclass(frozen=True, slots=True)
class DuelScope:
    """``guild_id``: only this server's duels; ``duellist_id``: only the duels this user
    fights in. Neither: every duel (the bot's own workers and the command line)."""

    guild_id: int | None = None
    duellist_id: int | None = None

    @classmethod
    def of_caller(cls, user_id: int, guild_id: int | None) -> DuelScope:
        """What a caller may name: in a server its duels, in a DM (no server) their own."""
        return cls(guild_id=guild_id, duellist_id=None if guild_id is not None else user_id)

    @classmethod
    def of_duellist(cls, user_id: int, guild_id: int | None) -> DuelScope:
        """What a duellist may move in: their own duels (of this server, when in one)."""
        return cls(guild_id=guild_id, duellist_id=user_id)

    @property
    def unrestricted(self) -> bool:
        return self.guild_id is None and self.duellist_id is None

    def includes(self, duel: DuelParties) -> bool:
        if self.guild_id is not None and duel.guild_id != self.guild_id:
            return False
        return self.duellist_id is None or self.duellist_id in (duel.a_user_id, duel.b_user_id)

    def not_found(self, duel_id: int) -> NotFound:
        """The answer for a duel number that names nothing in this scope. It depends only
        on the number and the scope, never on whether such a duel exists elsewhere."""
        shown = _shorten(duel_id)
        if self.duellist_id is not None and self.guild_id is not None:
            return NotFound(
                _(
                    "You have no duel #{duel} in this server: you can only name a duel you "
                    "fight in.",
                    duel=shown,
                ),
                duel_id=duel_id,
                next_step=NextStep.LIST_DUELS,
            )
        if self.duellist_id is not None:
            return NotFound(
                _("You have no duel #{duel}: you can only name a duel you fight in.", duel=shown),
                duel_id=duel_id,
                next_step=NextStep.LIST_OWN_ROUNDS,
            )
        if self.guild_id is not None:
            return NotFound(
                _("There is no duel #{duel} in this server.", duel=shown),
                duel_id=duel_id,
                next_step=NextStep.LIST_DUELS,
            )
        return NotFound(_("There is no duel #{duel}.", duel=shown), duel_id=duel_id)


def _shorten(number: int) -> str:
    # A pasted 200-digit number is not echoed in full.
    text = str(number)
    return text if len(text) <= 20 else text[:20] + "..."
