"""Gateway glue (EventsMixin): dispatching events to the shard that owns a guild, echoing
the bot's own messages, the login/gateway-discovery routes, and the connection controls
(drop, reconnect, invalidate). The socket protocol itself is gateway.py."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from . import payloads as P
from .faults import FaultsMixin
from .gateway import GatewayServer, GatewaySession
from .interactions import wait_until
from .models import JSON, FakeGuild, FakeMember, FakeMessage
from .routing import Ctx


class EventsMixin(FaultsMixin):
    """Everything that reaches the bot through its gateway sessions."""

    gateway: GatewayServer

    def _session_for(self, event: str, guild_id: int | None) -> GatewaySession | None:
        session = self.gateway.session_for(guild_id)
        if session is None or not session.wants(event, guild_id):
            return None
        return session

    def _emit_guild_event(
        self, event: str, build: Callable[[], JSON], guild_id: int | None
    ) -> None:
        """Fire-and-forget dispatch used by the sync state builders (only when a loop runs)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        session = self._session_for(event, guild_id)
        if session is not None:
            session.dispatch(event, build())

    def _emit_member_update(self, member: FakeMember) -> None:
        self._emit_guild_event(
            "GUILD_MEMBER_UPDATE",
            lambda: {**member.to_payload(), "guild_id": str(member.guild_id)},
            member.guild_id,
        )

    async def dispatch(self, event: str, data: JSON, guild_id: int | None = None) -> None:
        """Send any DISPATCH event to the shard owning ``guild_id`` (shard 0 for None)."""
        session = self.gateway.session_for(guild_id)
        if session is None:
            raise RuntimeError("fakediscord: no gateway session (is the bot connected?)")
        if session.wants(event, guild_id):
            await session.dispatch(event, data)

    def _echo(self, event: str, msg: FakeMessage) -> None:
        if not self.echo_bot_messages or msg.ephemeral:
            return
        if event == "MESSAGE_DELETE":
            data: JSON = {"id": str(msg.id), "channel_id": str(msg.channel_id)}
            if msg.guild_id is not None:
                data["guild_id"] = str(msg.guild_id)
            self._emit_guild_event(event, lambda: data, msg.guild_id)
        else:
            self._emit_guild_event(event, lambda: P.message(self, msg, gateway=True), msg.guild_id)

    def guild_create_payload(self, guild: FakeGuild) -> JSON:
        return P.guild_create(self, guild)

    async def drop_connection(self, shard_id: int | None = None, code: int = 4000) -> None:
        """Close gateway socket(s); discord.py then RESUMEs at resume_gateway_url."""
        await self.gateway.drop(shard_id, code)

    async def send_reconnect(self, shard_id: int | None = None) -> None:
        """Send op 7 RECONNECT; the client closes and RESUMEs."""
        for s in self.gateway.live_sessions():
            if shard_id is None or s.shard_id == shard_id:
                await s.send_raw({"op": 7, "d": None})

    async def invalidate_session(
        self, shard_id: int | None = None, resumable: bool = False
    ) -> None:
        """Send op 9; with resumable=False the client re-IDENTIFYs (new READY)."""
        for s in self.gateway.live_sessions():
            if shard_id is None or s.shard_id == shard_id:
                if not resumable:
                    s.invalidated = True
                await s.send_raw({"op": 9, "d": resumable})

    async def wait_until_connected(self, shards: int | None = None, timeout: float = 5.0) -> None:
        """Wait until ``shards`` (default: shard_count) gateway sessions are connected."""
        want = shards if shards is not None else self.shard_count

        def check() -> bool | None:
            live = [s for s in self.gateway.live_sessions() if s.connected]
            return True if len(live) >= want else None

        await wait_until(check, timeout, lambda: f"{want} connected gateway session(s)")

    def _register_login_routes(self) -> None:
        """Login and gateway discovery: what discord.py asks before it connects."""
        r = self.route

        # -- login / gateway ----------------------------------------------------------------
        @r("GET", "/users/@me")
        async def get_me(ctx: Ctx) -> Any:
            return self.bot_user.to_payload() | {
                "verified": True,
                "mfa_enabled": False,
                "email": None,
            }

        @r("GET", "/oauth2/applications/@me")
        async def get_app(ctx: Ctx) -> Any:
            return P.application(self)

        @r("GET", "/applications/@me")
        async def get_app2(ctx: Ctx) -> Any:
            return P.application(self)

        @r("GET", "/gateway")
        async def get_gateway(ctx: Ctx) -> Any:
            return {"url": self.gateway_url}

        @r("GET", "/gateway/bot")
        async def get_gateway_bot(ctx: Ctx) -> Any:
            return {
                "url": self.gateway_url,
                "shards": self.shard_count,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 0,
                    "max_concurrency": 1,
                },
            }
