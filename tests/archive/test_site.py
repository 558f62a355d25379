"""`duelbot archive DIR` output (bot.archive.write_archive), the page URL under
``[archive] base_url``, and that config key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.archive.links import duel_page_url
from bot.archive.site import index_entry, index_json, write_archive
from bot.config import ConfigError, load_settings
from bot.services.container import Services
from tests.archive.duels import by_this_axe_duel, export_of, rule_2_14_duel
from tests.services.helpers import CAROL, DAVE


async def test_write_archive_writes_an_index_and_a_page_per_duel(
    services: Services, tmp_path: Path
) -> None:
    first = await rule_2_14_duel(services)
    second = await by_this_axe_duel(services, CAROL, DAVE)
    exports = [await export_of(services, first), await export_of(services, second)]
    (tmp_path / "keep.txt").write_text("mine")
    written = write_archive(tmp_path / "out", exports, title="Duel Hall & friends")
    root = tmp_path / "out"
    pages = [root / f"duel-{first}.html", root / f"duel-{second}.html"]
    assert written == [root / "index.html", *pages]
    assert sorted(p.name for p in root.iterdir()) == sorted(p.name for p in written)
    index = (root / "index.html").read_text(encoding="utf-8")
    assert "<title>Duel Hall &amp; friends</title>" in index
    entries = index_json(index)["duels"]
    assert [e["duel_id"] for e in entries] == [second, first]  # newest first
    assert entries[0] == index_entry(exports[1])
    assert entries[0]["a"] == "Carol" and entries[0]["ruleset"] == "by-this-axe"
    assert f'href="duel-{first}.html"' in index and f'href="duel-{second}.html"' in index
    assert 'data-ruleset="rule-2.14"' in index and '<option value="by-this-axe">' in index
    for export in exports:
        page = (root / f"duel-{export['duel_id']}.html").read_text(encoding="utf-8")
        assert json.dumps(export["rounds"][0]["seed"]) in page
    # Writing again replaces the pages and leaves other files alone.
    write_archive(tmp_path, exports[:1])
    assert (tmp_path / "keep.txt").read_text() == "mine"
    assert not list(tmp_path.glob(".*.tmp"))


def test_an_empty_archive_still_has_an_index(tmp_path: Path) -> None:
    [index] = write_archive(tmp_path, [])
    assert "0 duels." in index.read_text(encoding="utf-8")


def test_duel_page_url() -> None:
    assert duel_page_url(None, 7) is None
    assert duel_page_url("https://duels.example.org/archive/", 7) == (
        "https://duels.example.org/archive/duel-7.html"
    )
    assert duel_page_url("https://x.org/{guild_id}", 7, 1234) == "https://x.org/1234/duel-7.html"
    assert duel_page_url("https://x.org/{guild_id}", 7) is None


def test_the_archive_base_url_setting(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    assert load_settings(None, env={}).archive.base_url is None
    config.write_text('[archive]\nbase_url = "https://duels.example.org/{guild_id}"\n')
    assert load_settings(config, env={}).archive.base_url == "https://duels.example.org/{guild_id}"
    for bad in ('"ftp://x.org"', '"duels.example.org"', '"https://a b"', "3"):
        config.write_text(f"[archive]\nbase_url = {bad}\n")
        with pytest.raises(ConfigError, match=r"\[archive\] base_url"):
            load_settings(config, env={})
    config.write_text('[archive]\nbase = "https://x.org"\n')
    with pytest.raises(ConfigError, match="Unknown key"):
        load_settings(config, env={})
