"""Round commands: open a round (a step, for a multi-step ruleset), take a secret move,
close and adjudicate it exactly once (the next step of a multi-step ruleset opens at once).
Undo is in undo.py."""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import nullcontext
from datetime import datetime
from functools import partial
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from bot.db import queries
from bot.db.models import Duel, Round
from bot.i18n.context import _, speaking
from bot.rules.adjudication import adjudicate
from bot.rules.base import SIDES
from bot.rules.capabilities import MultiStep, capability
from bot.rules.dice import commitment, new_seed
from bot.rules.errors import RulesError
from bot.services import ratings
from bot.services.acceptance import MoveRequest
from bot.services.clock import utcnow
from bot.services.duel_support import (
    DuelUseCases,
    announce,
    audit_duel,
    close_round_buttons,
    coded_end,
    duel_view,
    duellist_fallback_name,
    iso,
    legal_moves,
    member_dm_language,
    other_side,
    party,
    post_in_duel_channel,
    ruleset_of,
    user_of,
)
from bot.services.errors import (
    BeforeDeadline,
    InvalidInput,
    NextStep,
    RoundNotOpen,
    StateConflict,
)
from bot.services.message_format import MAX_MOVE_BUTTONS
from bot.services.messages import (
    FollowsUndo,
    Party,
    PrivateNote,
    RoundOpen,
    RoundPrompt,
    RoundResultPost,
)
from bot.services.move_pass import take_move
from bot.services.profiles import clean_name
from bot.services.published import publish
from bot.services.scope import DuelScope
from bot.services.unit import connection_transaction, transaction
from bot.services.views import (
    RoundClosed,
    RoundOpened,
    SubmissionReceipt,
)

SUBMISSION_CHANNELS = ("dm_text", "dm_button", "slash")


