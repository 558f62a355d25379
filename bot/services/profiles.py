"""Duellist profiles: each ruleset's sheet per member and server, set by commanders.

Every sheet lives in the profile's ``sheets`` JSON under its ruleset's id. `/stats` is the
quick form of one ruleset's sheet: the ruleset that declares ``quick_sheet_fields`` (the
numbers every duel needs), set in one command; `/sheet` sets any field of any ruleset.
Nothing here names a ruleset."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from bot.db import queries
from bot.db.engine import Database
from bot.db.models import DuellistProfile
from bot.i18n.context import _, _n, _p
from bot.rules import registry
from bot.rules.base import Ruleset
from bot.rules.errors import RulesError
from bot.services.errors import ConflictOfInterest, InvalidInput, NextStep, NotFound
from bot.services.unit import transaction
from bot.services.views import MemberRef, ProfileView


def stats_ruleset() -> Ruleset:
    """The ruleset whose quick sheet `/stats` sets and shows: the first registered one that
    declares ``quick_sheet_fields``."""
    for rules in registry.all_rulesets():
        if rules.quick_sheet_fields:
            return rules
    raise InvalidInput(
        _("No duel system has a quick sheet for /stats."), next_step=NextStep.USE_SHEET
    )


def has_quick_sheet(row: DuellistProfile | None, rules: Ruleset) -> bool:
    """Does the profile hold every quick field of ``rules``' sheet?"""
    sheet = _stored_sheet(row, rules)
    return all(sheet.get(name) is not None for name in rules.quick_sheet_fields)


def profile_view(row: DuellistProfile) -> ProfileView:
    sheets = {
        key: dict(value)
        for key, value in (row.sheets or {}).items()
        if isinstance(value, dict) and key in registry.ids()  # not a remembered penalty
    }
    return ProfileView(
        guild_id=row.guild_id,
        user_id=row.user_id,
        display_name=row.display_name,
        sheets=dict(sorted(sheets.items())),
    )


def clean_name(name: str) -> str:
    """Display names go into posts: keep them to one short line."""
    flat = " ".join(str(name).split())
    return flat[:80] or _p("member name", "unnamed")


class ProfileService:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def set_stats(
        self, guild_id: int, actor_id: int, member: MemberRef, *values: Any
    ) -> ProfileView:
        """`/stats set`: the quick fields of the ruleset that declares them, in the order
        declared (``Ruleset.quick_sheet_fields``); audited as stats.set."""
        rules = stats_ruleset()
        names = rules.quick_sheet_fields
        if len(values) != len(names):
            raise InvalidInput(
                _n(
                    "/stats set takes {count} value: {names}.",
                    "/stats set takes {count} values: {names}.",
                    len(names),
                    names=", ".join(names),
                )
            )
        return await self.set_sheet(
            guild_id, actor_id, member, rules.id, dict(zip(names, values, strict=True))
        )

    async def get_stats(self, guild_id: int, member: MemberRef) -> ProfileView:
        rules = stats_ruleset()
        async with transaction(self._db) as session:
            row = await queries.profile(session, guild_id, member.user_id)
            if row is None or not has_quick_sheet(row, rules):
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
        """Set (merge) a duellist's sheet for a ruleset, validated by the ruleset; audited
        (stats.set for the ruleset with a quick sheet: its numbers are "stats" everywhere)."""
        rules = _ruleset(ruleset_id)
        quick = bool(rules.quick_sheet_fields)
        refuse_own_profile(actor_id, member, quick)
        async with transaction(self._db) as session:
            row = await queries.profile_for_update(session, guild_id, member.user_id)
            current = _stored_sheet(row, rules)
            try:
                sheet = rules.validate_sheet({**current, **fields})
            except RulesError as exc:
                raise InvalidInput(exc.message) from None
            row = _touched_row(session, row, guild_id, actor_id, member)
            row.sheets = {**(row.sheets or {}), rules.id: sheet}  # new dict: JSON change seen
            details: dict[str, Any] = {"user_id": member.user_id, "ruleset": rules.id}
            queries.audit(
                session,
                guild_id=guild_id,
                actor_id=actor_id,
                action="stats.set" if quick else "sheet.set",
                details={**details, "before": current or None, "after": sheet},
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
                    _(
                        "{name} has no {ruleset} sheet in this server yet.",
                        name=clean_name(member.name),
                        ruleset=rules.title,
                    )
                )
            return sheet


def refuse_own_profile(actor_id: int, member: MemberRef, stats: bool) -> None:
    """Conflict of interest: nobody sets their own numbers (``stats``: the quick sheet of
    `/stats`, else a sheet), whatever their roles (a duel snapshots them at its start)."""
    if actor_id != member.user_id:
        return
    if stats:
        raise ConflictOfInterest(
            _(
                "You cannot set your own stats: a duellist never sets their own numbers. "
                "Another commander can set them for you."
            )
        )
    raise ConflictOfInterest(
        _(
            "You cannot set your own sheet: a duellist never sets their own numbers. Another "
            "commander can set them for you."
        )
    )


def no_stats(name: str) -> NotFound:
    """The refusal for a member without the quick sheet of `/stats` (a commander sets it)."""
    return NotFound(
        _("{name} has no stats in this server yet.", name=clean_name(name)),
        next_step=NextStep.SET_STATS,
    )


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
    stored = (row.sheets or {}).get(rules.id)
    return dict(stored) if isinstance(stored, dict) else {}
