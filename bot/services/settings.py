"""Guild settings, including the change-of-choice variant. Every change is audited."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any, Literal

from sqlalchemy.ext.asyncio import AsyncSession

from bot.config import UNDO_WINDOW_MAX_HOURS, DuelSettings
from bot.db import queries
from bot.db.engine import Database
from bot.db.models import GuildSettings
from bot.i18n.catalogs import available_languages
from bot.i18n.choice import supported_language
from bot.i18n.context import _, _p
from bot.rules import registry
from bot.rules.capabilities import HouseRules, capability
from bot.rules.errors import RulesError
from bot.services.errors import InvalidInput
from bot.services.unit import transaction
from bot.services.views import SettingsView, window_text

# What a duel does with a side that sent no move by the close; every ruleset's make_options
# reads this server setting.
MISSING_MOVE_POLICIES = ("none", "forfeit")

SETTING_KEYS = (
    "change_of_choice",
    "commander_role_id",
    "admin_role_id",
    "results_channel_id",
    "missing_move",
    "duel_forum_id",
    "undo_window_minutes",
    "house_rule_defaults",
    "language",
)



def configured_house_rule_defaults(defaults: DuelSettings) -> dict[str, dict[str, str]]:
    """A new server's house-rule defaults: those config.toml turns on, else none (each
    house rule's own default applies)."""
    out: dict[str, dict[str, str]] = {}
    for rules in registry.all_rulesets():
        house = capability(rules, HouseRules)
        for rule in () if house is None else house.house_rules():
            # A house rule that config.toml's ``[duels]`` table sets by its former name
            # (``HouseRule.former_setting``, before house rules had server defaults).
            if rule.former_setting and getattr(defaults, rule.former_setting, False) is True:
                out.setdefault(rules.id, {})[rule.key] = "yes"
    return out


def house_rule_defaults(row: GuildSettings) -> dict[str, dict[str, str]]:
    """The server's house-rule defaults as stored, {ruleset id: {key: value}} (a ruleset
    no longer registered included: nothing is dropped by reading)."""
    stored = row.house_rule_defaults if isinstance(row.house_rule_defaults, Mapping) else {}
    return {
        str(ruleset_id): {str(k): str(v) for k, v in values.items()}
        for ruleset_id, values in stored.items()
        if isinstance(values, Mapping)
    }


def settings_defaults(defaults: DuelSettings) -> dict[str, Any]:
    return {
        "change_of_choice": defaults.change_of_choice,
        "commander_role_id": None,
        "admin_role_id": None,
        "results_channel_id": None,
        "missing_move": defaults.missing_move,
        "house_rule_defaults": configured_house_rule_defaults(defaults),
        "duel_forum_id": None,
        "undo_window_minutes": None,  # the configured default, read at each undo
        "language": None,  # the server's preferred locale, as Discord reports it
    }


def undo_window(row: GuildSettings, defaults: DuelSettings) -> timedelta:
    """How long after its close a result of this server may be undone: the server's own
    window, or the bot's configured default (zero: undo is off)."""
    if row.undo_window_minutes is not None:
        return timedelta(minutes=row.undo_window_minutes)
    return timedelta(hours=defaults.undo_window_hours)


def settings_view(row: GuildSettings, defaults: DuelSettings) -> SettingsView:
    return SettingsView(
        guild_id=row.guild_id,
        change_of_choice=row.change_of_choice,
        commander_role_id=row.commander_role_id,
        admin_role_id=row.admin_role_id,
        results_channel_id=row.results_channel_id,
        missing_move=row.missing_move,
        house_rule_defaults=house_rule_defaults(row),
        duel_forum_id=row.duel_forum_id,
        undo_window=undo_window(row, defaults),
        undo_window_is_default=row.undo_window_minutes is None,
        language=row.language,
    )


async def load_settings_row(
    session: AsyncSession, guild_id: int, defaults: DuelSettings, *, lock: bool = False
) -> GuildSettings:
    """The guild's settings (created from defaults if missing); ``lock=True`` to change them."""
    return await queries.ensure_guild_settings(
        session, guild_id, settings_defaults(defaults), lock=lock
    )


