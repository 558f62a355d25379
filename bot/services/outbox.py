"""The outbox: posts to Discord written in the same transaction as the state change.

Workers claim due posts with a lease (FOR UPDATE SKIP LOCKED on PostgreSQL, so several bot
processes never take the same post), then mark them posted or failed. A failed attempt is
retried with exponential backoff; a post whose lease ran out (its worker died) is claimed
again, and the poster checks what was already posted before posting twice.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial

from sqlalchemy import Connection, or_, select

from bot.db import queries
from bot.db.engine import Database, OutboxListener
from bot.db.models import ChannelWebhook, Duel, OutboxPost
from bot.services.clock import utcnow
from bot.services.duel_support import enqueue
from bot.services.messages import (
    DirectMessage,
    DmClosed,
    MessageFormatError,
    OutboxMessage,
    parse_message,
)
from bot.services.unit import connection_transaction, transaction
from bot.services.views import OutboxItem, WebhookView

MAX_ATTEMPTS = 12
#: Dedupe-key suffixes of a post re-sent because its duel's thread or forum post is gone:
#: to the channel the duel was started from, or to the commander's DM.
REROUTED_CHANNEL = "~home-gone:channel"
REROUTED_DM = "~home-gone:dm"
MAX_BACKOFF = timedelta(minutes=10)


def backoff(attempts: int) -> timedelta:
    """2 s, 4 s, 8 s ... capped at 10 minutes."""
    return min(timedelta(seconds=2 ** max(1, attempts)), MAX_BACKOFF)


_LIVE_WORKERS: set[str] = set()  # worker ids that have claimed in this process


def claimed_by_dead_process(holder: str) -> bool:
    """True when a claim's holder is a worker of this host whose process is gone.

    Worker ids are ``<hostname[:40]>:<pid>:<random>`` (bot.discord.cogs.workers). The same
    pid with another id is an earlier incarnation (a container restarted as pid 1); another
    pid is dead when no such process exists. Anything else (other hosts, unparsable ids, a
    pid that is alive or was reused) is left to its lease.
    """
    host, _, rest = holder.partition(":")
    pid_text = rest.partition(":")[0]
    if host != socket.gethostname()[:40] or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    if pid == os.getpid():
        return holder not in _LIVE_WORKERS
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


@dataclass(frozen=True, slots=True)
class ButtonMessage:
    """A DM post whose buttons a round's close turns off, as the outbox knows it now:
    the Discord message it became (None: not posted, and then never posted: the poster
    skips the prompts of a closed round), whether a worker holds it right now (its send may
    be under way: the edit waits), and the post's message (its buttons are rebuilt from it)."""

    post_id: int
    message_id: int | None
    in_flight: bool
    message: OutboxMessage | None


def _item(row: OutboxPost) -> OutboxItem:
    return OutboxItem(
        id=row.id,
        dedupe_key=row.dedupe_key,
        kind=row.kind,
        target=row.target,
        target_id=row.target_id,
        guild_id=row.guild_id,
        duel_id=row.duel_id,
        on_behalf_of=row.on_behalf_of,
        payload=dict(row.payload),
        attempts=row.attempts,
        first_attempt_at=row.first_attempt_at or row.created_at,
        language=row.language,
    )


def _any_due(now: datetime, conn: Connection) -> tuple[bool, bool]:
    return queries.outbox_post_due(conn, now), True  # nothing more: the read is done


