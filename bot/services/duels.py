"""Duel use cases: start, open, submit, status, close, end, undo, history.

Each public method is one transaction and returns plain views. Race safety: every
read-then-write locks the row it decides on (the duel, then its open round) with
SELECT ... FOR UPDATE on PostgreSQL; on SQLite the transaction starts with BEGIN IMMEDIATE.
Moves are secret until the close: they are never logged, and no view shows another
duellist's move before its round is closed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.config import DuelSettings
from bot.db import queries
from bot.db.engine import Database
from bot.db.models import (
    Duel,
    DuellistProfile,
    OutboxPost,
    Round,
    Submission,
    fits_id,
    utcnow,
)
from bot.rules import registry
from bot.rules.base import SIDES, Fighter, Ruleset, get_ruleset, ruleset_ids
from bot.rules.dice import FairDice, commitment, new_seed
from bot.rules.errors import RulesError
from bot.services import ratings
from bot.services.errors import (
    AmbiguousDuel,
    ConflictOfInterest,
    InvalidInput,
    MoveAlreadyLocked,
    NotAllowed,
    NotFound,
    RoundNotOpen,
    StateConflict,
    TooManyChanges,
)
from bot.services.messages import (
    ChallengePost,
    DuelEnd,
    DuelStart,
    FollowsUndo,
    MoveChoice,
    OutboxMessage,
    Party,
    PrivateNote,
    RoundOpen,
    RoundPrompt,
    RoundResultPost,
    RoundUndone,
)
from bot.services.profiles import clean_name, no_stats_message
from bot.services.scope import DuelScope
from bot.services.settings import load_settings_row
from bot.services.views import (
    ChallengeOutcome,
    DuelHistory,
    DuellistView,
    DuelOdds,
    DuelView,
    MemberRef,
    OpenDuelForUser,
    OpenRoundView,
    RoundClosed,
    RoundOpened,
    RoundRecord,
    RoundStatus,
    SubmissionReceipt,
)

SUBMISSION_CHANNELS = ("dm_text", "dm_button", "slash")
# The pre-duel step /duel challenge settles (the ruleset that declares it runs it).
CHALLENGE_STEP = "challenge"
MAX_REASON = 300
ODDS_MAX_PAIRS = 25  # one table in one embed
# The server settings that change an outcome: fixed in duels.options when a duel starts, so a
# later /config change reaches only later duels. Each result stores them ("options").
RULE_SETTINGS = ("change_of_choice", "missing_move", "locked_blocks_retreat")
# The options the adjudicator itself takes (what `duelbot verify` re-runs a round with).
ADJUDICATION_OPTIONS = ("missing_move", "locked_blocks_retreat")


def duel_view(
    duel: Duel, open_round: Round | None = None, submitted: set[str] | None = None
) -> DuelView:
    state = duel.state

    def side(s: str, user_id: int) -> DuellistView:
        d = state[s]
        return DuellistView(
            s,
            user_id,
            str(d.get("name") or f"Duellist {s.upper()}"),
            {k: v for k, v in d.items() if k != "name"},
        )

    round_view = None
    if open_round is not None:
        sides = submitted or set()
        round_view = OpenRoundView(
            number=open_round.number,
            deadline=open_round.deadline,
            commitment=open_round.commitment,
            opened_by=open_round.opened_by,
            submitted={"a": "a" in sides, "b": "b" in sides},
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
        locked=duel.locked,
        winner=duel.winner,
        end_reason=duel.end_reason,
        rounds_played=duel.rounds_played,
        created_at=duel.created_at,
        open_round=round_view,
        options=dict(duel.options or {}),
        end_kind=duel.end_kind,
    )


def _ruleset(ruleset_id: str) -> Ruleset:
    try:
        return get_ruleset(ruleset_id)
    except RulesError as exc:
        raise InvalidInput(exc.message) from None


def profile_sheet(profile: DuellistProfile | None, rules: Ruleset) -> dict[str, Any] | None:
    """A duellist's sheet for a ruleset: its entry in the profile's ``sheets``, or the
    profile's own columns for a ruleset that declares them (``sheet_columns``)."""
    if profile is None:
        return None
    if rules.sheet_columns:
        values = {field: getattr(profile, column) for field, column in rules.sheet_columns}
        return None if any(v is None for v in values.values()) else values
    sheet = (profile.sheets or {}).get(rules.id)
    return dict(sheet) if isinstance(sheet, dict) else None


def refusals_key(rules: Ruleset) -> str:
    """The profile ``sheets`` entry remembering a pre-duel penalty (a leader's first refused
    challenge) for ``rules``."""
    return f"{rules.id}:refusals"


def challenge_ruleset() -> Ruleset:
    """The ruleset whose duels begin with a challenge (it declares the pre-duel step)."""
    for rules in registry.all_rulesets():
        if any(step.id == CHALLENGE_STEP for step in rules.pre_duel_steps()):
            return rules
    raise InvalidInput("No duel system with a challenge step is installed.")


def house_rules_in_force(rules: Ruleset, params: Mapping[str, Any], state: Any) -> dict[str, str]:
    """The house rules a duel starts with: those ``params`` name, validated (InvalidInput
    naming the key and the allowed values), what the new state recorded (a legacy param
    such as ``trick_takes`` may set one), defaults for the rest."""
    try:
        explicit = rules.explicit_house_rules(params)
        recorded = state.to_dict().get("house_rules")
        if isinstance(recorded, Mapping):
            explicit = {**rules.explicit_house_rules(recorded), **explicit}
        return rules.parse_house_rules(explicit)
    except RulesError as exc:
        raise InvalidInput(exc.message) from None


def adjudication_settings(rules_in_force: Mapping[str, Any]) -> dict[str, Any]:
    """What ``make_options`` gets at a close: the server settings the adjudicator takes and
    the duel's house rules (older duels have none recorded: their state's own apply)."""
    used = {key: rules_in_force[key] for key in ADJUDICATION_OPTIONS if key in rules_in_force}
    house = rules_in_force.get("house_rules")
    return {**used, **(dict(house) if isinstance(house, Mapping) else {})}


