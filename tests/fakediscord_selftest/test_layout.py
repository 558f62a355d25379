"""The stand-in's layout (issue 25): no bot/standin module over MAX_LINES lines, no import
cycle among its modules, and no import inside a function (they hide cycles).

The import graph is read from the source (ast), not from sys.modules: every import at module
level counts, ``if TYPE_CHECKING:`` ones included, since a cycle there is still a cycle in the
design (and mypy's)."""

from __future__ import annotations

import ast
from pathlib import Path

STANDIN = Path(__file__).resolve().parents[2] / "bot" / "standin"
PACKAGE = "bot.standin"
MAX_LINES = 600


def module_name(path: Path, package_dir: Path = STANDIN, package: str = PACKAGE) -> str:
    rel = path.relative_to(package_dir).with_suffix("")
    parts = [p for p in rel.parts if p != "__init__"]
    return ".".join([package, *parts])


def _resolve(importer: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module an ``from ... import`` names (before its imported names)."""
    if node.level == 0:
        return node.module or ""
    base = importer.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _module_level_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Imports outside any def/class body: at the top, or under if/try at module level."""
    found: list[ast.Import | ast.ImportFrom] = []
    todo: list[ast.stmt] = list(tree.body)
    while todo:
        stmt = todo.pop()
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            found.append(stmt)
        elif isinstance(stmt, ast.If | ast.Try | ast.With):
            for block in ("body", "orelse", "finalbody", "handlers"):
                for child in getattr(stmt, block, []):
                    todo.extend(child.body if isinstance(child, ast.ExceptHandler) else [child])
    return found


def import_graph(package_dir: Path = STANDIN, package: str = PACKAGE) -> dict[str, set[str]]:
    """module -> the package's modules it imports at module level."""
    files = {module_name(p, package_dir, package): p for p in package_dir.rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        is_package = path.name == "__init__.py"
        for node in _module_level_imports(tree):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = _resolve(name, is_package, node)
                # "from . import forum" imports the module forum; "from .models import X",
                # the module models.
                targets = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in files]
                targets = targets or [base]
            graph[name].update(t for t in targets if t in files and t != name)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as [a, b, ..., a], or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)) is not None:
                return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (cycle := visit(start)) is not None:
            return cycle
    return None


def function_level_imports(package_dir: Path = STANDIN) -> list[str]:
    out: list[str] = []
    for path in sorted(package_dir.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.Import | ast.ImportFrom):
                    out.append(f"{path.relative_to(package_dir)}:{node.lineno}")
    return sorted(set(out))


def test_no_standin_module_is_over_the_limit() -> None:
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in STANDIN.rglob("*.py")}
    assert sizes, "bot/standin has no modules?"
    assert {name: n for name, n in sizes.items() if n > MAX_LINES} == {}


def test_the_standin_has_no_import_cycle() -> None:
    graph = import_graph()
    assert graph[f"{PACKAGE}.server"], "the graph reader found no imports at all?"
    assert find_cycle(graph) is None


def test_the_standin_has_no_function_level_import() -> None:
    assert function_level_imports() == []


def test_the_cycle_check_catches_cycles(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .a import A\n")
    (pkg / "a.py").write_text("from . import b\nA = 1\n")
    # a cycle through an ``if TYPE_CHECKING:`` import counts
    (pkg / "b.py").write_text("import typing\nif typing.TYPE_CHECKING:\n    from .c import C\n")
    (pkg / "c.py").write_text("from .a import A\nC = 2\n")
    (pkg / "d.py").write_text("def f() -> None:\n    from . import a\n")
    graph = import_graph(pkg, "pkg")
    assert graph["pkg"] == {"pkg.a"}
    assert find_cycle(graph) == ["pkg.a", "pkg.b", "pkg.c", "pkg.a"]
    (pkg / "c.py").write_text("C = 2\n")
    assert find_cycle(import_graph(pkg, "pkg")) is None
    assert function_level_imports(pkg) == ["d.py:2"]
