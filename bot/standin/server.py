"""FakeDiscord: an aiohttp server speaking enough of Discord's REST API and gateway for
discord.py 2.7.1, with an in-memory state model, request recording, event injection and
fault injection. See docs/standin.md for the API tour and the module map.

This module is the top of the mixin chain (state -> faults -> events -> messages -> channels
-> webhooks -> commands -> injection -> FakeDiscord): it owns the constructor, the lifecycle
and the HTTP plumbing (matching, auth, faults, rate limits, answers); each resource module
registers its own routes."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re
import time
import traceback
from collections.abc import Mapping
from types import TracebackType
from typing import Any, Self

from aiohttp import BodyPartReader, web

from . import forum
from .errors import ApiError
from .faults import CANNOT_DM, DM_REFUSALS, NO_MUTUAL_GUILDS
from .gateway import GatewayServer
from .injection import UserSideMixin
from .limits import LimitRefused, check_unicode
from .models import RecordedFile, RecordedRequest
from .ratelimits import RateLimits
from .routing import Ctx, Fault, Handler, NoContent, method_matches, path_regex

log = logging.getLogger("fakediscord")


class FakeDiscord(UserSideMixin):
    """A fake Discord. Use as ``async with FakeDiscord() as fake:`` (binds 127.0.0.1:0)."""

    def __init__(
        self,
        *,
        token: str = "fake-bot-token",
        bot_name: str = "DuelBot",
        bot_id: int | None = None,
        application_id: int | None = None,
        shard_count: int = 1,
        heartbeat_interval_ms: int = 41250,
        interaction_deadline: float | None = 3.0,
        echo_bot_messages: bool = True,
        allowed_intents: int = (1 << 26) - 1,
        rate_limits: RateLimits | None = None,
        message_content_intent: bool = False,
        nonce_window: float = 300.0,
    ) -> None:
        # The options are documented where they are stored (state.StandinState.__init__).
        super().__init__(
            token=token,
            bot_name=bot_name,
            bot_id=bot_id,
            application_id=application_id,
            shard_count=shard_count,
            heartbeat_interval_ms=heartbeat_interval_ms,
            interaction_deadline=interaction_deadline,
            echo_bot_messages=echo_bot_messages,
            allowed_intents=allowed_intents,
            message_content_intent=message_content_intent,
            nonce_window=nonce_window,
        )
        if rate_limits is not None:
            self.enforce_rate_limits(rate_limits)
        self.gateway = GatewayServer(self)
        self._register_routes()
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self.gateway.handle)
        app.router.add_route("*", "/{tail:.*}", self._entry)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, 0)
        await site.start()
        server = site._server
        assert server is not None
        sockets = getattr(server, "sockets", None) or []
        self.port = int(sockets[0].getsockname()[1])

    async def stop(self) -> None:
        await self.gateway.close_all()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    def _register_routes(self) -> None:
        # Order matters where templates overlap (GET /users/@me before /users/{user_id}):
        # the first match wins, as registered here.
        self._register_login_routes()
        self._register_guild_routes()
        self._register_channel_routes()
        self._register_message_routes()
        self._register_webhook_routes()
        self._register_command_routes()
        forum.register_routes(self)

    def _match(self, method: str, path: str) -> tuple[str, dict[str, str], Handler] | None:
        for m, rx, template, fn in self._routes:
            if m != method:
                continue
            hit = rx.match(path)
            if hit:
                return template, hit.groupdict(), fn
        return None

    async def _read_body(self, request: web.Request) -> tuple[Any, list[RecordedFile]]:
        ctype = request.content_type
        if ctype.startswith("multipart/"):
            payload: Any = None
            files: list[RecordedFile] = []
            reader = await request.multipart()
            while True:
                part = await reader.next()
                if part is None:
                    break
                if not isinstance(part, BodyPartReader):
                    continue  # nested multipart: not used by discord.py
                raw = await part.read()
                name = part.name or ""
                if name == "payload_json":
                    payload = json.loads(raw.decode())
                else:
                    files.append(
                        RecordedFile(
                            field_name=name,
                            filename=part.filename or name,
                            content_type=part.headers.get("Content-Type"),
                            data=bytes(raw),
                        )
                    )
            return payload, files
        raw_bytes = await request.read()
        if not raw_bytes:
            return None, []
        if ctype == "application/json":
            return json.loads(raw_bytes.decode()), []
        return raw_bytes.decode(errors="replace"), []

    def _response(
        self, status: int, body: Any, template: str | None, extra: Mapping[str, str] | None = None
    ) -> web.Response:
        bucket = hashlib.sha1((template or "unknown").encode()).hexdigest()[:16]
        headers = {
            "Via": "1.1 google",
            "X-RateLimit-Bucket": bucket,
            "X-RateLimit-Limit": "50",
            "X-RateLimit-Remaining": "49",
            "X-RateLimit-Reset-After": "1.000",
            "X-RateLimit-Reset": f"{time.time() + 1:.3f}",
        }
        if extra:
            headers.update(extra)
        if headers.pop("X-No-Via", None):
            headers.pop("Via", None)
        if status == 204 or body is None:
            return web.Response(status=204, headers=headers)
        headers["Content-Type"] = "application/json"  # exactly; discord.py compares equality
        return web.Response(status=status, body=json.dumps(body).encode(), headers=headers)

    async def _entry(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        cdn = re.match(r"^/attachments/\d+/(\d+)/[^/]+$", path)
        if cdn and request.method == "GET":
            rf = self.cdn.get(int(cdn.group(1)))
            if rf is None:
                return web.Response(status=404)
            return web.Response(
                body=rf.data, content_type=rf.content_type or "application/octet-stream"
            )
        api = re.match(r"^/api/v\d+(/.*)$", path)
        if not api:
            self.unknown_routes.append(f"{request.method} {path}")
            return self._response(404, {"message": "404: Not Found", "code": 0}, None)
        path = api.group(1)
        try:
            body, files = await self._read_body(request)
        except Exception:
            self.errors.append(traceback.format_exc())
            body, files = None, []
        match = self._match(request.method, path)
        rec = RecordedRequest(
            method=request.method,
            path=path,
            route=match[0] if match else None,
            query=dict(request.query),
            headers=dict(request.headers),
            json=body,
            files=files,
        )
        self.requests.append(rec)
        template = match[0] if match else None

        extra: dict[str, str] = {}
        status, out = await self._handle(request, rec, match, extra)
        rec.status = status
        rec.response = out
        drop = self._drop_fault(rec) if status < 300 else None
        if drop is not None:
            if drop.delay:
                await asyncio.sleep(drop.delay)
            rec.dropped = True
            if request.transport is not None:
                request.transport.abort()  # the answer never reaches the client
            raise ConnectionResetError("fakediscord: response dropped (fault injection)")
        return self._response(status, out, template, extra)

    def _drop_fault(self, rec: RecordedRequest) -> Fault | None:
        for fault in self.faults:
            if not fault.drop_response:
                continue
            if not (method_matches(fault.method, rec.method) and fault.pattern.match(rec.path)):
                continue
            if fault.times is not None and fault.hits >= fault.times:
                continue
            fault.hits += 1
            return fault
        return None

    async def _handle(
        self,
        request: web.Request,
        rec: RecordedRequest,
        match: tuple[str, dict[str, str], Handler] | None,
        extra: dict[str, str],
    ) -> tuple[int, Any]:
        # faults first: they model Discord/Cloudflare failing before any routing
        for fault in list(self.faults):
            if fault.drop_response:
                continue  # applied after the request took effect (_drop_fault)
            if not (method_matches(fault.method, rec.method) and fault.pattern.match(rec.path)):
                continue
            if fault.times is not None and fault.hits >= fault.times:
                continue
            fault.hits += 1
            if fault.delay:
                await asyncio.sleep(fault.delay)
            if fault.status:
                extra.update(fault.headers)
                return fault.status, fault.body
        if match is None:
            self.unknown_routes.append(f"{rec.method} {rec.path}")
            log.warning("fakediscord: unknown route %s %s", rec.method, rec.path)
            return 404, {"message": "404: Not Found", "code": 0}
        template, params, fn = match
        auth = request.headers.get("Authorization")
        needs_auth = not (
            template.startswith("/webhooks/{webhook_id}/{token}")
            or template.startswith("/interactions/")
        )
        if (needs_auth and auth is None) or (auth is not None and auth != f"Bot {self.token}"):
            return 401, {"message": "401: Unauthorized", "code": 0}
        if self.ratelimiter is not None:
            verdict = self.ratelimiter.check(
                rec.method, rec.path, template, params, authorized=auth is not None
            )
            if isinstance(verdict, tuple):
                status, body, headers = verdict
                extra.update(headers)
                return status, body
            extra.update(verdict)
        ctx = Ctx(rec.method, rec.path, params, request.query, rec.json, rec.files, request.headers)
        try:
            check_unicode(ctx.body)  # Discord's strings are UTF-8: no lone surrogate anywhere
            out = await fn(ctx)
        except LimitRefused as err:
            self.limit_refusals.append(f"{rec.method} {rec.path}: {json.dumps(err.body)}")
            return err.status, err.body
        except ApiError as err:
            return err.status, err.body
        except Exception:
            tb = traceback.format_exc()
            self.errors.append(f"{rec.method} {rec.path}\n{tb}")
            log.error("fakediscord internal error on %s %s\n%s", rec.method, rec.path, tb)
            # 400, not 500: discord.py would retry a 5xx for ~16 s
            return 400, {"message": "fakediscord internal error (see fake.errors)", "code": 0}
        if isinstance(out, NoContent):
            return 204, None
        return 200, out


# What this module exported before the split (tests and docs name them as server.*).
__all__ = [
    "CANNOT_DM",
    "DM_REFUSALS",
    "NO_MUTUAL_GUILDS",
    "ApiError",
    "Ctx",
    "FakeDiscord",
    "Fault",
    "Handler",
    "NoContent",
    "path_regex",
]
