"""A static site of a server's duels: index.html (filterable by duellist, ruleset and status)
and one self-contained page per duel (bot.archive.page)."""

from __future__ import annotations

import contextlib
import html
import json
import os
import tempfile
from collections.abc import Iterable, Sequence
from datetime import datetime
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
    try:
        return datetime.fromisoformat(str(iso)).strftime("%Y-%m-%d")
    except ValueError:
        return ""


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


def _options(values: Iterable[str]) -> str:
    return "".join(
        f'<option value="{html.escape(v)}">{html.escape(v)}</option>' for v in sorted(set(values))
    )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _row(entry: dict[str, Any]) -> str:
    e = html.escape
    status = entry["status"] + (f", won by {entry['winner_name']}" if entry["winner_name"] else "")
    undone = f" ({entry['undone_rounds']} undone)" if entry["undone_rounds"] else ""
    return (
        f'<tr data-duel="{e(str(entry["duel_id"]))}" data-ruleset="{e(entry["ruleset"])}" '
        f'data-status="{e(entry["status"])}" data-duellists="{e(entry["a"])}\n{e(entry["b"])}">'
        f'<td><a href="{e(entry["file"])}">#{e(str(entry["duel_id"]))}</a></td>'
        f"<td>{e(entry['a'])} vs {e(entry['b'])}</td>"
        f"<td>{e(entry['ruleset'])}</td>"
        f"<td>{e(status)}</td>"
        f"<td>{_count(entry['rounds'], 'round')}{e(undone)}, {_count(entry['rolls'], 'roll')}</td>"
        f"<td>{e(_day(entry['created_at']))}</td></tr>"
    )


def render_index_page(
    duels_json: Sequence[dict[str, Any]], title: str = "Duel archive", *, ladder: bool = False
) -> str:
    """The index of an archive: a row per duel (newest first) linking to its page (and to
    the ladder page when the archive has one)."""
    entries = sorted(
        (index_entry(d) for d in duels_json), key=lambda x: int(x["duel_id"]), reverse=True
    )
    count = len(entries)
    return fill(
        asset("index.html"),
        {
            "title": html.escape(title),
            "css": asset("page.css") + asset("index.css"),
            "js": asset("index.js"),
            "data": embed_json({"duels": entries}),
            "rows": "\n".join(_row(x) for x in entries),
            "ruleset_options": _options(x["ruleset"] for x in entries),
            "status_options": _options(x["status"] for x in entries),
            "count": f"{_count(count, 'duel')}.",
            "ladder_link": (
                f' <a id="ladder-link" href="{LADDER_FILENAME}">Leaderboards and ratings</a>.'
                if ladder
                else ""
            ),
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
    title: str = "Duel archive",
    ladders: Sequence[LadderSection] | None = None,
) -> list[Path]:
    """Write ``index.html`` and ``duel-N.html`` for each duel export into ``directory``
    (created if missing), and ``ladder.html`` when ``ladders`` are given; returns the paths
    written, index first. Other files are left alone."""
    root = Path(directory)
    root.mkdir(parents=True, exist_ok=True)
    written = [root / INDEX_FILENAME]
    for export in duels_json:
        path = root / page_filename(export["duel_id"])
        _write(path, render_duel_page(export))
        written.append(path)
    if ladders is not None:
        path = root / LADDER_FILENAME
        _write(path, render_ladder_page(ladders, f"{title}: ladder"))
        written.append(path)
    _write(written[0], render_index_page(duels_json, title, ladder=ladders is not None))
    return written


def index_json(text: str) -> Any:
    """The entries embedded in an index page (for scripts and tests)."""
    start = text.index('id="archive-index">') + len('id="archive-index">')
    return json.loads(text[start : text.index("</script>", start)])
