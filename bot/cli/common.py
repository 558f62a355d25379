"""What every `duelbot` subcommand shares: exit codes, one-line input errors, the JSON
readers that name the field at fault, the database (through bot/bootstrap.py) and the lazy
loading of commands implemented elsewhere.

Bad input never produces a traceback: one line on stderr naming the field and what is
allowed, and exit code 2.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import inspect
import json
import sys
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

from bot.exports.verify import HOSTILE_ERRORS
from bot.rules.dice import parse_seed
from bot.rules.errors import RulesError

if TYPE_CHECKING:
    from bot.services.container import Services

PROG = "duelbot"
EXIT_OK = 0
EXIT_NOT_VERIFIED = 1
EXIT_BAD_INPUT = 2

T = TypeVar("T")


class InputError(Exception):
    """Bad command-line input; the message is one line naming the field."""


class NotAvailable(Exception):
    """A subcommand whose implementing module does not exist yet."""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see {self.prog} --help)\n")



def _describe(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 40 else text[:40] + "…"


def read_json(source: str) -> Any:
    """JSON from a file path, or from stdin for '-'."""
    try:
        if source == "-":
            text = sys.stdin.read()
            where = "stdin"
        else:
            with open(source, encoding="utf-8") as handle:
                text = handle.read()
            where = source
    except OSError as exc:
        raise InputError(f"cannot read {source}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise InputError(f"{source} is not UTF-8 text") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{where} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except ValueError as exc:  # an integer of more than 4300 digits
        raise InputError(f"{where} is not usable JSON: {exc}") from None
    except RecursionError:
        raise InputError(f"{where} is not usable JSON: nested too deeply") from None
    try:  # a lone surrogate escape (\ud800) is not text and cannot be printed
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(f"{where} holds a lone surrogate (\\udXXX escape), not text") from None
    except RecursionError:  # pragma: no cover - json.loads refuses deeper input first
        raise InputError(f"{where} is not usable JSON: nested too deeply") from None
    return data


@contextmanager
def _hostile(where: str) -> Iterator[None]:
    """Ruleset code run on a pasted round may meet what it was not written for (a state of
    the wrong shape, 1e400): one line naming ``where``, exit 2, never a traceback."""
    try:
        yield
    except HOSTILE_ERRORS as exc:
        raise InputError(f"{where}: cannot be read ({type(exc).__name__}: {exc})") from None


def _object(value: Any, field: str, allowed: Sequence[str]) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise InputError(f"{field} must be a JSON object with keys {', '.join(allowed)}")
    unknown = sorted(set(value) - set(allowed))
    if unknown:
        raise InputError(
            f"{field} has unknown key(s) {', '.join(unknown)}; allowed: {', '.join(allowed)}"
        )
    return value


def _require(data: Mapping[str, Any], key: str, field: str) -> Any:
    if key not in data:
        raise InputError(f"{field}{key} is missing")
    return data[key]


def _int(value: Any, field: str, *, minimum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{field} must be a whole number, not {_describe(value)}")
    if minimum is not None and value < minimum:
        raise InputError(f"{field} must be at least {minimum}, not {value}")
    return value


def _bool(value: Any, field: str) -> bool:
    if not isinstance(value, bool):
        raise InputError(f"{field} must be true or false, not {_describe(value)}")
    return value


def _seed(value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise InputError(f"{field} must be a string of 64 hexadecimal characters")
    try:
        parse_seed(value)
    except RulesError:
        raise InputError(
            f"{field} must be 64 hexadecimal characters (32 bytes), not {_describe(value)}"
        ) from None
    return value.strip().lower()



def _with_services(args: argparse.Namespace, use: Callable[[Services], Awaitable[T]]) -> T:
    """Run ``use(services)`` against the bot's database (config file or
    DUELBOT_DATABASE_URL), disposed afterwards; a config, database or domain error becomes
    one line on stderr and exit 2."""
    # A measured start-up saving (issue 25): bot.bootstrap and the database errors load
    # SQLAlchemy, aiosqlite and every service, 0.86-1.3 s (median 1.2 s, 5 runs) on top of
    # the 0.6 s import of bot.cli on the benchmark machine; only the subcommands that read
    # the database pay for it, never `verify FILE`, `adjudicate`, `odds` or `seed`.
    from bot.bootstrap import ConfigError, load_settings, open_services
    from bot.db.engine import DatabaseUnavailable
    from bot.services.errors import DomainError, Unavailable

    async def run() -> T:
        async with open_services(load_settings(args.config)) as services:
            return await use(services)

    try:
        return asyncio.run(run())
    except (ConfigError, DatabaseUnavailable) as exc:
        raise InputError(str(exc)) from None
    except Unavailable as exc:
        raise InputError(exc.detail) from None
    except DomainError as exc:
        raise InputError(exc.message) from None


# -- commands implemented elsewhere, imported when they run ------------------------------


def _lazy(module: str, attr: str, command: str) -> Callable[..., Any]:
    """``module.attr``, imported only when the command runs."""
    try:
        loaded = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if missing and (module == missing or module.startswith(missing + ".")):
            raise NotAvailable(
                f"'{PROG} {command}' is not available yet ({module} does not exist)"
            ) from None
        raise InputError(
            f"'{PROG} {command}' needs the module {missing!r}, which is not installed "
            "(run: make install)"
        ) from None
    func = getattr(loaded, attr, None)
    if not callable(func):
        raise NotAvailable(
            f"'{PROG} {command}' is not available yet ({module}.{attr} does not exist)"
        )
    return func  # type: ignore[no-any-return]


def _finish(value: Any) -> int:
    """The exit code of a command implemented elsewhere (awaited first if it is async)."""
    if inspect.isawaitable(value):
        value = asyncio.run(_await(value))
    if value is None or value is True:
        return EXIT_OK
    if value is False:
        return 1
    return value if isinstance(value, int) else EXIT_OK


async def _await(awaitable: Awaitable[Any]) -> Any:
    return await awaitable