def legal_moves(ruleset_id: str, state: Mapping[str, Any], side: str) -> tuple[MoveChoice, ...]:
    """The moves a DM prompt offers (as buttons): what the ruleset says is legal now."""
    rules = _ruleset(ruleset_id)
    current = rules.state_from_dict(state)
    return tuple(MoveChoice(m.id, m.label) for m in rules.moves(current, side))  # type: ignore[arg-type]


def no_sheet_message(name: str, rules: Ruleset) -> str:
    if rules.sheet_columns:
        return no_stats_message(name)
    return (
        f"{clean_name(name)} has no {rules.title} sheet in this server yet: a commander sets "
        f"it with `/sheet set member:<member> ruleset:{rules.id} fields:...`."
    )


def no_such_duel(duel_id: int, guild_id: int | None) -> NotFound:
    """The answer for an unknown duel number in a server (or, without one, anywhere)."""
    return DuelScope(guild_id=guild_id).not_found(duel_id)


def clean_reason(reason: str, doing: str) -> str:
    """A commander's reason (ending a duel, undoing a round) as stored and posted: one line,
    not empty, at most MAX_REASON characters. Posts and exports escape it when they show it."""
    reason = " ".join(str(reason).split())
    if not reason:
        raise InvalidInput(f"Give a reason for {doing}.")
    if len(reason) > MAX_REASON:
        raise InvalidInput(
            f"The reason is too long ({len(reason)} characters, at most {MAX_REASON})."
        )
    return reason


def refuse_own_duel(duel: Duel, actor_id: int | None, action: str, instead: str) -> None:
    """Conflict of interest: a duellist never commands their own duel, whatever their roles
    (admins and the server owner included). The deadline (no actor) is not a duellist."""
    if actor_id is None:
        return
    side = "A" if actor_id == duel.a_user_id else "B" if actor_id == duel.b_user_id else None
    if side is not None:
        raise ConflictOfInterest(
            f"You are duellist {side} in duel #{duel.id}, so you cannot {action}: a duellist "
            f"never commands their own duel. {instead}"
        )


def _json_safe(params: Mapping[str, Any]) -> dict[str, Any]:
    """The commander's per-duel params as JSON (a TOML date would not serialise)."""
    safe: dict[str, Any] = json.loads(json.dumps(dict(params), default=str))
    return safe


def _enqueue(session: AsyncSession, message: OutboxMessage, **fields: Any) -> None:
    """Queue ``message`` (its kind and versioned JSON) in the caller's transaction."""
    session.add(
        OutboxPost(
            status="pending",
            attempts=0,
            next_attempt_at=utcnow(),
            kind=message.KIND,
            payload=message.to_json(),
            **fields,
        )
    )


def _post_in_duel_channel(
    session: AsyncSession,
    view: DuelView,
    message: OutboxMessage,
    *,
    key: str,
    on_behalf_of: int | None,
) -> None:
    """Queue a post for the duel's channel (or thread), deduplicated by kind and key."""
    _enqueue(
        session,
        message,
        dedupe_key=f"{message.KIND}:{key}",
        guild_id=view.guild_id,
        duel_id=view.id,
        target="channel",
        target_id=view.post_channel_id,
        on_behalf_of=on_behalf_of,
    )


def _party(user_id: int, entry: Mapping[str, Any]) -> Party:
    """A duellist of a post, their sheet as the duel's state stores it."""
    return Party(user_id, str(entry["name"]), {k: v for k, v in entry.items() if k != "name"})


def other_side(side: str) -> str:
    return "b" if side == "a" else "a"


def _iso(when: datetime | None) -> str | None:
    return None if when is None else when.isoformat()


