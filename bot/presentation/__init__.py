"""What the bot shows, built once and rendered per format (issue 12).

- views.py: typed, frozen views of each thing shown, built once from stored data;
- words.py: the plain words every format shares (labels, outcome sentences, rules in force);
- markup.py: the text formats (Markdown, BBCode), one layout per thing over a ``Markup``;
- discord_text.py, discord_posts.py, discord_dms.py, discord_result.py, discord_replies.py,
  discord_settings.py, discord_ladder.py: the Discord format (outbox posts and DMs,
  interaction replies, the settings and ladder embeds), with its one escape and its one
  timestamp helper. Only the ``discord_*`` modules import discord.py (tests/test_layering.py).

Every text a member reads goes through the catalog (bot/i18n/context.py: ``_``, ``_n``,
``_p``; ``N_`` for module constants, translated at use) in the language of the caller's
``speaking(...)`` scope: nothing here takes a language, and outside every scope it is
English. Numbers written as text for members follow the scope's language (babel); Discord
timestamps (``<t:...>``) are localized by Discord itself.

The HTML archive page renders in the reader's browser from the JSON export
(bot/archive, bot/exports/document.py), so it has no renderer here.
"""