class RoundCommands(DuelUseCases):
    # -- open ---------------------------------------------------------------------------

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
            raise InvalidInput(_("The deadline must be in the future."), duel_id=duel_id)
        async with transaction(self._db) as session:
            # A duellist may not open their own duel's rounds either (issue 23): the
            # opening sets the deadline, and so when a missing move forfeits.
            duel = await self._commanded_duel(session, duel_id, guild_id, actor_id, "open")
            if duel.status != "live":
                raise StateConflict(
                    _("Duel #{duel} has ended; no more rounds can open.", duel=duel.id),
                    duel_id=duel.id,
                )
            current = await queries.open_round(session, duel.id)
            if current is not None:
                raise StateConflict(
                    _(
                        "Round {round} of duel #{duel} is still open: close it before opening "
                        "another.",
                        round=current.number,
                        duel=duel.id,
                    ),
                    duel_id=duel.id,
                    round_no=current.number,
                    next_step=NextStep.CLOSE_ROUND,
                )
            languages = await queries.member_languages(session, [duel.a_user_id, duel.b_user_id])
            return await self._open(session, duel, actor_id, deadline, languages)

    async def _open(
        self,
        session: AsyncSession,
        duel: Duel,
        actor_id: int,
        deadline: datetime | None,
        member_languages: Mapping[int, str],
    ) -> RoundOpened:
        """Open the duel's next round (a step, for a multi-step ruleset): a fresh seed whose
        commitment is published, and DM prompts to the sides the ruleset awaits. The
        channel's post speaks the duel's language, each DM its duellist's
        (``member_languages``: queries.member_languages of the two), and the view returned
        the caller's."""
        now = utcnow()
        rules = ruleset_of(duel.ruleset)
        current = rules.state_from_dict(duel.state)
        steps = capability(rules, MultiStep)  # None: a round, both sides, secret
        awaiting = SIDES if steps is None else steps.awaiting_sides(current)
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
        words = rules.step_words(current, number)  # the caller's language: the view's
        view = duel_view(duel, rnd, set())
        with speaking(duel.language):
            posted_words = rules.step_words(current, number)
        announce(
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
                words=posted_words,
            ),
            key=f"{rnd.id}",
            on_behalf_of=actor_id,
            actor_id=actor_id,
            action="round.open",
            details={"round": number, "commitment": rnd.commitment, "deadline": iso(deadline)},
        )
        listed = {side: legal_moves(duel.ruleset, duel.state, side) for side in awaiting}
        for side in awaiting:
            # A DM: its duellist's language, the moves' labels and the prompt too.
            language = member_dm_language(
                duel.language, member_languages, view.duellist(side).user_id
            )
            with speaking(language):
                prompt = None if steps is None else steps.prompt(current, side)
                message = RoundPrompt(
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
                    secret=prompt is None or steps is None or steps.is_secret(current),
                    words=rules.step_words(current, number),
                )
            post_in_duel_channel(
                session,
                view,
                message,
                key=f"round_dm:{rnd.id}:{side}",
                on_behalf_of=actor_id,
                to_side=side,
                language=language,
            )
        return RoundOpened(
            view,
            number,
            rnd.commitment,
            deadline,
            words=words,
            awaiting=tuple(awaiting),
            with_buttons=tuple(
                side for side in awaiting if 0 < len(listed[side]) <= MAX_MOVE_BUTTONS
            ),
        )

    # -- moves --------------------------------------------------------------------------

    async def submit_move(
        self,
        *,
        user_id: int,
        move: str,
        via: str,
        duel_id: int | None = None,
        round_no: int | None = None,
        guild_id: int | None = None,
        find_language: bool = False,
    ) -> SubmissionReceipt:
        """Record a secret move: every entry (a DM, a button, /move) comes here. One pass in
        one transaction: read the duel, its open round and the round's stored moves (locked),
        decide with ``acceptance.accept``, store the move, and when it completes the round,
        close it right there. ``round_no`` (from a button) refuses moves meant for an
        earlier round. ``guild_id``: the server /move was used in (None: a DM). A duel that
        is not the sender's (or not of that server) is answered as an unknown number.

        ``find_language`` (a DM from a member the caller does not know): the same pass
        first reads the language their DMs speak (``LanguageService.dm_language_of``'s
        rule) and takes the move in it; the receipt's ``language``, or a refusal's, says
        which. Two reads in the move's own hop, not two transactions before it."""
        if via not in SUBMISSION_CHANNELS:
            raise InvalidInput(
                _("Unknown submission channel {via}.", via=repr(via)), allowed=SUBMISSION_CHANNELS
            )
        req = MoveRequest(user_id, move, via, duel_id, round_no, guild_id, find_language)
        scope = DuelScope.of_duellist(user_id, guild_id)
        async with connection_transaction(self._db) as work:
            # read, decide and store in one step (on SQLite: one call on the lane's
            # connection, inline); committed in that step unless the move completes the round
            duel, rnd, took, language = await work.run(
                partial(take_move, req, scope, self._defaults)
            )
            closed = None
            if took.completes_round:
                with speaking(language) if language is not None else nullcontext():
                    closed = await self._close_after_move(work.session(), duel.id, rnd.id)
            return SubmissionReceipt(
                duel_id=duel.id,
                guild_id=duel.guild_id,
                round_no=rnd.number,
                side=took.side,
                move=took.move_id,
                move_label=took.label,
                changed_from=took.changed_from,
                deadline=rnd.deadline,
                opponent_name=duel.state[other_side(took.side)]["name"],
                closed=closed,
                changed_from_label=took.changed_from_label,
                words=took.words,
                language=language,
            )

    async def _close_after_move(
        self, session: AsyncSession, duel_id: int, round_id: int
    ) -> RoundClosed:
        """The close of a round the move just completed, in the move's transaction (the
        rows are already locked by the move's read)."""
        duel = await session.get(Duel, duel_id)
        rnd = await session.get(Round, round_id)
        assert duel is not None and rnd is not None
        return await self._close(session, duel, rnd, None, "all_submitted")

    # -- close --------------------------------------------------------------------------

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
        async with transaction(self._db) as session:
            duel = await self._commanded_duel(session, duel_id, guild_id, actor_id, "close")
            rnd = await queries.open_round(session, duel.id, lock=True)
            if rnd is None or (round_no is not None and rnd.number != round_no):
                raise RoundNotOpen(
                    _("Duel #{duel} has no open round to close.", duel=duel.id),
                    duel_id=duel.id,
                    round_no=round_no,
                )
            if actor_id is not None:
                await self._refuse_close_before_deadline(session, duel, rnd)
            return await self._close(session, duel, rnd, actor_id, reason)

    async def _refuse_close_before_deadline(
        self, session: AsyncSession, duel: Duel, rnd: Round
    ) -> None:
        """A duellist was promised until the announced deadline: before it, a commander
        closes a round only once every awaited side has moved (a missing move forfeits, or
        counts as no move, only once the deadline has passed). Without a deadline the
        commander's close is the deadline."""
        if rnd.deadline is None or utcnow() >= rnd.deadline:
            return
        rules = ruleset_of(duel.ruleset)
        steps = capability(rules, MultiStep)
        awaited = (
            SIDES if steps is None else steps.awaiting_sides(rules.state_from_dict(duel.state))
        )
        moved = await queries.current_submissions(session, rnd.id)
        missing = [s for s in awaited if s not in moved]
        if not missing:
            return
        names = [
            clean_name(str(duel.state[s].get("name") or duellist_fallback_name(s)))
            for s in missing
        ]
        fields = {
            "round": rnd.number,
            "duel": duel.id,
            "deadline": f"{rnd.deadline:%Y-%m-%d %H:%M}",
        }
        if len(names) == 1:
            refusal = _(
                "Round {round} of duel #{duel} cannot be closed yet: {name} has not moved and "
                "the round's deadline ({deadline} UTC) has not passed. Before its deadline a "
                "round closes only once both duellists have moved; at the deadline it closes "
                "by itself. Nothing was changed.",
                name=names[0],
                **fields,
            )
        else:
            refusal = _(
                "Round {round} of duel #{duel} cannot be closed yet: {first} and {second} have "
                "not moved and the round's deadline ({deadline} UTC) has not passed. Before its "
                "deadline a round closes only once both duellists have moved; at the deadline "
                "it closes by itself. Nothing was changed.",
                first=names[0],
                second=names[-1],
                **fields,
            )
        raise BeforeDeadline(
            refusal,
            duel_id=duel.id,
            round_no=rnd.number,
        )

    async def _close(
        self, session: AsyncSession, duel: Duel, rnd: Round, actor_id: int | None, reason: str
    ) -> RoundClosed:
        submissions, earlier, languages = await queries.close_inputs(
            session, duel.id, rnd, (duel.a_user_id, duel.b_user_id)
        )
        rules_in_force = self._rules_of(duel)
        follows = _undone_before(earlier)
        submitted = {s: submissions[s].move for s in submissions}
        # The rules are asked once: the result, the state to store, what may be published
        # (while the duel runs a multi-step ruleset's state holds secrets), the labels as
        # published, the private notes and what comes next. Every text of it is stored and
        # posted: in the duel's language, whoever closes the round (issue 28).
        with speaking(duel.language):
            try:
                judged = adjudicate(
                    duel.ruleset,
                    duel.state,
                    submitted,
                    rules_in_force,
                    seed=rnd.seed,
                    duel_id=duel.id,
                    round_no=rnd.number,
                )
            except RulesError as exc:
                raise InvalidInput(exc.message, ruleset=duel.ruleset) from None
            # Built once; posts and exports read it.
            published = publish(
                judged.public,
                rules_in_force=rules_in_force,
                submitted=submitted,
                via={s: submissions[s].via for s in submissions},
                follows_undo_of=None if follows is None else follows.number,
                judged=judged,
            )
            # Stored as its code, "round 4: a_wins": each reader reads it in their own
            # language ("Runde 4: Ann gewinnt das Duell", duel_support._end_reason); an
            # outcome id a code cannot carry is stored in the duel's words.
            ending = None
            if judged.result.ended:
                ending = coded_end(rnd.number, judged.result.outcome) or _(
                    "{label}: {sentence}", label=judged.words.label, sentence=published.sentence
                )
        result = judged.result
        now = utcnow()
        rnd.status = "closed"
        rnd.closed_by = actor_id
        rnd.closed_at = now
        rnd.close_reason = reason
        rnd.outcome = result.outcome
        rnd.result = published.to_json()
        duel.state = judged.state
        duel.winner = result.winner
        duel.rounds_played += 1
        if result.ended:
            duel.status = "ended"
            duel.ended_at = now
            duel.end_reason = ending
            duel.end_kind = "result"
            await ratings.duel_ended(session, duel, result.outcome)
        await session.flush()
        view = duel_view(duel, notes=judged.status_notes)
        on_behalf_of = actor_id if actor_id is not None else rnd.opened_by
        announce(
            session,
            view,
            RoundResultPost(
                duel_id=duel.id,
                guild_id=duel.guild_id,
                round_no=rnd.number,
                a=party(duel.a_user_id, published.state["a"]),
                b=party(duel.b_user_id, published.state["b"]),
                result=published,
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
            actor_id=actor_id,
            action="round.close",
            details={"round": rnd.number, "outcome": result.outcome, "reason": reason},
        )
        for side, said in judged.private_notes.items():
            # What only this duellist may learn: a DM to them, never in a channel post, the
            # stored result or the log.
            opponent = published.names.of(other_side(side))
            where = (duel.id, rnd.number, duel.ruleset, side, opponent, view.post_channel_id)
            # Its duellist's language; what the rules said in it is the duel's (asked once).
            post_in_duel_channel(
                session,
                view,
                PrivateNote(*where, said, words=judged.words),
                key=f"private_note:{rnd.id}:{side}",
                on_behalf_of=on_behalf_of,
                to_side=side,
                language=member_dm_language(duel.language, languages, user_of(duel, side)),
            )
        # The round's DM buttons no longer apply: queued after its result (posted first).
        close_round_buttons(
            session, view, rnd, reason="closed", now=now, member_languages=languages
        )
        if result.ended:
            await _write_back_sheets(session, duel, judged.sheet_updates, on_behalf_of)
        elif judged.advances_at_once:
            # The next step opens at once, with its own seed; a step with a deadline is
            # followed by one of the same length.
            deadline = None
            if rnd.deadline is not None and rnd.opened_at is not None:
                deadline = now + (rnd.deadline - rnd.opened_at)
            await self._open(session, duel, on_behalf_of, deadline, languages)
        return RoundClosed(
            view, rnd.number, result.outcome, published, rnd.seed, rnd.commitment, actor_id, reason
        )


def _undone_before(earlier: list[Round]) -> Round | None:
    """The undone round a round's result follows, given the rounds before it (latest
    first): of the undone rounds right before it, the one undone last (by its undo time;
    the highest number when times tie or are missing). Open, close, undo three times: the
    next result follows the undo of round 3, not of round 1."""
    run = []
    for rnd in earlier:
        if rnd.status != "undone":
            break
        run.append(rnd)
    if not run:
        return None
    return max(run, key=lambda r: (r.undone_at is not None, r.undone_at or r.opened_at, r.number))


async def _write_back_sheets(
    session: AsyncSession, duel: Duel, sheet_updates: Mapping[str, Mapping[str, Any]], actor_id: int
) -> None:
    """The sheet fields the duel changed (``Adjudication.sheet_updates``) are written back
    to the duellists' profiles, audited."""
    ruleset_id = duel.ruleset
    for side, updates in sheet_updates.items():
        if not updates:
            continue
        user_id = user_of(duel, side)
        profile = await queries.profile_for_update(session, duel.guild_id, user_id)
        if profile is None:
            continue
        before = dict((profile.sheets or {}).get(ruleset_id) or {})
        after = {**before, **updates}
        profile.sheets = {**(profile.sheets or {}), ruleset_id: after}
        change = {"before": {k: before.get(k) for k in updates}, "after": dict(updates)}
        details = {"user_id": user_id, "ruleset": ruleset_id, **change}
        audit_duel(session, duel, actor_id, "sheet.update", details)
