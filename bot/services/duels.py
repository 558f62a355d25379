"""The duel use cases behind one name: ``DuelService`` is the read models (reads.py), the
duel's lifecycle (lifecycle.py), the round commands (rounds.py) and the pre-duel challenge
(challenges.py) together; what they share is in duel_support.py. Each public method is one
transaction and returns plain views."""

from __future__ import annotations

from bot.services.challenges import Challenges
from bot.services.lifecycle import DuelLifecycle
from bot.services.reads import DuelReads
from bot.services.rounds import RoundCommands
from bot.services.undo import UndoCommands


class DuelService(DuelReads, DuelLifecycle, RoundCommands, UndoCommands, Challenges):
    """Every duel use case, for callers that hold one service (``Services.duels``)."""
