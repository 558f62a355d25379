"""A duel's life: start it (sheets from the duellists' profiles, the rules in force fixed
for it, its card queued), attach its thread, end it (a commander's decision)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from bot.config import DuelSettings
from bot.db import queries
from bot.db.models import Duel, GuildSettings
from bot.i18n.choice import server_language
from bot.i18n.context import _, speaking
from bot.rules import registry
from bot.rules.base import Fighter, Ruleset
from bot.rules.capabilities import HouseRules, capability
from bot.rules.errors import InvalidHouseRule, RulesError
from bot.services import ratings
from bot.services.clock import utcnow
from bot.services.duel_support import (
    RULE_SETTINGS,
    DuelUseCases,
    announce,
    clean_reason,
    close_round_buttons,
    duel_view,
    no_sheet,
    party,
    profile_sheet,
    ruleset_of,
)
from bot.services.errors import InvalidInput, StateConflict
from bot.services.messages import DuelEnd, DuelStart, Party
from bot.services.profiles import clean_name
from bot.services.published import read_published
from bot.services.settings import house_rule_defaults, load_settings_row
from bot.services.unit import transaction
from bot.services.views import DuelView, MemberRef


def house_rules_in_force(rules: Ruleset, params: Mapping[str, Any], state: Any) -> dict[str, str]:
    """The house rules a duel starts with: those ``params`` (already normalised: a legacy
    key is its house rule) name, validated (InvalidInput naming the key and the allowed
    values), what the new state recorded, defaults for the rest. None without the
    ``HouseRules`` capability."""
    house = capability(rules, HouseRules)
    if house is None:
        return {}
    try:
        explicit = house.explicit_house_rules(params)
        recorded = state.to_dict().get("house_rules")
        if isinstance(recorded, Mapping):
            explicit = {**house.explicit_house_rules(recorded), **explicit}
        return house.parse_house_rules(explicit)
    except RulesError as exc:
        raise InvalidInput(exc.message, ruleset=rules.id) from None


def normalized_params(rules: Ruleset, params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` through the ruleset's one normalisation; a ruleset without the
    ``HouseRules`` capability takes none (a RulesError naming it when some are given)."""
    house = capability(rules, HouseRules)
    if house is not None:
        return house.normalize_params(params)
    if params:
        given = ", ".join(sorted(str(key) for key in params))
        raise InvalidHouseRule(
            _(
                "{ruleset} has no house rules or duel settings ({given}).",
                ruleset=rules.title,
                given=given,
            )
        )
    return {}


def server_house_rules(rules: Ruleset, settings: GuildSettings) -> dict[str, str]:
    """The server's defaults for ``rules``' house rules (/config house-rule). One the
    ruleset no longer accepts is left out, not refused: the duel starts with the house
    rule's own default, and the server's admins can set it again."""
    chosen: dict[str, str] = {}
    house = capability(rules, HouseRules)
    if house is None:
        return chosen
    for key, value in house_rule_defaults(settings).get(rules.id, {}).items():
        try:
            chosen.update(house.explicit_house_rules({key: value}))
        except RulesError:
            continue
    return chosen


def _json_safe(params: Mapping[str, Any]) -> dict[str, Any]:
    """The commander's per-duel params as JSON (a TOML date would not serialise)."""
    safe: dict[str, Any] = json.loads(json.dumps(dict(params), default=str))
    return safe


@dataclass(frozen=True, slots=True)
class NewDuel:
    """Who starts which duel where: what ``create_duel`` needs besides the ruleset.
    ``guild_locale``: the server's preferred locale as Discord reports it
    (``interaction.guild_locale``): the duel's language when /config language chose none."""

    guild_id: int
    channel_id: int
    actor_id: int
    a: MemberRef
    b: MemberRef
    thread_id: int | None = None
    params: Mapping[str, Any] | None = None
    guild_locale: str | None = None


async def create_duel(
    session: AsyncSession, defaults: DuelSettings, rules: Ruleset, new: NewDuel
) -> DuelView:
    """Start a duel in the caller's transaction (a challenge fought starts one in its own)."""
    guild_id, channel_id, actor_id = new.guild_id, new.channel_id, new.actor_id
    a, b, thread_id, params = new.a, new.b, new.thread_id, new.params
    fighters = {}
    for side, member in (("a", a), ("b", b)):
        profile = await queries.profile(session, guild_id, member.user_id)
        sheet = profile_sheet(profile, rules)
        if sheet is None:
            raise no_sheet(member.name, rules)
        fighters[side] = Fighter(clean_name(member.name), sheet)
    settings = await load_settings_row(session, guild_id, defaults)
    try:
        # The one normalisation: canonical keys, typed values, legacy keys mapped. What is
        # stored, what runs and what every card, status and export shows is this.
        canonical = normalized_params(rules, dict(params or {}))
        # The server's defaults fill the house rules the command did not give: the state
        # records them as if given (a ruleset that keeps its house rules there), "params"
        # keeps what the commander gave, "house_rules" everything in force.
        in_force = {**server_house_rules(rules, settings), **canonical}
        state = rules.initial_state(fighters["a"], fighters["b"], in_force)
    except RulesError as exc:
        raise InvalidInput(exc.message, ruleset=rules.id) from None
    house = house_rules_in_force(rules, in_force, state)
    started = state.to_dict()
    duel = Duel(
        # Its posts, export and archive page speak the server's language at its start.
        language=server_language(settings.language, new.guild_locale),
        guild_id=guild_id,
        channel_id=channel_id,
        thread_id=thread_id,
        ruleset=rules.id,
        a_user_id=a.user_id,
        b_user_id=b.user_id,
        state=started,
        options={
            **{key: getattr(settings, key) for key in RULE_SETTINGS},
            **({"params": _json_safe(canonical)} if canonical else {}),
            # Every house rule in force (given or default), passed at each close.
            **({"house_rules": house} if house else {}),
        },
        status="live",
        rounds_played=0,
        created_by=actor_id,
        created_at=utcnow(),
    )
    session.add(duel)
    await session.flush()
    view = duel_view(duel)
    stored = state.to_dict()
    announce(
        session,
        view,
        DuelStart(
            duel_id=duel.id,
            ruleset=duel.ruleset,
            a=party(a.user_id, stored["a"]),
            b=party(b.user_id, stored["b"]),
            started_by=actor_id,
            options=dict(duel.options),
            make_thread=defaults.thread_per_duel and thread_id is None,
        ),
        key=f"{duel.id}",
        on_behalf_of=actor_id,
        actor_id=actor_id,
        action="duel.start",
        details={"a": a.user_id, "b": b.user_id, "stats": state.to_dict()},
    )
    return view


