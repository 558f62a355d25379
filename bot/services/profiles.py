"""Duellist profiles: each ruleset's sheet per member and server, set by commanders.

A ruleset's sheet lives in the profile's ``sheets`` JSON under its id, or, for a ruleset
that declares ``sheet_columns`` (rule 2.14's STR/AGI predate the JSON), in those columns.
Nothing here names a ruleset: `/stats` is the sheet of the ruleset stored in the columns."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from bot.db import queries
from bot.db.engine import Database
from bot.db.models import DuellistProfile
from bot.rules import registry
from bot.rules.base import Ruleset
from bot.rules.errors import RulesError
from bot.services.errors import ConflictOfInterest, InvalidInput, NextStep, NotFound
from bot.services.unit import transaction
from bot.services.views import MemberRef, ProfileView


def column_sheet(row: DuellistProfile, rules: Ruleset) -> dict[str, Any] | None:
    """``rules``' sheet from the profile's columns (None: unset, or not stored there)."""
    if not rules.sheet_columns:
        return None
    values = {name: getattr(row, column) for name, column in rules.sheet_columns}
    return None if any(v is None for v in values.values()) else values


def stats_ruleset() -> Ruleset:
    """The ruleset whose sheet `/stats` sets and shows: the one stored in the columns."""
    for rules in registry.all_rulesets():
        if rules.sheet_columns:
            return rules
    raise InvalidInput(
        "No duel system keeps its sheet in the stats columns.", next_step=NextStep.USE_SHEET
    )


def profile_view(row: DuellistProfile) -> ProfileView:
    sheets = {
        key: value
        for key, value in (row.sheets or {}).items()
        if isinstance(value, dict) and key in registry.ids()  # not a remembered penalty
    }
    for rules in registry.all_rulesets():
        stored = column_sheet(row, rules)
        if stored is not None:
            sheets[rules.id] = stored
    return ProfileView(
        guild_id=row.guild_id,
        user_id=row.user_id,
        display_name=row.display_name,
        strength=row.strength,
        agility=row.agility,
        sheets=dict(sorted(sheets.items())),
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
        """`/stats set`: the sheet of the ruleset stored in the profile's columns, its two
        fields in order (rule 2.14's STR and AGI)."""
        rules = stats_ruleset()
        names = [name for name, _ in rules.sheet_columns]
        fields = dict(zip(names, (strength, agility), strict=False))
        return await self.set_sheet(guild_id, actor_id, member, rules.id, fields)

    async def get_stats(self, guild_id: int, member: MemberRef) -> ProfileView:
        rules = stats_ruleset()
        async with transaction(self._db) as session:
            row = await queries.profile(session, guild_id, member.user_id)
            if row is None or column_sheet(row, rules) is None:
                raise no_stats(member.name)
            return profile_view(row)

    async def set_sheet(
        self,
        guild_id: int,
        actor_id: int,
        member: MemberRef,
        ruleset_id: str,
        fields: Mapping[str, Any],
    ) -> ProfileView:
        """Set (merge) a duellist's sheet for a ruleset, validated by the ruleset; audited.
        A ruleset with ``sheet_columns`` keeps it in those columns (`/stats`)."""
        refuse_own_profile(actor_id, member, "stats" if _in_columns(ruleset_id) else "sheet")
        rules = _ruleset(ruleset_id)
        async with transaction(self._db) as session:
            row = await queries.profile_for_update(session, guild_id, member.user_id)
            current = _stored_sheet(row, rules)
            try:
                sheet = rules.validate_sheet({**current, **fields})
            except RulesError as exc:
                raise InvalidInput(exc.message) from None
            if rules.sheet_columns:
                row = await self._save_columns(
                    session, row, guild_id, actor_id, member, rules, sheet
                )
                return profile_view(row)
            row = _touched_row(session, row, guild_id, actor_id, member)
            row.sheets = {**(row.sheets or {}), rules.id: sheet}  # new dict: JSON change seen
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
        rules = _ruleset(ruleset_id)
        async with transaction(self._db) as session:
            row = await queries.profile(session, guild_id, member.user_id)
            sheet = _stored_sheet(row, rules)
            if not sheet:
                raise NotFound(
                    f"{clean_name(member.name)} has no {rules.title} sheet in this server yet."
                )
            return sheet

    async def _save_columns(
        self,
        session: AsyncSession,
        row: DuellistProfile | None,
        guild_id: int,
        actor_id: int,
        member: MemberRef,
        rules: Ruleset,
        sheet: Mapping[str, Any],
    ) -> DuellistProfile:
        """A column-stored sheet (`/stats`): the columns set, audited as stats.set."""
        before = None if row is None else column_sheet(row, rules)
        row = _touched_row(session, row, guild_id, actor_id, member)
        for name, column in rules.sheet_columns:
            setattr(row, column, sheet[name])
        queries.audit(
            session,
            guild_id=guild_id,
            actor_id=actor_id,
            action="stats.set",
            details={
                "user_id": member.user_id,
                "before": before,
                "after": {name: sheet[name] for name, _ in rules.sheet_columns},
            },
        )
        await session.flush()
        return row


def refuse_own_profile(actor_id: int, member: MemberRef, what: str) -> None:
    """Conflict of interest: nobody sets their own numbers, whatever their roles (a duel
    snapshots them at its start)."""
    if actor_id == member.user_id:
        raise ConflictOfInterest(
            f"You cannot set your own {what}: a duellist never sets their own numbers. "
            f"Another commander can set them for you."
        )


def no_stats(name: str) -> NotFound:
    """The refusal for a member without the column-stored sheet (a commander sets it)."""
    return NotFound(
        f"{clean_name(name)} has no stats in this server yet.", next_step=NextStep.SET_STATS
    )


def _in_columns(ruleset_id: str) -> bool:
    rules = registry.get_or_none(ruleset_id)
    return rules is not None and bool(rules.sheet_columns)


def _ruleset(ruleset_id: str) -> Ruleset:
    try:
        return registry.get(ruleset_id)
    except RulesError as exc:
        raise InvalidInput(exc.message) from None


def _touched_row(
    session: AsyncSession,
    row: DuellistProfile | None,
    guild_id: int,
    actor_id: int,
    member: MemberRef,
) -> DuellistProfile:
    """``row`` (a new one, added to the session, when None) with the member's current name
    and ``actor_id`` as its last editor."""
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
    row.updated_by = actor_id
    return row


def _stored_sheet(row: DuellistProfile | None, rules: Ruleset) -> dict[str, Any]:
    """``rules``' sheet as stored in ``row`` ({} when none)."""
    if row is None:
        return {}
    if rules.sheet_columns:
        return column_sheet(row, rules) or {}
    stored = (row.sheets or {}).get(rules.id)
    return dict(stored) if isinstance(stored, dict) else {}
