"""Permissions matrix: every slash command and the move button x every kind of caller,
through the real discord.py client and the fake Discord, on SQLite and PostgreSQL.

Cells: ``allow``; or a refusal, named by what it says is needed: ``commander`` (a commander
role, the admin role or Manage Server), ``admin`` (Manage Server or the admin role),
``unknown`` (not the caller's own duel, for a move or anything in DMs: answered exactly as
a number that names no duel, "You have no duel #N"), ``server`` (the duel belongs to
another server: "There is no duel #N in this server"), ``own`` (a duellist never commands
their own duel nor sets their own numbers: another commander does). A refusal is
ephemeral, says what is needed, and changes no stored row (every table is compared before
and after).

Rows ``dm /odds``, ``dm /move`` and ``dm text`` (``#N evade``) are used in the bot's DMs,
where only the caller's own duels exist: the other-guild cells are the members of other
servers in DMs.

Callers: duellist (side A of the duel), opponent (side B), commander (the configured
commander role, no Manage Server), admin (Manage Server), role-admin (the configured admin
role, no Manage Server), outsider (a plain member), other-guild (Manage Server in ANOTHER
server, using this server's duel number there; commands without a duel act on their own
server and are allowed), duellist-commander (side A of the duel who also holds the
commander role: a duellist as commander of their own duel; its column is OWN_DUEL_MATRIX).

Rendered into docs/reliability.md ("Permissions").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from bot.db.engine import Database
from tests.discord.harness import World, populate, running_world
from tests.fakediscord import MANAGE_GUILD, FakeDiscord
from tests.fakediscord.models import FakeMessage, FakeUser
from tests.security.snapshot import settle, snapshot

MATRIX_ROLES = (
    "duellist", "opponent", "commander", "admin", "role-admin", "outsider", "other-guild"
)
OWN_DUEL_ROLES = ("duellist-commander",)
ROLES = (*MATRIX_ROLES, *OWN_DUEL_ROLES)

# Slash commands without their "/". The order is the order of play: later rows see the
# state that earlier allowed rows left.
MATRIX = """
command                      duellist  opponent  commander admin    role-admin outsider  other-guild
stats show                   commander commander allow     allow    allow      commander allow
stats set                    commander commander allow     allow    allow      commander allow
sheet show                   commander commander allow     allow    allow      commander allow
sheet set                    commander commander allow     allow    allow      commander allow
duel list                    allow     allow     allow     allow    allow      allow     allow
duel status                  allow     allow     allow     allow    allow      allow     server
duel history                 allow     allow     allow     allow    allow      allow     server
duel export                  allow     allow     allow     allow    allow      allow     server
odds                         allow     allow     allow     allow    allow      allow     server
round status                 commander commander allow     allow    allow      commander server
config show                  admin     admin     admin     allow    allow      admin     allow
config change-of-choice      admin     admin     admin     allow    allow      admin     allow
config missing-move          admin     admin     admin     allow    allow      admin     allow
config locked-blocks-retreat admin     admin     admin     allow    allow      admin     allow
config house-rule            admin     admin     admin     allow    allow      admin     allow
config commander-role        admin     admin     admin     allow    allow      admin     allow
config admin-role            admin     admin     admin     allow    allow      admin     allow
config duel-forum            admin     admin     admin     allow    allow      admin     allow
config undo-window           admin     admin     admin     allow    allow      admin     allow
config language              admin     admin     admin     allow    allow      admin     allow
move                         allow     allow     unknown   unknown  unknown    unknown   unknown
move button                  allow     allow     unknown   unknown  unknown    unknown   unknown
dm /odds                     allow     allow     unknown   unknown  unknown    unknown   unknown
dm /move                     allow     allow     unknown   unknown  unknown    unknown   unknown
dm text                      allow     allow     unknown   unknown  unknown    unknown   unknown
round close                  commander commander allow     allow    allow      commander server
round undo                   commander commander allow     allow    allow      commander server
round open                   commander commander allow     allow    allow      commander server
duel start                   commander commander allow     allow    allow      commander allow
duel challenge               commander commander allow     allow    allow      commander allow
duel end                     commander commander allow     allow    allow      commander server
"""

# One more caller (issue 10), a column of its own so that MATRIX's lines stay within 100
# characters: every command of MATRIX needs its cell here too.
OWN_DUEL_MATRIX = """
command                      duellist-commander
stats show                   allow
stats set                    own
sheet show                   allow
sheet set                    own
duel list                    allow
duel status                  allow
duel history                 allow
duel export                  allow
odds                         allow
round status                 allow
config show                  admin
config change-of-choice      admin
config missing-move          admin
config locked-blocks-retreat admin
config house-rule            admin
config commander-role        admin
config admin-role            admin
config duel-forum            admin
config undo-window           admin
config language              admin
move                         allow
move button                  allow
round close                  own
round undo                   own
round open                   own
duel start                   allow
duel challenge               allow
duel end                     own
dm /odds                     allow
dm /move                     allow
dm text                      allow
"""

NOT_SLASH_IN_SERVER = ("move button", "dm /odds", "dm /move", "dm text")


def parse_matrix(text: str, roles: tuple[str, ...] = MATRIX_ROLES) -> dict[str, dict[str, str]]:
    lines = [line for line in text.strip().splitlines()]
    header = lines[0].split()[1:]
    assert tuple(header) == roles
    table = {}
    for line in lines[1:]:
        cells = line.split()
        name = " ".join(cells[: len(cells) - len(roles)])
        name = name if name in NOT_SLASH_IN_SERVER else "/" + name
        table[name] = dict(zip(roles, cells[-len(roles) :], strict=True))
    return table


def with_column(
    table: dict[str, dict[str, str]], column: dict[str, dict[str, str]]
) -> dict[str, dict[str, str]]:
    missing = set(table) ^ set(column)
    assert not missing, f"OWN_DUEL_MATRIX and MATRIX must list the same commands: {missing}"
    return {name: {**row, **column[name]} for name, row in table.items()}


EXPECTED = with_column(parse_matrix(MATRIX), parse_matrix(OWN_DUEL_MATRIX, OWN_DUEL_ROLES))
REFUSALS = {
    "commander": ["Only a commander can do this", "Manage Server"],
    "admin": ["Only an admin", "Manage Server"],
    "unknown": ["You have no duel #"],
    "server": ["There is no duel #", "in this server"],
    "own": ["a duellist never", "Another commander"],
}


@dataclass
class Ctx:
    """Where and with what a caller acts: their server, its members and roles, the duel."""

    w: World
    user: FakeUser
    guild_id: int
    channel_id: int
    a: int
    b: int
    commander_role: int
    admin_role: int
    duel_id: int
    prompt: FakeMessage


COMMANDS: dict[str, tuple[str, str | None, Callable[[Ctx], dict[str, Any]]]] = {
    "/stats show": ("stats", "show", lambda c: {"member": c.a}),
    "/stats set": ("stats", "set", lambda c: {"member": c.a, "str": 4, "agi": 2}),
    "/sheet show": ("sheet", "show", lambda c: {"member": c.a, "ruleset": "by-this-axe"}),
    "/sheet set": (
        "sheet",
        "set",
        lambda c: {"member": c.a, "ruleset": "by-this-axe", "fields": "character=hero"},
    ),
    "/duel list": ("duel", "list", lambda c: {}),
    "/duel status": ("duel", "status", lambda c: {"duel": c.duel_id}),
    "/duel history": ("duel", "history", lambda c: {"duel": c.duel_id}),
    "/duel export": ("duel", "export", lambda c: {"duel": c.duel_id, "format": "json"}),
    "/odds": ("odds", None, lambda c: {"duel": c.duel_id}),
    "/round status": ("round", "status", lambda c: {"duel": c.duel_id}),
    "/config show": ("config", "show", lambda c: {}),
    "/config change-of-choice": ("config", "change-of-choice", lambda c: {"enabled": True}),
    "/config missing-move": ("config", "missing-move", lambda c: {"policy": "none"}),
    "/config locked-blocks-retreat": (
        "config",
        "locked-blocks-retreat",
        lambda c: {"enabled": False},
    ),
    "/config house-rule": (
        "config",
        "house-rule",
        lambda c: {"ruleset": "rule-2.14", "key": "locked-blocks-retreat", "value": "no"},
    ),
    "/config commander-role": ("config", "commander-role", lambda c: {"role": c.commander_role}),
    "/config admin-role": ("config", "admin-role", lambda c: {"role": c.admin_role}),
    # Without channel: clears the duel forum (naming one is refused or allowed by the forum).
    "/config duel-forum": ("config", "duel-forum", lambda c: {}),
    "/config undo-window": ("config", "undo-window", lambda c: {}),
    "/config language": ("config", "language", lambda c: {}),
    "/move": ("move", None, lambda c: {"duel": c.duel_id, "move": "evade"}),
    "/round close": ("round", "close", lambda c: {"duel": c.duel_id}),
    "/round undo": ("round", "undo", lambda c: {"duel": c.duel_id, "reason": "matrix test"}),
    "/round open": ("round", "open", lambda c: {"duel": c.duel_id}),
    "/duel start": ("duel", "start", lambda c: {"a": c.a, "b": c.b}),
    "/duel challenge": (
        "duel",
        "challenge",
        lambda c: {"challenger": c.a, "challenged": c.b, "accepted": False},
    ),
    "/duel end": ("duel", "end", lambda c: {"duel": c.duel_id, "reason": "matrix test"}),
}
assert set(COMMANDS) | set(NOT_SLASH_IN_SERVER) == set(EXPECTED)


async def setup(fake: FakeDiscord, database: Database, role: str) -> tuple[Any, dict[str, Any]]:
    people = populate(fake)
    guild = people["guild"]
    if role == "duellist-commander":  # side A of the duel is also a commander
        fake.set_member_roles(guild.id, people["ann"].id, [people["commander_role_id"]])
    admin_role = fake.add_role(guild.id, "Duel Admins", permissions=0)
    role_admin = fake.add_member(guild.id, "roleadmin", roles=[admin_role]).user
    other = fake.add_guild("Other Hall")
    other_admin_role = fake.add_role(other.id, "Other Referee", permissions=MANAGE_GUILD)
    other_admin = fake.add_member(other.id, "otheradmin", roles=[other_admin_role]).user
    zed = fake.add_member(other.id, "zed").user
    yan = fake.add_member(other.id, "yan").user
    extra = {
        "admin_role": admin_role.id,
        "role_admin": role_admin,
        "other": other,
        "other_admin": other_admin,
        "other_role": other_admin_role.id,
        "zed": zed,
        "yan": yan,
    }
    return people, extra


async def prepare(w: World, x: dict[str, Any]) -> int:
    """As the Manage Server admin: roles, variant on, stats, a duel with an open round."""
    fake = w.fake
    await w.slash(w.commander, "config", "commander-role", role=w.commander_role_id)
    await w.slash(w.commander, "config", "admin-role", role=x["admin_role"])
    await w.slash(w.commander, "config", "change-of-choice", enabled=True)
    for user in (w.ann, w.bob):
        await w.slash(w.commander, "stats", "set", member=user.id, str=5, agi=3)
    reply = await w.slash(w.commander, "duel", "start", a=w.ann.id, b=w.bob.id)
    duel_id = int(reply.content.split("Duel #")[1].split()[0])
    reply = await w.slash(w.commander, "round", "open", duel=duel_id)
    assert "Round 1" in reply.content
    await fake.wait_for_dms(w.ann.id, 1, timeout=5)
    await fake.wait_for_dms(w.bob.id, 1, timeout=5)
    # The other server: its admin has set stats for two of its members.
    other = x["other"]
    for user in (x["zed"], x["yan"]):
        handle = await fake.invoke_slash(
            other.id,
            other.channel_ids[0],
            x["other_admin"].id,
            "stats",
            subcommand="set",
            options={"member": user.id, "str": 1, "agi": 1},
        )
        assert "Stats saved" in (await handle.reply()).content
    await fake.wait_for_messages(w.channel_id, 2, timeout=5)
    return duel_id


def context(w: World, x: dict[str, Any], role: str, duel_id: int) -> Ctx:
    users = {
        "duellist": w.ann,
        "opponent": w.bob,
        "commander": w.role_commander,
        "admin": w.commander,
        "role-admin": x["role_admin"],
        "outsider": w.outsider,
        "other-guild": x["other_admin"],
        "duellist-commander": w.ann,
    }
    prompt_of = w.bob if role == "opponent" else w.ann
    prompt = next(m for m in w.fake.dms_to(prompt_of.id) if m.custom_ids())
    if role == "other-guild":
        other = x["other"]
        return Ctx(
            w,
            users[role],
            other.id,
            other.channel_ids[0],
            x["zed"].id,
            x["yan"].id,
            x["other_role"],
            x["other_role"],
            duel_id,
            prompt,
        )
    return Ctx(
        w,
        users[role],
        w.guild.id,
        w.channel_id,
        w.ann.id,
        w.bob.id,
        w.commander_role_id,
        x["admin_role"],
        duel_id,
        prompt,
    )


async def invoke(c: Ctx, name: str) -> Any:
    fake = c.w.fake
    if name == "move button":
        custom_id = next(i for i in c.prompt.custom_ids() if i.endswith(":evade"))
        handle = await fake.click_button(c.user.id, c.prompt, custom_id)
    elif name == "dm text":
        count = len(fake.dms_to(c.user.id))
        await fake.send_dm(c.user.id, f"#{c.duel_id} evade")
        answer = (await fake.wait_for_dms(c.user.id, count + 1, timeout=10))[-1]
        return DmAnswer(answer.content or "", answer.embeds)
    elif name.startswith("dm /"):
        cmd, _, options = COMMANDS["/" + name.removeprefix("dm /")]
        handle = await fake.invoke_slash(None, None, c.user.id, cmd, options=options(c))
    else:
        cmd, sub, options = COMMANDS[name]
        handle = await fake.invoke_slash(
            c.guild_id, c.channel_id, c.user.id, cmd, subcommand=sub, options=options(c)
        )
    return await handle.reply()


@dataclass
class DmAnswer:
    """The bot's DM answer to DM text: seen by its recipient only, as an ephemeral reply."""

    content: str
    embeds: list[Any]
    ephemeral: bool = True


