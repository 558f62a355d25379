"""Plain, frozen views of the ladder (issue 17): records, leaderboard pages, rating history,
rebuild reports. No ORM object leaves the services."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True, slots=True)
class RecordLine:
    """A member's record and rating on one ladder (server and ruleset)."""

    user_id: int
    name: str
    rating: float
    mu: float
    sigma: float
    duels: int
    wins: int
    losses: int
    draws: int
    retreats: int  # retreats (rule 2.14) and flights (By This Axe)
    commander_ended: int
    streak: int  # +n wins in a row, -n losses in a row, 0 neither
    rated: int  # duels that moved the rating (every one but those ended by a commander)


@dataclass(frozen=True, slots=True)
class DuelLine:
    """One ended duel as it counted for a member."""

    duel_id: int
    ended_at: datetime
    kind: str  # win | loss | draw | retreat | commander
    outcome: str | None
    opponent_id: int
    opponent_name: str
    rating_before: float
    rating_after: float


@dataclass(frozen=True, slots=True)
class LadderRecord:
    """``/duel record``: one ruleset's record, the member's rank and the last duels."""

    ruleset: str
    ruleset_title: str
    line: RecordLine
    rank: int | None  # None until a duel is rated
    rated_members: int
    last_duels: tuple[DuelLine, ...]


@dataclass(frozen=True, slots=True)
class MemberRecords:
    user_id: int
    name: str
    records: tuple[LadderRecord, ...]  # empty: no duel of theirs has ended in this server
    asked_ruleset: str | None  # the ruleset asked for (None: every ruleset)
    asked_ruleset_title: str | None = None


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    rank: int
    line: RecordLine


@dataclass(frozen=True, slots=True)
class LeaderboardPage:
    guild_id: int
    ruleset: str
    ruleset_title: str
    page: int
    pages: int  # at least 1
    rated_members: int
    per_page: int
    rows: tuple[LeaderboardRow, ...] = field(default_factory=tuple)


@dataclass(frozen=True, slots=True)
class RatingPoint:
    """A member's rating after one ended duel (the rating over time)."""

    duel_id: int
    ended_at: datetime
    kind: str
    rating: float
    mu: float
    sigma: float


@dataclass(frozen=True, slots=True)
class RebuildReport:
    """One ladder recomputed from history: ``differences`` lists what the stored values
    had wrong (empty: they were equal); ``written`` says whether the recompute was stored."""

    guild_id: int
    ruleset: str
    duels: int
    members: int
    differences: tuple[str, ...]
    written: bool


@dataclass(frozen=True, slots=True)
class LadderMember:
    """One member of a whole ladder with the rating after each of their ended duels."""

    rank: int
    record: RecordLine
    history: tuple[RatingPoint, ...]


@dataclass(frozen=True, slots=True)
class LadderSection:
    """A server's whole ladder of one ruleset, best first (the archive's ladder page)."""

    ruleset: str
    ruleset_title: str
    members: tuple[LadderMember, ...]
