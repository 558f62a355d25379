"""The inline-text scan (issue 28; the rules: tests/i18n/test_inline_texts.py): every string
literal in the packages that write what members see, and every constant part of an
f-string there, that looks like text a person reads, unless it goes through the catalog or
truly never reaches a member.

A literal looks like text when, its ``{field}`` placeholders removed, it holds two words of
two or more letters separated by spaces on one line, or it is one capitalized word
(``Round``, ``Evade.``). An f-string is judged on its constant parts joined, its fields
removed (``f"Duel #{n} has ended"`` is ``"Duel # has ended"``).

Not reported:

- docstrings (and any other string that stands alone as a statement: attribute docs);
- the positional arguments of ``_``, ``_n``, ``_p``, ``N_``, ``translate``,
  ``translate_in``, ``translate_plural`` (the English msgids; a keyword argument is a
  field's value, and a literal text there is an untranslated text glued into a sentence);
- every argument of a call on a logger: ``log.*``, ``logger.*``, ``logging.*`` (also
  ``self.log.*``, ``logging.getLogger(...).*``) and ``warnings.warn``;
- the slash commands' own texts, which discord.py hands to the catalog translator
  (bot/discord/translator.py) and ``make catalogs`` extracts (bot/i18n/extraction.py):
  ``name=`` and ``description=`` of ``command``/``Command``/``Group``, the values of
  ``describe(...)`` and ``rename(...)``, ``Choice(name=...)``; and type annotations (a
  command's ``Literal[...]`` choices among them);
- the names in ``__all__`` and ``__slots__``;
- any literal on a line whose comment says ``# i18n: not shown`` (a multi-line literal:
  on any of its lines), for texts that never reach a member.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

#: The packages whose texts members read (relative to the repository's root).
SCANNED = ("bot/discord", "bot/presentation", "bot/archive")

TWO_WORDS = re.compile(r"[A-Za-z]{2,}[^\S\n]+[A-Za-z]{2,}")
CAPITALIZED_WORD = re.compile(r"^[A-Z][a-z]{2,}[.!?:]?$")
PLACEHOLDER = re.compile(r"\{[^{}]*\}")
NOT_SHOWN = re.compile(r"#.*\bi18n:\s*not shown\b")

#: The translation functions: their positional arguments are msgids.
MARKERS = frozenset({"_", "_n", "_p", "N_", "translate", "translate_in", "translate_plural"})
#: Names a logger goes by: ``log.warning(...)``, ``self.logger.info(...)``, ``logging.x``.
LOGGERS = frozenset({"log", "logger", "logging", "_log", "_logger", "LOG", "LOGGER"})
#: discord.py's declarations whose ``name=``/``description=`` are a command's texts.
DECLARING = frozenset({"command", "Command", "Group", "ContextMenu", "context_menu"})


@dataclass(frozen=True, order=True)
class Finding:
    path: str
    line: int
    #: The literal as Python writes it: ``'Round closed.'``, ``f'Duel #{duel_id} ended.'``.
    literal: str

    def __str__(self) -> str:
        shown = self.literal if len(self.literal) <= 160 else self.literal[:157] + "..."
        return f"{self.path}:{self.line}: {shown}"


def looks_like_text(text: str) -> bool:
    bare = PLACEHOLDER.sub("", text)
    return bool(TWO_WORDS.search(bare) or CAPITALIZED_WORD.match(bare.strip()))


def _called_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _is_logger(node: ast.expr) -> bool:
    """``node`` (what a method is called on) is a logger or the logging module."""
    if isinstance(node, ast.Name):
        return node.id in LOGGERS
    if isinstance(node, ast.Attribute):
        return node.attr in LOGGERS
    if isinstance(node, ast.Call):  # logging.getLogger(__name__).warning(...)
        return _called_name(node) == "getLogger"
    return False


def _is_log_call(call: ast.Call) -> bool:
    func = call.func
    if not isinstance(func, ast.Attribute):
        return False
    if _is_logger(func.value):
        return True
    return func.attr == "warn" and isinstance(func.value, ast.Name) and func.value.id == "warnings"


def _not_shown_lines(source: str) -> set[int]:
    lines = set()
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    for token in tokens:
        if token.type == tokenize.COMMENT and NOT_SHOWN.search(token.string):
            lines.add(token.start[0])
    return lines


class _Scanner(ast.NodeVisitor):
    def __init__(self, path: str, not_shown: set[int]) -> None:
        self.path = path
        self.not_shown = not_shown
        self.findings: list[Finding] = []

    # -- what is reported ------------------------------------------------------------

    def _report(self, node: ast.expr, text: str) -> None:
        end = node.end_lineno or node.lineno
        if any(line in self.not_shown for line in range(node.lineno, end + 1)):
            return
        if looks_like_text(text):
            literal = ast.unparse(node) if isinstance(node, ast.JoinedStr) else repr(text)
            self.findings.append(Finding(self.path, node.lineno, literal))

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str):
            self._report(node, node.value)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        parts = [
            value.value
            for value in node.values
            if isinstance(value, ast.Constant) and isinstance(value.value, str)
        ]
        self._report(node, "".join(parts))
        for value in node.values:  # the fields' expressions (not their format specs)
            if isinstance(value, ast.FormattedValue):
                self.visit(value.value)

    # -- what is not -----------------------------------------------------------------

    def visit_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant | ast.JoinedStr):
            return  # a docstring, or an attribute's: a string standing alone does nothing
        self.visit(node.value)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for expression in [*node.decorator_list, *node.bases]:
            self.visit(expression)
        for keyword in node.keywords:  # class Duel(app_commands.Group, name=..., ...)
            if keyword.arg not in ("name", "description"):
                self.visit(keyword.value)
        for statement in node.body:
            self.visit(statement)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for decorator in node.decorator_list:
            self.visit(decorator)
        arguments = node.args
        for default in [*arguments.defaults, *arguments.kw_defaults]:
            if default is not None:
                self.visit(default)
        for statement in node.body:  # not the annotations: types, a command's choices
            self.visit(statement)

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.visit(node.target)
        if node.value is not None:
            self.visit(node.value)

    def visit_Assign(self, node: ast.Assign) -> None:
        if any(isinstance(t, ast.Name) and t.id in ("__all__", "__slots__") for t in node.targets):
            return
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        called = _called_name(node)
        if _is_log_call(node):
            self.visit(node.func)
            return
        if called in MARKERS:
            self.visit(node.func)
            for keyword in node.keywords:
                self.visit(keyword.value)
            return
        self.visit(node.func)
        for argument in node.args:
            self.visit(argument)
        for keyword in node.keywords:
            if called in DECLARING and keyword.arg in ("name", "description"):
                continue
            if called in ("describe", "rename"):
                continue
            if called == "Choice" and keyword.arg == "name":
                continue
            self.visit(keyword.value)


def scan_source(source: str, path: str) -> list[Finding]:
    """The inline texts of one module's ``source``; ``path`` names it in the findings."""
    scanner = _Scanner(path, _not_shown_lines(source))
    scanner.visit(ast.parse(source, filename=path))
    return sorted(scanner.findings)


def python_files(root: Path, packages: Iterable[str] = SCANNED) -> Iterator[Path]:
    for package in packages:
        yield from sorted((root / package).rglob("*.py"))


def scan(root: Path, packages: Iterable[str] = SCANNED) -> list[Finding]:
    """Every inline text in ``packages`` of the repository at ``root``."""
    findings: list[Finding] = []
    for path in python_files(root, packages):
        relative = path.relative_to(root).as_posix()
        findings += scan_source(path.read_text(encoding="utf-8"), relative)
    return sorted(findings)


def report(findings: list[Finding]) -> str:
    """The findings as the test's failure message: file:line and the text, one a line."""
    by_file: dict[str, int] = {}
    for finding in findings:
        by_file[finding.path] = by_file.get(finding.path, 0) + 1
    summary = ", ".join(f"{path} {count}" for path, count in sorted(by_file.items()))
    return (
        f"{len(findings)} inline text(s) a member may see, not through the catalog "
        "(docs/translating.md, 'For developers'): write each with _(), _n(), _p() or N_(), "
        "or end its line with '# i18n: not shown' when it never reaches a member.\n"
        f"Per file: {summary}\n" + "\n".join(map(str, findings))
    )
