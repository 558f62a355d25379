"""Duellist profiles (STR and AGI per server), set by commanders."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db import queries
from bot.db.engine import Database
from bot.db.models import DuellistProfile
from bot.rules.base import get_ruleset
from bot.rules.errors import InvalidStats, RulesError
from bot.rules.rule_2_14 import RULESET_ID as RULE_2_14_ID
from bot.rules.rule_2_14 import check_stat
from bot.services.errors import ConflictOfInterest, InvalidInput, NotFound
from bot.services.views import MemberRef, ProfileView


def profile_view(row: DuellistProfile) -> ProfileView:
    return ProfileView(
        guild_id=row.guild_id,
        user_id=row.user_id,
        display_name=row.display_name,
        strength=row.strength,
        agility=row.agility,
        sheets=dict(row.sheets or {}),
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
        refuse_own_profile(actor_id, member, "stats")
        try:
            strength = check_stat("STR", strength)
            agility = check_stat("AGI", agility)
        except InvalidStats as exc:
            raise InvalidInput(exc.message) from None
        async with self._db.transaction() as session:
            row = await self._locked_row(session, guild_id, member.user_id)
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
            if row is None or row.strength is None:
                raise NotFound(no_stats_message(member.name))
            return profile_view(row)

    async def set_sheet(
        self,
        guild_id: int,
        actor_id: int,
        member: MemberRef,
        ruleset_id: str,
        fields: Mapping[str, Any],
    ) -> ProfileView:
        """Set (merge) a duellist's sheet for a ruleset other than rule 2.14, validated by
        the ruleset; audited."""
        refuse_own_profile(actor_id, member, "sheet")
        try:
            rules = get_ruleset(ruleset_id)
        except RulesError as exc:
            raise InvalidInput(exc.message) from None
        if rules.id == RULE_2_14_ID:
            raise InvalidInput("Rule 2.14 stats are set with `/stats set member str agi`.")
        async with self._db.transaction() as session:
            row = await self._locked_row(session, guild_id, member.user_id)
            current = dict((row.sheets or {}).get(rules.id, {})) if row is not None else {}
            try:
                sheet = rules.validate_sheet({**current, **fields})
            except RulesError as exc:
                raise InvalidInput(exc.message) from None
            if row is None:
                row = DuellistProfile(
                    guild_id=guild_id,
                    user_id=member.user_id,
                    display_name=clean_name(member.name),
                    strength=None,
                    agility=None,
                    sheets={},
                    updated_by=actor_id,
                )
                session.add(row)
            row.display_name = clean_name(member.name)
            row.sheets = {**(row.sheets or {}), rules.id: sheet}  # new dict: JSON change seen
            row.updated_by = actor_id
            queries.audit(
                session,
                guild_id=guild_id,
                actor_id=actor_id,
                action="sheet.set",
                details={
                    "user_id": member.user_id,
                    "ruleset": rules.id,
                    "before": current,
                    "after": sheet,
                },
            )
            await session.flush()
            return profile_view(row)

    async def get_sheet(self, guild_id: int, member: MemberRef, ruleset_id: str) -> dict[str, Any]:
        async with self._db.transaction() as session:
            row = await queries.profile(session, guild_id, member.user_id)
            sheet = (row.sheets or {}).get(ruleset_id) if row is not None else None
            if not isinstance(sheet, dict):
                raise NotFound(
                    f"{clean_name(member.name)} has no {ruleset_id} sheet in this server yet."
                )
            return dict(sheet)

    @staticmethod
    async def _locked_row(
        session: AsyncSession, guild_id: int, user_id: int
    ) -> DuellistProfile | None:
        stmt = (
            select(DuellistProfile)
            .where(DuellistProfile.guild_id == guild_id, DuellistProfile.user_id == user_id)
            .with_for_update()
        )
        return (await session.execute(stmt)).scalar_one_or_none()


def refuse_own_profile(actor_id: int, member: MemberRef, what: str) -> None:
    """Conflict of interest: nobody sets their own numbers, whatever their roles (a duel
    snapshots them at its start)."""
    if actor_id == member.user_id:
        raise ConflictOfInterest(
            f"You cannot set your own {what}: a duellist never sets their own numbers. "
            f"Another commander can set them for you."
        )


def no_stats_message(name: str) -> str:
    return (
        f"{clean_name(name)} has no stats in this server yet: a commander sets them with "
        "`/stats set member:<member> str:<number> agi:<number>`."
    )
