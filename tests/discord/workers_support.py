"""Running the real bot (create_bot, real cogs) against the fake Discord on a migrated
database, for the poster and scheduler tests."""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar, cast
from unittest import mock

from sqlalchemy import select, update

from bot.config import DiscordSettings, DuelSettings, Settings, WorkerSettings
from bot.db.engine import Database
from bot.db.models import AuditEntry, OutboxPost, Round
from bot.discord import client as client_module
from bot.discord.client import DuelBot, create_bot, wake_outbox
from bot.discord.workers.poster import Poster
from bot.discord.workers.scheduler import Scheduler
from bot.presentation.discord_posts import marker_ids
from bot.services.container import Services
from bot.services.views import DuelView, MemberRef
from tests.fakediscord import (
    DEFAULT_BOT_PERMISSIONS,
    FakeDiscord,
    FakeMessage,
    FakeUser,
    patch_discord,
    run_bot,
)

T = TypeVar("T")
C = TypeVar("C")

COMMANDER_NICK = "Commander Vimes"


def available_cogs() -> tuple[str, ...]:
    """The cogs in client.COGS whose modules exist (others are being written in parallel)."""
    return tuple(c for c in client_module.COGS if importlib.util.find_spec(c) is not None)


@dataclass
class World:
    fake: FakeDiscord
    bot: DuelBot
    services: Services
    db: Database
    guild_id: int
    channel_id: int
    commander: FakeUser
    alice: FakeUser
    bob: FakeUser
    notes: dict[str, Any] = field(default_factory=dict)

    @property
    def poster(self) -> Poster:
        return self._cog(Poster)

    @property
    def scheduler(self) -> Scheduler:
        return self._cog(Scheduler)

    def _cog(self, kind: type[C]) -> C:
        # load_extension imports its own copy of the module: compare by name, not class
        cog = self.bot.get_cog(kind.__name__)
        assert cog is not None and type(cog).__name__ == kind.__name__
        return cast(C, cog)

    def wake(self) -> None:
        wake_outbox(self.bot)

    def wake_scheduler(self) -> None:
        self.bot.scheduler_wakeup.set()

    async def start_duel(self, *, thread_id: int | None = None) -> DuelView:
        a = MemberRef(self.alice.id, "Alice")
        b = MemberRef(self.bob.id, "Bob")
        for member, (strength, agility) in ((a, (5, 6)), (b, (4, 7))):
            await self.services.profiles.set_stats(
                self.guild_id, self.commander.id, member, strength, agility
            )
        duel = await self.services.duels.start_duel(
            guild_id=self.guild_id,
            channel_id=self.channel_id,
            actor_id=self.commander.id,
            a=a,
            b=b,
            thread_id=thread_id,
        )
        self.wake()
        return duel

    async def open_round(self, duel_id: int, deadline: datetime | None = None) -> int:
        opened = await self.services.duels.open_round(
            duel_id=duel_id, guild_id=self.guild_id, actor_id=self.commander.id, deadline=deadline
        )
        self.wake()
        self.wake_scheduler()
        return opened.round_no

    async def move(self, user: FakeUser, duel_id: int, move: str) -> None:
        await self.services.duels.submit_move(
            user_id=user.id, move=move, via="slash", duel_id=duel_id
        )

    async def close(self, duel_id: int) -> None:
        await self.services.duels.close_round(
            duel_id=duel_id, guild_id=self.guild_id, actor_id=self.commander.id
        )
        self.wake()

    # -- database ------------------------------------------------------------------------

    async def outbox(self, **where: Any) -> list[OutboxPost]:
        async with self.db.transaction() as s:
            stmt = select(OutboxPost).order_by(OutboxPost.id)
            for key, value in where.items():
                stmt = stmt.where(getattr(OutboxPost, key) == value)
            return list((await s.execute(stmt)).scalars())

    async def audit(self, action: str) -> list[AuditEntry]:
        async with self.db.transaction() as s:
            stmt = select(AuditEntry).where(AuditEntry.action == action)
            return list((await s.execute(stmt)).scalars())

    async def set_outbox(self, post_id: int, **values: Any) -> None:
        async with self.db.transaction() as s:
            await s.execute(update(OutboxPost).where(OutboxPost.id == post_id).values(**values))

    async def set_deadline(self, duel_id: int, round_no: int, deadline: datetime) -> None:
        async with self.db.transaction() as s:
            await s.execute(
                update(Round)
                .where(Round.duel_id == duel_id, Round.number == round_no)
                .values(deadline=deadline)
            )

    async def posted(self, kind: str, *, count: int = 1, timeout: float = 15.0) -> list[OutboxPost]:
        """Wait until ``count`` posts of ``kind`` are no longer pending; return them."""

        async def check() -> list[OutboxPost] | None:
            rows = [r for r in await self.outbox(kind=kind) if r.status != "pending"]
            return rows if len(rows) >= count else None

        return await eventually(check, timeout, f"{count} {kind} post(s) done")

    # -- the fake ------------------------------------------------------------------------

    def with_marker(self, channel_id: int, post_id: int) -> list[FakeMessage]:
        return [
            m
            for m in self.fake.messages_in(channel_id)
            if any(post_id in marker_ids((e.get("footer") or {}).get("text")) for e in m.embeds)
        ]


async def eventually(
    check: Callable[[], Any], timeout: float = 15.0, what: str = "condition"
) -> Any:
    """Poll ``check`` (sync or async) until it returns something truthy."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = check()
        if asyncio.iscoroutine(value):
            value = await value
        if value:
            return value
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        await asyncio.sleep(0.05)


def bot_settings(
    fake: FakeDiscord, duels: DuelSettings | None = None, workers: WorkerSettings | None = None
) -> Settings:
    return Settings(
        discord=DiscordSettings(
            api_base_url=fake.api_base_url, gateway_url=fake.gateway_url, sync_commands=False
        ),
        duels=duels or DuelSettings(),
        workers=workers or WorkerSettings(outbox_poll_seconds=0.2, scheduler_poll_seconds=0.2),
    )


@asynccontextmanager
async def fake_server() -> AsyncIterator[FakeDiscord]:
    """A started fake Discord with discord.py pointed at it; at the end, fails if the bot
    called a route the fake does not know or the fake itself crashed."""
    async with FakeDiscord() as fake:
        with patch_discord(fake):
            yield fake
    fake.check()


@asynccontextmanager
async def running_bot(
    fake: FakeDiscord,
    db: Database,
    *,
    duels: DuelSettings | None = None,
    bot_permissions: int = DEFAULT_BOT_PERMISSIONS,
    before_start: Callable[[World], None] | None = None,
    workers: WorkerSettings | None = None,
) -> AsyncIterator[World]:
    """A guild with #general, a commander (nick "Commander Vimes"), alice and bob; the real
    bot connected to the fake, its workers running."""
    guild = fake.add_guild("Duel Hall", bot_permissions=bot_permissions)
    channel_id = guild.channel_ids[0]
    commander = fake.add_member(guild.id, "vimes", nick=COMMANDER_NICK).user
    alice = fake.add_member(guild.id, "alice").user
    bob = fake.add_member(guild.id, "bob").user
    settings = bot_settings(fake, duels, workers)
    services = Services.create(db, settings.duels)
    with mock.patch.object(client_module, "COGS", available_cogs()):
        bot = create_bot(services, settings)
        world = World(fake, bot, services, db, guild.id, channel_id, commander, alice, bob)
        if before_start is not None:
            before_start(world)
        async with run_bot(bot, fake):
            yield world