def check_assignable_role(
    guild_id: int,
    role_id: int | None,
    managed_by: str | None,
    setting: Literal["commander", "admin"],
) -> None:
    """A role that grants duel powers (``setting``: the commander role or the admin role)
    must be one the server's admins give by hand: not @everyone (its id is the server's),
    not a role that Discord or an integration manages."""
    if role_id == guild_id:
        if setting == "commander":
            everyone = _(
                "@everyone cannot be the commander role: every member of the server would "
                "command duels. Pick a role that you give only to those members (Server "
                "Settings > Roles). Nothing was changed."
            )
        else:
            everyone = _(
                "@everyone cannot be the admin role: every member of the server would be a "
                "duel admin. Pick a role that you give only to those members (Server Settings "
                "> Roles). Nothing was changed."
            )
        raise InvalidInput(everyone)
    if managed_by is not None:
        if setting == "commander":
            managed = _(
                "That role cannot be the commander role: it is managed by {manager}, so who "
                "has it is not up to this server's admins. Pick a role that you assign "
                "yourself (Server Settings > Roles). Nothing was changed.",
                manager=managed_by,
            )
        else:
            managed = _(
                "That role cannot be the admin role: it is managed by {manager}, so who has "
                "it is not up to this server's admins. Pick a role that you assign yourself "
                "(Server Settings > Roles). Nothing was changed.",
                manager=managed_by,
            )
        raise InvalidInput(managed)