class OutboxService:
    def __init__(self, db: Database) -> None:
        self._db = db

    def on_written(self, listener: OutboxListener) -> Callable[[], None]:
        """Call ``listener`` after every commit, by any service, that queued a post (the
        poster's wake-up); returns the function that stops it."""
        return self._db.on_outbox_written(listener)

    async def any_due(self) -> bool:
        """Whether ``claim`` would find a post now. A read of one index: the poster's idle
        poll asks this first, so a quiet second costs no claim's write transaction (it
        took SQLite's write lock once a second and 5 ms of CPU, issue 27)."""
        now = utcnow()
        async with connection_transaction(self._db) as work:
            return await work.run(partial(_any_due, now))

    async def release_dead_claims(self) -> int:
        """Hand back posts claimed by workers of this host that died (SIGKILL, OOM, a
        crash): without this they wait out their lease (minutes) after a restart. Their
        attempts count stays, so the poster looks for an earlier post before posting."""
        now = utcnow()
        released = 0
        async with transaction(self._db) as session:
            stmt = (
                select(OutboxPost)
                .where(
                    OutboxPost.status == "pending",
                    OutboxPost.claimed_until.is_not(None),
                    OutboxPost.claimed_until >= now,
                )
                .with_for_update(skip_locked=True)
            )
            for row in (await session.execute(stmt)).scalars():
                if row.claimed_by and claimed_by_dead_process(row.claimed_by):
                    row.claimed_by = None
                    row.claimed_until = None
                    released += 1
        return released

    async def claim(
        self, worker_id: str, *, limit: int = 10, lease: timedelta = timedelta(seconds=60)
    ) -> list[OutboxItem]:
        if worker_id not in _LIVE_WORKERS:
            # A worker's first claim (its process just started): free what dead ones held.
            _LIVE_WORKERS.add(worker_id)
            await self.release_dead_claims()
        now = utcnow()
        async with transaction(self._db) as session:
            stmt = (
                select(OutboxPost)
                .where(
                    OutboxPost.status == "pending",
                    OutboxPost.next_attempt_at <= now,
                    or_(OutboxPost.claimed_until.is_(None), OutboxPost.claimed_until < now),
                )
                .order_by(OutboxPost.id)
                .limit(limit)
                .with_for_update(skip_locked=True)
            )
            rows = list((await session.execute(stmt)).scalars())
            for row in rows:
                row.claimed_by = worker_id
                row.claimed_until = now + lease
                row.attempts += 1
                if row.first_attempt_at is None:
                    row.first_attempt_at = now
            await session.flush()
            return [_item(r) for r in rows]

    async def mark_posted(self, post_id: int, message_id: int | None) -> None:
        async with transaction(self._db) as session:
            row = await session.get(OutboxPost, post_id, with_for_update=True)
            if row is None or row.status == "posted":
                return
            row.status = "posted"
            row.posted_message_id = message_id
            row.posted_at = utcnow()
            row.claimed_by = None
            row.claimed_until = None
            row.last_error = None

    async def mark_failed(self, post_id: int, error: str, *, permanent: bool = False) -> bool:
        """Records a failed attempt. True when the post will be retried."""
        async with transaction(self._db) as session:
            row = await session.get(OutboxPost, post_id, with_for_update=True)
            if row is None or row.status != "pending":
                return False
            row.last_error = error[:500]
            row.claimed_by = None
            row.claimed_until = None
            if permanent or row.attempts >= MAX_ATTEMPTS:
                row.status = "failed"
                return False
            row.next_attempt_at = utcnow() + backoff(row.attempts)
            return True

    async def mark_dm_closed(self, post_id: int) -> None:
        """A DM failed with 50007: give up on it, record it, and tell the duel's channel
        (naming the duellist and /move, nothing else)."""
        async with transaction(self._db) as session:
            row = await session.get(OutboxPost, post_id, with_for_update=True)
            if row is None or row.status != "pending":
                return
            row.status = "failed"
            row.last_error = "50007: cannot send messages to this user"
            row.claimed_by = None
            row.claimed_until = None
            try:
                message = parse_message(row.kind, row.payload)
            except MessageFormatError:
                message = None
            channel_id = message.channel_id if isinstance(message, DirectMessage) else None
            round_no = message.round_no if isinstance(message, DirectMessage) else None
            notice_key = f"dm_closed:{row.duel_id}:{row.target_id}:{round_no}"
            # The round DM and a reminder to the same duellist can both bounce: one notice.
            already = await session.scalar(
                select(OutboxPost.id).where(OutboxPost.dedupe_key == notice_key)
            )
            if channel_id is not None and row.duel_id is not None and already is None:
                notice = DmClosed(duel_id=row.duel_id, round_no=round_no, user_id=row.target_id)
                # A channel post: the duel's language (the bounced DM spoke the member's).
                duel = await session.get(Duel, row.duel_id)
                enqueue(
                    session,
                    notice,
                    language=None if duel is None else duel.language,
                    dedupe_key=notice_key,
                    guild_id=row.guild_id,
                    duel_id=row.duel_id,
                    target="channel",
                    target_id=channel_id,
                    on_behalf_of=row.on_behalf_of,
                )
            queries.audit(
                session,
                guild_id=row.guild_id,
                actor_id=None,
                action="dm.closed",
                duel_id=row.duel_id,
                details={"user_id": row.target_id, "post": row.dedupe_key},
            )

    async def reroute(self, post_id: int, error: str, *, channel_id: int | None) -> str | None:
        """A duel's post whose home (its thread or forum post) is gone for good (Discord's 404
        10003/10008): give it up there and queue the same post where the commander sees it:
        ``channel_id`` (the channel the duel was started from, when the poster found one that
        takes messages) or else the commander's DM. The duel's audit says where it went and
        why. Returns where ("channel" or "dm"), None when there was nothing to do."""
        async with transaction(self._db) as session:
            row = await session.get(OutboxPost, post_id, with_for_update=True)
            if row is None or row.status != "pending":
                return None
            duel = await session.get(Duel, row.duel_id) if row.duel_id is not None else None
            commander = row.on_behalf_of or (duel.created_by if duel is not None else None)
            # A post already re-sent to a channel that is gone too goes to the DM: no loop.
            tried_channel = row.dedupe_key.endswith(REROUTED_CHANNEL)
            target: tuple[str, int, str] | None = None
            if channel_id is not None and channel_id != row.target_id and not tried_channel:
                target = ("channel", channel_id, REROUTED_CHANNEL)
            elif commander is not None and row.target == "channel":
                target = ("user", commander, REROUTED_DM)
            row.claimed_by = None
            row.claimed_until = None
            row.status = "failed"
            details: dict[str, object] = {
                "post": row.dedupe_key,
                "kind": row.kind,
                "gone": row.target_id,
                "reason": error[:200],
            }
            if target is None:
                row.last_error = f"{error} (the duel's home is gone; no fallback)"[:500]
                queries.audit(
                    session,
                    guild_id=row.guild_id,
                    actor_id=None,
                    action="post.undeliverable",
                    duel_id=row.duel_id,
                    details=details,
                )
                return None
            kind, target_id, suffix = target
            base = row.dedupe_key.removesuffix(REROUTED_CHANNEL)
            key = (base[: 120 - len(suffix)]) + suffix
            row.last_error = f"{error} (the duel's home is gone; re-sent as {key})"[:500]
            exists = await session.scalar(select(OutboxPost.id).where(OutboxPost.dedupe_key == key))
            if exists is None:
                session.add(
                    OutboxPost(
                        status="pending",
                        attempts=0,
                        next_attempt_at=utcnow(),
                        kind=row.kind,
                        payload=dict(row.payload),
                        dedupe_key=key,
                        guild_id=row.guild_id,
                        duel_id=row.duel_id,
                        target=kind,
                        target_id=target_id,
                        on_behalf_of=row.on_behalf_of,
                        # The same post, in its language (its texts were built in it).
                        language=row.language,
                    )
                )
            where = "channel" if kind == "channel" else "dm"
            queries.audit(
                session,
                guild_id=row.guild_id,
                actor_id=None,
                action="post.rerouted",
                duel_id=row.duel_id,
                details={**details, "to": where, "to_id": target_id, "fallback_post": key},
            )
            return where

    async def button_messages(self, round_id: int, side: str) -> list[ButtonMessage]:
        """The DMs with move buttons a round sent to one side (its prompt, its reminders),
        oldest first: what a ``buttons_closed`` edit disables."""
        now = utcnow()
        async with transaction(self._db) as session:
            out = []
            for row in await queries.button_dms_of_round(session, round_id):
                if row.dedupe_key.split(":")[2] != side:
                    continue
                try:
                    message: OutboxMessage | None = parse_message(row.kind, row.payload)
                except MessageFormatError:
                    message = None
                in_flight = (
                    row.status == "pending"
                    and row.claimed_until is not None
                    and row.claimed_until >= now
                )
                posted = row.posted_message_id if row.status == "posted" else None
                out.append(ButtonMessage(row.id, posted, in_flight, message))
            return out

    async def pending_count(self) -> int:
        async with transaction(self._db) as session:
            stmt = select(OutboxPost.id).where(OutboxPost.status == "pending")
            return len(list((await session.execute(stmt)).scalars()))

    # -- webhooks: one per channel, reused ----------------------------------------------

    async def get_webhook(self, channel_id: int) -> WebhookView | None:
        async with transaction(self._db) as session:
            row = await session.get(ChannelWebhook, channel_id)
            return (
                None
                if row is None
                else WebhookView(row.channel_id, row.webhook_id, row.webhook_token)
            )

    async def save_webhook(self, channel_id: int, webhook_id: int, token: str) -> None:
        async with transaction(self._db) as session:
            row = await session.get(ChannelWebhook, channel_id, with_for_update=True)
            if row is None:
                session.add(
                    ChannelWebhook(
                        channel_id=channel_id,
                        webhook_id=webhook_id,
                        webhook_token=token,
                        created_at=utcnow(),
                    )
                )
            else:
                row.webhook_id, row.webhook_token = webhook_id, token

    async def forget_webhook(self, channel_id: int) -> None:
        async with transaction(self._db) as session:
            row = await session.get(ChannelWebhook, channel_id, with_for_update=True)
            if row is not None:
                await session.delete(row)
