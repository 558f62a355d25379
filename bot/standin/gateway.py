"""The fake gateway: HELLO, heartbeats, IDENTIFY -> READY + GUILD_CREATE, RESUME -> RESUMED."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from . import payloads as P
from .models import (
    INTENT_DIRECT_MESSAGES,
    INTENT_GUILD_MEMBERS,
    INTENT_GUILD_MESSAGES,
    INTENT_GUILDS,
    JSON,
)
from .state import StandinState

log = logging.getLogger("fakediscord.gateway")

OP_DISPATCH = 0
OP_HEARTBEAT = 1
OP_IDENTIFY = 2
OP_PRESENCE = 3
OP_RESUME = 6
OP_RECONNECT = 7
OP_REQUEST_MEMBERS = 8
OP_INVALID_SESSION = 9
OP_HELLO = 10
OP_HEARTBEAT_ACK = 11
#: Discord's ACK comes a round trip later; an instant one trips discord.py's latency check.
HEARTBEAT_ACK_DELAY_SECONDS = 0.05

#: Which intent an event needs (events not listed are always sent).
_GUILD_EVENT_INTENTS: dict[str, int] = {
    "GUILD_CREATE": INTENT_GUILDS,
    "GUILD_UPDATE": INTENT_GUILDS,
    "GUILD_ROLE_CREATE": INTENT_GUILDS,
    "GUILD_ROLE_UPDATE": INTENT_GUILDS,
    "GUILD_ROLE_DELETE": INTENT_GUILDS,
    "CHANNEL_CREATE": INTENT_GUILDS,
    "CHANNEL_UPDATE": INTENT_GUILDS,
    "CHANNEL_DELETE": INTENT_GUILDS,
    "THREAD_CREATE": INTENT_GUILDS,
    "THREAD_UPDATE": INTENT_GUILDS,
    "THREAD_DELETE": INTENT_GUILDS,
    "GUILD_MEMBER_ADD": INTENT_GUILD_MEMBERS,
    "GUILD_MEMBER_UPDATE": INTENT_GUILD_MEMBERS,
    "GUILD_MEMBER_REMOVE": INTENT_GUILD_MEMBERS,
    "MESSAGE_CREATE": INTENT_GUILD_MESSAGES,
    "MESSAGE_UPDATE": INTENT_GUILD_MESSAGES,
    "MESSAGE_DELETE": INTENT_GUILD_MESSAGES,
}
_DM_EVENT_INTENTS: dict[str, int] = {
    "MESSAGE_CREATE": INTENT_DIRECT_MESSAGES,
    "MESSAGE_UPDATE": INTENT_DIRECT_MESSAGES,
    "MESSAGE_DELETE": INTENT_DIRECT_MESSAGES,
}


def required_intent(event: str, guild_id: int | None) -> int:
    table = _GUILD_EVENT_INTENTS if guild_id is not None else _DM_EVENT_INTENTS
    return table.get(event, 0)


@dataclass
class _Outgoing:
    frame: JSON
    sent: asyncio.Future[None]


@dataclass
class GatewaySession:
    """One gateway session (one shard). Survives disconnects so it can be RESUMEd."""

    session_id: str
    shard_id: int
    shard_count: int
    intents: int
    seq: int = 0
    history: list[JSON] = field(default_factory=list)
    ws: web.WebSocketResponse | None = None
    queue: asyncio.Queue[_Outgoing] | None = None
    writer: asyncio.Task[None] | None = None
    connected_at: float = 0.0
    resumes: int = 0
    heartbeats: int = 0
    invalidated: bool = False

    @property
    def connected(self) -> bool:
        return self.ws is not None and not self.ws.closed and self.queue is not None

    def owns_guild(self, guild_id: int | None) -> bool:
        if guild_id is None:
            return self.shard_id == 0  # DMs go to shard 0
        return (guild_id >> 22) % self.shard_count == self.shard_id

    def wants(self, event: str, guild_id: int | None) -> bool:
        need = required_intent(event, guild_id)
        return need == 0 or bool(self.intents & need)

    def dispatch(self, event: str, data: JSON) -> asyncio.Future[None]:
        """Queue a DISPATCH frame; the future resolves once written (or at once if offline)."""
        self.seq += 1
        frame: JSON = {"op": OP_DISPATCH, "t": event, "s": self.seq, "d": data}
        self.history.append(frame)
        del self.history[:-2000]
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if self.connected:
            assert self.queue is not None
            self.queue.put_nowait(_Outgoing(frame, fut))
        else:
            fut.set_result(None)  # kept in history; replayed on RESUME
        return fut

    def send_raw(self, frame: JSON) -> asyncio.Future[None]:
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if self.connected:
            assert self.queue is not None
            self.queue.put_nowait(_Outgoing(frame, fut))
        else:
            fut.set_result(None)
        return fut


async def _writer(ws: web.WebSocketResponse, queue: asyncio.Queue[_Outgoing]) -> None:
    while True:
        item = await queue.get()
        try:
            if not ws.closed:
                await ws.send_str(json.dumps(item.frame))
        except (ConnectionError, RuntimeError) as exc:  # closing transport
            log.debug("gateway write failed: %s", exc)
        finally:
            if not item.sent.done():
                item.sent.set_result(None)


class GatewayServer:
    """Owns the sessions; ``handle`` is the aiohttp handler for GET /gateway (websocket)."""

    def __init__(self, fake: StandinState) -> None:
        self.fake = fake
        self.sessions: dict[str, GatewaySession] = {}
        #: Every frame received from clients: (shard_id or None, frame).
        self.received: list[tuple[int | None, JSON]] = []
        self._sockets: set[web.WebSocketResponse] = set()
        self._connections: set[asyncio.Task[Any]] = set()
        self._acks: set[asyncio.Task[None]] = set()

    # -- lookup ---------------------------------------------------------------------------
    def live_sessions(self) -> list[GatewaySession]:
        return [s for s in self.sessions.values() if not s.invalidated]

    def session_for(self, guild_id: int | None) -> GatewaySession | None:
        found = [s for s in self.live_sessions() if s.owns_guild(guild_id)]
        if not found:
            return None
        connected = [s for s in found if s.connected]
        return (connected or found)[-1]

    def _ack_later(self, ws: web.WebSocketResponse) -> None:
        """HEARTBEAT_ACK after a network's worth of delay, without holding up the frames
        behind it. discord.py's keep-alive thread notes when it sent a beat only once the
        send is done; an ACK answered within the same loop turn (the sandbox runs the bot
        and the stand-in in one loop) is measured against the previous beat and logged as
        "Can't keep up, shard ID None websocket is 41.3s behind" (one heartbeat interval)."""

        async def ack() -> None:
            await asyncio.sleep(HEARTBEAT_ACK_DELAY_SECONDS)
            if not ws.closed:
                with contextlib.suppress(ConnectionError, RuntimeError):
                    await ws.send_str(json.dumps({"op": OP_HEARTBEAT_ACK, "d": None}))

        task = asyncio.create_task(ack())
        self._acks.add(task)  # a reference, so the task is not collected mid-flight
        task.add_done_callback(self._acks.discard)

    # -- websocket -------------------------------------------------------------------------
    async def handle(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0, autoping=True)
        await ws.prepare(request)
        self._sockets.add(ws)
        task = asyncio.current_task()
        if task is not None:
            self._connections.add(task)
        session: GatewaySession | None = None
        try:
            await ws.send_str(
                json.dumps(
                    {
                        "op": OP_HELLO,
                        "d": {"heartbeat_interval": self.fake.heartbeat_interval_ms, "_trace": []},
                        "s": None,
                        "t": None,
                    }
                )
            )
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                frame: JSON = json.loads(msg.data)
                self.received.append((session.shard_id if session else None, frame))
                op = frame.get("op")
                if op == OP_HEARTBEAT:
                    if session is not None:
                        session.heartbeats += 1
                    self._ack_later(ws)
                elif op == OP_IDENTIFY:
                    session = await self._identify(ws, frame["d"])
                    if session is None:
                        break
                elif op == OP_RESUME:
                    session = await self._resume(ws, frame["d"])
                    if session is None:
                        continue  # INVALID_SESSION was sent; the client closes and reconnects
                elif op == OP_REQUEST_MEMBERS and session is not None:
                    self._request_members(session, frame["d"])
                # presence updates and anything else: recorded, ignored
        finally:
            self._sockets.discard(ws)
            if task is not None:
                self._connections.discard(task)
            if session is not None and session.ws is ws:
                self._detach(session)
        return ws

    def _attach(self, session: GatewaySession, ws: web.WebSocketResponse) -> None:
        if session.ws is not None and session.ws is not ws:
            self._detach(session)
        session.ws = ws
        session.queue = asyncio.Queue()
        session.writer = asyncio.create_task(_writer(ws, session.queue))
        session.connected_at = time.monotonic()

    def _detach(self, session: GatewaySession) -> None:
        if session.writer is not None:
            session.writer.cancel()
        if session.queue is not None:
            while not session.queue.empty():
                item = session.queue.get_nowait()
                if not item.sent.done():
                    item.sent.set_result(None)
        session.ws = None
        session.queue = None
        session.writer = None

    async def _identify(self, ws: web.WebSocketResponse, data: JSON) -> GatewaySession | None:
        fake = self.fake
        if data.get("token") != fake.token:
            await ws.close(code=4004, message=b"Authentication failed.")
            return None
        shard = data.get("shard") or [0, 1]
        shard_id, shard_count = int(shard[0]), int(shard[1])
        if shard_id >= shard_count:
            await ws.close(code=4010, message=b"Invalid shard.")
            return None
        intents = int(data.get("intents", 0))
        if intents & ~fake.allowed_intents:
            await ws.close(code=4014, message=b"Disallowed intent(s).")
            return None
        session = GatewaySession(
            session_id=secrets.token_hex(16),
            shard_id=shard_id,
            shard_count=shard_count,
            intents=intents,
        )
        # a fresh IDENTIFY on a shard supersedes the old session of that shard
        for old in self.live_sessions():
            if old.shard_id == shard_id:
                old.invalidated = True
        self.sessions[session.session_id] = session
        self._attach(session, ws)
        guilds = [g for g in fake.guilds.values() if session.owns_guild(g.id)]
        ready: JSON = {
            "v": 10,
            "user": fake.bot_user.to_payload(),
            "user_settings": {},
            "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
            "session_id": session.session_id,
            "session_type": "normal",
            "resume_gateway_url": fake.gateway_url,
            "shard": [shard_id, shard_count],
            "application": {"id": str(fake.application_id), "flags": fake.application_flags},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
            "auth": {},
            "_trace": ["fakediscord"],
        }
        session.dispatch("READY", ready)
        if session.intents & INTENT_GUILDS:
            for g in guilds:
                session.dispatch("GUILD_CREATE", P.guild_create(fake, g))
        return session

    async def _resume(self, ws: web.WebSocketResponse, data: JSON) -> GatewaySession | None:
        session = self.sessions.get(str(data.get("session_id")))
        if session is None or session.invalidated or data.get("token") != self.fake.token:
            await ws.send_str(json.dumps({"op": OP_INVALID_SESSION, "d": False}))
            return None
        self._attach(session, ws)
        session.resumes += 1
        last = int(data.get("seq") or 0)
        assert session.queue is not None
        loop = asyncio.get_running_loop()
        for frame in session.history:
            if frame["s"] > last:
                session.queue.put_nowait(_Outgoing(frame, loop.create_future()))
        session.dispatch("RESUMED", {"_trace": ["fakediscord"]})
        return session

    def _request_members(self, session: GatewaySession, data: JSON) -> None:
        guild = self.fake.guilds.get(int(data["guild_id"]))
        if guild is None:
            return
        members = list(guild.members.values())
        if data.get("user_ids"):
            wanted = {int(u) for u in data["user_ids"]}
            members = [m for m in members if m.user.id in wanted]
        elif data.get("query"):
            q = str(data["query"]).lower()
            members = [m for m in members if m.user.username.lower().startswith(q)]
        limit = int(data.get("limit") or 0)
        if limit:
            members = members[:limit]
        chunk: JSON = {
            "guild_id": str(guild.id),
            "members": [m.to_payload() for m in members],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
        }
        if data.get("nonce") is not None:
            chunk["nonce"] = data["nonce"]
        session.dispatch("GUILD_MEMBERS_CHUNK", chunk)

    # -- control ---------------------------------------------------------------------------
    async def drop(self, shard_id: int | None = None, code: int = 4000) -> None:
        for s in self.live_sessions():
            if (shard_id is None or s.shard_id == shard_id) and s.ws is not None:
                ws = s.ws
                self._detach(s)
                await ws.close(code=code, message=b"fakediscord: dropped")

    async def close_all(self) -> None:
        for s in list(self.sessions.values()):
            if s.writer is not None:
                s.writer.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await s.writer
            self._detach(s)
        for ws in list(self._sockets):
            with contextlib.suppress(Exception):
                await ws.close(code=1001, message=b"fakediscord shutting down")
