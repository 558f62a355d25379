"""Architecture guard: the rules engine stays pure, and the arrows point down.

Every import of every module is parsed with ast (relative imports resolved), so a
forbidden import anywhere in a file, even inside a function, fails the test.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BOT = ROOT / "bot"

RULES_FORBIDDEN = (
    "discord",
    "sqlalchemy",
    "aiohttp",
    "alembic",
    "asyncio",
    "socket",
    "os",
    "pathlib",
    "sqlite3",
    "asyncpg",
    "aiosqlite",
    "subprocess",
    "urllib",
    "http",
    "requests",
    "httpx",
    "bot.db",
    "bot.services",
    "bot.discord",
)
SERVICES_FORBIDDEN = ("discord", "bot.discord")
DB_FORBIDDEN = ("discord", "bot.discord", "bot.services")
REPORT_FORBIDDEN = ("discord", "bot.discord", "bot.db", "bot.services", "sqlalchemy")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                prefix = ".".join([*base, node.module] if node.module else base)
            else:
                prefix = node.module or ""
            found.add(prefix)
            found.update(f"{prefix}.{alias.name}" for alias in node.names)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and getattr(node.func, "attr", getattr(node.func, "id", "")) in
            ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.add(node.args[0].value)
    return found


def violations(package: str, forbidden: tuple[str, ...]) -> list[str]:
    bad = []
    for path in sorted((BOT / package).rglob("*.py")) if package else []:
        bad += _check(path, forbidden)
    return bad


def _check(path: Path, forbidden: tuple[str, ...]) -> list[str]:
    bad = []
    for name in sorted(imports_of(path)):
        for banned in forbidden:
            if name == banned or name.startswith(banned + "."):
                bad.append(f"{path.relative_to(ROOT)} imports {name}")
    return bad


def test_the_rules_engine_is_pure() -> None:
    assert list((BOT / "rules").rglob("*.py")), "bot/rules has no modules?"
    assert violations("rules", RULES_FORBIDDEN) == []


def test_services_never_import_discord() -> None:
    assert violations("services", SERVICES_FORBIDDEN) == []


def test_db_never_imports_discord_or_services() -> None:
    assert violations("db", DB_FORBIDDEN) == []


def test_report_is_pure_text() -> None:
    assert _check(BOT / "report.py", REPORT_FORBIDDEN) == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import os", "os"),
        ("import discord.ext.commands", "discord.ext.commands"),
        ("from sqlalchemy import select", "sqlalchemy"),
        ("from ..db import models", "bot.db"),
        ("from . import dice", "bot.rules.dice"),
        ("def f():\n    import asyncio", "asyncio"),
        ("import importlib\nimportlib.import_module('bot.services.duels')", "bot.services.duels"),
    ],
)
def test_the_checker_sees_every_kind_of_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str, expected: str
) -> None:
    fake_root = tmp_path
    target = fake_root / "bot" / "rules" / "sneaky.py"
    target.parent.mkdir(parents=True)
    target.write_text(source, encoding="utf-8")
    monkeypatch.setitem(globals(), "ROOT", fake_root)
    assert expected in imports_of(target)
