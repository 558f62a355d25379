"""Statements of the move's hot path, compiled once and run straight on duelbot's own SQLite
connection.

Why: a move runs four short statements on the lane's connection (bot/db/sqlite_thread.py).
Through SQLAlchemy's ``Connection.execute`` each pays for an execution context, its
parameter and result objects and the compiled-cache lookup: profiled, about as much CPU as
sqlite3's own work on these statements (docs/benchmarks.md, issue 25). A :class:`Prepared`
is one constant Core statement of bot/db/queries.py (the SQL stays written once, there),
compiled once for the connection's dialect with public SQLAlchemy API; on SQLite it is
executed on the driver's sqlite3 connection with the column types' own bind and result
processors (the same conversions SQLAlchemy applies), on any other connection (PostgreSQL)
through ``Connection.execute`` as before.

Only statements with every parameter named (``bindparam``) or constant fit, and an INSERT
names each column it writes (no Python-side default is filled in here).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Dialect
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler

from bot.db.sqlite_thread import LentConnection

_Processor = Callable[[Any], Any] | None


@dataclass(frozen=True, slots=True)
class _Compiled:
    sql: str
    # each parameter in the SQL's order: (None, None, the constant's bound value) for a
    # value the statement holds (``status == "open"``), else (name, its processor, None)
    params: tuple[tuple[str | None, _Processor, Any], ...]
    results: tuple[_Processor, ...]  # each result column's processor
    returns_rows: bool


class Prepared:
    """One constant statement; :meth:`rows` runs it (see the module's doc)."""

    __slots__ = ("_by_dialect", "_column_keys", "statement")

    def __init__(self, statement: ClauseElement, column_keys: Sequence[str] | None = None):
        self.statement = statement
        self._column_keys = list(column_keys) if column_keys is not None else None
        self._by_dialect: dict[str, _Compiled] = {}

    def rows(self, conn: Connection, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        """The statement's rows (empty for a statement that returns none)."""
        driver = conn.connection.driver_connection
        if not isinstance(driver, LentConnection):
            result = conn.execute(self.statement, dict(params))  # type: ignore[call-overload]
            return [tuple(row) for row in result] if result.returns_rows else []
        done = self._compiled(conn.dialect)
        # (the constants were bound once, at compile time: SQLAlchemy's construct_params
        # rebuilt every parameter at each call, a third of this function's time)
        ordered = [
            constant
            if name is None
            else params[name]
            if process is None
            else process(params[name])
            for name, process, constant in done.params
        ]
        cursor = driver.conn.execute(done.sql, ordered)
        if not done.returns_rows:
            return []
        processors = done.results
        if not any(processors):
            return cursor.fetchall()
        return [
            tuple(v if p is None else p(v) for v, p in zip(row, processors, strict=True))
            for row in cursor.fetchall()
        ]

    def _compiled(self, dialect: Dialect) -> _Compiled:
        done = self._by_dialect.get(dialect.name)
        if done is None:
            done = self._by_dialect[dialect.name] = _compile(
                self.statement, dialect, self._column_keys
            )
        return done

    def sql(self, dialect: Dialect) -> str:
        """The SQL sent on ``dialect`` (tests read it)."""
        return self._compiled(dialect).sql


def _compile(
    statement: ClauseElement, dialect: Dialect, column_keys: list[str] | None
) -> _Compiled:
    compiled = statement.compile(dialect=dialect, column_keys=column_keys)
    assert isinstance(compiled, SQLCompiler)
    params = tuple(_parameter(compiled, name, dialect) for name in compiled.positiontup or ())
    selected = getattr(statement, "selected_columns", None)
    returns_rows = selected is not None
    results = tuple(
        column.type.dialect_impl(dialect).result_processor(dialect, None)
        for column in (selected or ())
    )
    return _Compiled(compiled.string, params, results, returns_rows)


def _parameter(
    compiled: SQLCompiler, name: str, dialect: Dialect
) -> tuple[str | None, _Processor, Any]:
    bind = compiled.binds[name]
    process = bind.type.dialect_impl(dialect).bind_processor(dialect)
    if bind.required or bind.callable is not None:
        return name, process, None  # given at each call
    value = bind.value
    return None, None, value if process is None else process(value)
