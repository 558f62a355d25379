"""The shape of the imports (issue 25): what the pure commands load, import cycles among
bot's modules, imports inside functions, and the size of a module."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.test_layering import imported_names

ROOT = Path(__file__).resolve().parents[1]
BOT = ROOT / "bot"

#: The heavy dependencies the pure layers and commands must not load at import.
HEAVY = ("sqlalchemy", "aiosqlite", "asyncpg", "discord")
#: What `duelbot verify FILE`, `adjudicate` and `odds` import, and the pure packages.
LIGHT_MODULES = (
    "bot.rules",
    "bot.presentation",
    "bot.exports.verify",
    "bot.cli.verify",
    "bot.cli.adjudicate",
    "bot.cli.odds",
    "bot.cli",
    # The catalogs (issue 28): every layer translates, the pure commands included.
    "bot.i18n.translate",
    "bot.i18n.choice",
    "bot.i18n.check",
    "bot.i18n.extraction",
)

#: Import cycles left, each named by its sorted modules. None: keep it so (the rules' base
#: no longer imports the registry, issue 24).
KNOWN_CYCLES: frozenset[tuple[str, ...]] = frozenset()

#: Modules over MAX_LINES, each with its reason. Keep it minimal.
MAX_LINES = 600
OVERSIZED: set[str] = set()

#: Package __init__ files that still import their package's modules. Everything else holds
#: no wiring (issue 25): importing one module must not import its siblings.
WIRING_INITS = {
    "bot/cli/__init__.py",  # `duelbot = "bot.cli:main"` (pyproject.toml) names it here
    "bot/standin/__init__.py",  # the stand-in's public API (tests import the package)
}


def test_the_pure_commands_load_no_database_and_no_discord() -> None:
    code = (
        "import importlib, sys\n"
        f"for name in {LIGHT_MODULES!r}:\n"
        "    importlib.import_module(name)\n"
        f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == []


def _module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _module_level_imports(path: Path, root: Path, modules: set[str]) -> set[str]:
    """The bot modules ``path`` imports when it is imported: module-level statements (not
    inside a function, not under ``if TYPE_CHECKING``), ``from p import m`` naming a
    submodule counted as importing it, and every parent package of what is imported, except
    the module's own parent packages (always initialised before it, whatever it imports)."""
    me = _module_name(path, root)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = me.split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Import | ast.ImportFrom):
                found.update(imported_names(node, package))
            elif isinstance(node, ast.If):
                test = node.test
                if not (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"):
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)
                visit(node.orelse)
                visit(node.finalbody)

    visit(tree.body)
    edges: set[str] = set()
    for name in found:
        parts = name.split(".")
        for end in range(1, len(parts) + 1):
            candidate = ".".join(parts[:end])
            if candidate in modules:
                edges.add(candidate)
    parts = me.split(".")
    own_packages = {".".join(parts[:end]) for end in range(1, len(parts) + 1)}
    return edges - own_packages


def import_graph(root: Path) -> dict[str, set[str]]:
    """Each bot module's module-level imports of other bot modules."""
    paths = {_module_name(p, root): p for p in sorted((root / "bot").rglob("*.py"))}
    return {
        name: _module_level_imports(path, root, set(paths)) for name, path in paths.items()
    }


def import_cycles(graph: dict[str, set[str]]) -> set[tuple[str, ...]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[tuple[str, ...]] = set()
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(graph) + 100))

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.add(tuple(sorted(component)))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def test_no_import_cycle_among_bot_modules() -> None:
    assert sorted(import_cycles(import_graph(ROOT)) - KNOWN_CYCLES) == []


def test_the_cycle_check_sees_module_level_imports_only(tmp_path: Path) -> None:
    for rel, source in (
        ("bot/__init__.py", ""),
        ("bot/services/__init__.py", "from bot.services.duels import DuelService\n"),
        ("bot/services/duels.py", "from bot.services import ratings\n"),
        ("bot/services/ratings.py", "from . import duels\ndef f():\n    import bot.plain\n"),
        ("bot/plain.py", "import bot.services.duels\n"),
        ("bot/services/plain.py", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                  "    from bot.services import duels\n"),
    ):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(source)
    assert import_cycles(import_graph(tmp_path)) == {
        ("bot.services.duels", "bot.services.ratings")
    }


def test_no_module_over_600_lines() -> None:
    over = {
        str(path.relative_to(ROOT)): length
        for path in sorted(BOT.rglob("*.py"))
        if (length := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert {path: n for path, n in over.items() if path not in OVERSIZED} == {}
    assert sorted(OVERSIZED - set(over)) == [], "an exception is no longer needed: remove it"


def test_package_inits_hold_no_wiring() -> None:
    graph = import_graph(ROOT)
    wiring = {
        str(path.relative_to(ROOT))
        for path in sorted(BOT.rglob("__init__.py"))
        if graph[_module_name(path)]
    }
    assert sorted(wiring - WIRING_INITS) == []
    assert sorted(WIRING_INITS - wiring) == [], "an exception is no longer needed: remove it"


#: Where an import inside a function is allowed without a stated saving: the command-line
#: entry points, which import a subcommand's modules only when it runs (docs/architecture.md).
ENTRY_POINTS = ("bot/cli/", "bot/__main__.py")
#: What a function-level import elsewhere must say next to it (on its line or the line
#: above): the start-up time it saves, measured.
SAVING_NOTE = "start-up"


def function_level_imports(root: Path) -> list[str]:
    """``path:line`` of each import inside a function of ``root``/bot, outside the entry
    points, with no comment stating its start-up saving on its line or the line above
    (``if TYPE_CHECKING`` blocks import nothing at run time and are not counted)."""
    found: list[str] = []
    for path in sorted((root / "bot").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith(ENTRY_POINTS):
            continue
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        for function in ast.walk(ast.parse(source, filename=rel)):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                if not isinstance(node, ast.Import | ast.ImportFrom):
                    continue
                nearby = " ".join(lines[max(0, node.lineno - 2) : node.lineno])
                if "#" not in nearby or SAVING_NOTE not in nearby:
                    found.append(f"{rel}:{node.lineno}")
    return found


def test_no_function_level_import_outside_the_entry_points() -> None:
    assert function_level_imports(ROOT) == []


def test_the_function_level_import_check_sees_a_stray_import(tmp_path: Path) -> None:
    for rel, source in (
        ("bot/rules/base.py", "def get():\n    from bot.rules import registry\n"),
        ("bot/cli/odds.py", "def main():\n    import bot.rules.registry\n"),
        ("bot/services/x.py", "async def f():\n    # start-up: 80 ms less for `duelbot verify`\n"
                              "    import sqlalchemy\n"),
        ("bot/services/y.py", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                              "    import sqlalchemy\n"),
    ):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(source)
    assert function_level_imports(tmp_path) == ["bot/rules/base.py:2"]
