"""The sandbox page and its JSON API (docs/sandbox.md): read what the bot posted, and act as
any member of the rehearsal server through the stand-in (send a DM, click a button, run a
slash command, ask for autocomplete choices). Ids are strings, as in Discord's own JSON:
snowflakes do not fit a JavaScript number.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import logging
import math
import mimetypes
import re
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from aiohttp import web

from bot.sandbox.command_list import (
    SUB_COMMAND,
    SUB_COMMAND_GROUP,
    flatten_command,
    plain_words,
)
from bot.sandbox.guard import BadRequest, RequestGuard, check_strings, parse_json_body
from bot.sandbox.texts import page_language, render_index
from bot.sandbox.world import Cast, Person
from bot.standin import Attachment, FakeDiscord, FakeMessage, InteractionHandle
from bot.standin import payloads as P
from bot.standin.limits import CONTENT_MAX, typed_text_problem
from bot.standin.models import FLAG_LOADING, JSON, THREAD_TYPES, FakeChannel

STATIC = Path(__file__).with_name("static")
PAGES = {"/": "index.html", "/app.js": "app.js", "/style.css": "style.css"}
CONTENT_TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css"}
#: The page loads nothing from elsewhere: scripts, styles and requests stay on this server.
CSP = (
    "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"  # no other page may frame it and steer clicks into it
)
#: How long a long-poll of /api/changes waits before answering "nothing new".
CHANGES_WAIT_SECONDS = 25.0
#: How long an action waits for the bot's visible answer before returning without it.
REPLY_WAIT_SECONDS = 8.0

# Application command option types (Discord API docs, "Application Command Option Type").
STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, MENTIONABLE, NUMBER, ATTACHMENT = (
    3, 4, 5, 6, 7, 8, 9, 10, 11,
)
ID_OPTION_TYPES = (USER, CHANNEL, ROLE, MENTIONABLE)
#: A snowflake: 1 to 20 ASCII digits below 2^64 (int() would also take "٣" or "1_0").
SNOWFLAKE = re.compile(r"[0-9]{1,20}")
SNOWFLAKE_LIMIT = 2**64
#: Discord's INTEGER and NUMBER options hold -2^53..2^53.
OPTION_NUMBER_LIMIT = 2**53
#: select menus: at most 25 values, each at most 100 characters; custom_id 1..100.
VALUES_MAX, VALUE_MAX, CUSTOM_ID_MAX = 25, 100, 100

log = logging.getLogger("duelbot.sandbox")


Handler = Callable[[web.Request], Awaitable[Any]]


class SandboxApi:
    def __init__(self, fake: FakeDiscord, cast: Cast) -> None:
        self.fake = fake
        self.cast = cast
        #: Who may call: its own host names and page only (set once the port is bound).
        self.guard = RequestGuard()
        #: Set when the sandbox stops: long-polls answer at once instead of holding it open.
        self.closing = asyncio.Event()

    # -- the app ----------------------------------------------------------------------
    def app(self) -> web.Application:
        app = web.Application(
            client_max_size=16 * 1024 * 1024, middlewares=[self.guard.middleware]
        )
        for path in PAGES:
            app.router.add_get(path, self.page)
        routes: list[tuple[str, str, Handler]] = [
            ("GET", "/api/world", self.world),
            ("GET", "/api/commands", self.commands),
            ("GET", "/api/changes", self.changes),
            ("GET", "/api/channels/{channel_id}/messages", self.channel_messages),
            ("GET", "/api/people/{user_id}/dms", self.dms),
            ("GET", "/api/attachments/{attachment_id}/{filename}", self.attachment),
            ("POST", "/api/people/{user_id}/dm", self.send_dm),
            ("POST", "/api/people/{user_id}/click", self.click),
            ("POST", "/api/people/{user_id}/slash", self.slash),
            ("POST", "/api/people/{user_id}/autocomplete", self.autocomplete),
        ]
        for method, path, handler in routes:
            app.router.add_route(method, path, self._json(handler))
        return app

    def _json(self, handler: Handler) -> Handler:
        async def wrapped(request: web.Request) -> web.Response:
            try:
                answer = await handler(request)
                if isinstance(answer, web.Response):  # a file, not JSON
                    return answer
                return web.json_response(answer)
            except BadRequest as exc:
                return web.json_response({"error": str(exc)}, status=exc.status)
            except (LookupError, ValueError, TypeError) as exc:
                # The stand-in's own checks: what the Discord client would not let one send.
                message = str(exc.args[0]) if exc.args else str(exc)
                return web.json_response({"error": plain_words(message)}, status=400)
            except Exception as exc:  # a bug of ours: one JSON line, the traceback in the log
                log.exception("sandbox API %s %s failed", request.method, request.path)
                return web.json_response(
                    {"error": f"the sandbox failed on this request ({type(exc).__name__}); "
                              "its log has the details"}, status=500
                )

        return wrapped

    async def page(self, request: web.Request) -> web.Response:
        file = STATIC / PAGES[request.path]
        body = file.read_bytes()
        if file.suffix == ".html":
            # The page's own texts in the visitor's language (bot/sandbox/texts.py).
            language = page_language(
                request.query.get("lang"), request.headers.get("Accept-Language")
            )
            body = render_index(body.decode("utf-8"), language).encode("utf-8")
        return web.Response(
            body=body,
            content_type=CONTENT_TYPES[file.suffix],
            charset="utf-8",
            headers={"Content-Security-Policy": CSP, "Cache-Control": "no-store"},
        )

    # -- reading ----------------------------------------------------------------------
    def revision(self) -> int:
        """Grows whenever something visible may have changed: every REST call of the bot
        (posts, edits, deletes, threads) and every message a member sends."""
        return len(self.fake.requests) + len(self.fake.messages) + len(self.fake.channels)

    async def changes(self, request: web.Request) -> JSON:
        since = _whole_number(request.query.get("since", "-1"), "since", -1, 2**63)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + CHANGES_WAIT_SECONDS
        while self.revision() == since and loop.time() < deadline and not self.closing.is_set():
            await asyncio.sleep(0.1)
        return {"revision": self.revision()}

    async def world(self, request: web.Request) -> JSON:
        guild = self.fake.guilds[self.cast.guild_id]
        return {
            "guild": {"id": str(guild.id), "name": guild.name},
            "bot": _user(self.fake.bot_user.to_payload()),
            "duel_channel_id": str(self.cast.duel_channel_id),
            "channels": [self._channel(ch) for ch in self._guild_channels()],
            "roles": [
                {"id": str(r.id), "name": r.name}
                for r in guild.roles.values()
                if not r.managed and r.id != guild.id
            ],
            "people": [self._person(p) for p in self.cast.people],
            "revision": self.revision(),
        }

    def _guild_channels(self) -> list[FakeChannel]:
        """Text channels in order, each followed by the threads made in it."""
        mine = [c for c in self.fake.channels.values() if c.guild_id == self.cast.guild_id]
        out: list[FakeChannel] = []
        for ch in sorted((c for c in mine if not c.is_thread), key=lambda c: (c.position, c.id)):
            out.append(ch)
            out += sorted((t for t in mine if t.is_thread and t.parent_id == ch.id),
                          key=lambda t: t.id)
        return out

    def _channel(self, ch: FakeChannel) -> JSON:
        return {
            "id": str(ch.id),
            "name": ch.name,
            "type": ch.type,
            "thread": ch.type in THREAD_TYPES,
            "parent_id": None if ch.parent_id is None else str(ch.parent_id),
        }

    def _person(self, person: Person) -> JSON:
        member = self.fake.guilds[self.cast.guild_id].members[person.user.id]
        roles = self.fake.guilds[self.cast.guild_id].roles
        return {
            **_user(person.user.to_payload()),
            "role": person.role,
            "roles": [roles[r].name for r in member.role_ids if r in roles],
            "dm_channel_id": str(self.fake.dm_channel(person.user.id).id),
        }

    async def commands(self, request: web.Request) -> JSON:
        """Every registered command, one entry per runnable path ("round open")."""
        registered = [*self.fake.commands(), *self.fake.commands(self.cast.guild_id)]
        entries: list[JSON] = []
        for cmd in registered:
            if int(cmd.get("type", 1)) != 1:
                continue
            contexts = cmd.get("contexts")
            in_dms = 1 in contexts if contexts is not None else cmd.get("dm_permission", True)
            base = {
                "command": cmd["name"],
                "in_guild": contexts is None or 0 in contexts,
                "in_dms": bool(in_dms) and not cmd.get("guild_id"),
            }
            entries += flatten_command(cmd, base)
        entries.sort(key=lambda e: str(e["path"]))
        return {"commands": entries}

    async def channel_messages(self, request: web.Request) -> JSON:
        ch = self._guild_channel(request.match_info["channel_id"])
        viewer = request.query.get("as")
        viewer_id = None if viewer in (None, "") else self._member(viewer).user.id
        return {
            "channel": self._channel(ch),
            "messages": self._messages(ch.id, viewer_id),
        }

    async def dms(self, request: web.Request) -> JSON:
        person = self._member(request.match_info["user_id"])
        ch = self.fake.dm_channel(person.user.id)
        return {"channel_id": str(ch.id), "messages": self._messages(ch.id, person.user.id)}

    async def attachment(self, request: web.Request) -> web.Response:
        """A file the bot attached (``/duel export``), for a member who can see its message:
        HTML opens in the browser (sandboxed: it runs in no origin, so it cannot call this
        API), anything else downloads."""
        viewer = self._member(request.query.get("as", ""))
        attachment_id = _int(request.match_info["attachment_id"], "attachment_id")
        holder = next(
            (m for m in self.fake.messages.values()
             if not m.deleted and any(str(a.get("id")) == str(attachment_id)
                                      for a in m.attachments)),
            None,
        )
        stored = self.fake.cdn.get(attachment_id)
        if holder is None or stored is None:
            raise BadRequest(f"no file {attachment_id} in the sandbox", 404)
        self._check_sees(viewer, holder)
        # discord.py uploads every file as application/octet-stream: name the type from the
        # file's extension, as Discord's CDN does.
        content_type = (stored.content_type or "").split(";")[0]
        if content_type in ("", "application/octet-stream"):
            content_type = mimetypes.guess_type(stored.filename)[0] or "application/octet-stream"
        filename = re.sub(r'[^A-Za-z0-9._-]', "_", stored.filename) or "file"
        headers = {"Cache-Control": "no-store"}
        if content_type == "text/html":
            headers["Content-Disposition"] = f'inline; filename="{filename}"'
            headers["Content-Security-Policy"] = "sandbox allow-scripts; frame-ancestors 'none'"
        else:
            headers["Content-Disposition"] = f'attachment; filename="{filename}"'
        return web.Response(
            body=stored.data, content_type=content_type,
            charset="utf-8" if content_type.startswith("text/") or content_type.endswith("json")
            else None,
            headers=headers,
        )

    def _messages(self, channel_id: int, viewer_id: int | None) -> list[JSON]:
        out = []
        for msg in self.fake.messages_in(channel_id, include_ephemeral=True):
            record = self.fake.interactions.get(msg.interaction_id or 0)
            if msg.ephemeral and (record is None or record.user_id != viewer_id):
                continue  # "Only you can see this": only its own member sees it
            if msg.flags & FLAG_LOADING and record is not None and record.followups:
                continue  # Discord turns "thinking…" into the first followup
            out.append(self._message(msg))
        return out

    def _message(self, msg: FakeMessage) -> JSON:
        data = P.message(self.fake, msg)
        data["loading"] = bool(msg.flags & FLAG_LOADING)
        data["ephemeral"] = msg.ephemeral
        record = self.fake.interactions.get(msg.interaction_id or 0)
        if record is not None:
            user = self.fake.users.get(record.user_id)
            data["interaction"] = {
                "user": None if user is None else _user(user.to_payload()),
                "command": _command_line(record.payload) if record.type == 2 else None,
            }
        return data

    # -- acting -----------------------------------------------------------------------
    async def send_dm(self, request: web.Request) -> JSON:
        self._require_bot()
        person = self._member(request.match_info["user_id"])
        body = await _body(request)
        content = body.get("content")
        if not isinstance(content, str) or not content.strip():
            raise BadRequest("content: write the message text (a non-empty string)")
        problem = typed_text_problem(content, CONTENT_MAX)
        if problem is not None:
            raise BadRequest(f"content: {problem}")
        message_id = await self.fake.send_dm(person.user.id, content)
        return {"message_id": str(message_id)}

    async def click(self, request: web.Request) -> JSON:
        self._require_bot()
        person = self._member(request.match_info["user_id"])
        body = await _body(request)
        message_id = _int(body.get("message_id"), "message_id")
        custom_id = body.get("custom_id")
        if not isinstance(custom_id, str) or not 1 <= len(custom_id) <= CUSTOM_ID_MAX:
            raise BadRequest(
                f"custom_id: the custom_id of a button of that message "
                f"(1 to {CUSTOM_ID_MAX} characters)"
            )
        msg = self.fake.messages.get(message_id)
        if msg is None or msg.deleted:
            raise BadRequest(f"message_id: no message {message_id}", 404)
        self._check_sees(person, msg)
        values = body.get("values")
        if values is not None and not (
            isinstance(values, list)
            and len(values) <= VALUES_MAX
            and all(isinstance(v, str) and len(v) <= VALUE_MAX for v in values)
        ):
            raise BadRequest(
                f"values: a list of at most {VALUES_MAX} strings of at most {VALUE_MAX} "
                "characters (the options picked in a select)"
            )
        handle = await self.fake.click_button(person.user.id, msg, custom_id, values=values)
        return await _answer(handle)

    async def slash(self, request: web.Request) -> JSON:
        self._require_bot()
        person = self._member(request.match_info["user_id"])
        body = await _body(request)
        guild_id, channel_id = self._where(body)
        name, group, sub, options = self._invocation(body, guild_id)
        handle = await self.fake.invoke_slash(
            guild_id, channel_id, person.user.id, name, subcommand=sub, group=group,
            options=options,
        )
        return await _answer(handle)

    async def autocomplete(self, request: web.Request) -> JSON:
        self._require_bot()
        person = self._member(request.match_info["user_id"])
        body = await _body(request)
        guild_id, channel_id = self._where(body)
        focused = body.get("focused")
        if not isinstance(focused, str):
            raise BadRequest("focused: the name of the option being typed")
        name, group, sub, options = self._invocation(body, guild_id, partial=focused)
        handle = await self.fake.autocomplete(
            guild_id, channel_id, person.user.id, name, focused, subcommand=sub, group=group,
            options=options,
        )
        try:
            reply = await handle.response(timeout=REPLY_WAIT_SECONDS)
        except TimeoutError:
            return {"choices": [], "error": "the bot did not answer in time"}
        choices = reply.data.get("choices") or []
        return {"choices": [{"name": c["name"], "value": c["value"]} for c in choices]}

    def _where(self, body: Mapping[str, Any]) -> tuple[int | None, int | None]:
        """(guild, channel) of a command: a guild channel or thread, or None for the DM."""
        raw = body.get("channel_id")
        if raw in (None, ""):
            return None, None
        ch = self._guild_channel(raw)
        return ch.guild_id, ch.id

    def _invocation(
        self, body: Mapping[str, Any], guild_id: int | None, *, partial: str | None = None
    ) -> tuple[str, str | None, str | None, dict[str, Any]]:
        name = body.get("command")
        if not isinstance(name, str) or not name:
            raise BadRequest("command: the command's name, e.g. \"duel\"")
        group, sub = body.get("group") or None, body.get("subcommand") or None
        if not (group is None or isinstance(group, str)) or not (
            sub is None or isinstance(sub, str)
        ):
            raise BadRequest("group and subcommand are names (strings)")
        raw_options = body.get("options") or {}
        if not isinstance(raw_options, dict):
            raise BadRequest("options: an object of option name to value")
        specs = self._option_specs(name, group, sub, guild_id)
        options: dict[str, Any] = {}
        for key, value in raw_options.items():
            if value is None or (value == "" and key != partial):
                continue  # an empty field of the form: the option is left out
            spec = specs.get(key)
            if spec is None:
                raise BadRequest(f"options: /{name} has no option {key!r} here")
            options[key] = value if key == partial else _coerce(key, int(spec["type"]), value)
        return name, group, sub, options

    def _option_specs(
        self, name: str, group: str | None, sub: str | None, guild_id: int | None
    ) -> dict[str, JSON]:
        cmd = self.fake.command(name, guild_id) if guild_id is not None else None
        cmd = cmd or self.fake.command(name)
        if cmd is None:
            raise BadRequest(f"command: /{name} is not registered by the bot", 404)
        level: list[JSON] = list(cmd.get("options") or [])
        for part in (group, sub):
            if part is None:
                continue
            found = next((o for o in level if o.get("name") == part
                          and int(o.get("type", 0)) in (SUB_COMMAND, SUB_COMMAND_GROUP)), None)
            if found is None:
                raise BadRequest(f"command: /{name} has no subcommand (group) {part!r}", 404)
            level = list(found.get("options") or [])
        return {
            o["name"]: o
            for o in level
            if int(o.get("type", 0)) not in (SUB_COMMAND, SUB_COMMAND_GROUP)
        }

    def _require_bot(self) -> None:
        """Acting needs the bot on the gateway (it connects a few seconds after the page is
        up): otherwise the stand-in would keep a message the bot never gets."""
        if self.fake.gateway.session_for(None) is None:
            raise BadRequest("the bot is not connected to the stand-in yet: try again in a "
                             "moment (GET /api/commands lists its commands once it is)", 503)

    def _member(self, raw: str) -> Person:
        person = self.cast.person(_int(raw, "user_id"))
        if person is None:
            raise BadRequest(f"no person {raw} in the sandbox (GET /api/world lists them)", 404)
        return person

    def _guild_channel(self, raw: Any) -> FakeChannel:
        ch = self.fake.channels.get(_int(raw, "channel_id"))
        if ch is None or ch.guild_id != self.cast.guild_id:
            raise BadRequest(f"no channel {raw} in the sandbox server", 404)
        return ch

    def _check_sees(self, person: Person, msg: FakeMessage) -> None:
        ch = self.fake.channels[msg.channel_id]
        if ch.is_dm and person.user.id not in ch.recipient_ids:
            raise BadRequest("that message is in someone else's DMs", 403)
        record = self.fake.interactions.get(msg.interaction_id or 0)
        if msg.ephemeral and (record is None or record.user_id != person.user.id):
            raise BadRequest("that message is only visible to another member", 403)


def _coerce(name: str, otype: int, value: Any) -> Any:
    """A value from JSON (often a string from a form field) as the option type wants it."""
    try:
        if otype in ID_OPTION_TYPES:
            return _int(value, f"options.{name}")
        if otype == INTEGER:
            if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
                raise ValueError
            number = int(value)
            if not -OPTION_NUMBER_LIMIT <= number <= OPTION_NUMBER_LIMIT:
                raise ValueError
            return number
        if otype == NUMBER:
            if isinstance(value, bool):
                raise ValueError
            real = float(value)
            if not (math.isfinite(real) and -OPTION_NUMBER_LIMIT <= real <= OPTION_NUMBER_LIMIT):
                raise ValueError
            return real
        if otype == BOOLEAN:
            if isinstance(value, bool):
                return value
            if str(value).lower() in ("true", "false"):
                return str(value).lower() == "true"
            raise ValueError
        if otype == ATTACHMENT:
            if not isinstance(value, dict):
                raise ValueError
            return Attachment(
                str(value["filename"]), base64.b64decode(str(value["content_base64"]))
            )
    except (ValueError, TypeError, KeyError, OverflowError, binascii.Error):
        kinds = {INTEGER: "an integer within ±2^53", NUMBER: "a finite number within ±2^53",
                 BOOLEAN: "true or false", ATTACHMENT: '{"filename", "content_base64"}'}
        raise BadRequest(
            f"options.{name}: expected {kinds.get(otype, 'an id (a string of digits)')}, "
            f"got {_shown(value)}"
        ) from None
    return str(value)


async def _answer(handle: InteractionHandle) -> JSON:
    """What the member sees after acting: the bot's first visible answer, if it came."""
    out: JSON = {"interaction_id": str(handle.id), "reply": None}
    try:
        reply = await handle.reply(timeout=REPLY_WAIT_SECONDS)
    except TimeoutError:
        callback = handle.record.callback
        out["callback_type"] = None if callback is None else callback.type
        return out
    out["reply"] = {
        "content": reply.content,
        "embeds": reply.embeds,
        "components": reply.components,
        "ephemeral": reply.ephemeral,
        "message_id": None if reply.message_id is None else str(reply.message_id),
    }
    callback = handle.record.callback
    out["callback_type"] = None if callback is None else callback.type
    return out