def text_of(reply: Any) -> str:
    return (reply.content or "") + " " + " ".join(str(e) for e in reply.embeds)


@pytest.mark.parametrize("role", ROLES)
async def test_permissions_matrix(fake_discord: FakeDiscord, database: Database, role: str) -> None:
    fake = fake_discord
    people, extra = await setup(fake, database, role)
    async with running_world(fake, database, people) as w:
        duel_id = await prepare(w, extra)
        c = context(w, extra, role, duel_id)
        failures = []
        registered = registered_commands() | set(NOT_SLASH_IN_SERVER)
        for name, row in EXPECTED.items():
            if name not in registered:
                continue
            expected = row[role]
            await settle(database)
            before = await snapshot(database) if expected != "allow" else None
            reply = await invoke(c, name)
            text = text_of(reply)
            assert reply.ephemeral, (name, role, text)
            assert "Something went wrong" not in text, (name, role, text)
            refused = [k for k, needles in REFUSALS.items() if needles[0] in text]
            if expected == "allow":
                if refused:
                    failures.append(f"{name} x {role}: expected allow, got {text!r}")
                continue
            if not all(n in text for n in REFUSALS[expected]):
                failures.append(f"{name} x {role}: expected {expected} refusal, got {text!r}")
            await settle(database)
            after = await snapshot(database)
            changed = [t for t in after if after[t] != before[t]]  # type: ignore[index]
            if changed:
                failures.append(f"{name} x {role}: refusal changed tables {changed}")
        assert not failures, "\n".join(failures)


