"""What the duel use cases share: the plain view of a duel, the rules fixed for it, the
checks every command makes (scope, conflict of interest, reasons) and queuing its posts.

Race safety (every module): each read-then-write locks the row it decides on (the duel, then
its open round) with SELECT ... FOR UPDATE on PostgreSQL; on SQLite the transaction starts
with BEGIN IMMEDIATE. Moves are secret until the close: they are never logged, and no view
shows another duellist's move before its round is closed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any, Literal

from sqlalchemy.ext.asyncio import AsyncSession

from bot.config import DuelSettings
from bot.db import queries
from bot.db.engine import Database
from bot.db.models import AuditEntry, Duel, DuellistProfile, OutboxPost, Round, fits_id
from bot.i18n.choice import dm_language
from bot.i18n.context import _, _n
from bot.rules import registry
from bot.rules.base import Ruleset
from bot.rules.capabilities import HouseRules, capability
from bot.rules.errors import RulesError
from bot.rules.terms import SIDES
from bot.services.clock import utcnow
from bot.services.errors import ConflictOfInterest, InvalidInput, NextStep, NotFound
from bot.services.messages import ButtonsClosed, MoveChoice, OutboxMessage, Party
from bot.services.profiles import clean_name, no_stats
from bot.services.published import read_published
from bot.services.scope import DuelScope
from bot.services.views import (
    DuellistView,
    DuelView,
    OpenRoundView,
    RoundRecord,
)

MAX_REASON = 300
# The server settings that change an outcome: fixed in duels.options when a duel starts, so a
# later /config change reaches only later duels. Each result stores them ("options").
# A ruleset's own rules (house rules) are fixed in options["house_rules"]: given, recorded
# by its state, or the server's default for it (/config house-rule).
RULE_SETTINGS = ("change_of_choice", "missing_move")
def stored_options(ruleset_id: str, options: Mapping[str, Any] | None) -> dict[str, Any]:
    """A duel's ``options`` as read back: its ``params`` through the ruleset's one
    normalisation, so a duel stored before it (a legacy key, ``"false"`` as text) shows what
    it runs. Nothing stored is rewritten; an unknown ruleset's options are returned as is."""
    out = dict(options or {})
    params = out.get("params")
    if isinstance(params, Mapping):
        house = capability(registry.get_or_none(ruleset_id), HouseRules)
        if house is None:
            return out
        out["params"] = house.stored_params(params)
    return out


def duel_view(
    duel: Duel,
    open_round: Round | None = None,
    submitted: set[str] | None = None,
    *,
    notes: tuple[str, ...] | None = None,
) -> DuelView:
    """The duel as every use case shows it. ``notes``: its ruleset's status notes when the
    caller has them already (a close: ``Adjudication.status_notes``); then a duel with no
    open round and no coded end reason asks its ruleset nothing."""
    state = duel.state

    def side(s: str, user_id: int) -> DuellistView:
        d = state[s]
        return DuellistView(
            s,
            user_id,
            str(d.get("name") or duellist_fallback_name(s)),
            {k: v for k, v in d.items() if k != "name"},
        )

    # The duel's ruleset, looked up once when needed (None for a ruleset that is gone).
    needs_rules = (
        notes is None or open_round is not None or _CODED_END.fullmatch(duel.end_reason or "")
    )
    rules = registry.get_or_none(duel.ruleset) if needs_rules else None
    round_view = None
    if open_round is not None:
        sides = submitted or set()
        round_view = OpenRoundView(
            number=open_round.number,
            deadline=open_round.deadline,
            commitment=open_round.commitment,
            opened_by=open_round.opened_by,
            submitted={"a": "a" in sides, "b": "b" in sides},
            words=None
            if rules is None
            else rules.step_words(open_round.state_before, open_round.number),
        )
    return DuelView(
        id=duel.id,
        guild_id=duel.guild_id,
        channel_id=duel.channel_id,
        thread_id=duel.thread_id,
        ruleset=duel.ruleset,
        a=side("a", duel.a_user_id),
        b=side("b", duel.b_user_id),
        status=duel.status,
        notes=notes
        if notes is not None
        else (() if rules is None else tuple(rules.status_notes(state or {}))),
        winner=duel.winner,
        end_reason=_end_reason(duel, rules),
        rounds_played=duel.rounds_played,
        created_at=duel.created_at,
        open_round=round_view,
        options=stored_options(duel.ruleset, duel.options),
        end_kind=duel.end_kind,
        language=duel.language,
    )


def duellist_fallback_name(side: str) -> str:
    """What a duellist stored without a name is called: "Duellist A"."""
    return _("Duellist {side}", side=side.upper())