class DuelService:
    def __init__(self, db: Database, defaults: DuelSettings | None = None) -> None:
        self._db = db
        self._defaults = defaults or DuelSettings()

    def _rules_of(self, duel: Duel) -> dict[str, Any]:
        """The rules fixed for ``duel`` when it started (never the server's live settings).
        Every live duel has all of them (migration 0003 fixed those of older duels); the
        configured defaults only fill a key a hand-made row lacks."""
        defaults = {key: getattr(self._defaults, key) for key in RULE_SETTINGS}
        return {**defaults, **(duel.options or {})}

    # -- queries ------------------------------------------------------------------------

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

    async def _view(self, session: AsyncSession, duel: Duel) -> DuelView:
        rnd = await queries.open_round(session, duel.id)
        sides = set()
        if rnd is not None:
            sides = set((await queries.current_submissions(session, rnd.id)).keys())
        return duel_view(duel, rnd, sides)

    async def get_duel(
        self, duel_id: int, guild_id: int | None = None, *, scope: DuelScope | None = None
    ) -> DuelView:
        async with self._db.transaction() as session:
            duel = await self._get_duel(session, duel_id, guild_id, scope=scope)
            return await self._view(session, duel)

    async def list_duels(
        self, guild_id: int, *, include_ended: bool = False, limit: int = 25
    ) -> list[DuelView]:
        return await self.duels_in_scope(
            DuelScope(guild_id=guild_id), include_ended=include_ended, limit=limit
        )

    async def duels_in_scope(
        self, scope: DuelScope, *, include_ended: bool = False, limit: int = 25
    ) -> list[DuelView]:
        """The newest duels the scope includes (a server's, or a user's own)."""
        if scope.unrestricted:
            raise ValueError("listing duels needs a server or a duellist")
        async with self._db.transaction() as session:
            stmt = select(Duel)
            if scope.guild_id is not None:
                stmt = stmt.where(Duel.guild_id == scope.guild_id)
            if scope.duellist_id is not None:
                stmt = stmt.where(
                    or_(Duel.a_user_id == scope.duellist_id, Duel.b_user_id == scope.duellist_id)
                )
            if not include_ended:
                stmt = stmt.where(Duel.status == "live")
            stmt = stmt.order_by(Duel.id.desc()).limit(limit)
            duels = list((await session.execute(stmt)).scalars())
            rounds = {
                r.duel_id: r
                for r in (
                    await session.execute(
                        select(Round).where(
                            Round.duel_id.in_([d.id for d in duels]), Round.status == "open"
                        )
                    )
                ).scalars()
            }
            sides = await queries.submitted_sides(session, [r.id for r in rounds.values()])
            return [
                duel_view(
                    d, rounds.get(d.id), sides.get(rounds[d.id].id) if d.id in rounds else None
                )
                for d in duels
            ]

    async def open_rounds_for_user(self, user_id: int) -> list[OpenDuelForUser]:
        async with self._db.transaction() as session:
            found = []
            for duel, rnd in await queries.open_rounds_of_user(session, user_id):
                side = "a" if duel.a_user_id == user_id else "b"
                other = "b" if side == "a" else "a"
                found.append(
                    OpenDuelForUser(
                        duel_id=duel.id,
                        guild_id=duel.guild_id,
                        round_no=rnd.number,
                        side=side,
                        opponent_name=duel.state[other]["name"],
                        deadline=rnd.deadline,
                    )
                )
            return found

    async def choices_for(
        self, duel_id: int, user_id: int, guild_id: int | None = None
    ) -> list[dict[str, str]]:
        """The legal choices of ``user_id`` in the duel now (for /move autocomplete): none
        when not awaited; NotFound, as for any unknown number, when it is not their duel
        (of this server, when asked in one)."""
        scope = DuelScope.of_duellist(user_id, guild_id)
        async with self._db.transaction() as session:
            duel = await self._get_duel(session, duel_id, guild_id, scope=scope)
            side = "a" if duel.a_user_id == user_id else "b"
            if duel.status != "live":
                return []
            return [
                {"id": m.id, "label": m.label}
                for m in legal_moves(duel.ruleset, duel.state, side)
            ]

    async def odds(self, duel_id: int, scope: DuelScope) -> DuelOdds:
        """Exact odds of each pair of legal choices in the duel's next round, under the
        rules fixed for it. Only for a round where both sides choose from at most
        ODDS_MAX_PAIRS pairs and the state holds no secret (a multi-step ruleset's does)."""
        async with self._db.transaction() as session:
            duel = await self._get_duel(session, duel_id, None, scope=scope)
            view = await self._view(session, duel)
            rules = _ruleset(duel.ruleset)
            state = rules.state_from_dict(duel.state)
            hint = (
                f"`duelbot odds --ruleset {rules.id} --help` computes the odds of chosen moves "
                "exactly."
            )
            if duel.status != "live":
                raise InvalidInput(f"Duel #{duel.id} has ended: no round is left to play.")
            if rules.auto_advance or tuple(rules.awaiting_sides(state)) != ("a", "b"):
                raise InvalidInput(
                    f"Duel #{duel.id} is {rules.title}: its odds depend on choices made step "
                    f"by step, some of them secret; {hint}"
                )
            a_moves = rules.moves(state, "a")
            b_moves = rules.moves(state, "b")
            if not a_moves or not b_moves or len(a_moves) * len(b_moves) > ODDS_MAX_PAIRS:
                raise InvalidInput(
                    f"Duel #{duel.id} has too many choices for one table "
                    f"({len(a_moves)} x {len(b_moves)}); {hint}"
                )
            options = rules.make_options(adjudication_settings(self._rules_of(duel)))
            rows = []
            for a_move in a_moves:
                for b_move in b_moves:
                    dist = rules.outcome_distribution(
                        state, {"a": a_move.id, "b": b_move.id}, options
                    )
                    rows.append(
                        (a_move.label, b_move.label, {o: p for o, p in dist.items() if p})
                    )
            return DuelOdds(view, tuple(rows))

    async def round_status(self, duel_id: int, guild_id: int | None = None) -> RoundStatus:
        """Who has moved in the open round: never what, and never when."""
        async with self._db.transaction() as session:
            duel = await self._get_duel(session, duel_id, guild_id)
            view = await self._view(session, duel)
            if view.open_round is None:
                last = await queries.last_round_number(session, duel.id)
                return RoundStatus(view, last or None, False, None, {})
            return RoundStatus(
                view,
                view.open_round.number,
                True,
                view.open_round.deadline,
                dict(view.open_round.submitted),
            )

    async def history(self, duel_id: int, guild_id: int | None = None) -> DuelHistory:
        async with self._db.transaction() as session:
            duel = await self._get_duel(session, duel_id, guild_id)
            rounds = (
                await session.execute(
                    select(Round).where(Round.duel_id == duel.id).order_by(Round.number)
                )
            ).scalars()
            records = []
            for r in rounds:
                sealed = r.status == "open" or r.closed_at is None
                records.append(
                    RoundRecord(
                        number=r.number,
                        status=r.status,
                        opened_by=r.opened_by,
                        opened_at=r.opened_at,
                        deadline=r.deadline,
                        commitment=r.commitment,
                        closed_by=r.closed_by,
                        closed_at=r.closed_at,
                        close_reason=r.close_reason,
                        outcome=r.outcome,
                        result=None if sealed else r.result,
                        seed=None if sealed else r.seed,
                        undone_by=r.undone_by,
                        undone_at=r.undone_at,
                        undo_reason=r.undo_reason,
                    )
                )
            return DuelHistory(await self._view(session, duel), tuple(records))

    async def published_round(self, duel_id: int, round_no: int) -> dict[str, Any]:
        """A closed (or undone) round as `duelbot verify` reads it: the adjudicate input
        (state before the round, moves, options, seed) plus the published result."""
        async with self._db.transaction() as session:
            duel = await self._get_duel(session, duel_id, None)
            rnd = None
            if fits_id(round_no):  # checked before the query, as every number from input
                stmt = select(Round).where(Round.duel_id == duel.id, Round.number == round_no)
                rnd = (await session.execute(stmt)).scalar_one_or_none()
            if rnd is None:
                raise NotFound(f"Duel #{duel.id} has no round {round_no}.")
            if rnd.result is None or rnd.closed_at is None:
                raise StateConflict(
                    f"Round {round_no} of duel #{duel.id} has no published result yet: its "
                    "seed stays secret until the round closes."
                )
            before, result = rnd.state_before, rnd.result
            return {
                "input": {
                    "ruleset": duel.ruleset,
                    "a": before["a"],
                    "b": before["b"],
                    "moves": result.get("choices", {}),
                    "locked": bool(before.get("locked", False)),
                    "options": {
                        k: v
                        for k, v in (result.get("options") or {}).items()
                        if k in ADJUDICATION_OPTIONS
                    },
                    "duel_id": duel.id,
                    "round_no": rnd.number,
                },
                "outcome": result["outcome"],
                "winner": None
                if result.get("winner") not in ("a", "b")
                else result["state"][result["winner"]]["name"],
                "locked": bool(result.get("locked", False)),
                "rolls": result.get("rolls", []),
                "log": result.get("log", []),
                "seed": rnd.seed,
                "commitment": rnd.commitment,
            }

    # -- commands -----------------------------------------------------------------------

    async def start_duel(
        self,
        *,
        guild_id: int,
        channel_id: int,
        actor_id: int,
        a: MemberRef,
        b: MemberRef,
        thread_id: int | None = None,
        ruleset: str | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> DuelView:
        """Start a duel under ``ruleset`` (default: the configured one). ``params`` are the
        ruleset's per-duel settings (see its docs); sheets come from the duellists' profiles."""
        if a.user_id == b.user_id:
            raise InvalidInput("A duel needs two different members: nobody can duel themselves.")
        rules = _ruleset(ruleset or self._defaults.ruleset)
        if not rules.playable:
            raise InvalidInput(
                f"{rules.title} duels cannot be run by the bot yet; playable now: "
                + ", ".join(r for r in ruleset_ids() if get_ruleset(r).playable)
                + "."
            )
        async with self._db.transaction() as session:
            return await self._start(
                session, guild_id, channel_id, actor_id, a, b, thread_id, rules, params
            )

    async def _start(
        self,
        session: AsyncSession,
        guild_id: int,
        channel_id: int,
        actor_id: int,
        a: MemberRef,
        b: MemberRef,
        thread_id: int | None,
        rules: Ruleset,
        params: Mapping[str, Any] | None,
    ) -> DuelView:
        fighters = {}
        for side, member in (("a", a), ("b", b)):
            profile = await queries.profile(session, guild_id, member.user_id)
            sheet = profile_sheet(profile, rules)
            if sheet is None:
                raise NotFound(no_sheet_message(member.name, rules))
            fighters[side] = Fighter(clean_name(member.name), sheet)
        settings = await load_settings_row(session, guild_id, self._defaults)
        try:
            # House-rule values first: their error names the key and its allowed values.
            rules.explicit_house_rules(dict(params or {}))
            state = rules.initial_state(fighters["a"], fighters["b"], dict(params or {}))
        except RulesError as exc:
            raise InvalidInput(exc.message) from None
        house = house_rules_in_force(rules, dict(params or {}), state)
        duel = Duel(
            guild_id=guild_id,
            channel_id=channel_id,
            thread_id=thread_id,
            ruleset=rules.id,
            a_user_id=a.user_id,
            b_user_id=b.user_id,
            state=state.to_dict(),
            options={
                **{key: getattr(settings, key) for key in RULE_SETTINGS},
                **({"params": _json_safe(params)} if params else {}),
                # Every house rule in force (given or default), passed at each close.
                **({"house_rules": house} if house else {}),
            },
            status="live",
            locked=False,
            rounds_played=0,
            created_by=actor_id,
            created_at=utcnow(),
        )
        session.add(duel)
        await session.flush()
        view = duel_view(duel)
        stored = state.to_dict()
        _post_in_duel_channel(
            session,
            view,
            DuelStart(
                duel_id=duel.id,
                ruleset=duel.ruleset,
                a=_party(a.user_id, stored["a"]),
                b=_party(b.user_id, stored["b"]),
                started_by=actor_id,
                options=dict(duel.options),
                make_thread=self._defaults.thread_per_duel and thread_id is None,
            ),
            key=f"{duel.id}",
            on_behalf_of=actor_id,
        )
        queries.audit(
            session,
            guild_id=guild_id,
            actor_id=actor_id,
            action="duel.start",
            duel_id=duel.id,
            details={"a": a.user_id, "b": b.user_id, "stats": state.to_dict()},
        )
        return view

    async def challenge(
        self,
        *,
        guild_id: int,
        channel_id: int,
        actor_id: int,
        challenger: MemberRef,
        challenged: MemberRef,
        accepted: bool,
        units_in_contact: bool,
    ) -> ChallengeOutcome:
        """Settle a challenge, the pre-duel step of the ruleset that declares one (By This
        Axe; see its docs under docs/rules/). A refusal may be
        overturned by the force roll (d6 1-3, units in contact); a leader's first refusal
        costs his leadership for the turn and is remembered, later refusals are free. When a
        duel is fought, it starts in the same transaction. Announced through the outbox; the
        force roll uses a fresh seed, revealed in the post, label duel:0:round:0:roll:0."""
        if challenger.user_id == challenged.user_id:
            raise InvalidInput("A member cannot challenge themselves.")
        rules = challenge_ruleset()
        async with self._db.transaction() as session:
            fighters = {}
            profiles = {}
            for side, member in (("a", challenger), ("b", challenged)):
                profile = await queries.profile(session, guild_id, member.user_id)
                sheet = profile_sheet(profile, rules)
                if profile is None or sheet is None:
                    raise NotFound(no_sheet_message(member.name, rules))
                profiles[side] = profile
                fighters[side] = Fighter(clean_name(member.name), sheet)
            key = refusals_key(rules)
            record = dict((profiles["b"].sheets or {}).get(key) or {})
            seed = new_seed()
            try:
                result = rules.run_pre_duel_step(
                    CHALLENGE_STEP,
                    fighters["a"],
                    fighters["b"],
                    {
                        "accepted": accepted,
                        "units_in_contact": units_in_contact,
                        "leader_first_refusal": not record.get("refused_before", False),
                    },
                    FairDice(seed, 0, 0),
                )
            except RulesError as exc:
                raise InvalidInput(exc.message) from None
            if result.leadership_lost:  # a leader's first refusal: later ones are free
                record["refused_before"] = True
                profiles["b"].sheets = {**(profiles["b"].sheets or {}), key: record}
            duel = None
            if result.duel:
                duel = await self._start(
                    session,
                    guild_id,
                    channel_id,
                    actor_id,
                    challenger,
                    challenged,
                    None,
                    rules,
                    None,
                )
            settled = result.to_dict()
            message = ChallengePost(
                duel_id=None if duel is None else duel.id,
                outcome=str(settled["outcome"]),
                challenger=Party(challenger.user_id, fighters["a"].name),
                challenged=Party(challenged.user_id, fighters["b"].name),
                log=tuple(settled["log"]),
                leadership_lost=bool(settled["leadership_lost"]),
                roll=settled["roll"],
                seed=seed if result.roll is not None else None,
                commitment=commitment(seed) if result.roll is not None else None,
                fought=bool(settled["duel"]),
                declined=bool(settled["declined"]),
            )
            published = message.to_json()
            _enqueue(
                session,
                message,
                dedupe_key=f"challenge:{guild_id}:{seed[:32]}",
                guild_id=guild_id,
                duel_id=None if duel is None else duel.id,
                target="channel",
                target_id=channel_id,
                on_behalf_of=actor_id,
            )
            queries.audit(
                session,
                guild_id=guild_id,
                actor_id=actor_id,
                action="challenge",
                duel_id=None if duel is None else duel.id,
                details=published,
            )
            return ChallengeOutcome(
                outcome=result.outcome,
                duel=duel,
                leadership_lost=result.leadership_lost,
                log=tuple(str(e) for e in result.log),
            )

    async def attach_thread(self, *, duel_id: int, thread_id: int) -> DuelView:
        """Posts of this duel go to its thread from now on (config thread_per_duel)."""
        async with self._db.transaction() as session:
            duel = await self._get_duel(session, duel_id, None, lock=True)
            duel.thread_id = thread_id
            await session.flush()
            return duel_view(duel)

    async def open_round(
        self,
        *,
        duel_id: int,
        guild_id: int | None,
        actor_id: int,
        deadline: datetime | None = None,
    ) -> RoundOpened:
        now = utcnow()
        if deadline is not None and deadline <= now:
            raise InvalidInput("The deadline must be in the future.")
        async with self._db.transaction() as session:
            duel = await self._get_duel(session, duel_id, guild_id, lock=True)
            if duel.status != "live":
                raise StateConflict(f"Duel #{duel.id} has ended; no more rounds can open.")
            current = await queries.open_round(session, duel.id)
            if current is not None:
                raise StateConflict(
                    f"Round {current.number} of duel #{duel.id} is still open: close it with "
                    f"`/round close duel:{duel.id}` before opening another."
                )
            return await self._open(session, duel, actor_id, deadline)

    async def _open(
        self, session: AsyncSession, duel: Duel, actor_id: int, deadline: datetime | None
    ) -> RoundOpened:
        """Open the duel's next round (a step, for a multi-step ruleset): a fresh seed whose
        commitment is published, and DM prompts to the sides the ruleset awaits."""
        now = utcnow()
        rules = _ruleset(duel.ruleset)
        current = rules.state_from_dict(duel.state)
        awaiting = rules.awaiting_sides(current)
        number = await queries.last_round_number(session, duel.id) + 1
        seed = new_seed()
        rnd = Round(
            duel_id=duel.id,
            number=number,
            status="open",
            opened_by=actor_id,
            opened_at=now,
            deadline=deadline,
            reminders_sent={},
            seed=seed,
            commitment=commitment(seed),
            state_before=dict(duel.state),
        )
        session.add(rnd)
        await session.flush()
        view = duel_view(duel, rnd, set())
        _post_in_duel_channel(
            session,
            view,
            RoundOpen(
                duel_id=duel.id,
                round_no=number,
                ruleset=duel.ruleset,
                a=Party(duel.a_user_id, view.a.name),
                b=Party(duel.b_user_id, view.b.name),
                commitment=rnd.commitment,
                deadline=deadline,
                opened_by=actor_id,
                awaiting=None if tuple(awaiting) == SIDES else tuple(awaiting),
            ),
            key=f"{rnd.id}",
            on_behalf_of=actor_id,
        )
        for side in awaiting:
            me = view.duellist(side)
            prompt = rules.prompt(current, side)
            _enqueue(
                session,
                RoundPrompt(
                    duel_id=duel.id,
                    round_no=number,
                    ruleset=duel.ruleset,
                    side=side,
                    opponent=view.duellist(other_side(side)).name,
                    channel_id=view.post_channel_id,
                    commitment=rnd.commitment,
                    deadline=deadline,
                    moves=legal_moves(duel.ruleset, duel.state, side),
                    prompt=prompt,
                    secret=prompt is None or rules.is_secret(current),
                ),
                dedupe_key=f"round_dm:{rnd.id}:{side}",
                guild_id=duel.guild_id,
                duel_id=duel.id,
                target="user",
                target_id=me.user_id,
                on_behalf_of=actor_id,
            )
        queries.audit(
            session,
            guild_id=duel.guild_id,
            actor_id=actor_id,
            action="round.open",
            duel_id=duel.id,
            details={"round": number, "commitment": rnd.commitment, "deadline": _iso(deadline)},
        )
        return RoundOpened(view, number, rnd.commitment, deadline)

    async def submit_move(
        self,
        *,
        user_id: int,
        move: str,
        via: str,
        duel_id: int | None = None,
        round_no: int | None = None,
        guild_id: int | None = None,
    ) -> SubmissionReceipt:
        """Record a secret move. ``round_no`` (from a button) refuses moves meant for an
        earlier round. ``guild_id``: the server /move was used in (None: a DM). A duel that
        is not the sender's (or not of that server) is answered as an unknown number."""
        if via not in SUBMISSION_CHANNELS:
            raise InvalidInput(f"Unknown submission channel {via!r}.")
        scope = DuelScope.of_duellist(user_id, guild_id)
        if duel_id is not None and not fits_id(duel_id):
            raise scope.not_found(duel_id)
        async with self._db.transaction() as session:
            if duel_id is None:  # a DM without "#N": the sender's one open round, locked
                found: tuple[Duel, Round] | None = await self._only_open_duel(session, user_id)
            else:
                found = await queries.duel_and_open_round_for_update(session, duel_id)
            rnd: Round | None
            if found is not None:
                duel, rnd = found
                if not scope.includes(duel):
                    raise scope.not_found(duel.id)
            else:  # no open round (or it just closed): the refusal needs the details
                assert duel_id is not None  # a DM without "#N" always finds its pair
                duel = await self._get_duel(session, duel_id, guild_id, lock=True, scope=scope)
                rnd = await queries.open_round(session, duel.id, lock=True)
            side = "a" if duel.a_user_id == user_id else "b"
            ruleset = _ruleset(duel.ruleset)
            state = ruleset.state_from_dict(duel.state)
            awaiting = ruleset.awaiting_sides(state)
            if duel.status == "live" and side not in awaiting:
                waiting = " and ".join(
                    clean_name(str(duel.state[s].get("name") or f"Duellist {s.upper()}"))
                    for s in awaiting
                )
                raise NotAllowed(
                    f"It is not your turn to choose in duel #{duel.id}: waiting for "
                    f"{waiting or 'nobody'}."
                )
            try:
                move_id = ruleset.parse_choice(move, state, side)  # type: ignore[arg-type]
            except RulesError as exc:
                raise InvalidInput(exc.message) from None
            if duel.status != "live":
                raise RoundNotOpen(f"Duel #{duel.id} has ended; moves are no longer taken.")
            if rnd is None:
                raise RoundNotOpen(
                    f"Duel #{duel.id} has no open round: wait for a commander to open the next "
                    "round (your move was not recorded)."
                )
            if round_no is not None and rnd.number != round_no:
                raise RoundNotOpen(
                    f"Round {round_no} of duel #{duel.id} is over; round {rnd.number} is open now. "
                    "Use the buttons of its message, or type your move."
                )
            now = utcnow()
            if rnd.deadline is not None and now >= rnd.deadline:
                raise RoundNotOpen(
                    f"The deadline of round {rnd.number} of duel #{duel.id} has passed; "
                    "the move was not recorded."
                )
            current = (await queries.current_submissions(session, rnd.id)).get(side)
            changed_from = None
            if current is not None:
                if not self._rules_of(duel)["change_of_choice"]:
                    raise MoveAlreadyLocked(
                        f"You already locked in {ruleset.choice_label(current.move)} for "
                        f"round {rnd.number} of duel #{duel.id}, and this duel does not allow "
                        "changing a move before the round closes (change of choice was off "
                        "when it started).",
                        current.move,
                    )
                await self._refuse_past_change_cap(session, duel, rnd, side, current.move)
                current.superseded_at = now
                changed_from = current.move
                await session.flush()
            session.add(
                Submission(
                    round_id=rnd.id,
                    side=side,
                    user_id=user_id,
                    move=move_id,
                    via=via,
                    submitted_at=now,
                )
            )
            await session.flush()
            other = "b" if side == "a" else "a"
            closed = None
            if ruleset.advances_at_once(state):
                # A step closes as soon as every awaited side has chosen (and the next opens).
                sides = await queries.current_submissions(session, rnd.id)
                if set(awaiting) <= set(sides):
                    closed = await self._close(session, duel, rnd, None, "all_submitted")
            elif self._defaults.close_when_all_submitted:
                sides = await queries.current_submissions(session, rnd.id)
                if set(sides) == {"a", "b"}:
                    closed = await self._close(session, duel, rnd, None, "all_submitted")
            return SubmissionReceipt(
                duel_id=duel.id,
                guild_id=duel.guild_id,
                round_no=rnd.number,
                side=side,
                move=move_id,
                move_label=ruleset.choice_label(move_id),
                changed_from=changed_from,
                deadline=rnd.deadline,
                opponent_name=duel.state[other]["name"],
                closed=closed,
                changed_from_label=(
                    None if changed_from is None else ruleset.choice_label(changed_from)
                ),
            )

    async def _refuse_past_change_cap(
        self, session: AsyncSession, duel: Duel, rnd: Round, side: str, current_move: str
    ) -> None:
        """A side may change its move at most ``max_move_changes`` times per round: the
        first move plus that many changes are stored, nothing more."""
        cap = self._defaults.max_move_changes
        changes = await queries.submission_count(session, rnd.id, side) - 1
        if changes >= cap:
            label = _ruleset(duel.ruleset).choice_label(current_move)
            raise TooManyChanges(
                f"You have changed your move {changes} times in round {rnd.number} of duel "
                f"#{duel.id}, the most allowed; your current move stays {label}.",
                changes,
                current_move,
            )

    async def _only_open_duel(self, session: AsyncSession, user_id: int) -> tuple[Duel, Round]:
        found = await queries.open_rounds_of_user(session, user_id, lock=True)
        if not found:
            raise NotFound("You have no open round to move in right now.")
        # A multi-step duel waiting for the other side is not where this move goes.
        mine = [
            (d, r)
            for d, r in found
            if ("a" if d.a_user_id == user_id else "b")
            in _ruleset(d.ruleset).awaiting_sides(_ruleset(d.ruleset).state_from_dict(d.state))
        ]
        found = mine or found
        if len(found) > 1:
            listing = ", ".join(
                f"#{d.id} vs {d.state['b' if d.a_user_id == user_id else 'a']['name']}"
                for d, _ in found
            )
            raise AmbiguousDuel(
                f"You are in several open duels ({listing}). Put the duel number first, "
                f"for example `#{found[0][0].id} evade`.",
                tuple(d.id for d, _ in found),
            )
        return found[0]

    async def close_round(
        self,
        *,
        duel_id: int,
        guild_id: int | None,
        actor_id: int | None,
        reason: str = "commander",
        round_no: int | None = None,
    ) -> RoundClosed:
        """Adjudicate and close the open round. Exactly once: the loser of a race is refused.
        A duellist of the duel cannot close it (``actor_id`` None: the deadline)."""
        async with self._db.transaction() as session:
            duel = await self._get_duel(session, duel_id, guild_id, lock=True)
            refuse_own_duel(
                duel,
                actor_id,
                "close its round",
                "Another commander closes it, or its deadline does.",
            )
            rnd = await queries.open_round(session, duel.id, lock=True)
            if rnd is None or (round_no is not None and rnd.number != round_no):
                raise RoundNotOpen(f"Duel #{duel.id} has no open round to close.")
            return await self._close(session, duel, rnd, actor_id, reason)

    async def _close(
        self, session: AsyncSession, duel: Duel, rnd: Round, actor_id: int | None, reason: str
    ) -> RoundClosed:
        submissions = await queries.current_submissions(session, rnd.id)
        rules_in_force = self._rules_of(duel)
        used = adjudication_settings(rules_in_force)
        follows = await self._undo_before(session, duel, rnd)
        ruleset = _ruleset(duel.ruleset)
        choices: dict[str, str | None] = {
            s: (submissions[s].move if s in submissions else None) for s in ("a", "b")
        }
        result = ruleset.resolve(
            ruleset.state_from_dict(duel.state),
            choices,  # type: ignore[arg-type]
            FairDice(rnd.seed, duel.id, rnd.number),
            ruleset.make_options(used),
        )
        now = utcnow()
        # While the duel runs, a multi-step ruleset's state holds secrets: the stored and
        # published result carries only its public part (the full state is duel.state).
        stored = ruleset.public_result(result.to_dict())
        # Every outcome-changing rule this duel was fixed with when it started.
        stored["options"] = dict(rules_in_force)
        if follows is not None:
            stored["follows_undo_of"] = follows.number
        # A secret step's result masks its choices: the labels follow the result, never the
        # submissions.
        stored["labels"] = {
            s: ruleset.choice_label(
                choices[s] if result.choices.get(s) == choices[s] else result.choices.get(s)
            )
            for s in ("a", "b")
        }
        stored["via"] = {s: submissions[s].via for s in submissions}
        rnd.status = "closed"
        rnd.closed_by = actor_id
        rnd.closed_at = now
        rnd.close_reason = reason
        rnd.outcome = result.outcome
        rnd.result = stored
        duel.state = result.state.to_dict()
        duel.locked = result.locked
        duel.winner = result.winner
        duel.rounds_played += 1
        if result.ended:
            duel.status = "ended"
            duel.ended_at = now
            duel.end_reason = f"round {rnd.number}: {result.outcome}"
            duel.end_kind = "result"
            await ratings.duel_ended(session, duel, result.outcome)
        await session.flush()
        view = duel_view(duel)
        on_behalf_of = actor_id if actor_id is not None else rnd.opened_by
        _post_in_duel_channel(
            session,
            view,
            RoundResultPost(
                duel_id=duel.id,
                guild_id=duel.guild_id,
                round_no=rnd.number,
                a=_party(duel.a_user_id, stored["state"]["a"]),
                b=_party(duel.b_user_id, stored["state"]["b"]),
                result=stored,
                winner_name=view.winner_name,
                seed=rnd.seed,
                commitment=rnd.commitment,
                closed_by=actor_id,
                reason=reason,
                ended=result.ended,
                follows_undo=None
                if follows is None
                else FollowsUndo(follows.number, follows.undone_by, follows.undo_reason),
            ),
            key=f"{rnd.id}",
            on_behalf_of=on_behalf_of,
        )
        queries.audit(
            session,
            guild_id=duel.guild_id,
            actor_id=actor_id,
            action="round.close",
            duel_id=duel.id,
            details={"round": rnd.number, "outcome": result.outcome, "reason": reason},
        )
        for side, notes in ruleset.private_notes(result).items():
            if not notes:
                continue
            # What only this duellist may learn: a DM to them, never in a channel post, the
            # stored result or the log.
            _enqueue(
                session,
                PrivateNote(
                    duel_id=duel.id,
                    round_no=rnd.number,
                    ruleset=duel.ruleset,
                    side=side,
                    opponent=str(stored["state"][other_side(side)]["name"]),
                    channel_id=view.post_channel_id,
                    notes=tuple(str(note) for note in notes),
                ),
                dedupe_key=f"private_note:{rnd.id}:{side}",
                guild_id=duel.guild_id,
                duel_id=duel.id,
                target="user",
                target_id=duel.a_user_id if side == "a" else duel.b_user_id,
                on_behalf_of=on_behalf_of,
            )
        if result.ended:
            await self._write_back_sheets(session, duel, ruleset, result.state, on_behalf_of)
        elif ruleset.advances_at_once(result.state):
            # The next step opens at once, with its own seed; a step with a deadline is
            # followed by one of the same length.
            deadline = None
            if rnd.deadline is not None and rnd.opened_at is not None:
                deadline = now + (rnd.deadline - rnd.opened_at)
            await self._open(session, duel, on_behalf_of, deadline)
        return RoundClosed(
            view, rnd.number, result.outcome, stored, rnd.seed, rnd.commitment, actor_id, reason
        )

    @staticmethod
    async def _undo_before(session: AsyncSession, duel: Duel, rnd: Round) -> Round | None:
        """The undone round this round's result follows: of the undone rounds right before
        it, the one undone last (undo always voids the latest closed round)."""
        stmt = (
            select(Round)
            .where(Round.duel_id == duel.id, Round.number < rnd.number)
            .order_by(Round.number.desc())
        )
        follows = None
        for earlier in (await session.execute(stmt)).scalars():
            if earlier.status != "undone":
                break
            follows = earlier
        return follows

    async def _write_back_sheets(
        self,
        session: AsyncSession,
        duel: Duel,
        ruleset: Ruleset,
        final_state: Any,
        actor_id: int,
    ) -> None:
        """The sheet fields the duel changed (FoEQ: HP, Hit Dice, spell slots) are written
        back to the duellists' profiles, audited."""
        for side, updates in ruleset.sheet_updates(final_state).items():
            if not updates:
                continue
            user_id = duel.a_user_id if side == "a" else duel.b_user_id
            stmt = (
                select(DuellistProfile)
                .where(
                    DuellistProfile.guild_id == duel.guild_id,
                    DuellistProfile.user_id == user_id,
                )
                .with_for_update()
            )
            profile = (await session.execute(stmt)).scalar_one_or_none()
            if profile is None:
                continue
            before = dict((profile.sheets or {}).get(ruleset.id) or {})
            after = {**before, **updates}
            profile.sheets = {**(profile.sheets or {}), ruleset.id: after}
            queries.audit(
                session,
                guild_id=duel.guild_id,
                actor_id=actor_id,
                action="sheet.update",
                duel_id=duel.id,
                details={
                    "user_id": user_id,
                    "ruleset": ruleset.id,
                    "before": {k: before.get(k) for k in updates},
                    "after": dict(updates),
                },
            )

    async def end_duel(
        self, *, duel_id: int, guild_id: int | None, actor_id: int, reason: str
    ) -> DuelView:
        reason = clean_reason(reason, "ending the duel")
        async with self._db.transaction() as session:
            duel = await self._get_duel(session, duel_id, guild_id, lock=True)
            refuse_own_duel(duel, actor_id, "end it", "Another commander can end it.")
            if duel.status != "live":
                raise StateConflict(f"Duel #{duel.id} has already ended.")
            rnd = await queries.open_round(session, duel.id, lock=True)
            now = utcnow()
            if rnd is not None:
                # The round never resolves: its moves stay sealed, its seed is no longer secret.
                rnd.status = "cancelled"
                rnd.closed_by = actor_id
                rnd.closed_at = now
                rnd.close_reason = "duel_ended"
            duel.status = "ended"
            duel.ended_at = now
            duel.end_reason = reason
            duel.end_kind = "commander"
            await ratings.duel_ended(session, duel, None)
            await session.flush()
            view = duel_view(duel)
            _post_in_duel_channel(
                session,
                view,
                DuelEnd(
                    duel_id=duel.id,
                    a=Party(duel.a_user_id, view.a.name),
                    b=Party(duel.b_user_id, view.b.name),
                    reason=reason,
                    cancelled_round=None if rnd is None else rnd.number,
                ),
                key=f"{duel.id}",
                on_behalf_of=actor_id,
            )
            queries.audit(
                session,
                guild_id=duel.guild_id,
                actor_id=actor_id,
                action="duel.end",
                duel_id=duel.id,
                details={"reason": reason},
            )
            return view

    async def undo_round(
        self, *, duel_id: int, guild_id: int | None, actor_id: int, reason: str
    ) -> DuelView:
        """Void the last closed round: the duel returns to its state before it; the undone
        result stays in the ledger with who undid it and why (``reason`` is required: an
        undo followed by a new close is a re-roll, so it is accountable)."""
        reason = clean_reason(reason, "undoing the round")
        async with self._db.transaction() as session:
            duel = await self._get_duel(session, duel_id, guild_id, lock=True)
            refuse_own_duel(
                duel,
                actor_id,
                "undo its rounds",
                "Another commander can undo a round (with a reason).",
            )
            if await queries.open_round(session, duel.id) is not None:
                raise StateConflict(
                    f"Duel #{duel.id} has an open round: close it before undoing the last result."
                )
            if duel.status == "ended" and duel.end_kind != "result":
                raise StateConflict(
                    f"Duel #{duel.id} was ended by a commander; its rounds can no longer be undone."
                )
            stmt = (
                select(Round)
                .where(Round.duel_id == duel.id, Round.status.in_(("closed", "cancelled")))
                .order_by(Round.number.desc())
                .limit(1)
                .with_for_update()
            )
            rnd = (await session.execute(stmt)).scalar_one_or_none()
            if rnd is None or rnd.status != "closed":
                raise StateConflict(f"Duel #{duel.id} has no closed round to undo.")
            now = utcnow()
            rnd.status = "undone"
            rnd.undone_by = actor_id
            rnd.undone_at = now
            rnd.undo_reason = reason
            before = rnd.state_before
            duel.state = dict(before)
            duel.locked = bool(before.get("locked", False))
            duel.winner = before.get("winner") if before.get("winner") in ("a", "b") else None
            duel.status = "live"
            duel.ended_at = None
            duel.end_reason = None
            duel.end_kind = None
            duel.rounds_played -= 1
            await ratings.duel_reopened(session, duel)
            await session.flush()
            view = duel_view(duel)
            _post_in_duel_channel(
                session,
                view,
                RoundUndone(
                    duel_id=duel.id,
                    round_no=rnd.number,
                    outcome=rnd.outcome,
                    undone_by=actor_id,
                    reason=reason,
                ),
                key=f"{rnd.id}",
                on_behalf_of=actor_id,
            )
            queries.audit(
                session,
                guild_id=duel.guild_id,
                actor_id=actor_id,
                action="round.undo",
                duel_id=duel.id,
                details={"round": rnd.number, "undone_outcome": rnd.outcome, "reason": reason},
            )
            return view