def _command_line(payload: JSON) -> str:
    """ "/round open" from an INTERACTION_CREATE payload (names only: option values may be
    somebody's secret move)."""
    data = payload.get("data") or {}
    parts = [str(data.get("name", ""))]
    options = data.get("options") or []
    while options and int(options[0].get("type", 0)) in (SUB_COMMAND, SUB_COMMAND_GROUP):
        parts.append(str(options[0]["name"]))
        options = options[0].get("options") or []
    return "/" + " ".join(parts)


def _user(payload: JSON) -> JSON:
    return {
        "id": payload["id"],
        "username": payload["username"],
        "name": payload.get("global_name") or payload["username"],
        "bot": bool(payload.get("bot")),
    }


def _shown(value: Any) -> str:
    """A value quoted in an error: short, whatever was sent."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _int(raw: Any, field: str) -> int:
    """A snowflake id, sent as a string of digits (or a JSON integer): 400 for anything else,
    1e400 and 2^64 included."""
    if isinstance(raw, int) and not isinstance(raw, bool):
        number = raw
    elif isinstance(raw, str) and SNOWFLAKE.fullmatch(raw):
        number = int(raw)
    else:
        raise BadRequest(f"{field}: an id (a string of digits), not {_shown(raw)}")
    if not 0 <= number < SNOWFLAKE_LIMIT:
        raise BadRequest(f"{field}: an id is 0 to 2^64-1, not {_shown(raw)}")
    return number


def _whole_number(raw: str, field: str, lo: int, hi: int) -> int:
    if not re.fullmatch(r"-?[0-9]{1,20}", raw) or not lo <= int(raw) <= hi:
        raise BadRequest(f"{field}: a whole number from {lo} to {hi}, not {_shown(raw)}")
    return int(raw)


async def _body(request: web.Request) -> dict[str, Any]:
    """The JSON object of a POST: strict JSON (no NaN or Infinity, no number beyond a
    double), and text Discord could carry (no lone surrogate or control character)."""
    body = parse_json_body(await request.read())
    try:
        check_strings(body)
    except RecursionError:  # json.loads took it, but walking it needs more frames
        raise BadRequest("the request body is nested too deeply") from None
    return body
