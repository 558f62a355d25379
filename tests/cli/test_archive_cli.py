"""`duelbot export --format html` and `duelbot archive DIR` from the database (SQLite and
PostgreSQL): the page carries the duel's JSON export verbatim, the site has an index and one
page per duel of the server, and bad arguments exit 2 with one line."""

from __future__ import annotations

import json
import re
from pathlib import Path

from bot.archive.site import index_json
from tests.cli.duels import RULESETS, duelbot, play_duel


def _embedded(page: str) -> object:
    start = page.index('id="duel-data">') + len('id="duel-data">')
    return json.loads(page[start : page.index("</script>", start)])


async def test_export_html_carries_the_json_export(migrated_db_url: str) -> None:
    duel_id = await play_duel(migrated_db_url, RULESETS[0])
    page = duelbot("export", "--duel", str(duel_id), "--format", "html", url=migrated_db_url)
    assert page.returncode == 0, page.stderr
    assert page.stdout.startswith("<!DOCTYPE html>") or page.stdout.startswith("<!doctype html>")
    exported = duelbot("export", "--duel", str(duel_id), url=migrated_db_url)
    assert _embedded(page.stdout) == json.loads(exported.stdout)


async def test_archive_writes_an_index_and_a_page_per_duel(
    migrated_db_url: str, tmp_path: Path
) -> None:
    ids = [await play_duel(migrated_db_url, ruleset) for ruleset in RULESETS]
    site = tmp_path / "site"
    done = duelbot("archive", str(site), url=migrated_db_url)
    assert done.returncode == 0, done.stderr
    assert f"{len(ids)} duel page(s)" in done.stdout
    assert sorted(p.name for p in site.iterdir()) == sorted(
        ["index.html", "ladder.html", *(f"duel-{i}.html" for i in ids)]
    )
    index = (site / "index.html").read_text(encoding="utf-8")
    assert 'href="ladder.html"' in index
    entries = index_json(index)["duels"]
    assert sorted(e["duel_id"] for e in entries) == sorted(ids)
    for duel_id in ids:
        page = (site / f"duel-{duel_id}.html").read_text(encoding="utf-8")
        exported = duelbot("export", "--duel", str(duel_id), url=migrated_db_url)
        assert _embedded(page) == json.loads(exported.stdout)


async def test_archive_refuses_an_unknown_server_and_an_empty_database(
    migrated_db_url: str, tmp_path: Path
) -> None:
    empty = duelbot("archive", str(tmp_path / "a"), url=migrated_db_url)
    assert empty.returncode == 2 and "no duels" in empty.stderr
    assert len(empty.stderr.strip().splitlines()) == 1
    await play_duel(migrated_db_url, RULESETS[0])
    nobody = duelbot("archive", str(tmp_path / "b"), "--guild", "12345", url=migrated_db_url)
    assert nobody.returncode == 2 and "server 12345 has no duels" in nobody.stderr
    assert not (tmp_path / "b").exists()


async def test_the_ladder_page_ranks_members_with_a_rating_chart_each(
    migrated_db_url: str, tmp_path: Path
) -> None:
    for ruleset in RULESETS:
        await play_duel(migrated_db_url, ruleset)
    site = tmp_path / "site"
    assert duelbot("archive", str(site), url=migrated_db_url).returncode == 0
    ladder = (site / "ladder.html").read_text(encoding="utf-8")
    rows = re.findall(r'<tr data-ruleset="([^"]+)" data-user="(\d+)"><td>(\d+)</td>', ladder)
    # Every ruleset's duel ended with a result: two rated members on each ladder, ranked.
    assert sorted({r for r, _, _ in rows}) == sorted(RULESETS)
    for ruleset in RULESETS:
        ranks = [int(rank) for r, _, rank in rows if r == ruleset]
        assert len(ranks) == 2 and ranks == sorted(ranks) and ranks[0] == 1
    # One inline chart per member, no outside reference.
    assert ladder.count('<svg class="rating-chart"') == len(rows)
    assert "http://" not in ladder and "https://" not in ladder and "src=" not in ladder


async def test_archive_never_writes_through_a_planted_symlink(
    migrated_db_url: str, tmp_path: Path
) -> None:
    """Issue 23: the old fixed temporary names (`.index.html.tmp`, ...) and a published path
    itself are symlinks to a file of the bot's user; the archive writes none of them, and
    every published file is a regular file of its own."""
    duel_id = await play_duel(migrated_db_url, RULESETS[0])
    site = tmp_path / "site"
    site.mkdir()
    names = ["index.html", f"duel-{duel_id}.html", "ladder.html"]
    victims = {}
    for name in names:
        for planted in (f".{name}.tmp", name):
            victim = tmp_path / f"victim-{planted}"
            victim.write_text(f"precious {planted}\n")
            (site / planted).symlink_to(victim)
            victims[planted] = victim
    done = duelbot("archive", str(site), url=migrated_db_url)
    assert done.returncode == 0, done.stderr
    for planted, victim in victims.items():
        assert victim.read_text() == f"precious {planted}\n", planted
        assert victim.is_file() and not victim.is_symlink()
    for name in names:
        published = site / name
        assert not published.is_symlink() and published.is_file(), name
        assert published.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
        assert published.stat().st_mode & 0o777 == 0o644
        # The planted temporary-name links are left as they were (not ours to remove).
        assert (site / f".{name}.tmp").readlink() == victims[f".{name}.tmp"]
    assert sorted(p.name for p in site.iterdir() if not p.name.endswith(".tmp")) == sorted(names)
    assert len(list(site.glob(".*.tmp"))) == len(names)  # no temporary file of ours is left


async def test_archive_refuses_a_server_id_beyond_64_bits(
    migrated_db_url: str, tmp_path: Path
) -> None:
    """Issue 23: `--guild 10^23` was an OverflowError traceback (SQLite) or a DBAPIError
    (PostgreSQL); now one line naming the allowed range, exit 2, nothing written."""
    await play_duel(migrated_db_url, RULESETS[0])
    for bad in ("100000000000000000000000", "9223372036854775808", "0", "-5", "12x"):
        out = tmp_path / f"site-{bad}"
        done = duelbot("archive", str(out), "--guild", bad, url=migrated_db_url)
        assert done.returncode == 2, (bad, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert "Traceback" not in done.stderr and "--guild" in done.stderr
        assert "whole number from 1 to 9223372036854775807" in done.stderr, done.stderr
        assert not out.exists()
