"""The language each member last used with the bot (issue 28): their Discord locale at their
last command or button press, as a catalog's language. Their DMs speak it
(bot.i18n.choice.dm_language); a member the bot never heard from gets the duel's (the
server's) language.

``remember`` runs on every interaction, the move's buttons included, so it costs no write
(and, once it has seen the member, no read) when nothing changed: the last language stored
per member is kept in this process. A change stored by another process is seen after this
one restarts, or when this member's language changes again here; the DM it may affect in
between speaks the language this process last saw them use.
"""

from __future__ import annotations

from collections.abc import Mapping

from bot.db import queries
from bot.db.engine import Database
from bot.i18n.catalogs import SOURCE_LANGUAGE
from bot.i18n.choice import supported_language
from bot.services.clock import utcnow
from bot.services.unit import transaction


class LanguageService:
    """``Services.languages``: what the Discord layer tells about a member's language."""

    def __init__(self, db: Database) -> None:
        self._db = db
        # user id -> the language stored for them (as far as this process knows)
        self._stored: dict[int, str] = {}
        # members this process found nothing stored for (and has not heard from since)
        self._never_heard: set[int] = set()

    async def remember(self, user_id: int, locale: str | None) -> str:
        """Remember that ``user_id`` uses the bot in ``locale`` (``interaction.locale``: a
        Discord locale such as ``de`` or ``en-US``; None or unknown: English). Stored only
        when it differs from what is stored. Returns the catalog language remembered."""
        return (await self.remember_many({user_id: locale}))[user_id]

    async def remember_many(self, heard: Mapping[int, str | None]) -> dict[int, str]:
        """``remember`` for several members at once, in one transaction and one write
        (the Discord layer gathers the members it heard from into one call). Returns each
        member's catalog language."""
        languages = {
            user_id: supported_language(locale) or SOURCE_LANGUAGE
            for user_id, locale in heard.items()
        }
        changed = {u: lang for u, lang in languages.items() if self._stored.get(u) != lang}
        if not changed:
            return languages
        async with transaction(self._db) as session:
            unknown = [u for u in changed if u not in self._stored]
            stored = await queries.member_languages(session, unknown) if unknown else {}
            changed = {u: lang for u, lang in changed.items() if stored.get(u) != lang}
            await queries.set_member_languages(session, changed, utcnow())
        self._stored.update(languages)
        self._never_heard.difference_update(languages)
        return languages

    async def language_of(self, user_id: int) -> str | None:
        """The language ``user_id`` last used with the bot; None: never heard from."""
        if user_id in self._stored:
            return self._stored[user_id]
        if user_id in self._never_heard:
            return None
        async with transaction(self._db) as session:
            found = (await queries.member_languages(session, [user_id])).get(user_id)
        if found is not None:
            self._stored[user_id] = found
        else:  # asked again at each of their DMs: read once per process
            self._never_heard.add(user_id)
        return found

    async def dm_language_of(self, user_id: int) -> str:
        """The language a DM to (or an answer to a DM from) ``user_id`` speaks: the one
        they last used with the bot, else their newest live duel's (the server's when it
        started), else English."""
        known = await self.language_of(user_id)
        if known is not None:
            return known
        async with transaction(self._db) as session:
            duel_language = await queries.newest_live_duel_language(session, user_id)
        return dm_language_from(None, duel_language)


def dm_language_from(stored: str | None, newest_live_duel: str | None) -> str:
    """The rule of ``dm_language_of``, given what was read: the language stored as the one
    the member last used, else their newest live duel's, else English."""
    return stored or supported_language(newest_live_duel) or SOURCE_LANGUAGE