class DuelLifecycle(DuelUseCases):
    async def start_duel(
        self,
        *,
        guild_id: int,
        channel_id: int,
        actor_id: int,
        a: MemberRef,
        b: MemberRef,
        thread_id: int | None = None,
        ruleset: str | None = None,
        params: Mapping[str, Any] | None = None,
        guild_locale: str | None = None,
    ) -> DuelView:
        """Start a duel under ``ruleset`` (default: the configured one). ``params`` are the
        ruleset's per-duel settings (see its docs); sheets come from the duellists' profiles.
        ``guild_locale``: the server's preferred locale (``interaction.guild_locale``); the
        duel's language is the one /config language chose, else this one, else English."""
        if a.user_id == b.user_id:
            raise InvalidInput(
                _("A duel needs two different members: nobody can duel themselves.")
            )
        rules = ruleset_of(ruleset or self._defaults.ruleset)
        if not rules.playable:
            playable = [r for r in registry.ids() if registry.get(r).playable]
            raise InvalidInput(
                _(
                    "{ruleset} duels cannot be run by the bot yet; playable now: {playable}.",
                    ruleset=rules.title,
                    playable=", ".join(playable),
                ),
                ruleset=rules.id,
                allowed=playable,
            )
        async with transaction(self._db) as session:
            new = NewDuel(
                guild_id, channel_id, actor_id, a, b, thread_id, params, guild_locale
            )
            return await create_duel(session, self._defaults, rules, new)

    async def attach_thread(self, *, duel_id: int, thread_id: int) -> DuelView:
        """Posts of this duel go to its thread from now on (config thread_per_duel)."""
        async with transaction(self._db) as session:
            duel = await self._get_duel(session, duel_id, None, lock=True)
            duel.thread_id = thread_id
            await session.flush()
            return duel_view(duel)

    async def end_duel(
        self, *, duel_id: int, guild_id: int | None, actor_id: int, reason: str
    ) -> DuelView:
        reason = clean_reason(reason, "end")
        async with transaction(self._db) as session:
            duel = await self._commanded_duel(session, duel_id, guild_id, actor_id, "end")
            if duel.status != "live":
                raise StateConflict(
                    _("Duel #{duel} has already ended.", duel=duel.id), duel_id=duel.id
                )
            await _refuse_end_after_undone_result(session, duel)
            rnd = await queries.open_round(session, duel.id, lock=True)
            now = utcnow()
            if rnd is not None:
                # The round never resolves: its moves stay sealed, its seed is no longer secret.
                rnd.status = "cancelled"
                rnd.closed_by = actor_id
                rnd.closed_at = now
                rnd.close_reason = "duel_ended"
            duel.status = "ended"
            duel.ended_at = now
            duel.end_reason = reason
            duel.end_kind = "commander"
            await ratings.duel_ended(session, duel, None)
            await session.flush()
            view = duel_view(duel)
            if rnd is not None:
                languages = await queries.member_languages(
                    session, [duel.a_user_id, duel.b_user_id]
                )
                close_round_buttons(
                    session,
                    view,
                    rnd,
                    reason="cancelled",
                    now=now,
                    member_languages=languages,
                )
            words = None
            if rnd is not None:
                with speaking(duel.language):  # the post's words: the duel's language
                    words = ruleset_of(duel.ruleset).step_words(rnd.state_before, rnd.number)
            announce(
                session,
                view,
                DuelEnd(
                    duel_id=duel.id,
                    a=Party(duel.a_user_id, view.a.name),
                    b=Party(duel.b_user_id, view.b.name),
                    reason=reason,
                    cancelled_round=None if rnd is None else rnd.number,
                    words=words,
                ),
                key=f"{duel.id}",
                on_behalf_of=actor_id,
                actor_id=actor_id,
                action="duel.end",
                details={"reason": reason},
            )
            return view


async def _refuse_end_after_undone_result(session: AsyncSession, duel: Duel) -> None:
    """A duel that a result decided ends by a result (issue 23): once its deciding round
    was undone, /duel end would turn a rated result into an unrated "ended by a commander",
    so it is refused; the re-played round (closed by a commander or its deadline) ends it,
    and the ladder counts that result."""
    for rnd in await queries.undone_rounds(session, duel.id):
        if rnd.result is not None and read_published(rnd.result).ended:
            raise StateConflict(
                _(
                    "Duel #{duel} was decided in round {round}, whose result was undone: a "
                    "decided duel can only end with a result, so that the ladder keeps a "
                    "rated result. Open the next round and close it (its deadline closes it "
                    "if no commander does). Nothing was changed.",
                    duel=duel.id,
                    round=rnd.number,
                ),
                duel_id=duel.id,
                round_no=rnd.number,
            )
