"""The command tree in German (issue 28): the bot registers its real tree with the catalog
translator, the strict fake accepts it as Discord would, and /config language sets the
server's language for its public posts, answering in the admin's own language."""

from __future__ import annotations

from typing import Any

import discord
import pytest
from discord import app_commands

from bot.db.engine import Database
from bot.discord import client
from bot.discord.translator import CatalogTranslator
from tests.discord.harness import World, running_world
from tests.fakediscord import FakeDiscord

JSON = dict[str, Any]


def option(command: JSON, *names: str) -> JSON:
    """The (sub)option reached by ``names`` from a registered command."""
    found = command
    for name in names:
        found = next(o for o in found.get("options") or [] if o["name"] == name)
    return found


def every_localization(command: JSON) -> list[dict[str, str]]:
    found = [command.get(key) or {} for key in ("name_localizations", "description_localizations")]
    for sub in command.get("options") or []:
        found += every_localization(sub)
        found += [choice.get("name_localizations") or {} for choice in sub.get("choices") or []]
    return found


async def slash_in(
    w: World, locale: str, user: Any, name: str, sub: str, **options: Any
) -> Any:
    handle = await w.fake.invoke_slash(
        w.guild.id, w.channel_id, user.id, name, subcommand=sub, options=options, locale=locale
    )
    return await handle.reply()


async def test_the_real_tree_is_registered_with_german_localizations(
    fake_discord: FakeDiscord, database: Database
) -> None:
    fake = fake_discord
    async with running_world(fake, database):
        config = fake.command("config")
        duel = fake.command("duel")
        assert config is not None and duel is not None
        assert config["name_localizations"] == {"de": "einstellungen"}
        assert config["description_localizations"] == {
            "de": "Servereinstellungen für Duelle (Admins)"
        }
        missing_move = option(config, "missing-move")
        assert missing_move["name_localizations"] == {"de": "fehlender-zug"}
        policy = option(config, "missing-move", "policy")
        assert policy["name_localizations"] == {"de": "regel"}
        assert [c["name_localizations"] for c in policy["choices"]] == [
            {"de": "kein Zug"},
            {"de": "Niederlage"},
        ]
        assert option(duel, "start")["name_localizations"] == {"de": "starten"}
        assert option(duel, "end", "reason")["description_localizations"] == {
            "de": "Warum das Duell endet (steht im Beitrag)"
        }
        # Only German has a catalog: no other locale, and no English one (the default).
        locales = {key for command in fake.commands() for d in every_localization(command)
                   for key in d}
        assert locales == {"de"}
        assert fake.limit_refusals == []


class TooLongGerman(CatalogTranslator):
    """The German catalog, but one description over Discord's 100 characters."""

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        if string.message == "Why the duel ends (shown in the post)" and locale.value == "de":
            return "W" * 101
        return await super().translate(string, locale, context)


async def test_the_fake_refuses_a_tree_with_a_too_long_german_description(
    fake_discord: FakeDiscord, database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = fake_discord
    monkeypatch.setattr(client, "CatalogTranslator", TooLongGerman)
    fake.expect_limit_refusals = True
    async with running_world(fake, database):
        assert fake.commands() == []  # the whole sync was refused, as Discord refuses it
    [refusal] = fake.limit_refusals
    assert refusal.startswith("PUT /applications/")
    assert '"code": 50035' in refusal
    assert '"description_localizations": {"de": {"_errors": [{"code": "BASE_TYPE_BAD_LENGTH"' in (
        refusal
    )


async def test_config_language_sets_posts_and_answers_in_the_admins_language(
    fake_discord: FakeDiscord, database: Database
) -> None:
    fake = fake_discord
    async with running_world(fake, database) as w:
        reply = await slash_in(w, "de", w.commander, "config", "language", language="de")
        assert reply.ephemeral
        assert "sind auf Deutsch" in reply.content, reply.content
        settings = await w.services.settings.get(w.guild.id)
        assert settings.language == "de"

        shown = await slash_in(w, "en-US", w.commander, "config", "show")
        [language] = [f for f in shown.embeds[0]["fields"] if f["name"] == "Language"]
        assert language["value"].startswith("Deutsch: public posts (set with")

        # Left out: back to the server's primary language (the fake's guild is en-US).
        reply = await slash_in(w, "en-GB", w.commander, "config", "language")
        assert "primary language as Discord reports it: English" in reply.content
        assert (await w.services.settings.get(w.guild.id)).language is None

        # A refusal too is in the member's own language.
        refused = await slash_in(w, "de", w.ann, "config", "language", language="de")
        assert refused.content.startswith("Nur ein Admin"), refused.content
        refused = await slash_in(w, "en-US", w.ann, "config", "language", language="de")
        assert refused.content.startswith("Only an admin"), refused.content
