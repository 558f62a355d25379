"""Config keys for floods (issue 10): [limits] and [duels] max_move_changes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.config import ConfigError, LimitSettings, load_settings

EXAMPLE = Path(__file__).resolve().parent.parent / "config.example.toml"


def test_example_config_loads_with_the_defaults() -> None:
    settings = load_settings(EXAMPLE, env={})
    assert settings.limits == LimitSettings(dm_burst=5, dm_window_seconds=10.0)
    assert settings.duels.max_move_changes == 10


def test_limits_are_read(tmp_path: Path) -> None:
    file = tmp_path / "c.toml"
    file.write_text(
        "[limits]\ndm_burst = 0\ndm_window_seconds = 3\n[duels]\nmax_move_changes = 2\n"
    )
    settings = load_settings(file, env={})
    assert settings.limits.dm_burst == 0 and settings.limits.dm_window_seconds == 3.0
    assert settings.duels.max_move_changes == 2


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[limits]\ndm_burst = -1\n", "dm_burst"),
        ("[limits]\ndm_window_seconds = 0\n", "dm_window_seconds"),
        ("[limits]\ndm_burst = true\n", "dm_burst"),
        ("[limits]\nburst = 3\n", "Unknown key(s) in [limits]: burst"),
        ("[duels]\nmax_move_changes = 0\n", "max_move_changes"),
    ],
)
def test_bad_limits_are_refused(tmp_path: Path, text: str, says: str) -> None:
    file = tmp_path / "c.toml"
    file.write_text(text)
    with pytest.raises(ConfigError, match=re.escape(says)):
        load_settings(file, env={})
