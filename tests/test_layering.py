"""Architecture guard: the rules engine stays pure, and the arrows point down.

Every import of every module is parsed with ast (relative imports resolved), so a
forbidden import anywhere in a file, even inside a function, fails the test.
"""

from __future__ import annotations

import ast
import re
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
# The Discord layer talks to the services only: their views and their errors (a database
# that cannot be reached is services.errors.Unavailable), never the db layer.
DISCORD_FORBIDDEN = ("bot.db", "sqlalchemy")
DB_FORBIDDEN = ("discord", "bot.discord", "bot.services")
REPORT_FORBIDDEN = ("discord", "bot.discord", "bot.db", "bot.services", "sqlalchemy")
# The archive pages (issue 15) are presentation, like report.py: no Discord, no database, no
# use case; only the plain views of bot.services.views and bot.services.ladder_views.
ARCHIVE_FORBIDDEN = ("discord", "bot.discord", "bot.db", "sqlalchemy", "bot.services")
ARCHIVE_ALLOWED = ("bot.services.views", "bot.services.ladder_views")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_names(node: ast.Import | ast.ImportFrom, package: list[str]) -> set[str]:
    """What an import statement in a module of ``package`` names: each module, and for
    ``from p import x`` both ``p`` and ``p.x`` (x may be a submodule); relative imports
    resolved."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names}
    if node.level:
        base = package[: len(package) - node.level + 1]
        prefix = ".".join([*base, node.module] if node.module else base)
    else:
        prefix = node.module or ""
    return {prefix} | {f"{prefix}.{alias.name}" for alias in node.names}


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            found |= imported_names(node, package)
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


def test_the_discord_layer_never_imports_the_db_layer() -> None:
    assert list((BOT / "discord").rglob("*.py")), "bot/discord has no modules?"
    assert violations("discord", DISCORD_FORBIDDEN) == []


# The presentation package (issue 12): views and renderers over plain data. It may read the
# rules and the services' plain data types (views, outbox messages), never the database, a
# use case or the Discord layer; discord.py only in its Discord-format modules (discord_*.py:
# the embed renderer needs discord.Embed and its escapes).
PRESENTATION_FORBIDDEN = ("bot.db", "bot.discord", "bot.services", "sqlalchemy", "discord")
PRESENTATION_ALLOWED = (
    "bot.services.views",
    "bot.services.ladder_views",
    "bot.services.messages",
    "bot.services.published",
    "bot.archive.links",
)
PRESENTATION_DISCORD_MODULES = "discord_"


def presentation_violations(root: Path) -> list[str]:
    bad = []
    for path in sorted((root / "bot" / "presentation").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        allowed = PRESENTATION_ALLOWED
        if path.name.startswith(PRESENTATION_DISCORD_MODULES):
            allowed = (*allowed, "discord")
        for name in sorted(imports_of_under(path, root)):
            if any(name == ok or name.startswith(ok + ".") for ok in allowed):
                continue
            bad += [
                f"{rel} imports {name}"
                for banned in PRESENTATION_FORBIDDEN
                if name == banned or name.startswith(banned + ".")
            ]
    return bad


def test_presentation_reads_plain_data_only() -> None:
    assert list((BOT / "presentation").rglob("*.py")), "bot/presentation has no modules?"
    assert presentation_violations(ROOT) == []


def test_the_presentation_check_catches_discord_and_use_cases(tmp_path: Path) -> None:
    for rel, source in (
        ("bot/presentation/markup.py", "import discord\nfrom bot.services.views import X\n"),
        ("bot/presentation/views.py", "from bot.services.duels import DuelService\n"),
        ("bot/presentation/discord_posts.py", "import discord\nfrom bot.db import queries\n"),
    ):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(source)
    assert presentation_violations(tmp_path) == [
        "bot/presentation/discord_posts.py imports bot.db",
        "bot/presentation/discord_posts.py imports bot.db.queries",
        "bot/presentation/markup.py imports discord",
        "bot/presentation/views.py imports bot.services.duels",
        "bot/presentation/views.py imports bot.services.duels.DuelService",
    ]


# The message catalogs and language choice (issue 28): pure, so that every layer may
# translate (the services' errors, the presentation, the Discord layer, the exports) and
# none of them drags Discord or the database in with it.
I18N_FORBIDDEN = (
    "discord",
    "sqlalchemy",
    "aiohttp",
    "alembic",
    "asyncio",
    "asyncpg",
    "aiosqlite",
    "bot.db",
    "bot.services",
    "bot.discord",
    "bot.presentation",
    "bot.rules",
    "bot.standin",
    "bot.sandbox",
)


#: The one piece of the rules the catalogs know: the hook they plug the ruleset packages'
#: catalogs into (bot/rules/text.py, pure, importing nothing of the rules).
I18N_RULES_HOOK = ("bot.rules.text", "bot.rules.text.install_lookup")


def test_the_catalogs_are_pure() -> None:
    assert list((BOT / "i18n").rglob("*.py")), "bot/i18n has no modules?"
    assert [
        line
        for line in violations("i18n", I18N_FORBIDDEN)
        if not line.endswith(tuple(f" imports {name}" for name in I18N_RULES_HOOK))
    ] == []


def test_the_catalog_check_catches_a_discord_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    monkeypatch.setitem(globals(), "BOT", tmp_path / "bot")
    sneaky = tmp_path / "bot" / "i18n" / "x.py"
    sneaky.parent.mkdir(parents=True)
    sneaky.write_text("import discord\nfrom ..services.settings import SettingsService\n")
    assert violations("i18n", I18N_FORBIDDEN) == [
        "bot/i18n/x.py imports bot.services.settings",
        "bot/i18n/x.py imports bot.services.settings.SettingsService",
        "bot/i18n/x.py imports discord",
    ]


def test_db_never_imports_discord_or_services() -> None:
    assert violations("db", DB_FORBIDDEN) == []


def test_the_exports_are_pure() -> None:
    """bot/exports (the published duel, its formats and `duelbot verify`): plain data in,
    text out. Of the services it reads the read model (bot.services.views) only."""
    bad = [
        line
        for line in violations("exports", REPORT_FORBIDDEN)
        if not line.endswith(
            (
                " imports bot.services.views",
                " imports bot.services.views.DuelHistory",
                " imports bot.services.views.RoundRecord",
                # The published round (issue 25): plain typed data, exported as it is.
                " imports bot.services.published",
                " imports bot.services.published.PublishedRound",
                " imports bot.services.published.Side",
                " imports bot.services.published.Sides",
                " imports bot.services.published.published_of",
                " imports bot.services.published.json_object",
            )
        )
    ]
    assert bad == []


def archive_violations(root: Path) -> list[str]:
    bad = []
    for path in sorted((root / "bot" / "archive").rglob("*.py")):
        for name in sorted(imports_of(path)):
            if any(name == ok or name.startswith(ok + ".") for ok in ARCHIVE_ALLOWED):
                continue
            bad += [
                f"{path.relative_to(root)} imports {name}"
                for banned in ARCHIVE_FORBIDDEN
                if name == banned or name.startswith(banned + ".")
            ]
    return bad


def test_the_archive_is_presentation_only() -> None:
    assert list((BOT / "archive").rglob("*.py")), "bot/archive has no modules?"
    assert archive_violations(ROOT) == []


def test_the_archive_check_catches_a_database_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    sneaky = tmp_path / "bot" / "archive" / "x.py"
    sneaky.parent.mkdir(parents=True)
    sneaky.write_text(
        "from bot.services.views import DuelHistory\nfrom bot.services.duels import DuelService\n"
        "import discord\n"
    )
    assert archive_violations(tmp_path) == [
        "bot/archive/x.py imports bot.services.duels",
        "bot/archive/x.py imports bot.services.duels.DuelService",
        "bot/archive/x.py imports discord",
    ]


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


# -- rulesets are plug-ins (issue 11) ------------------------------------------------

RULESET_PACKAGES = {
    "rule_2_14": "rule-2.14",
    "by_this_axe": "by-this-axe",
    "foeq": "foeq-spell-duel",
}

#: Files outside the ruleset packages and the registry that may name a ruleset id or import
#: a ruleset module, with how many times (issue 11). Empty: every other layer asks the
#: Ruleset interface; keep it so.
RULESET_MENTION_ALLOWANCE: dict[str, int] = {}


def ruleset_mentions(path: Path) -> int:
    """How often a file names a ruleset id in a string or imports a ruleset module."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            count += sum(node.value.count(rid) for rid in RULESET_PACKAGES.values())
    for name in imports_of(path):
        parts = name.split(".")
        if parts[:2] == ["bot", "rules"] and len(parts) == 3 and parts[2] in RULESET_PACKAGES:
            count += 1
    return count