def registered_commands() -> set[str]:
    from bot.discord.cogs.admin import Admin
    from bot.discord.cogs.commander import Commander
    from bot.discord.cogs.intake import Intake
    from bot.discord.cogs.odds import Odds

    names = set()
    for cog in (Admin, Commander, Intake, Odds):
        for cmd in cog.__cog_app_commands__:
            children = getattr(cmd, "commands", None)
            if children:
                names |= {f"/{cmd.name} {child.name}" for child in children}
            else:
                names.add(f"/{cmd.name}")
    return names


def test_matrix_covers_every_registered_command() -> None:
    """Every slash command the bot defines has a row (new commands must be added). Rows of
    commands the bot does not define (yet) are skipped by the matrix run."""
    missing = registered_commands() - set(COMMANDS)
    assert not missing, f"add these commands to MATRIX: {sorted(missing)}"


def render_markdown() -> str:
    """The matrix as a Markdown table (for docs/reliability.md)."""
    head = "| command | " + " | ".join(ROLES) + " |"
    rule = "|---" * (len(ROLES) + 1) + "|"
    rows = [
        f"| `{name}` | "
        + " | ".join("allow" if row[r] == "allow" else f"deny ({row[r]})" for r in ROLES)
        + " |"
        for name, row in EXPECTED.items()
    ]
    return "\n".join([head, rule, *rows])


if __name__ == "__main__":
    print(render_markdown())
