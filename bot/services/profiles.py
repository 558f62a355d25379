"""Duellist profiles (STR and AGI per server), set by commanders."""

from __future__ import annotations

from sqlalchemy import select

from bot.db import queries
from bot.db.engine import Database
from bot.db.models import DuellistProfile
from bot.rules.errors import InvalidStats
from bot.rules.rule_2_14 import check_stat
from bot.services.errors import InvalidInput, NotFound
from bot.services.views import MemberRef, ProfileView


def profile_view(row: DuellistProfile) -> ProfileView:
    return ProfileView(
        guild_id=row.guild_id,
        user_id=row.user_id,
        display_name=row.display_name,
        strength=row.strength,
        agility=row.agility,
    )


def clean_name(name: str) -> str:
    """Display names go into posts: keep them to one short line."""
    flat = " ".join(str(name).split())
    return flat[:80] or "unnamed"


class ProfileService:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def set_stats(
        self, guild_id: int, actor_id: int, member: MemberRef, strength: int, agility: int
    ) -> ProfileView:
        try:
            strength = check_stat("STR", strength)
            agility = check_stat("AGI", agility)
        except InvalidStats as exc:
            raise InvalidInput(exc.message) from None
        async with self._db.transaction() as session:
            stmt = (
                select(DuellistProfile)
                .where(
                    DuellistProfile.guild_id == guild_id,
                    DuellistProfile.user_id == member.user_id,
                )
                .with_for_update()
            )
            row = (await session.execute(stmt)).scalar_one_or_none()
            before = None if row is None else {"str": row.strength, "agi": row.agility}
            if row is None:
                row = DuellistProfile(
                    guild_id=guild_id,
                    user_id=member.user_id,
                    display_name=clean_name(member.name),
                    strength=strength,
                    agility=agility,
                    sheets={},
                    updated_by=actor_id,
                )
                session.add(row)
            else:
                row.display_name = clean_name(member.name)
                row.strength, row.agility, row.updated_by = strength, agility, actor_id
            queries.audit(
                session,
                guild_id=guild_id,
                actor_id=actor_id,
                action="stats.set",
                details={
                    "user_id": member.user_id,
                    "before": before,
                    "after": {"str": strength, "agi": agility},
                },
            )
            await session.flush()
            return profile_view(row)

    async def get_stats(self, guild_id: int, member: MemberRef) -> ProfileView:
        async with self._db.transaction() as session:
            row = await queries.profile(session, guild_id, member.user_id)
            if row is None:
                raise NotFound(no_stats_message(member.name))
            return profile_view(row)


def no_stats_message(name: str) -> str:
    return (
        f"{clean_name(name)} has no stats in this server yet: a commander sets them with "
        "`/stats set member:<member> str:<number> agi:<number>`."
    )
