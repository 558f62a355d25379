"""A static site of a server's duels: index.html (filterable by duellist, ruleset and status)
and one self-contained page per duel (bot.archive.page).

Languages (issue 28): each duel's page speaks its own duel's language (its export's
``language``); the index and the ladder page speak ``language`` when the caller gives one
(the server's, for a server's archive), else English. Not the duels' languages: an archive
holds duels started under different settings, and one page cannot speak them all; a
server that chose German passes ``language="de"``."""

from __future__ import annotations

import contextlib
import html
import json
import os
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from bot.archive.ladder import LADDER_FILENAME, render_ladder_page
from bot.archive.page import (
    asset,
    duellist_names,
    embed_json,
    fill,
    page_filename,
    render_duel_page,
)
from bot.archive.texts import iso_moment, kept, locale_tag, plural_forms, reader_day, text
from bot.i18n.context import _, _n, _p, speaking
from bot.services.ladder_views import LadderSection

INDEX_FILENAME = "index.html"


def _rounds(export: dict[str, Any]) -> list[dict[str, Any]]:
    rounds = export.get("rounds")
    return [r for r in rounds if isinstance(r, dict)] if isinstance(rounds, list) else []


def _rolls(export: dict[str, Any]) -> int:
    total = 0
    for r in _rounds(export):
        rolls = (r.get("result") or {}).get("rolls") if isinstance(r.get("result"), dict) else None
        total += len(rolls) if isinstance(rolls, list) else 0
    return total


def _day(iso: Any) -> str:
    moment = iso_moment(iso)
    return "" if moment is None else reader_day(moment)


def index_entry(export: dict[str, Any]) -> dict[str, Any]:
    """What the index says of one duel (also embedded as JSON in the index page)."""
    a, b = duellist_names(export)
    rounds = _rounds(export)
    return {
        "duel_id": export["duel_id"],
        "file": page_filename(export["duel_id"]),
        "ruleset": str(export.get("ruleset") or ""),
        "status": str(export.get("status") or ""),
        "a": a,
        "b": b,
        "winner_name": export.get("winner_name"),
        "rounds": len(rounds),
        "undone_rounds": sum(1 for r in rounds if r.get("status") == "undone"),
        "rolls": _rolls(export),
        "created_at": export.get("created_at"),
    }


def _status_text(status: str) -> str:
    """A duel's status in the current language (an unknown one as given)."""
    if status == "live":
        return _p("a duel's status", "live")
    if status == "ended":
        return _p("a duel's status", "ended")
    return status


def _options(values: Iterable[str], shown: Callable[[str], str] = str) -> str:
    """<option>s: each value as the filter compares it, shown as ``shown`` says."""
    return "".join(
        f'<option value="{html.escape(v)}">{html.escape(shown(v))}</option>'  # i18n: not shown
        for v in sorted(set(values))
    )


def _row(entry: dict[str, Any]) -> str:
    e = html.escape
    status = _status_text(entry["status"])
    if entry["winner_name"]:
        status = _("{status}, won by {name}", status=status, name=entry["winner_name"])
    rounds = _n("{count} round", "{count} rounds", entry["rounds"])
    if entry["undone_rounds"]:
        rounds = _n(
            "{rounds} ({count} undone)",
            "{rounds} ({count} undone)",
            entry["undone_rounds"],
            rounds=rounds,
        )
    played = _("{rounds}, {rolls}", rounds=rounds, rolls=_n("{count} roll", "{count} rolls",
                                                              entry["rolls"]))
    duellists = _("{a} vs {b}", a=entry["a"], b=entry["b"])
    return (
        f'<tr data-duel="{e(str(entry["duel_id"]))}" '  # i18n: not shown
        f'data-ruleset="{e(entry["ruleset"])}" '  # i18n: not shown
        f'data-status="{e(entry["status"])}" '  # i18n: not shown
        f'data-duellists="{e(entry["a"])}\n{e(entry["b"])}">'  # i18n: not shown
        f'<td><a href="{e(entry["file"])}">#{e(str(entry["duel_id"]))}</a></td>'  # i18n: not shown
        f"<td>{e(duellists)}</td>"  # i18n: not shown
        f"<td>{e(entry['ruleset'])}</td>"  # i18n: not shown
        f"<td>{e(status)}</td>"  # i18n: not shown
        f"<td>{e(played)}</td>"  # i18n: not shown
        f"<td>{e(_day(entry['created_at']))}</td></tr>"  # i18n: not shown
    )


def _ladder_link() -> str:
    """The index's link to the ladder page, after its introduction."""
    label = text(_("Leaderboards and ratings"))
    return f' <a id="ladder-link" href="{LADDER_FILENAME}">{label}</a>.'  # i18n: not shown


