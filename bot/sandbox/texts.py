"""The sandbox page's own texts (issue 28): its labels, buttons, guide and status lines, in
the visitor's language, built from the catalogs when the page is served (the way the archive
page does, bot/archive/texts.py): the HTML's ``{{t_...}}`` filled in, and the texts app.js
writes in the ``sandbox-texts`` JSON element, read by its ``t(key, fields)``.

The language: ``?lang=`` when it names a catalog (``/?lang=de``), else the first language
of the browser's ``Accept-Language`` that has one, else English. The bot's own messages on
the page are the bot's: each member's Discord language decides those, not this choice.
"""

from __future__ import annotations

import json
import re
from typing import Any

from bot.archive.texts import kept, locale_tag, plural_forms, text
from bot.i18n.choice import supported_language
from bot.i18n.context import _, _n, _p, speaking

_PLACEHOLDER = re.compile(r"\{\{([a-z_]+)\}\}")
#: One entry of an Accept-Language header: a language range and its optional weight.
_ACCEPT_ENTRY = re.compile(
    r"^\s*([A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*|\*)\s*(?:;\s*q\s*=\s*([0-9.]+))?\s*$"
)


def page_language(query: str | None, accept_language: str | None) -> str | None:
    """The catalog the page speaks: ``?lang=``'s, else the browser's most wanted one (by
    weight, then order), else None (English)."""
    chosen = supported_language(query) if query else None
    if chosen is not None:
        return chosen
    wanted: list[tuple[float, int, str]] = []
    for order, entry in enumerate((accept_language or "").split(",")[:32]):
        found = _ACCEPT_ENTRY.match(entry)
        if found is None or found.group(1) == "*":
            continue
        try:
            weight = float(found.group(2)) if found.group(2) else 1.0
        except ValueError:
            continue
        if weight > 0:
            wanted.append((-weight, order, found.group(1)))
    for _weight, _order, tag in sorted(wanted):
        language = supported_language(tag)
        if language is not None:
            return language
    return None


def _html_texts() -> dict[str, str]:
    return {
        "t_title": text(_("duelbot sandbox")),
        "t_channels_people": text(_("Channels and people")),
        "t_acting_as": text(_("Acting as")),
        "t_connecting": text(_("connecting…")),
        "t_server": text(_p("sandbox page: a heading", "Server")),
        "t_dms": text(_("Direct messages with the bot")),
        "t_messages": text(_p("sandbox page: a region's label", "Messages")),
        "t_next_step": text(_p("sandbox page: a region's label", "Next step")),
        "t_message_bot": text(_("Message the bot")),
        "t_send": text(_p("sandbox page: a button", "Send")),
        "t_slash_command": text(_("Slash command")),
        "t_run": text(_p("sandbox page: a button", "Run")),
    }


def script_texts() -> dict[str, Any]:
    """What app.js writes, by key (templates keep their ``{fields}``)."""
    return {
        "link_not_followed": _("Links are not followed in the sandbox"),
        "choose": _("Choose…"),
        "open_file": _("Open {file}", **kept("file")),
        "download_file": _("Download {file}", **kept("file")),
        "new_tab": _("(opens in a new tab)"),
        "used_command": _("{name} used {command}", **kept("name", "command")),
        "clicked_button": _("{name} clicked a button", **kept("name")),
        "thinking": _("{name} is thinking…", **kept("name")),
        "only_you": _("Only you can see this"),
        "dm_title": _("Direct messages: {name} and {bot}", **kept("name", "bot")),
        "acting_dm": _(
            "You act as {who} here: what you type goes to the bot as {name}'s DM, buttons "
            "are clicked as them.",
            **kept("who", "name"),
        ),
        "acting_channel": _(
            "You act as {who} in channels (change it with {acting_as}); replies only they "
            "may see are marked.",
            **kept("who", "acting_as"),
        ),
        "acting_as": _("Acting as"),
        "no_messages": _("No messages yet."),
        "busy": _("{label}…", **kept("label")),
        "done_summary": _("{label}: {summary}", **kept("label", "summary")),
        "done": _("{label}: done", **kept("label")),
        "failed": _("{label}: {error}", **kept("label", "error")),
        "clicked": _("{name} clicked", **kept("name")),
        "sent_dm": _("{name} sent a DM", **kept("name")),
        "ran_command": _("{name} ran /{command}", **kept("name", "command")),
        "choose_command": _("Choose a command…"),
        "none_option": _("(none)"),
        "true": _p("sandbox page: a yes/no option's value", "True"),
        "false": _p("sandbox page: a yes/no option's value", "False"),
        "required": _("(required)"),
        "autocomplete_failed": _("Autocomplete: {error}", **kept("error")),
        "choose_first": _("Choose a command first."),
        "missing_options": plural_forms(
            lambda n: _n(
                "/{command} needs this required option: {names}. Fill in the field marked "
                "(required).",
                "/{command} needs these required options: {names}. Fill in the fields "
                "marked (required).",
                n,
                **kept("command", "names"),
            )
        ),
        "guide_stats": _(
            "Next: set {name}'s stats (/stats set), as the commander, in the duel channel.",
            **kept("name"),
        ),
        "guide_stats_button": _("Fill in /stats set for {name}", **kept("name")),
        "guide_start": _(
            "Next: start a duel between {a} and {b} (/duel start).", **kept("a", "b")
        ),
        "guide_start_button": _("Fill in /duel start"),
        "guide_export": _(
            "Next: duel #{duel} is over. Export it as a web page (/duel export, format html) "
            "and open the link: the archive page checks every roll.",
            **kept("duel"),
        ),
        "guide_export_button": _("Fill in /duel export"),
        "guide_open_first": _(
            "Next: open the first round of duel #{duel} (/round open).", **kept("duel")
        ),
        "guide_open_next": _(
            "Next: open the next round of duel #{duel} (/round open).", **kept("duel")
        ),
        "guide_open_button": _("Fill in /round open"),
        "guide_move": _(
            "Next: {name} sends a move: in {name}'s DMs, type one (e.g. \"evade\") or click "
            "a move button of the bot's prompt.",
            **kept("name"),
        ),
        "guide_move_button": _("Open {name}'s DMs with a move typed", **kept("name")),
        "guide_close": _(
            "Next: both moves are in; the commander closes round {round} of duel #{duel} "
            "(/round close) and the result is posted.",
            **kept("round", "duel"),
        ),
        "guide_close_button": _("Fill in /round close"),
        "filled_in": _("/{command} is filled in: press Run.", **kept("command")),
        "live": _p("sandbox page: the connection's state", "live"),
        "unreachable": _("sandbox not reachable; retrying"),
        "load_failed": _("Could not load the sandbox: {error}", **kept("error")),
    }


def _embed(value: Any) -> str:
    """JSON safe inside a <script> element (as the archive page embeds its data)."""
    encoded = json.dumps(value, ensure_ascii=False)
    return encoded.replace("</", "<\\/").replace("<!--", "<\\u0021--")


def render_index(template: str, language: str | None) -> str:
    """index.html in ``language`` (None: English): its texts filled in, ``<html lang>``
    set, and the script's texts embedded."""
    with speaking(language) as speaks:
        values = {
            "lang": locale_tag(speaks),
            "texts": _embed(script_texts()),
            **_html_texts(),
        }
        return _PLACEHOLDER.sub(lambda m: values[m.group(1)], template)