class SettingsService:
    def __init__(self, db: Database, defaults: DuelSettings | None = None) -> None:
        self._db = db
        self._defaults = defaults or DuelSettings()

    async def get(self, guild_id: int) -> SettingsView:
        async with transaction(self._db) as session:
            row = await load_settings_row(session, guild_id, self._defaults)
            return settings_view(row, self._defaults)

    async def set_change_of_choice(
        self, guild_id: int, actor_id: int, enabled: bool
    ) -> SettingsView:
        return await self._set(guild_id, actor_id, "change_of_choice", bool(enabled))

    async def set_commander_role(
        self, guild_id: int, actor_id: int, role_id: int | None, *, managed_by: str | None = None
    ) -> SettingsView:
        """``managed_by``: who hands the role out when it is not the server's admins (a
        bot, an integration, Server Boost...), as Discord says; such a role is refused."""
        check_assignable_role(guild_id, role_id, managed_by, "commander")
        return await self._set(guild_id, actor_id, "commander_role_id", role_id)

    async def set_admin_role(
        self, guild_id: int, actor_id: int, role_id: int | None, *, managed_by: str | None = None
    ) -> SettingsView:
        check_assignable_role(guild_id, role_id, managed_by, "admin")
        return await self._set(guild_id, actor_id, "admin_role_id", role_id)

    async def set_results_channel(
        self, guild_id: int, actor_id: int, channel_id: int | None
    ) -> SettingsView:
        return await self._set(guild_id, actor_id, "results_channel_id", channel_id)

    async def set_missing_move(self, guild_id: int, actor_id: int, policy: str) -> SettingsView:
        if policy not in MISSING_MOVE_POLICIES:
            raise InvalidInput(
                _(
                    "{policy} is not a missing-move policy. Allowed: {allowed}.",
                    policy=repr(policy),
                    allowed=", ".join(MISSING_MOVE_POLICIES),
                )
            )
        return await self._set(guild_id, actor_id, "missing_move", policy)

    async def set_house_rule_default(
        self, guild_id: int, actor_id: int, ruleset_id: str, key: str, value: str | None
    ) -> SettingsView:
        """The server's default for a ruleset's house rule (``value`` None: back to the
        house rule's own default): a duel started without that house rule gets it. The
        ruleset validates key and value (InvalidInput naming what is allowed)."""
        try:
            rules = registry.get(ruleset_id)
            house = capability(rules, HouseRules)
            declared = () if house is None else house.house_rules()
            spelt = key.strip().casefold().replace("_", "-")
            rule = next((r for r in declared if r.key == spelt), None)
            if rule is None or house is None:
                names = ", ".join(r.key for r in declared) or _p("house rules", "none")
                raise InvalidInput(
                    _(
                        "{key} is not a house rule of {ruleset} (its house rules: {names}). "
                        "Nothing was changed.",
                        key=repr(key),
                        ruleset=rules.title,
                        names=names,
                    )
                )
            canonical = rule.key
            chosen = (
                "" if value is None else house.explicit_house_rules({canonical: value})[canonical]
            )
        except RulesError as exc:
            raise InvalidInput(
                _("{refusal} Nothing was changed.", refusal=exc.message)
            ) from None
        async with transaction(self._db) as session:
            row = await load_settings_row(session, guild_id, self._defaults, lock=True)
            before = house_rule_defaults(row)
            after = {k: dict(v) for k, v in before.items()}
            if value is None:
                after.get(rules.id, {}).pop(canonical, None)
            else:
                after.setdefault(rules.id, {})[canonical] = chosen
            after = {k: v for k, v in after.items() if v}
            row.house_rule_defaults = after  # a new dict: the JSON change is seen
            queries.audit(
                session,
                guild_id=guild_id,
                actor_id=actor_id,
                action="config.house_rule",
                details={
                    "ruleset": rules.id,
                    "key": canonical,
                    "before": before.get(rules.id, {}).get(canonical),
                    "after": None if value is None else chosen,
                },
            )
            await session.flush()
            return settings_view(row, self._defaults)

    async def set_duel_forum(
        self, guild_id: int, actor_id: int, channel_id: int | None
    ) -> SettingsView:
        """The forum in which /duel start opens a post per duel (None: no forum). The
        Discord layer checks the channel (a forum, the bot's permissions there) first."""
        return await self._set(guild_id, actor_id, "duel_forum_id", channel_id)

    async def set_undo_window(
        self, guild_id: int, actor_id: int, window: timedelta | None
    ) -> SettingsView:
        """How long after its close a result may be undone in this server: 0 (undo off) to
        30 days, whole minutes; None: back to the bot's configured default."""
        if window is None:
            return await self._set(guild_id, actor_id, "undo_window_minutes", None)
        most = timedelta(hours=UNDO_WINDOW_MAX_HOURS)
        if window < timedelta(0) or window > most:
            raise InvalidInput(
                _(
                    "The undo window can be 0 (undo off) to {days} days; {window} is out of "
                    "range. Nothing was changed.",
                    days=most.days,
                    window=window_text(window),
                )
            )
        return await self._set(
            guild_id, actor_id, "undo_window_minutes", int(window.total_seconds() // 60)
        )

    async def set_language(
        self, guild_id: int, actor_id: int, language: str | None
    ) -> SettingsView:
        """The language of the server's public posts: one with a catalog (any spelling of
        it: ``de``, ``de-DE``, ``pt-br``); None: back to the server's preferred locale."""
        if language is None:
            return await self._set(guild_id, actor_id, "language", None)
        chosen = supported_language(language)
        if chosen is None:
            raise InvalidInput(
                _(
                    "duelbot does not speak {language} yet. Languages: {languages} "
                    "(docs/translating.md says how to add one). Nothing was changed.",
                    language=repr(language),
                    languages=", ".join(available_languages()),
                ),
                allowed=available_languages(),
            )
        return await self._set(guild_id, actor_id, "language", chosen)

    async def _set(self, guild_id: int, actor_id: int, key: str, value: Any) -> SettingsView:
        if key not in SETTING_KEYS:
            raise InvalidInput(_("Unknown setting {key}.", key=repr(key)))
        async with transaction(self._db) as session:
            row = await load_settings_row(session, guild_id, self._defaults, lock=True)
            before = getattr(row, key)
            setattr(row, key, value)
            queries.audit(
                session,
                guild_id=guild_id,
                actor_id=actor_id,
                action=f"config.{key}",
                details={"before": before, "after": value},
            )
            await session.flush()
            return settings_view(row, self._defaults)
