"""What the bot shows, built once and rendered per format (issue 12).

- views.py: typed, frozen views of each thing shown, built once from stored data;
- words.py: the plain words every format shares (labels, outcome sentences, rules in force);
- markup.py: the text formats (Markdown, BBCode), one layout per thing over a ``Markup``;
- discord_text.py, discord_posts.py, discord_replies.py, discord_ladder.py: the Discord
  format (outbox posts, interaction replies, ladder embeds), with its one escape and its one
  timestamp helper. Only the ``discord_*`` modules import discord.py (tests/test_layering.py).

The HTML archive page renders in the reader's browser from the JSON export
(bot/archive, bot/exports/document.py), so it has no renderer here.
"""
