"""The server's settings as a reply (`/config show`), and the note every /config answer
that changes a rule of play ends with. Texts go through the catalog in the caller's
``speaking`` scope (the member's language)."""

from __future__ import annotations

import discord

from bot.i18n.choice import language_name, server_language, supported_language
from bot.i18n.context import _
from bot.i18n.translate import N_
from bot.presentation.discord_text import COLOUR_REPLY, safe, truncate
from bot.rules import registry
from bot.rules.capabilities import HouseRules, capability
from bot.services.views import SettingsView, window_text

COLOUR = COLOUR_REPLY


def settings_embed(settings: SettingsView, guild_locale: str | None = None) -> discord.Embed:
    """The server's settings; ``guild_locale``: its preferred locale as Discord reports it
    (what its public posts follow unless /config language chose a language)."""

    def role(role_id: int | None) -> str:
        return f"<@&{role_id}>" if role_id is not None else _("not set")

    embed = discord.Embed(title=_("duelbot settings for this server"), colour=COLOUR)
    embed.add_field(
        name=_("Change of choice"),
        value=_("on: a duellist may change a move before the close")
        if settings.change_of_choice
        else _("off: a submitted move is locked in for the round"),
        inline=False,
    )
    embed.add_field(name=_("Commander role"), value=role(settings.commander_role_id))
    embed.add_field(name=_("Admin role"), value=role(settings.admin_role_id))
    embed.add_field(
        name=_("Missing move"),
        value=_("forfeit: the other duellist wins")
        if settings.missing_move == "forfeit"
        else _("none: no move is made"),
        inline=False,
    )
    for name, value in house_rule_default_lines(settings):
        embed.add_field(name=name, value=value, inline=False)
    window = settings.undo_window
    default = settings.undo_window_is_default
    if not window:
        undo = (
            _("off: results cannot be undone (the bot's default)")
            if default
            else _("off: results cannot be undone")
        )
    else:
        undo = (
            _(
                "{window} after a round's close, until the next round opens (the bot's "
                "default)",
                window=window_text(window),
            )
            if default
            else _(
                "{window} after a round's close, until the next round opens",
                window=window_text(window),
            )
        )
    embed.add_field(name=_("Undo window"), value=undo, inline=False)
    embed.add_field(
        name=_("Duel forum"),
        value=_(
            "{forum}: each new duel gets its own post there",
            forum=f"<#{settings.duel_forum_id}>",
        )
        if settings.duel_forum_id is not None
        else _("none: a duel stays in the channel where it is started"),
        inline=False,
    )
    posts_in = language_name(server_language(settings.language, guild_locale))
    embed.add_field(
        name=_("Language"),
        value=_("{language}: public posts (set with /config language)", language=posts_in)
        if supported_language(settings.language)
        else _(
            "{language}: public posts follow the server's primary language", language=posts_in
        ),
        inline=False,
    )
    embed.set_footer(text=later_duels_only())
    return embed


def house_rule_default_lines(settings: SettingsView) -> list[tuple[str, str]]:
    """(field name, value) per registered ruleset with house rules: each house rule a duel
    of it starts with when /duel start does not give it, the server's own marked."""
    lines = []
    for ruleset in registry.all_rulesets():
        rules = capability(ruleset, HouseRules)
        if rules is None or not rules.house_rules():
            continue
        chosen = settings.house_rule_defaults.get(ruleset.id, {})
        values = [
            _("{rule} (this server)", rule=f"{rule.key}={chosen[rule.key]}")
            if rule.key in chosen
            else f"{rule.key}={rule.default}"
            for rule in rules.house_rules()
        ]
        lines.append(
            (
                _("House rules: {ruleset}", ruleset=safe(ruleset.title, 60)),
                truncate(safe(", ".join(values)), 1024),
            )
        )
    return lines


# Said by /config show and every /config answer that changes a rule of play.
LATER_DUELS_ONLY = N_(
    "Change of choice, missing move and house rules are fixed for a duel when it "
    "starts: a change applies to duels started afterwards, and running duels keep their "
    "rules (shown on their card and by /duel status)."
)


def later_duels_only() -> str:
    """``LATER_DUELS_ONLY`` in the current language (for /config answers)."""
    return _(LATER_DUELS_ONLY)
