"""Application command schema: validating what the bot registers, and building the
``data`` of APPLICATION_COMMAND / AUTOCOMPLETE interactions from what it registered."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from . import payloads as P
from .errors import ApiError, invalid_form
from .models import JSON, FakeChannel, FakeMember, FakeRole, FakeUser, RecordedFile
from .state import StandinState

SUB_COMMAND = 1
SUB_COMMAND_GROUP = 2
STRING = 3
INTEGER = 4
BOOLEAN = 5
USER = 6
CHANNEL = 7
ROLE = 8
MENTIONABLE = 9
NUMBER = 10
ATTACHMENT = 11

#: Discord's naming regex ``^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$``: Python's ``\w``
#: is letters, digits and ``_``; the Devanagari and Thai blocks add their scripts' marks.
_NAME = re.compile(r"^[-_'\w\u0900-\u097F\u0E00-\u0E7F]{1,32}$")
#: Discord's INTEGER and NUMBER option values lie within -2^53..2^53.
NUMBER_LIMIT = 2**53


@dataclass(frozen=True)
class Attachment:
    """A file a user uploads (ATTACHMENT option, or attachments of send_dm/send_guild_message)."""

    filename: str
    data: bytes
    content_type: str | None = None


# ---------------------------------------------------------------------------------------
# validation of registered commands (a subset of Discord's rules, the ones bots trip on)
# ---------------------------------------------------------------------------------------
def name_ok(name: Any) -> bool:
    """Whether Discord takes ``name`` as a slash command's or option's name (or one of
    its localizations): the naming regex, and lowercase where a letter has a lowercase."""
    return isinstance(name, str) and bool(_NAME.match(name)) and name == name.lower()


def _check_name(name: Any, where: str) -> None:
    if not name_ok(name):
        raise invalid_form(
            where, f"Command name {name!r} is invalid", "APPLICATION_COMMAND_INVALID_NAME"
        )


def _check_description(desc: Any, where: str) -> None:
    if not isinstance(desc, str) or not 1 <= len(desc) <= 100:
        raise invalid_form(where, "Must be between 1 and 100 in length.", "BASE_TYPE_BAD_LENGTH")


def _check_options(options: list[JSON], where: str, depth: int) -> None:
    if len(options) > 25:
        raise invalid_form(where, "Must be 25 or fewer in length.", "BASE_TYPE_MAX_LENGTH")
    seen_optional = False
    names: set[str] = set()
    for i, opt in enumerate(options):
        at = f"{where}.{i}"
        _check_name(opt.get("name"), f"{at}.name")
        _check_description(opt.get("description"), f"{at}.description")
        if opt["name"] in names:
            raise invalid_form(
                at, "Option names must be unique", "APPLICATION_COMMAND_OPTIONS_DUPLICATE_NAME"
            )
        names.add(opt["name"])
        otype = int(opt.get("type", 0))
        if otype in (SUB_COMMAND, SUB_COMMAND_GROUP):
            if otype == SUB_COMMAND_GROUP and depth > 0:
                raise invalid_form(
                    at,
                    "Subcommand groups cannot be nested",
                    "APPLICATION_COMMAND_OPTION_TYPE_INVALID",
                )
            if otype == SUB_COMMAND and depth > 1:
                raise invalid_form(at, "Too deep", "APPLICATION_COMMAND_OPTION_TYPE_INVALID")
            _check_options(list(opt.get("options") or []), f"{at}.options", depth + 1)
            continue
        if otype not in range(3, 12):
            raise invalid_form(f"{at}.type", f"Invalid option type {otype}", "BASE_TYPE_CHOICES")
        if opt.get("required"):
            if seen_optional:
                raise invalid_form(
                    at,
                    "Required options must be placed before non-required options",
                    "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                )
        else:
            seen_optional = True
        if len(opt.get("choices") or []) > 25:
            raise invalid_form(
                f"{at}.choices", "Must be 25 or fewer in length.", "BASE_TYPE_MAX_LENGTH"
            )


def validate_command(raw: JSON) -> None:
    ctype = int(raw.get("type", 1))
    if ctype == 1:
        _check_name(raw.get("name"), "name")
        _check_description(raw.get("description"), "description")
        _check_options(list(raw.get("options") or []), "options", 0)
    else:
        name = raw.get("name")
        if not isinstance(name, str) or not 1 <= len(name) <= 32:
            raise invalid_form(
                "name", "Must be between 1 and 32 in length.", "BASE_TYPE_BAD_LENGTH"
            )


# ---------------------------------------------------------------------------------------
# building interaction data
# ---------------------------------------------------------------------------------------
def find_command(fake: StandinState, name: str, guild_id: int | None) -> JSON | None:
    pools = ([fake.guild_commands.get(guild_id, [])] if guild_id is not None else []) + [
        fake.global_commands
    ]
    for pool in pools:
        for cmd in pool:
            if cmd["name"] == name and int(cmd.get("type", 1)) == 1:
                return cmd
    return None


def _object_id(value: Any) -> int:
    if isinstance(value, FakeMember):
        return value.user.id
    if isinstance(value, FakeUser | FakeRole | FakeChannel):
        return value.id
    if isinstance(value, bool):
        raise TypeError(f"not an id: {value!r}")
    return int(value)


def _infer_type(value: Any) -> int:
    if isinstance(value, bool):
        return BOOLEAN
    if isinstance(value, int):
        return INTEGER
    if isinstance(value, float):
        return NUMBER
    if isinstance(value, FakeUser | FakeMember):
        return USER
    if isinstance(value, FakeRole):
        return ROLE
    if isinstance(value, FakeChannel):
        return CHANNEL
    if isinstance(value, Attachment):
        return ATTACHMENT
    return STRING


def _child(options: list[JSON] | None, name: str, otype: int, what: str, cmd_name: str) -> JSON:
    for opt in options or []:
        if opt.get("name") == name and int(opt.get("type", 0)) == otype:
            return opt
    have = [o.get("name") for o in options or [] if int(o.get("type", 0)) == otype]
    raise LookupError(f"fakediscord: /{cmd_name} has no {what} {name!r} (registered: {have})")


def build_command_data(
    fake: StandinState,
    cmd: JSON | None,
    name: str,
    group: str | None,
    subcommand: str | None,
    options: dict[str, Any],
    guild_id: int | None,
    user_id: int,
    *,
    focused: str | None = None,
    enforce_limits: bool = True,
) -> JSON:
    data: JSON = {"id": cmd["id"] if cmd else str(fake.snowflake()), "name": name, "type": 1}
    if cmd is not None and cmd.get("guild_id"):
        data["guild_id"] = cmd["guild_id"]
    schema: list[JSON] | None = None
    if cmd is not None:
        top = list(cmd.get("options") or [])
        if group is not None:
            grp = _child(top, group, SUB_COMMAND_GROUP, "subcommand group", name)
            schema = list(
                _child(grp.get("options"), subcommand or "", SUB_COMMAND, "subcommand", name).get(
                    "options"
                )
                or []
            )
        elif subcommand is not None:
            schema = list(
                _child(top, subcommand, SUB_COMMAND, "subcommand", name).get("options") or []
            )
        else:
            if any(int(o.get("type", 0)) in (SUB_COMMAND, SUB_COMMAND_GROUP) for o in top):
                raise LookupError(
                    f"fakediscord: /{name} has subcommands; pass subcommand= (and group=)"
                )
            schema = top
        if cmd.get("contexts") is not None:
            ctx = 0 if guild_id is not None else 1
            if ctx not in cmd["contexts"]:
                raise LookupError(
                    f"fakediscord: /{name} is not available in context {ctx} "
                    f"(contexts={cmd['contexts']})"
                )
        elif guild_id is None and cmd.get("dm_permission") is False:
            raise LookupError(
                f"fakediscord: /{name} has dm_permission=False; Discord hides it in DMs"
            )
    if focused is not None and focused not in options:
        options[focused] = ""
    resolved: JSON = {}
    leaf: list[JSON] = []
    by_name = {o["name"]: o for o in schema} if schema is not None else {}
    for opt_name, value in options.items():
        spec = by_name.get(opt_name)
        if schema is not None and spec is None:
            raise LookupError(
                f"fakediscord: /{name} has no option {opt_name!r} (registered: {list(by_name)})"
            )
        otype = int(spec["type"]) if spec else _infer_type(value)
        if opt_name == focused:
            leaf.append({"name": opt_name, "type": otype, "value": str(value), "focused": True})
            continue
        option = _build_option(fake, opt_name, otype, value, spec, guild_id, user_id, resolved)
        _check_value(opt_name, option.get("value"), spec if enforce_limits else None)
        leaf.append(option)
    if schema is not None and focused is None:
        missing = [o["name"] for o in schema if o.get("required") and o["name"] not in options]
        if missing:
            raise LookupError(f"fakediscord: /{name} needs required option(s) {missing}")
    opts: list[JSON] = leaf
    if subcommand is not None:
        opts = [{"name": subcommand, "type": SUB_COMMAND, "options": leaf}]
        if group is not None:
            opts = [{"name": group, "type": SUB_COMMAND_GROUP, "options": opts}]
    if opts:
        data["options"] = opts
    if resolved:
        data["resolved"] = resolved
    return data


def _check_value(name: str, value: Any, spec: JSON | None) -> None:
    if spec is None:
        return
    choices = spec.get("choices")
    if choices and value not in [c["value"] for c in choices]:
        raise ValueError(
            f"fakediscord: option {name}={value!r} is not one of the choices {choices}"
        )
    if isinstance(value, int | float) and not isinstance(value, bool):
        # Discord's INTEGER and NUMBER options hold -2^53..2^53 (a double's exact integers),
        # whatever min/max the command registered; NaN and infinities are no number.
        finite = isinstance(value, int) or math.isfinite(value)
        if not (finite and -NUMBER_LIMIT <= value <= NUMBER_LIMIT):
            raise ValueError(
                f"fakediscord: option {name}={value} outside Discord's range "
                f"[-2^53, 2^53]"
            )
        lo, hi = spec.get("min_value"), spec.get("max_value")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise ValueError(f"fakediscord: option {name}={value} outside [{lo}, {hi}]")
    if isinstance(value, str):
        lo, hi = spec.get("min_length"), spec.get("max_length")
        if (lo is not None and len(value) < lo) or (hi is not None and len(value) > hi):
            raise ValueError(f"fakediscord: option {name} length {len(value)} outside [{lo}, {hi}]")


def _user_resolved(fake: StandinState, uid: int, guild_id: int | None, resolved: JSON) -> None:
    user = fake.users.get(uid)
    if user is None:
        raise KeyError(f"fakediscord: unknown user {uid} in an option")
    resolved.setdefault("users", {})[str(uid)] = user.to_payload()
    if guild_id is not None:
        member = fake.guilds[guild_id].members.get(uid)
        if member is not None:
            # resolved.members leaves out `user` (discord.py takes it from resolved.users)
            resolved.setdefault("members", {})[str(uid)] = member.to_payload(
                include_user=False, permissions=fake.member_permissions(guild_id, uid)
            )


def _build_option(
    fake: StandinState,
    name: str,
    otype: int,
    value: Any,
    spec: JSON | None,
    guild_id: int | None,
    user_id: int,
    resolved: JSON,
) -> JSON:
    out: JSON = {"name": name, "type": otype}
    if otype == STRING:
        out["value"] = str(value)
    elif otype == INTEGER:
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"fakediscord: option {name} is INTEGER, got {value!r}")
        out["value"] = value
    elif otype == NUMBER:
        out["value"] = float(value)
    elif otype == BOOLEAN:
        out["value"] = bool(value)
    elif otype == USER:
        uid = _object_id(value)
        _user_resolved(fake, uid, guild_id, resolved)
        out["value"] = str(uid)
    elif otype == ROLE:
        rid = _object_id(value)
        if guild_id is None or rid not in fake.guilds[guild_id].roles:
            raise KeyError(f"fakediscord: role {rid} is not in guild {guild_id}")
        resolved.setdefault("roles", {})[str(rid)] = fake.guilds[guild_id].roles[rid].to_payload()
        out["value"] = str(rid)
    elif otype == MENTIONABLE:
        oid = _object_id(value)
        if oid in fake.users:
            _user_resolved(fake, oid, guild_id, resolved)
        elif guild_id is not None and oid in fake.guilds[guild_id].roles:
            resolved.setdefault("roles", {})[str(oid)] = (
                fake.guilds[guild_id].roles[oid].to_payload()
            )
        else:
            raise KeyError(f"fakediscord: {oid} is neither a user nor a role")
        out["value"] = str(oid)
    elif otype == CHANNEL:
        cid = _object_id(value)
        ch = fake.channels[cid]
        if spec and spec.get("channel_types") and ch.type not in spec["channel_types"]:
            raise ValueError(f"fakediscord: channel type {ch.type} not in {spec['channel_types']}")
        data = P.channel(fake, ch)
        if ch.guild_id is not None:
            data["permissions"] = str(fake.member_permissions(ch.guild_id, user_id))
        resolved.setdefault("channels", {})[str(cid)] = data
        out["value"] = str(cid)
    elif otype == ATTACHMENT:
        if not isinstance(value, Attachment):
            raise TypeError(
                f"fakediscord: option {name} is ATTACHMENT; pass fakediscord.Attachment"
            )
        aid = fake.snowflake()
        rf = RecordedFile("files", value.filename, value.content_type, value.data)
        fake.cdn[aid] = rf
        resolved.setdefault("attachments", {})[str(aid)] = P.attachment(fake, 0, aid, rf, None)
        out["value"] = str(aid)
    else:
        raise ApiError(400, 0, f"unsupported option type {otype}")
    return out