#: How a close stores the end of a duel a round's result ended: "round 4: a_wins" (the
#: round's number and its outcome's id), read in each reader's language (issue 28).
_CODED_END = re.compile(r"round ([0-9]+): ([a-z0-9_]+)")


def coded_end(round_no: int, outcome: str) -> str | None:
    """The stored end of a duel that round ``round_no`` ended with ``outcome``; None when
    the outcome id does not fit the code (then the caller stores the words)."""
    code = f"round {round_no}: {outcome}"  # i18n: not shown (a stored code)
    return code if _CODED_END.fullmatch(code) else None


def _end_reason(duel: Duel, rules: Ruleset | None) -> str | None:
    """How the duel ended, in plain words of the reader's language: a reason stored as an
    outcome code ("round 4: a_wins") reads as its ruleset's sentence ("round 4: Ann wins
    the duel"); a commander's reason as they wrote it."""
    reason = duel.end_reason
    coded = _CODED_END.fullmatch(reason or "")
    if coded is None or rules is None:
        return reason
    state = duel.state or {}
    names = [str((state.get(s) or {}).get("name") or duellist_fallback_name(s)) for s in SIDES]
    sentence = rules.outcome_sentence(coded.group(2), names[0], names[1])
    return _(
        "{round} {number}: {sentence}",
        round=rules.words.round.one,
        number=coded.group(1),
        sentence=sentence,
    )


def is_sealed(rnd: Round) -> bool:
    """An open round (or one never closed) shows no result and no seed yet."""
    return rnd.status == "open" or rnd.closed_at is None


def round_record(rnd: Round, **export_fields: Any) -> RoundRecord:
    """A round as a history shows it: its result and seed only once published.
    ``export_fields``: what an export adds (the state before it, choices, options...)."""
    sealed = is_sealed(rnd)
    return RoundRecord(
        number=rnd.number,
        status=rnd.status,
        opened_by=rnd.opened_by,
        opened_at=rnd.opened_at,
        deadline=rnd.deadline,
        commitment=rnd.commitment,
        closed_by=rnd.closed_by,
        closed_at=rnd.closed_at,
        close_reason=rnd.close_reason,
        outcome=rnd.outcome,
        result=None if sealed or rnd.result is None else read_published(rnd.result),
        seed=None if sealed else rnd.seed,
        undone_by=rnd.undone_by,
        undone_at=rnd.undone_at,
        undo_reason=rnd.undo_reason,
        **export_fields,
    )


def ruleset_of(ruleset_id: str) -> Ruleset:
    """The registered ruleset ``ruleset_id`` (InvalidInput when none is)."""
    try:
        return registry.get(ruleset_id)
    except RulesError as exc:
        raise InvalidInput(exc.message, ruleset=ruleset_id) from None


def profile_sheet(profile: DuellistProfile | None, rules: Ruleset) -> dict[str, Any] | None:
    """A duellist's sheet for a ruleset: its entry in the profile's ``sheets``."""
    if profile is None:
        return None
    sheet = (profile.sheets or {}).get(rules.id)
    return dict(sheet) if isinstance(sheet, dict) else None


def legal_moves(ruleset_id: str, state: Mapping[str, Any], side: str) -> tuple[MoveChoice, ...]:
    """The moves a DM prompt offers (as buttons): what the ruleset says is legal now."""
    rules = ruleset_of(ruleset_id)
    current = rules.state_from_dict(state)
    return tuple(MoveChoice(m.id, m.label) for m in rules.moves(current, side))  # type: ignore[arg-type]


def no_sheet(name: str, rules: Ruleset) -> NotFound:
    """The refusal for a duellist without a sheet of ``rules`` (a commander sets it)."""
    if rules.quick_sheet_fields:
        return no_stats(name)
    return NotFound(
        _(
            "{name} has no {ruleset} sheet in this server yet.",
            name=clean_name(name),
            ruleset=rules.title,
        ),
        ruleset=rules.id,
        next_step=NextStep.SET_SHEET,
    )


def no_such_duel(duel_id: int, guild_id: int | None) -> NotFound:
    """The answer for an unknown duel number in a server (or, without one, anywhere)."""
    return DuelScope(guild_id=guild_id).not_found(duel_id)


def clean_reason(reason: str, doing: CommandAction) -> str:
    """A commander's reason (``doing``: "end" a duel, "undo" a round) as stored and posted:
    one line, not empty, at most MAX_REASON characters. Posts and exports escape it when
    they show it."""
    reason = " ".join(str(reason).split())
    if not reason:
        if doing == "end":
            raise InvalidInput(_("Give a reason for ending the duel."))
        raise InvalidInput(_("Give a reason for undoing the round."))
    if len(reason) > MAX_REASON:
        raise InvalidInput(
            _n(
                "The reason is too long ({count} character, at most {most}).",
                "The reason is too long ({count} characters, at most {most}).",
                len(reason),
                most=MAX_REASON,
            )
        )
    return reason


