"""Message catalogs and language choice (issue 28). Pure: no Discord, no database.

English is the source language: a message's id is its English text. The other languages
are gettext catalogs, ``bot/locales/<language>/LC_MESSAGES/duelbot.po``, read as they are
at run time (no compile step); docs/translating.md says how to add one.
"""
