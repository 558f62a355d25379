"""Plain, frozen data returned by services. No ORM object ever leaves a service."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from fractions import Fraction
from typing import Any

from bot.i18n.context import _p
from bot.rules.terms import StepWords
from bot.services.messages import OutboxMessage, parse_message
from bot.services.published import PublishedRound


@dataclass(frozen=True, slots=True)
class MemberRef:
    """A Discord member as the caller saw it: id and display name."""

    user_id: int
    name: str


@dataclass(frozen=True, slots=True)
class SettingsView:
    guild_id: int
    change_of_choice: bool
    commander_role_id: int | None
    admin_role_id: int | None
    results_channel_id: int | None
    missing_move: str
    duel_forum_id: int | None = None
    # How long after its close a result may be undone (issue 23); zero: undo is off.
    undo_window: timedelta = timedelta(hours=24)
    undo_window_is_default: bool = True  # the bot's configured default, not the server's own
    # The server's defaults for the rulesets' house rules, {ruleset id: {key: value}}: only
    # those set (/config house-rule); any other house rule starts at its own default.
    house_rule_defaults: dict[str, dict[str, str]] = field(default_factory=dict)
    # The language chosen for the server's public posts (/config language); None: the
    # server's preferred locale decides (bot.i18n.choice.server_language).
    language: str | None = None


@dataclass(frozen=True, slots=True)
class ProfileView:
    guild_id: int
    user_id: int
    display_name: str
    # Every sheet by ruleset id.
    sheets: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class DuellistView:
    side: str
    user_id: int
    name: str
    # The ruleset's own view of this duellist (its state's "a"/"b" object, name left out).
    sheet: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class OpenRoundView:
    number: int
    deadline: datetime | None
    commitment: str
    opened_by: int
    submitted: dict[str, bool]
    # The round (step) in its ruleset's words.
    words: StepWords | None = None


@dataclass(frozen=True, slots=True)
class DuelView:
    id: int
    guild_id: int
    channel_id: int
    thread_id: int | None
    ruleset: str
    a: DuellistView
    b: DuellistView
    status: str
    winner: str | None
    end_reason: str | None
    rounds_played: int
    created_at: datetime
    open_round: OpenRoundView | None = None
    # The rules fixed when the duel started (change_of_choice, missing_move,
    # the ruleset's "params" and "house_rules"); later /config changes never reach them.
    options: dict[str, Any] = field(default_factory=dict)
    end_kind: str | None = None  # "result" | "commander" once ended
    # What the ruleset says of the live duel beyond "live" (its ``status_notes``), in plain
    # words; the export document's ``status_notes``.
    notes: tuple[str, ...] = ()
    # The language its posts, exports and archive page speak (issue 28): the server's when
    # it started (``duels.language``); None: English (a duel from before it was stored).
    language: str | None = None

    @property
    def live_text(self) -> str:
        """"live", with the ruleset's notes (``Ruleset.status_notes``), in the current
        language."""
        return ", ".join((_p("duel status", "live"), *self.notes))

    @property
    def post_channel_id(self) -> int:
        return self.thread_id or self.channel_id

    def duellist(self, side: str) -> DuellistView:
        return self.a if side == "a" else self.b

    def side_of(self, user_id: int) -> str | None:
        if user_id == self.a.user_id:
            return "a"
        if user_id == self.b.user_id:
            return "b"
        return None

    @property
    def winner_name(self) -> str | None:
        return None if self.winner is None else self.duellist(self.winner).name


@dataclass(frozen=True, slots=True)
class RoundOpened:
    duel: DuelView
    round_no: int
    commitment: str
    deadline: datetime | None
    # How the round (step) is named and closed, in its ruleset's words.
    words: StepWords | None = None
    # The sides asked to choose now, and those whose DM prompt has move buttons (the others
    # answer as text: no buttons, or more choices than buttons).
    awaiting: tuple[str, ...] = ("a", "b")
    with_buttons: tuple[str, ...] = ("a", "b")


@dataclass(frozen=True, slots=True)
class RoundClosed:
    duel: DuelView
    round_no: int
    outcome: str
    result: PublishedRound
    seed: str
    commitment: str
    closed_by: int | None
    reason: str


@dataclass(frozen=True, slots=True)
class SubmissionReceipt:
    duel_id: int
    guild_id: int
    round_no: int
    side: str
    move: str
    move_label: str
    changed_from: str | None
    deadline: datetime | None
    opponent_name: str
    # Set when config close_when_all_submitted closed the round with this move.
    closed: RoundClosed | None = None
    changed_from_label: str | None = None  # the ruleset's label of changed_from
    # The round (step) in its ruleset's words: its label, what a move is called, who closes it.
    words: StepWords | None = None
    # The language the move was taken in when the services chose it (``find_language``):
    # the receipt is shown in it. None: the caller's.
    language: str | None = None


@dataclass(frozen=True, slots=True)
class DuelOdds:
    """Exact odds of every pair of legal choices in a duel's next round: (A's label, B's
    label, {outcome: probability}) per pair, probabilities of 0 left out."""

    duel: DuelView
    rows: tuple[tuple[str, str, dict[str, Fraction]], ...]


@dataclass(frozen=True, slots=True)
class RoundStatus:
    duel: DuelView
    round_no: int | None
    is_open: bool
    deadline: datetime | None
    submitted: dict[str, bool] = field(default_factory=dict)
    # The open round (step) in its ruleset's words; None: none is open.
    words: StepWords | None = None


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """One round as the history shows it: closed rounds in full, an open round sealed."""

    number: int
    status: str
    opened_by: int
    opened_at: datetime
    deadline: datetime | None
    commitment: str
    closed_by: int | None
    closed_at: datetime | None
    close_reason: str | None
    outcome: str | None
    result: PublishedRound | None
    seed: str | None  # revealed only once the round is closed (or undone after closing)
    undone_by: int | None
    undone_at: datetime | None
    undo_reason: str | None = None  # why the commander undid it (required since issue 10)
    # Filled by the export read model (bot/services/exports.py), None elsewhere: the duel
    # state before the round and each side's choice (both public parts only), the options
    # the adjudicator was given, and what is withheld because it is still secret.
    state_before: dict[str, Any] | None = None
    choices: dict[str, str | None] | None = None
    options: dict[str, Any] | None = None
    withheld: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DuelHistory:
    duel: DuelView
    rounds: tuple[RoundRecord, ...]


@dataclass(frozen=True, slots=True)
class OpenDuelForUser:
    duel_id: int
    guild_id: int
    round_no: int
    side: str
    opponent_name: str
    deadline: datetime | None


@dataclass(frozen=True, slots=True)
class OutboxItem:
    id: int
    dedupe_key: str
    kind: str
    target: str
    target_id: int
    guild_id: int | None
    duel_id: int | None
    on_behalf_of: int | None
    payload: dict[str, Any]
    attempts: int
    # When the post was first tried (its queueing time for rows tried before this was
    # recorded): an earlier attempt's message can only be newer.
    first_attempt_at: datetime | None = None
    # The language to render it in, chosen when it was queued (issue 28): the duel's for a
    # channel post, the member's for a DM; None: English. The poster renders inside
    # ``speaking(item.language)``.
    language: str | None = None

    @property
    def message(self) -> OutboxMessage:
        """The typed message (MessageFormatError when this duelbot cannot read it)."""
        return parse_message(self.kind, self.payload)


@dataclass(frozen=True, slots=True)
class WebhookView:
    channel_id: int
    webhook_id: int
    webhook_token: str


@dataclass(frozen=True, slots=True)
class AuditView:
    id: int
    guild_id: int | None
    actor_id: int | None
    action: str
    duel_id: int | None
    details: dict[str, Any]
    created_at: datetime


@dataclass(frozen=True, slots=True)
class ChallengeOutcome:
    """A settled pre-duel challenge: the ruleset's outcome code (never shown) and its
    sentence, the duel it started, the sentences of the penalties it cost, its log."""

    ruleset: str
    outcome: str
    sentence: str
    duel: DuelView | None
    penalties: tuple[str, ...]
    log: tuple[str, ...]
    # The language its sentences (and its post) are in: the server's (issue 28).
    language: str | None = None


def window_text(window: timedelta) -> str:
    """A time window as people say it: "24 h", "1 h 30 min", "2 d 6 h" (days from 48 h),
    with the units of the current language."""
    minutes = int(window.total_seconds() // 60)
    days, rest = divmod(minutes, 1440) if minutes >= 2880 else (0, minutes)
    hours, mins = divmod(rest, 60)
    parts = []
    if days:
        parts.append(_p("duration", "{count} d", count=days))
    if hours:
        parts.append(_p("duration", "{count} h", count=hours))
    if mins:
        parts.append(_p("duration", "{count} min", count=mins))
    return " ".join(parts) or _p("duration", "{count} min", count=0)
