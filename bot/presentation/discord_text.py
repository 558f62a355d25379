"""The Discord format's text primitives: its one escape function (``safe``), plain text for
places that render no Markdown, inline code, cutting to a limit, its one timestamp helper,
and fitting an embed to Discord's limits.

With the other discord_*.py modules, the only modules of bot/presentation that
import discord.py (tests/test_layering.py): the embed renderer needs its Embed and its
Markdown and mention escapes.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import discord

from bot.i18n.context import _

# The colours of posts and DMs.
COLOUR_INFO = discord.Colour.blurple()
COLOUR_END = discord.Colour.dark_grey()
COLOUR_WARN = discord.Colour.orange()
#: The colour of interaction replies (and the ladder's embeds).
COLOUR_REPLY = discord.Colour.dark_red()

# Discord's limits.
TITLE_MAX = 256
DESCRIPTION_MAX = 4096
FIELD_NAME_MAX = 256
FIELD_VALUE_MAX = 1024
FIELDS_MAX = 25
FOOTER_MAX = 2048
AUTHOR_MAX = 256
EMBED_TOTAL_MAX = 6000
CONTENT_MAX = 2000
NAME_MAX = 100

ELLIPSIS = "…"

_BRACKET = re.compile(r"(\\*)\[")


def truncate(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, at a line end when one is near, with an ellipsis.
    Never leaves a dangling escape backslash or an unclosed inline-code span."""
    if len(text) <= limit:
        return text
    if limit <= len(ELLIPSIS):
        return text[:limit]
    cut = text[: limit - len(ELLIPSIS)]
    newline = cut.rfind("\n")
    if newline >= len(cut) // 2:
        cut = cut[:newline]
    cut = cut.rstrip("\\")
    # an odd number of backticks on the last line would open a code span that never closes
    last = cut.rsplit("\n", 1)[-1]
    if last.count("`") % 2 == 1:
        cut = cut[: cut.rfind("`")]
    return cut + ELLIPSIS


def plain(value: Any, limit: int = NAME_MAX) -> str:
    """User-given text for places that do not render Markdown (thread names, usernames,
    embed authors): one line, bounded, never empty."""
    text = " ".join(str(value if value is not None else "").split()) or "?"
    return text if len(text) <= limit else text[: limit - 1] + ELLIPSIS


def escape_links(text: str) -> str:
    """Escape every ``[`` that escape_markdown left bare (it escapes only the first of a
    text such as ``[a] [link](http://x)``), so no masked link can render."""
    return _BRACKET.sub(lambda m: m[1] + ("[" if len(m[1]) % 2 else "\\["), text)


def safe(value: Any, limit: int = NAME_MAX) -> str:
    """The Discord format's one escape: user-given text made inert (one line, bounded first,
    then Markdown, masked links and mentions escaped, so no escape is ever cut in half)."""
    text = plain(value, limit)
    return discord.utils.escape_mentions(escape_links(discord.utils.escape_markdown(text)))


def code(value: Any, limit: int = 100) -> str:
    """``value`` as an inline code span (backticks inside are replaced, length bounded)."""
    text = " ".join(str(value).split()).replace("`", "'")
    return f"`{text if len(text) <= limit else text[: limit - 1] + ELLIPSIS}`"


def timestamp(when: datetime | None, *, date_only: bool = False) -> str:
    """The one timestamp of the Discord format, shown in every reader's time zone:
    ``<t:unix:R> (<t:unix:f>)``, relative and full ("no deadline" for None); ``date_only``:
    the day alone (``<t:unix:d>``, when a past duel ended)."""
    if when is None:
        return _("no deadline")
    if date_only:
        return discord.utils.format_dt(when, "d")
    return f"{discord.utils.format_dt(when, 'R')} ({discord.utils.format_dt(when, 'f')})"


def _embed_size(embed: discord.Embed) -> int:
    total = len(embed.title or "") + len(embed.description or "")
    total += len(embed.footer.text or "") + len(embed.author.name or "")
    total += sum(len(f.name or "") + len(f.value or "") for f in embed.fields)
    return total


def fit(embed: discord.Embed) -> discord.Embed:
    """Cut ``embed`` to Discord's limits (per part, 25 fields, 6000 characters in all)."""
    if embed.title:
        embed.title = truncate(embed.title, TITLE_MAX)
    if embed.description:
        embed.description = truncate(embed.description, DESCRIPTION_MAX)
    if embed.footer.text:
        embed.set_footer(
            text=truncate(embed.footer.text, FOOTER_MAX), icon_url=embed.footer.icon_url
        )
    if embed.author.name:
        embed.set_author(
            name=truncate(embed.author.name, AUTHOR_MAX),
            url=embed.author.url,
            icon_url=embed.author.icon_url,
        )
    fields = [
        (
            truncate(f.name or "—", FIELD_NAME_MAX),
            truncate(f.value or "—", FIELD_VALUE_MAX),
            f.inline,
        )
        for f in embed.fields
    ]
    if len(fields) > FIELDS_MAX:
        more = _("(more left out: too long for one post)")
        fields = [*fields[: FIELDS_MAX - 1], ("…", more, False)]
    embed.clear_fields()
    for name, value, inline in fields:
        embed.add_field(name=name, value=value, inline=bool(inline))
    # Over the total: shorten the longest part (description or a field) until it fits.
    while _embed_size(embed) > EMBED_TOTAL_MAX:
        excess = _embed_size(embed) - EMBED_TOTAL_MAX
        longest_field = max(
            range(len(embed.fields)), key=lambda i: len(embed.fields[i].value or ""), default=None
        )
        field_len = 0 if longest_field is None else len(embed.fields[longest_field].value or "")
        desc_len = len(embed.description or "")
        if desc_len >= field_len and desc_len > 0:
            embed.description = truncate(embed.description or "", max(1, desc_len - excess - 1))
        elif longest_field is not None and field_len > 1:
            f = embed.fields[longest_field]
            embed.set_field_at(
                longest_field,
                name=f.name or "—",
                value=truncate(f.value or "—", max(1, field_len - excess - 1)),
                inline=bool(f.inline),
            )
        else:  # pragma: no cover - titles and footers alone are far below 6000
            break
    return embed