#: What a commander does to a duel that its own duellists may not (refuse_own_duel).
CommandAction = Literal["open", "close", "end", "undo"]


def _own_duel_refusal(action: CommandAction, side: str, duel_id: int) -> str:
    """Why a duellist may not ``action`` their own duel, and who does it instead."""
    if action == "open":
        return _(
            "You are duellist {side} in duel #{duel}, so you cannot open its rounds or set "
            "their deadlines: a duellist never commands their own duel. Another commander "
            "opens them.",
            side=side,
            duel=duel_id,
        )
    if action == "close":
        return _(
            "You are duellist {side} in duel #{duel}, so you cannot close its round: a "
            "duellist never commands their own duel. Another commander closes it, or its "
            "deadline does.",
            side=side,
            duel=duel_id,
        )
    if action == "end":
        return _(
            "You are duellist {side} in duel #{duel}, so you cannot end it: a duellist never "
            "commands their own duel. Another commander can end it.",
            side=side,
            duel=duel_id,
        )
    return _(
        "You are duellist {side} in duel #{duel}, so you cannot undo its rounds: a duellist "
        "never commands their own duel. Another commander can undo a round (with a reason).",
        side=side,
        duel=duel_id,
    )


def refuse_own_duel(duel: Duel, actor_id: int | None, action: CommandAction) -> None:
    """Conflict of interest: a duellist never commands their own duel, whatever their roles
    (admins and the server owner included). The deadline (no actor) is not a duellist."""
    if actor_id is None:
        return
    side = "A" if actor_id == duel.a_user_id else "B" if actor_id == duel.b_user_id else None
    if side is not None:
        raise ConflictOfInterest(_own_duel_refusal(action, side, duel.id), duel_id=duel.id)


def side_of(duel: Duel, user_id: int) -> str:
    """The side ``user_id`` fights on in ``duel`` (a duellist of it)."""
    return "a" if duel.a_user_id == user_id else "b"


def other_side(side: str) -> str:
    return "b" if side == "a" else "a"


def user_of(duel: Duel, side: str) -> int:
    return duel.a_user_id if side == "a" else duel.b_user_id


def iso(when: datetime | None) -> str | None:
    return None if when is None else when.isoformat()


def party(user_id: int, entry: Mapping[str, Any]) -> Party:
    """A duellist of a post, their sheet as the duel's state stores it."""
    return Party(user_id, str(entry["name"]), {k: v for k, v in entry.items() if k != "name"})


def enqueue(
    session: AsyncSession,
    message: OutboxMessage,
    *,
    language: str | None,
    next_attempt_at: datetime | None = None,
    **fields: Any,
) -> None:
    """Queue ``message`` (its kind and versioned JSON) in the caller's transaction, due at
    ``next_attempt_at`` (default: now), to be rendered in ``language`` (issue 28: the
    duel's for a channel post, the member's for a DM; None: English)."""
    session.add(
        OutboxPost(
            status="pending",
            attempts=0,
            next_attempt_at=utcnow() if next_attempt_at is None else next_attempt_at,
            kind=message.KIND,
            payload=message.to_json(),
            language=language,
            **fields,
        )
    )


def member_dm_language(
    duel_language: str | None, member_languages: Mapping[int, str], user_id: int
) -> str:
    """The language of a DM about a duel to ``user_id``: the one they last used with the
    bot (``member_languages``, queries.member_languages), else the duel's."""
    return dm_language(member_languages.get(user_id), duel_language, None)


def post_in_duel_channel(
    session: AsyncSession,
    view: DuelView,
    message: OutboxMessage,
    *,
    key: str,
    on_behalf_of: int | None,
    to_side: str | None = None,
    language: str | None = None,
) -> None:
    """Queue a post for the duel's channel (or thread), in the duel's language,
    deduplicated by kind and key; with ``to_side``, a DM to that duellist instead, in
    ``language`` (the member's: ``member_dm_language``; None: the duel's), deduplicated
    by ``key`` itself."""
    enqueue(
        session,
        message,
        language=view.language if to_side is None or language is None else language,
        dedupe_key=f"{message.KIND}:{key}" if to_side is None else key,
        guild_id=view.guild_id,
        duel_id=view.id,
        target="channel" if to_side is None else "user",
        target_id=view.post_channel_id if to_side is None else view.duellist(to_side).user_id,
        on_behalf_of=on_behalf_of,
    )


