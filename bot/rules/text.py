"""A ruleset's texts in the reader's language (issue 28), with no I/O in the rules.

Each ruleset's package carries the catalog of its own words and sentences
(``<package>/locales/<language>/LC_MESSAGES/duelbot.po``, docs/translating.md) and writes
its texts with a ``RulesetText`` of its own package:

    _ = RulesetText(__package__)          # in the ruleset's package, e.g. its texts.py
    _("{attacker} strikes {defender}.", attacker=a, defender=b)

The rules engine reads no file and knows no language: the lookup is injected, like the
dice's RNG. bot/i18n installs one at import of ``bot`` (bot/__init__.py) that reads the
package's catalog in the language of the scope being written (bot/i18n/context.py); until
then, and for any text the catalog lacks, the English text is the text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar

T = TypeVar("T")


class TextLookup(Protocol):
    """Finds a ruleset package's translation in the current language; None: English."""

    def language(self) -> str:
        """The language texts are being written in now: what ``per_language`` keeps its
        results by (the rules never read it otherwise)."""
        ...

    def text(self, package: str, context: str | None, msgid: str) -> str | None: ...

    def plural(self, package: str, singular: str, plural: str, count: int) -> str | None: ...


class _English:
    def language(self) -> str:
        return ""

    def text(self, package: str, context: str | None, msgid: str) -> str | None:
        return None

    def plural(self, package: str, singular: str, plural: str, count: int) -> str | None:
        return None


_installed: list[TextLookup] = [_English()]
# What ``per_language`` kept; emptied whenever another lookup is installed.
_kept: list[dict[tuple[int, str], Any]] = []


def install_lookup(lookup: TextLookup) -> Callable[[], None]:
    """Use ``lookup`` for every ruleset's texts from now on; returns the undo."""
    previous = _installed[0]
    _installed[0] = lookup
    _forget_kept()

    def undo() -> None:
        _installed[0] = previous
        _forget_kept()

    return undo


def _forget_kept() -> None:
    for kept in _kept:
        kept.clear()


def per_language(make: Callable[[], T]) -> Callable[[], T]:
    """``make`` (no arguments, its result a function of the language alone: immutable
    declarations such as a ruleset's words or its moves' labels) built once per language
    and kept. Built at every read, these cost a move dozens of catalog lookups
    (issue 27, docs/benchmarks.md)."""
    kept: dict[tuple[int, str], T] = {}
    _kept.append(kept)

    def made() -> T:
        lookup = _installed[0]
        key = (id(lookup), lookup.language())
        found = kept.get(key)
        if found is None:
            found = kept[key] = make()
        return found

    return made


class RulesetText:
    """The translation functions of one ruleset package: ``_(msgid, **fields)``,
    ``_.plural(singular, plural, count, **fields)`` and ``_.context(ctx, msgid, **fields)``
    (``pybabel extract`` finds ``_``, ``_n`` and ``_p`` calls: bind them under those
    names)."""

    __slots__ = ("package",)

    def __init__(self, package: str | None) -> None:
        if not package:
            raise ValueError("RulesetText needs the ruleset's package name (__package__)")
        self.package = package

    def __call__(self, msgid: str, /, **fields: object) -> str:
        return (_installed[0].text(self.package, None, msgid) or msgid).format_map(fields)

    def plural(self, singular: str, plural: str, count: int, /, **fields: object) -> str:
        found = _installed[0].plural(self.package, singular, plural, count)
        text = found or (singular if count == 1 else plural)
        return text.format_map({"count": count, **fields})

    def context(self, context: str, msgid: str, /, **fields: object) -> str:
        return (_installed[0].text(self.package, context, msgid) or msgid).format_map(fields)

    def raw(self, msgid: str) -> str:
        """``msgid``'s translation unformatted (a template filled in later, such as an
        outcome's ``{a} wins the duel``)."""
        return _installed[0].text(self.package, None, msgid) or msgid


def NP_(context: str, msgid: str) -> str:
    """Mark a text of a declaration with its context, as ``N_`` does without one: a name
    a ruleset gives the slash commands (an option's, a `/config` alias's) is marked
    ``NP_("command name", "str")`` and found in the package's catalog by the command
    tree's translator. Returns ``msgid`` unchanged."""
    return msgid


def N_(msgid: str) -> str:
    """Mark a literal of a ruleset package for ``pybabel extract`` without translating it:
    a module constant (a move's label, a sheet field's help), translated where it is read
    with the package's ``_(CONSTANT)``. Returns ``msgid`` unchanged."""
    return msgid


class Localized(Generic[T]):
    """A class attribute of a ruleset in the reader's language:
    ``title = Localized(lambda: _("Rule 2.14 Duelling"))``. The language is the scope of
    the code that reads it (bot/i18n/context.py), so a ruleset's words are never frozen in
    the language of whoever imported it first; each language's value is built once
    (``per_language``)."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], T]) -> None:
        # once per language (``per_language``): the same words for every read in it
        self.make = per_language(make)

    def __get__(self, obj: object, owner: Any = None) -> T:
        return self.make()
