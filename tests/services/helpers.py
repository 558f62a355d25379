"""Helpers shared by the service tests (fixtures live in conftest.py)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import asdict, fields, is_dataclass
from typing import Any

import msgspec
from sqlalchemy import func, select

from bot.db.engine import Database
from bot.db.models import AuditEntry, OutboxPost, Submission
from bot.rules.rule_2_14.moves import MOVE_IDS
from bot.services.container import Services
from bot.services.views import DuelView, MemberRef

GUILD = 1000
CHANNEL = 2000
COMMANDER = 9

ALICE = MemberRef(101, "Alice")
BOB = MemberRef(102, "Bob")
CAROL = MemberRef(103, "Carol")
DAVE = MemberRef(104, "Dave")


async def give_stats(
    services: Services, *members: MemberRef, strength: int = 10, agility: int = 10
) -> None:
    for m in members:
        await services.profiles.set_stats(GUILD, COMMANDER, m, strength, agility)


async def new_duel(
    services: Services, a: MemberRef = ALICE, b: MemberRef = BOB, *, stats: bool = True
) -> DuelView:
    if stats:
        await give_stats(services, a, b)
    return await services.duels.start_duel(
        guild_id=GUILD, channel_id=CHANNEL, actor_id=COMMANDER, a=a, b=b
    )


async def duel_with_round(services: Services, a: MemberRef = ALICE, b: MemberRef = BOB) -> int:
    duel = await new_duel(services, a, b)
    await services.duels.open_round(duel_id=duel.id, guild_id=GUILD, actor_id=COMMANDER)
    return duel.id


async def outbox_rows(db: Database, **where: Any) -> list[OutboxPost]:
    async with db.transaction() as s:
        stmt = select(OutboxPost).order_by(OutboxPost.id)
        for k, v in where.items():
            stmt = stmt.where(getattr(OutboxPost, k) == v)
        return list((await s.execute(stmt)).scalars())


async def audit_rows(db: Database, action: str | None = None) -> list[AuditEntry]:
    async with db.transaction() as s:
        stmt = select(AuditEntry).order_by(AuditEntry.id)
        if action is not None:
            stmt = stmt.where(AuditEntry.action == action)
        return list((await s.execute(stmt)).scalars())


async def submissions(db: Database) -> list[Submission]:
    async with db.transaction() as s:
        return list((await s.execute(select(Submission).order_by(Submission.id))).scalars())


async def count(db: Database, model: Any) -> int:
    async with db.transaction() as s:
        return int((await s.execute(select(func.count()).select_from(model))).scalar_one())


def sha256_hex(seed_hex: str) -> str:
    return hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest()


def walk(value: Any) -> Iterable[Any]:
    """Every leaf and key of a view, recursively (dataclasses, msgspec Structs such as the
    published round, dicts, sequences). A duel's ``options`` (the rules fixed at its start)
    are skipped: a setting's name such as locked_blocks_retreat is not a move."""
    if isinstance(value, msgspec.Struct):
        for name in value.__struct_fields__:
            if name == "options":
                continue
            yield name
            yield from walk(getattr(value, name))
    elif is_dataclass(value) and not isinstance(value, type):
        for f in fields(value):
            if f.name == "options":
                continue
            yield f.name
            yield from walk(getattr(value, f.name))
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from walk(v)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for v in value:
            yield from walk(v)
    else:
        yield value


def mentions_a_move(value: Any) -> bool:
    text_of = repr(list(walk(value))).lower()
    return any(m in text_of for m in MOVE_IDS)


def as_dict(view: Any) -> dict[str, Any]:
    return asdict(view)