def _index_texts() -> dict[str, str]:
    """The index template's own texts (index.html's ``{{t_...}}``)."""
    return {
        "t_kicker": text(_("duelbot archive")),
        "t_intro": text(
            _(
                "Every duel links to its own page. Each page carries the whole duel and lets "
                "your browser check every roll against the seed committed before the round "
                "opened."
            )
        ),
        "t_filter_label": text(_("Filter")),
        "t_duellist": text(_p("archive index: a filter's label", "Duellist")),
        "t_duellist_placeholder": text(_("a name")),
        "t_ruleset": text(_p("archive index: a filter's label", "Ruleset")),
        "t_all_rulesets": text(_("all rulesets")),
        "t_status": text(_p("archive index: a filter's label", "Status")),
        "t_any_status": text(_("any status")),
        "t_col_duel": text(_p("archive index: a column", "Duel")),
        "t_col_duellists": text(_p("archive index: a column", "Duellists")),
        "t_col_ruleset": text(_p("archive index: a column", "Ruleset")),
        "t_col_status": text(_p("archive index: a column", "Status")),
        "t_col_rounds": text(_p("archive index: a column", "Rounds")),
        "t_col_started": text(_p("archive index: a column", "Started")),
        "t_footer": text(
            _("Made by duelbot. Static files: put this folder on any web host, or open it "
              "from disk.")
        ),
    }


def render_index_page(
    duels_json: Sequence[dict[str, Any]],
    title: str | None = None,
    *,
    ladder: bool = False,
    language: str | None = None,
) -> str:
    """The index of an archive: a row per duel (newest first) linking to its page (and to
    the ladder page when the archive has one), in ``language`` (None: English); ``title``
    None: "Duel archive" in it."""
    entries = sorted(
        (index_entry(d) for d in duels_json), key=lambda x: int(x["duel_id"]), reverse=True
    )
    count = len(entries)
    with speaking(language) as speaks:
        script_texts = {
            "showing": plural_forms(
                lambda n: _n(
                    "Showing {shown} of {count} duel.",
                    "Showing {shown} of {count} duels.",
                    n,
                    **kept("shown", "count"),
                )
            )
        }
        return fill(
            asset("index.html"),
            {
                "lang": locale_tag(speaks),
                "title": html.escape(_("Duel archive") if title is None else title),
                "css": asset("page.css") + asset("index.css"),
                "js": asset("index.js"),
                "data": embed_json({"duels": entries}),
                "texts": embed_json(script_texts),
                "rows": "\n".join(_row(x) for x in entries),
                "ruleset_options": _options(x["ruleset"] for x in entries),
                "status_options": _options((x["status"] for x in entries), _status_text),
                "count": text(_n("{count} duel.", "{count} duels.", count)),
                "ladder_link": _ladder_link() if ladder else "",
                **_index_texts(),
            },
        )


#: Published pages are read by a web server running as another user: world-readable, as a
#: plain ``open(..., "w")`` under the usual umask would make them.
PAGE_MODE = 0o644


def _write(path: Path, text: str) -> None:
    """Write via a temporary file and rename: a reader (a web server) never sees half a page.

    The temporary file is a fresh one made by ``mkstemp`` in the target directory (O_CREAT |
    O_EXCL: it never opens an existing file, and never follows a symlink someone planted
    there), and ``os.replace`` renames it over ``path``, replacing a symlink at ``path``
    rather than writing through it (issue 23: fixed names such as ``.index.html.tmp`` let a
    planted symlink overwrite any file the bot's user could write)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            os.fchmod(handle.fileno(), PAGE_MODE)
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        # Leave nothing behind: the half-written temporary file is ours alone to remove.
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_archive(
    directory: str | os.PathLike[str],
    duels_json: Sequence[dict[str, Any]],
    *,
    title: str | None = None,
    ladders: Sequence[LadderSection] | None = None,
    language: str | None = None,
) -> list[Path]:
    """Write ``index.html`` and ``duel-N.html`` for each duel export into ``directory``
    (created if missing), and ``ladder.html`` when ``ladders`` are given; returns the paths
    written, index first. Other files are left alone. Each duel's page speaks its duel's
    language; the index and the ladder page ``language`` (the server's; None: English)."""
    root = Path(directory)
    root.mkdir(parents=True, exist_ok=True)
    written = [root / INDEX_FILENAME]
    for export in duels_json:
        path = root / page_filename(export["duel_id"])
        _write(path, render_duel_page(export))
        written.append(path)
    if ladders is not None:
        path = root / LADDER_FILENAME
        with speaking(language):
            heading = (
                _("Duel archive: ladder") if title is None
                else _("{archive}: ladder", archive=title)
            )
        _write(path, render_ladder_page(ladders, heading, language=language))
        written.append(path)
    _write(
        written[0],
        render_index_page(duels_json, title, ladder=ladders is not None, language=language),
    )
    return written


def index_json(text: str) -> Any:
    """The entries embedded in an index page (for scripts and tests)."""
    start = text.index('id="archive-index">') + len('id="archive-index">')
    return json.loads(text[start : text.index("</script>", start)])