#: How long after its round's close a buttons_closed edit is due: the result post, which
#: everyone waits for, goes out first (and its path carries no edit); the buttons follow at
#: the poster's next look (config workers.outbox_poll_seconds, 1 s by default).
BUTTONS_EDIT_DELAY = timedelta(seconds=1)


def close_round_buttons(
    session: AsyncSession,
    view: DuelView,
    rnd: Round,
    *,
    reason: str,
    now: datetime,
    member_languages: Mapping[int, str],
) -> None:
    """Queue, in the transaction that closes (or cancels) ``rnd`` at ``now``, the edit that
    disables the move buttons of its DMs, one per duellist (a duellist the round sent no DM
    has nothing to edit: the edit does nothing). Done by the poster after the commit, like
    every post; never a Discord call in here, and no query: the poster finds the DMs.
    ``member_languages``: the duellists' languages (queries.member_languages), which
    their DMs speak."""
    for side in ("a", "b"):
        user_id = view.duellist(side).user_id
        enqueue(
            session,
            ButtonsClosed(view.id, rnd.number, side, rnd.id, reason),
            language=member_dm_language(view.language, member_languages, user_id),
            next_attempt_at=now + BUTTONS_EDIT_DELAY,
            dedupe_key=f"buttons_closed:{rnd.id}:{side}",
            guild_id=view.guild_id,
            duel_id=view.id,
            target="user",
            target_id=user_id,
            on_behalf_of=None,
        )


def announce(
    session: AsyncSession,
    view: DuelView,
    message: OutboxMessage,
    *,
    key: str,
    on_behalf_of: int | None,
    actor_id: int | None,
    action: str,
    details: dict[str, Any],
) -> None:
    """What a duel command does last: its post queued for the duel's channel (deduplicated
    by kind and ``key``) and its audit entry, in the caller's transaction."""
    post_in_duel_channel(session, view, message, key=key, on_behalf_of=on_behalf_of)
    audit_duel(session, view, actor_id, action, details)


def audit_duel(
    session: AsyncSession,
    duel: Duel | DuelView,
    actor_id: int | None,
    action: str,
    details: dict[str, Any],
) -> None:
    """The audit entry of something done to ``duel`` (in the caller's transaction)."""
    # The row is added here rather than through queries.audit: this runs in every close,
    # and the move's traced path stays under 15 layer crossings (tests/discord/
    # test_move_trace.py); an ORM row's constructor is SQLAlchemy's, not bot/db's.
    session.add(
        AuditEntry(
            guild_id=duel.guild_id,
            actor_id=actor_id,
            action=action,
            duel_id=duel.id,
            details=details,
        )
    )


class DuelUseCases:
    """The database and the configured defaults every duel use case works with."""

    def __init__(self, db: Database, defaults: DuelSettings | None = None) -> None:
        self._db = db
        self._defaults = defaults or DuelSettings()

    def _rules_of(self, duel: Duel) -> dict[str, Any]:
        """The rules fixed for ``duel`` when it started (never the server's live settings).
        Every live duel has all of them (migration 0003 fixed those of older duels); the
        configured defaults only fill a key a hand-made row lacks."""
        defaults = {key: getattr(self._defaults, key) for key in RULE_SETTINGS}
        return {**defaults, **(duel.options or {})}

    async def _get_duel(
        self,
        session: AsyncSession,
        duel_id: int,
        guild_id: int | None,
        *,
        lock: bool = False,
        scope: DuelScope | None = None,
    ) -> Duel:
        """The duel numbered ``duel_id`` if the caller's scope includes it (``scope``, else
        this server's duels; ``guild_id`` None and no scope: any duel). Anything else, a
        number out of range included, is the scope's one not-found answer."""
        scope = scope or DuelScope(guild_id=guild_id)
        if not fits_id(duel_id):  # checked before any query: PostgreSQL would raise
            raise scope.not_found(duel_id)
        duel = await (queries.duel_for_update if lock else queries.duel)(session, duel_id)
        if duel is None or not scope.includes(duel):
            raise scope.not_found(duel_id)
        return duel

    async def _commanded_duel(
        self,
        session: AsyncSession,
        duel_id: int,
        guild_id: int | None,
        actor_id: int | None,
        refusal: CommandAction,
    ) -> Duel:
        """The duel a commander acts on (open, close, undo, end), row-locked. ``refusal``:
        what a duellist of it may not do (refuse_own_duel)."""
        duel = await self._get_duel(session, duel_id, guild_id, lock=True)
        refuse_own_duel(duel, actor_id, refusal)
        return duel

    async def _view(self, session: AsyncSession, duel: Duel) -> DuelView:
        rnd = await queries.open_round(session, duel.id)
        sides = set()
        if rnd is not None:
            sides = set((await queries.current_submissions(session, rnd.id)).keys())
        return duel_view(duel, rnd, sides)
