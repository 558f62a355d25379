"""Frozen settings from a TOML file plus DUELBOT_* environment overrides.

The Discord token is read from the environment only (DISCORD_TOKEN), never from a file.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.rules.registry import DEFAULT_RULESET_ID

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///duelbot.db"
DEFAULT_API_BASE_URL = "https://discord.com/api/v10"
DEFAULT_GATEWAY_URL = "wss://gateway.discord.gg/"
# The longest undo window a server may have (30 days): past it a result is settled.
UNDO_WINDOW_MAX_HOURS = 720


class ConfigError(Exception):
    """The configuration file or an override is invalid; the message says which key."""


@dataclass(frozen=True)
class DatabaseSettings:
    url: str = DEFAULT_DATABASE_URL
    echo: bool = False


@dataclass(frozen=True)
class DiscordSettings:
    api_base_url: str = DEFAULT_API_BASE_URL
    gateway_url: str = DEFAULT_GATEWAY_URL
    shard_count: int | None = None
    shard_ids: tuple[int, ...] | None = None
    # Guild ids to sync slash commands to instantly (development); empty = global sync.
    sync_guild_ids: tuple[int, ...] = ()
    sync_commands: bool = True
    # Several processes of one bot (issue 13): api_base_url is a REST proxy that owns the
    # rate limits (nirn-proxy, twilight-http-proxy): the built-in pacer steps aside.
    rest_proxy: bool = False
    # Without a proxy: the share of the bot-wide 50 requests/s this process paces itself to
    # (e.g. 0.5 for each of two processes).
    rest_share: float = 1.0


@dataclass(frozen=True)
class DuelSettings:
    ruleset: str = DEFAULT_RULESET_ID  # the registry's default unless config.toml names one
    thread_per_duel: bool = False
    auto_close: bool = True
    reminders: tuple[str, ...] = ("24h", "1h")
    close_when_all_submitted: bool = False
    # Changes of move one side may make in one round where change of choice is on.
    max_move_changes: int = 10
    # How long after its close a round's result may be undone (issue 23), unless a server's
    # admins set their own with /config undo-window. 0: undo is off.
    undo_window_hours: float = 24.0
    # Server defaults; admins change them per server with /config.
    change_of_choice: bool = False
    missing_move: str = "none"
    locked_blocks_retreat: bool = False


@dataclass(frozen=True)
class LimitSettings:
    """Per-user flood limit on move intake (DMs, /move, move buttons): ``dm_burst`` at
    once, then one every ``dm_window_seconds / dm_burst`` s. ``dm_burst = 0`` turns it off."""

    dm_burst: int = 5
    dm_window_seconds: float = 10.0
    dm_tracked_users: int = 100_000
    # Per-user budget of expensive answers (/duel export, /leaderboard; issue 23): a bucket
    # of ``export_burst`` that refills over ``export_window_seconds``. 0: no budget.
    export_burst: int = 6
    export_window_seconds: float = 60.0


@dataclass(frozen=True)
class WorkerSettings:
    outbox_poll_seconds: float = 1.0
    scheduler_poll_seconds: float = 5.0


@dataclass(frozen=True)
class ArchiveSettings:
    """Where the duel archive (``duelbot archive DIR``) is published. With a base URL, results
    posted in Discord link to their duel's page; ``{guild_id}`` in it stands for the server
    (one archive directory per server)."""

    base_url: str | None = None


@dataclass(frozen=True)
class Settings:
    database: DatabaseSettings = field(default_factory=DatabaseSettings)
    discord: DiscordSettings = field(default_factory=DiscordSettings)
    duels: DuelSettings = field(default_factory=DuelSettings)
    workers: WorkerSettings = field(default_factory=WorkerSettings)
    limits: LimitSettings = field(default_factory=LimitSettings)
    archive: ArchiveSettings = field(default_factory=ArchiveSettings)
    log_level: str = "INFO"


def _section(data: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = data.get(name, {})
    if not isinstance(value, Mapping):
        raise ConfigError(f"[{name}] must be a table.")
    return value


def _typed(section: str, key: str, value: Any, kind: type) -> Any:
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if kind is int and isinstance(value, bool):
        raise ConfigError(f"[{section}] {key} must be an integer, not {value!r}.")
    if not isinstance(value, kind):
        raise ConfigError(f"[{section}] {key} must be a {kind.__name__}, not {value!r}.")
    return value


def _int_tuple(section: str, key: str, value: Any) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        raise ConfigError(f"[{section}] {key} must be a list of integers.")
    return tuple(value)


def load_settings(
    path: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None
) -> Settings:
    """Settings from ``path`` (or $DUELBOT_CONFIG, or ./config.toml if present) and env."""
    env = os.environ if env is None else env
    chosen = path or env.get("DUELBOT_CONFIG")
    data: dict[str, Any] = {}
    if chosen:
        file = Path(chosen)
        if not file.is_file():
            raise ConfigError(f"Config file {str(file)!r} does not exist.")
        data = _read(file)
    elif Path("config.toml").is_file():
        data = _read(Path("config.toml"))

    db = _section(data, "database")
    dc = _section(data, "discord")
    du = _section(data, "duels")
    wk = _section(data, "workers")
    lm = _section(data, "limits")
    lg = _section(data, "logging")
    ar = _section(data, "archive")
    for name, section, allowed in (
        ("database", db, {"url", "echo"}),
        (
            "discord",
            dc,
            {
                "api_base_url",
                "gateway_url",
                "shard_count",
                "shard_ids",
                "sync_guild_ids",
                "sync_commands",
                "rest_proxy",
                "rest_share",
                "token",
            },
        ),
        ("duels", du, set(DuelSettings.__dataclass_fields__)),
        ("workers", wk, set(WorkerSettings.__dataclass_fields__)),
        ("limits", lm, set(LimitSettings.__dataclass_fields__)),
        ("logging", lg, {"level"}),
        ("archive", ar, set(ArchiveSettings.__dataclass_fields__)),
    ):
        unknown = set(section) - allowed
        if unknown:
            raise ConfigError(f"Unknown key(s) in [{name}]: {', '.join(sorted(unknown))}.")
    if "token" in dc:
        raise ConfigError(
            "Do not put the bot token in a file: set the DISCORD_TOKEN environment variable."
        )

    database = DatabaseSettings(
        url=env.get("DUELBOT_DATABASE_URL")
        or _typed("database", "url", db.get("url", DEFAULT_DATABASE_URL), str),
        echo=_typed("database", "echo", db.get("echo", False), bool),
    )
    shard_count = dc.get("shard_count")
    shard_ids = dc.get("shard_ids")
    discord = DiscordSettings(
        api_base_url=env.get("DUELBOT_DISCORD_API_BASE_URL")
        or _typed("discord", "api_base_url", dc.get("api_base_url", DEFAULT_API_BASE_URL), str),
        gateway_url=env.get("DUELBOT_DISCORD_GATEWAY_URL")
        or _typed("discord", "gateway_url", dc.get("gateway_url", DEFAULT_GATEWAY_URL), str),
        shard_count=None
        if shard_count is None
        else _typed("discord", "shard_count", shard_count, int),
        shard_ids=None if shard_ids is None else _int_tuple("discord", "shard_ids", shard_ids),
        sync_guild_ids=_int_tuple("discord", "sync_guild_ids", dc.get("sync_guild_ids", [])),
        sync_commands=_typed("discord", "sync_commands", dc.get("sync_commands", True), bool),
        rest_proxy=_typed("discord", "rest_proxy", dc.get("rest_proxy", False), bool),
        rest_share=_typed("discord", "rest_share", dc.get("rest_share", 1.0), float),
    )
    if not 0 < discord.rest_share <= 1:
        raise ConfigError(
            "[discord] rest_share must be more than 0 and at most 1 (this process's share of "
            "the bot's 50 requests per second), e.g. 0.5 for each of two processes."
        )
    if discord.shard_count is not None and discord.shard_count < 1:
        raise ConfigError("[discord] shard_count must be at least 1.")
    if discord.shard_ids is not None:
        if discord.shard_count is None:
            raise ConfigError("[discord] shard_ids needs shard_count.")
        bad = [i for i in discord.shard_ids if not 0 <= i < discord.shard_count]
        if bad:
            raise ConfigError(f"[discord] shard_ids {bad} are outside 0..shard_count-1.")

    defaults = DuelSettings()
    duels = DuelSettings(
        ruleset=_typed("duels", "ruleset", du.get("ruleset", defaults.ruleset), str),
        thread_per_duel=_typed(
            "duels", "thread_per_duel", du.get("thread_per_duel", defaults.thread_per_duel), bool
        ),
        auto_close=_typed("duels", "auto_close", du.get("auto_close", defaults.auto_close), bool),
        reminders=tuple(
            _typed("duels", "reminders", du.get("reminders", list(defaults.reminders)), list)
        ),
        close_when_all_submitted=_typed(
            "duels",
            "close_when_all_submitted",
            du.get("close_when_all_submitted", defaults.close_when_all_submitted),
            bool,
        ),
        change_of_choice=_typed(
            "duels", "change_of_choice", du.get("change_of_choice", defaults.change_of_choice), bool
        ),
        missing_move=_typed(
            "duels", "missing_move", du.get("missing_move", defaults.missing_move), str
        ),
        locked_blocks_retreat=_typed(
            "duels",
            "locked_blocks_retreat",
            du.get("locked_blocks_retreat", defaults.locked_blocks_retreat),
            bool,
        ),
        max_move_changes=_typed(
            "duels", "max_move_changes", du.get("max_move_changes", defaults.max_move_changes), int
        ),
        undo_window_hours=_typed(
            "duels",
            "undo_window_hours",
            du.get("undo_window_hours", defaults.undo_window_hours),
            float,
        ),
    )
    if duels.max_move_changes < 1:
        raise ConfigError("[duels] max_move_changes must be at least 1.")
    if not 0 <= duels.undo_window_hours <= UNDO_WINDOW_MAX_HOURS:
        raise ConfigError(
            f"[duels] undo_window_hours must be 0 (undo off) to {UNDO_WINDOW_MAX_HOURS}."
        )
    if duels.missing_move not in ("none", "forfeit"):
        raise ConfigError('[duels] missing_move must be "none" or "forfeit".')
    if not all(isinstance(r, str) for r in duels.reminders):
        raise ConfigError('[duels] reminders must be a list of durations such as "24h".')
    wdefaults = WorkerSettings()
    workers = WorkerSettings(
        outbox_poll_seconds=_typed(
            "workers",
            "outbox_poll_seconds",
            wk.get("outbox_poll_seconds", wdefaults.outbox_poll_seconds),
            float,
        ),
        scheduler_poll_seconds=_typed(
            "workers",
            "scheduler_poll_seconds",
            wk.get("scheduler_poll_seconds", wdefaults.scheduler_poll_seconds),
            float,
        ),
    )
    limits = _limits(lm)
    level = env.get("DUELBOT_LOG_LEVEL") or _typed("logging", "level", lg.get("level", "INFO"), str)
    return Settings(
        database=database,
        discord=discord,
        duels=duels,
        workers=workers,
        limits=limits,
        archive=_archive(ar),
        log_level=level.upper(),
    )


def _archive(section: Mapping[str, Any]) -> ArchiveSettings:
    base_url = section.get("base_url")
    if base_url is None or base_url == "":
        return ArchiveSettings()
    base_url = _typed("archive", "base_url", base_url, str).strip()
    scheme, _, rest = base_url.partition("://")
    if scheme.lower() not in ("http", "https") or not rest or any(c.isspace() for c in base_url):
        raise ConfigError(
            '[archive] base_url must be an http:// or https:// URL without spaces, e.g. '
            '"https://duels.example.org/archive" (or "https://duels.example.org/{guild_id}").'
        )
    return ArchiveSettings(base_url=base_url)


def _limits(section: Mapping[str, Any]) -> LimitSettings:
    defaults = LimitSettings()
    limits = LimitSettings(
        dm_burst=_typed("limits", "dm_burst", section.get("dm_burst", defaults.dm_burst), int),
        dm_window_seconds=_typed(
            "limits",
            "dm_window_seconds",
            section.get("dm_window_seconds", defaults.dm_window_seconds),
            float,
        ),
        dm_tracked_users=_typed(
            "limits",
            "dm_tracked_users",
            section.get("dm_tracked_users", defaults.dm_tracked_users),
            int,
        ),
        export_burst=_typed(
            "limits", "export_burst", section.get("export_burst", defaults.export_burst), int
        ),
        export_window_seconds=_typed(
            "limits",
            "export_window_seconds",
            section.get("export_window_seconds", defaults.export_window_seconds),
            float,
        ),
    )
    if limits.dm_burst < 0:
        raise ConfigError("[limits] dm_burst must be 0 (no limit) or more.")
    if not limits.dm_window_seconds > 0:
        raise ConfigError("[limits] dm_window_seconds must be more than 0.")
    if limits.dm_tracked_users < 1:
        raise ConfigError("[limits] dm_tracked_users must be at least 1.")
    if limits.export_burst < 0:
        raise ConfigError("[limits] export_burst must be 0 (no limit) or more.")
    if not limits.export_window_seconds > 0:
        raise ConfigError("[limits] export_window_seconds must be more than 0.")
    return limits


def _read(file: Path) -> dict[str, Any]:
    try:
        with file.open("rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{file}: not valid TOML ({exc}).") from None