def ruleset_offenders(root: Path) -> dict[str, int]:
    """Files of ``root``/bot outside the ruleset packages and the registry that name a
    ruleset id or import a ruleset module, with their counts."""
    found: dict[str, int] = {}
    rules = root / "bot" / "rules"
    for path in sorted((root / "bot").rglob("*.py")):
        if path == rules / "registry.py" or any(
            path.is_relative_to(rules / package) for package in RULESET_PACKAGES
        ):
            continue
        count = ruleset_mentions(path)
        if count:
            found[path.relative_to(root).as_posix()] = count
    return found


def new_ruleset_offenders(found: dict[str, int]) -> list[str]:
    return [
        f"{file} names a ruleset {count} time(s) (allowed: "
        f"{RULESET_MENTION_ALLOWANCE.get(file, 0)}); ask the Ruleset interface instead"
        for file, count in found.items()
        if count > RULESET_MENTION_ALLOWANCE.get(file, 0)
    ]


def test_ruleset_ids_and_modules_stay_in_their_package_and_the_registry() -> None:
    assert new_ruleset_offenders(ruleset_offenders(ROOT)) == []


def test_the_ruleset_check_catches_a_new_offender(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    (tmp_path / "bot" / "rules" / "foeq").mkdir(parents=True)
    (tmp_path / "bot" / "rules" / "foeq" / "x.py").write_text('ID = "foeq-spell-duel"\n')
    (tmp_path / "bot" / "rules" / "registry.py").write_text("from bot.rules import foeq\n")
    sneaky = tmp_path / "bot" / "services" / "new.py"
    sneaky.parent.mkdir(parents=True)
    sneaky.write_text('from bot.rules.by_this_axe import challenge\nif x == "rule-2.14": pass\n')
    found = ruleset_offenders(tmp_path)
    assert found == {"bot/services/new.py": 2}
    assert new_ruleset_offenders(found) and "bot/services/new.py" in new_ruleset_offenders(found)[0]


def test_every_former_allowance_is_an_offender_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The allowance is empty: the CLI naming a ruleset id, or bot/rules/__init__.py
    re-exporting a ruleset package, fails the check like any other file."""
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    (tmp_path / "bot" / "rules").mkdir(parents=True)
    (tmp_path / "bot" / "cli.py").write_text('CHOICES = ("by-this-axe",)\n')
    (tmp_path / "bot" / "rules" / "__init__.py").write_text("from bot.rules import foeq\n")
    found = ruleset_offenders(tmp_path)
    assert found == {"bot/cli.py": 1, "bot/rules/__init__.py": 1}
    assert RULESET_MENTION_ALLOWANCE == {}
    assert len(new_ruleset_offenders(found)) == 2


# -- rulesets' words stay in their package (issue 24) --------------------------------

#: Each ruleset's own concepts, as words: (ruleset package, concept, pattern). A pattern is
#: searched in every line of a module's source: code, strings, comments and docstrings.
RULESET_WORDS: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    # Rule 2.14: the lock (in the combat sense), STR and AGI, locked-blocks-retreat.
    (
        "rule_2_14",
        "lock",
        re.compile(
            r"lock(?:ed)?[\s_-]+in[\s_-]+combat|combat[\s_-]+lock|\block[\s_-]attempt", re.I
        ),
    ),
    ("rule_2_14", "locked-blocks-retreat", re.compile(r"locked[\s_-]blocks[\s_-]retreat", re.I)),
    ("rule_2_14", "STR/AGI", re.compile(r"\b(?:strength|agility)\b", re.I)),
    # Upper case only: lower-case ``str`` is Python's.
    ("rule_2_14", "STR/AGI", re.compile(r"\b(?:STR|AGI)\b|\b[ab][_-](?:str|agi)\b")),
    # By This Axe: its challenge and what a refusal costs (leadership, leadership_lost).
    ("by_this_axe", "leadership", re.compile(r"\bleader(?:ship)?(?:_lost)?\b", re.I)),
    ("by_this_axe", "challenge", re.compile(r"challeng", re.I)),
)
#: The same concepts as names (a variable, an attribute, an argument, a keyword, a function
#: or class) or as a whole string (a dict key such as ``"locked"``).
RULESET_WORD_TOKENS: dict[str, tuple[str, str]] = {
    "locked": ("rule_2_14", "lock"),
    "is_locked": ("rule_2_14", "lock"),
    "locked_after": ("rule_2_14", "lock"),
    "agi": ("rule_2_14", "STR/AGI"),
}
#: Where "challenge" is not By This Axe's but the generic `/duel challenge` of the pre-duel
#: capability (any ruleset declaring a step with id "challenge"): its data, lookup, use
#: case, message, view, command and replies. Other By This Axe words stay out of them too.
PRE_DUEL_COMMAND_FILES = (
    "bot/rules/terms.py",
    "bot/rules/registry.py",
    "bot/services/challenges.py",
    "bot/services/duels.py",
    "bot/services/lifecycle.py",
    "bot/services/channel_messages.py",
    "bot/services/messages.py",
    "bot/services/views.py",
    "bot/discord/challenge_options.py",
    "bot/discord/cogs/commander.py",
    "bot/presentation/discord_posts.py",
    "bot/presentation/discord_replies.py",
)
#: The stand-in speaks Discord's protocol, where a thread is ``locked``: not rule 2.14's.
DISCORD_THREAD_FILES = "bot/standin/"
#: Standing exceptions, each with its reason: {file: {concept: lines}}.
RULESET_WORD_ALLOWANCE: dict[str, dict[str, int]] = {
    # config.toml's [duels] locked_blocks_retreat key predates house rules; it stays so that
    # existing config files load. The ruleset declares the name (HouseRule.former_setting)
    # and the settings service reads it through that declaration alone.
    "bot/config.py": {"locked-blocks-retreat": 4},
    # The same former server setting as stored in the options of duels started before
    # migration 0007 and repeated in their published rounds: read (typed) so that those
    # rounds re-adjudicate alike; nothing writes it any more.
    "bot/services/published.py": {"locked-blocks-retreat": 1},
}
#: Empty since issue 24 (the shared lock left the schema, the views, the exports and the
#: command line: rule 2.14's short `adjudicate`/`verify` shape is its ``ShortAdjudication``).
TEMPORARY_WORD_ALLOWANCE: dict[str, dict[str, int]] = {}


def _word_tokens(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, name) of every name and whole string in ``tree`` that is a ruleset's word."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            names = [node.value]
        elif isinstance(node, ast.Name):
            names = [node.id]
        elif isinstance(node, ast.Attribute):
            names = [node.attr]
        elif isinstance(node, ast.arg | ast.keyword):
            names = [node.arg] if node.arg else []
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names = [node.name]
        found += [(getattr(node, "lineno", 0), n) for n in names if n in RULESET_WORD_TOKENS]
    return found


def ruleset_word_mentions(root: Path) -> dict[str, dict[str, int]]:
    """{file: {concept: lines}} of the modules of ``root``/bot outside the ruleset
    packages that name a ruleset's concept (the rule: test_ruleset_words_stay_in_their_package)."""
    found: dict[str, dict[str, int]] = {}
    rules = root / "bot" / "rules"
    for path in sorted((root / "bot").rglob("*.py")):
        if any(path.is_relative_to(rules / package) for package in RULESET_PACKAGES):
            continue
        rel = path.relative_to(root).as_posix()
        source = path.read_text(encoding="utf-8")
        lines: dict[str, set[int]] = {}
        for number, line in enumerate(source.splitlines(), 1):
            for _package, concept, pattern in RULESET_WORDS:
                if concept == "challenge" and rel in PRE_DUEL_COMMAND_FILES:
                    continue
                if pattern.search(line):
                    lines.setdefault(concept, set()).add(number)
        for number, name in _word_tokens(ast.parse(source, filename=str(path))):
            if rel.startswith(DISCORD_THREAD_FILES) and name == "locked":
                continue
            lines.setdefault(RULESET_WORD_TOKENS[name][1], set()).add(number)
        if lines:
            found[rel] = {concept: len(numbers) for concept, numbers in sorted(lines.items())}
    return found


def new_ruleset_word_offenders(found: dict[str, dict[str, int]]) -> list[str]:
    offenders = []
    for file, concepts in found.items():
        for concept, count in concepts.items():
            allowed = RULESET_WORD_ALLOWANCE.get(file, {}).get(concept, 0) + (
                TEMPORARY_WORD_ALLOWANCE.get(file, {}).get(concept, 0)
            )
            if count > allowed:
                offenders.append(
                    f"{file} names {concept!r} on {count} line(s) (allowed: {allowed}): move "
                    "it into the ruleset's package, or ask the ruleset (its words, a capability)"
                )
    return offenders


def test_ruleset_words_stay_in_their_package() -> None:
    """Nothing outside a ruleset's package names the ruleset's concepts (issue 24).

    The words, in every module of bot/ outside bot/rules/<ruleset package>/ (code, strings,
    comments and docstrings alike; the tests of a ruleset may name it):

    - rule 2.14: the lock in the combat sense ("locked in combat", "combat lock", "lock
      attempt"; the names and whole strings ``locked``, ``is_locked``, ``locked_after``),
      STR and AGI ("strength", "agility", upper-case STR/AGI, ``a_str``/``b-agi`` and the
      name or string ``agi``), locked-blocks-retreat (``-``, ``_`` or space between);
    - By This Axe: its challenge (any word beginning "challeng") and what a refusal costs
      ("leader", "leadership", ``leadership_lost``).

    The precise rule: a line of a module counts for a concept when one of the concept's
    patterns (RULESET_WORDS) matches it, or when a name or whole string on it is one of
    RULESET_WORD_TOKENS; a module may have as many such lines per concept as
    RULESET_WORD_ALLOWANCE (standing, with its reason) plus TEMPORARY_WORD_ALLOWANCE (work
    of another branch, to empty) allow, else none. Exempt: every ruleset package (each
    speaks its own language, and two games may share a word: FoEQ's duel also opens with a
    challenge); "challenge" in PRE_DUEL_COMMAND_FILES, the generic `/duel challenge` of the
    pre-duel capability; ``locked`` in bot/standin/ (a Discord thread is locked). A DB
    row lock ("row-locked", ``lock=True``, ``skip_locked``) and a move "locked in" for the
    round are no ruleset's word and match nothing here.
    """
    assert new_ruleset_word_offenders(ruleset_word_mentions(ROOT)) == []


def test_every_word_allowance_is_still_needed() -> None:
    """An allowance larger than what is left would hide a new offender: keep them exact."""
    found = ruleset_word_mentions(ROOT)
    for allowance in (RULESET_WORD_ALLOWANCE, TEMPORARY_WORD_ALLOWANCE):
        for file, concepts in allowance.items():
            for concept, count in concepts.items():
                assert found.get(file, {}).get(concept, 0) >= count, (file, concept)


def test_the_word_check_catches_each_concept(tmp_path: Path) -> None:
    (tmp_path / "bot" / "rules" / "rule_2_14").mkdir(parents=True)
    (tmp_path / "bot" / "rules" / "rule_2_14" / "x.py").write_text(
        'LOCKED = "locked"  # locked in combat: STR and AGI\n'
    )
    sneaky = tmp_path / "bot" / "services" / "new.py"
    sneaky.parent.mkdir(parents=True)
    sneaky.write_text(
        "# the duellists are Locked in Combat\n"
        "def f(duel, row):\n"
        "    row.strength = duel.a_str\n"
        '    return {"locked": duel.is_locked, "agi": 3}\n'
        "OPTION = 'locked_blocks_retreat'\n"
        "LEFT = 'leadership_lost'  # after a challenge\n"
        "ROW = query(lock=True, skip_locked=True)  # row-locked; a move locked in for the round\n"
    )
    pre_duel = tmp_path / "bot" / "services" / "challenges.py"
    pre_duel.write_text('"""/duel challenge for any ruleset."""\nLEADER = "a leader refuses"\n')
    standin = tmp_path / "bot" / "standin" / "models.py"
    standin.parent.mkdir(parents=True)
    standin.write_text("class Thread:\n    locked: bool = False\n")
    found = ruleset_word_mentions(tmp_path)
    assert found == {
        "bot/services/challenges.py": {"leadership": 1},
        "bot/services/new.py": {
            "STR/AGI": 2,
            "challenge": 1,
            "leadership": 1,
            "lock": 2,
            "locked-blocks-retreat": 1,
        },
    }
    assert len(new_ruleset_word_offenders(found)) == 6


# -- the Discord stand-in is a separate package (issue 16) ----------------------------

#: Who may import bot.standin: the stand-in itself and the sandbox that runs it. The bot's
#: layers never do (cli.py reaches the sandbox only through its lazy import of bot.sandbox).
STANDIN_USERS = ("bot/standin", "bot/sandbox")


def standin_violations(root: Path) -> list[str]:
    """Imports of bot.standin from outside STANDIN_USERS, and imports of the bot's own
    layers from inside the stand-in (it speaks Discord's protocol, it knows no duel)."""
    bad = []
    for path in sorted((root / "bot").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        names = imports_of_under(path, root)
        if rel.startswith("bot/standin/"):
            bad += [
                f"{rel} imports {name}"
                for name in sorted(names)
                if name.startswith("bot.") and not name.startswith("bot.standin")
            ]
        elif not rel.startswith(tuple(f"{user}/" for user in STANDIN_USERS)):
            bad += [
                f"{rel} imports {name}"
                for name in sorted(names)
                if name == "bot.standin" or name.startswith("bot.standin.")
            ]
    return bad


def imports_of_under(path: Path, root: Path) -> set[str]:
    """imports_of with relative imports resolved against ``root``."""
    old = globals()["ROOT"]
    globals()["ROOT"] = root
    try:
        return imports_of(path)
    finally:
        globals()["ROOT"] = old


def test_only_the_sandbox_imports_the_standin() -> None:
    assert list((BOT / "standin").rglob("*.py")), "bot/standin has no modules?"
    assert standin_violations(ROOT) == []


def test_the_standin_check_catches_both_directions(tmp_path: Path) -> None:
    for rel, source in (
        ("bot/discord/sneaky.py", "from bot.standin import FakeDiscord\n"),
        ("bot/cli.py", "def f():\n    import bot.standin.server\n"),
        ("bot/standin/server.py", "from ..services import Services\nfrom . import models\n"),
        ("bot/sandbox/app.py", "from bot.standin import FakeDiscord\n"),
    ):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(source)
    assert standin_violations(tmp_path) == [
        "bot/cli.py imports bot.standin.server",
        "bot/discord/sneaky.py imports bot.standin",
        "bot/discord/sneaky.py imports bot.standin.FakeDiscord",
        "bot/standin/server.py imports bot.services",
        "bot/standin/server.py imports bot.services.Services",
    ]
