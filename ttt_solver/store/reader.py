"""Read and check a database: meta first, then rows, then the content digest.

SQLite files are read with the standard library's ``sqlite3`` (read-only, no SQLAlchemy
import); other URLs through SQLAlchemy. Every failure is a :class:`DatabaseError` whose
message says how to rebuild.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import dataclass
from typing import Any, TypeVar

from ..errors import DatabaseError
from .content import GENERATOR, MOVE_COLUMNS, POSITION_COLUMNS, SCHEMA_VERSION, Row, content_digest, rebuild_hint
from .target import Target

Query = Callable[[str, Sequence[Any]], list[Row]]
T = TypeVar("T")


@dataclass(frozen=True)
class Contents:
    meta: dict[str, str]
    positions: list[Row]  # rows in POSITION_COLUMNS order
    moves: list[Row]  # rows in MOVE_COLUMNS order


def read(target: Target, variant_name: str | None = None, verify: bool = True) -> Contents:
    """Load every row, checking the meta table (and, with ``verify``, the digest)."""
    return _with_query(target, lambda query: _read_all(target, query, variant_name, verify))


def read_meta(target: Target, variant_name: str | None = None) -> dict[str, str]:
    """Only the checked meta table (for callers that then fetch single rows)."""
    return _with_query(target, lambda query: _checked_meta(target, query, variant_name))


def read_values(target: Target) -> tuple[str, str, str]:
    """Every position's board, value and remoteness as three strings in one row order: the
    boards run together, then one character per row for ``value + 1`` and for ``remoteness``
    (``chr(48 + number)``). Millions of rows cost a few strings, not millions of tuples."""
    sql = (
        "SELECT group_concat(board, ''), group_concat(char(value + 49), ''), group_concat(char(remoteness + 48), '')"
        " FROM positions"
    )
    if target.path is not None:
        # One pass of three aggregates over the same rows: the three strings line up.
        boards, values, remoteness = _with_query(target, lambda query: query(sql, ()))[0]
        return boards or "", values or "", remoteness or ""
    rows = _with_query(target, lambda query: query("SELECT board, value, remoteness FROM positions", ()))
    return (
        "".join(row[0] for row in rows),
        "".join(chr(49 + row[1]) for row in rows),
        "".join(chr(48 + row[2]) for row in rows),
    )


class PositionLookup:
    """An open database answering for a few positions at a time: the oracle's lazy path,
    where one lookup costs an indexed query instead of loading every row."""

    def __init__(self, target: Target) -> None:
        self.target = target
        self._conn: Any = None

    def values(self, boards: Sequence[str]) -> dict[str, tuple[int, int]]:
        """{board: (value, remoteness)} for those of ``boards`` that have a row."""
        marks = ", ".join("?" * len(boards))
        sql = f"SELECT board, value, remoteness FROM positions WHERE board IN ({marks})"
        if self.target.path is not None:
            try:
                if self._conn is None:
                    self._conn = _connect_sqlite(self.target, shared=True)
                found = self._conn.execute(sql, tuple(boards)).fetchall()
            except sqlite3.Error as error:
                raise _corrupt(self.target, str(error)) from None
        else:
            found = _with_query(self.target, lambda query: query(sql, tuple(boards)))
        return {board: (value, remoteness) for board, value, remoteness in found}

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def run_query(target: Target, sql: str, params: dict[str, Any]) -> tuple[list[str], list[Row]]:
    """Run one read-only SQL statement with bound parameters; return column names and rows."""
    if target.path is not None:
        conn = _connect_sqlite(target)
        try:
            with closing(conn):
                cursor = conn.execute(sql, params)
                return [d[0] for d in cursor.description or ()], cursor.fetchall()
        except sqlite3.Error as error:
            raise DatabaseError(f"query failed on {target.spec!r}: {error}") from None
    from sqlalchemy import create_engine, text
    from sqlalchemy.exc import SQLAlchemyError

    engine = create_engine(target.url, execution_options={"postgresql_readonly": True})
    try:
        with engine.connect() as server:
            result = server.execute(text(sql), params)
            return list(result.keys()), [tuple(row) for row in result]
    except SQLAlchemyError as error:
        raise DatabaseError(f"query failed on {target.spec!r}: {error}") from None
    finally:
        engine.dispose()


def _with_query(target: Target, work: Callable[[Query], T]) -> T:
    if target.path is not None:
        conn = _connect_sqlite(target)

        def query_file(sql: str, params: Sequence[Any] = ()) -> list[Row]:
            return conn.execute(sql, params).fetchall()

        try:
            with closing(conn):
                return work(query_file)
        except sqlite3.Error as error:
            raise _corrupt(target, str(error)) from None
    from sqlalchemy import create_engine, text
    from sqlalchemy.exc import SQLAlchemyError

    try:
        engine = create_engine(target.url)
        with engine.connect() as server:

            def query(sql: str, params: Sequence[Any] = ()) -> list[Row]:
                names = {f"p{i}": value for i, value in enumerate(params)}
                for name in names:
                    sql = sql.replace("?", f":{name}", 1)
                return [tuple(row) for row in server.execute(text(sql), names)]

            return work(query)
    except SQLAlchemyError as error:
        raise DatabaseError(f"cannot read database {target.spec!r}: {error}; {rebuild_hint(target.spec)}") from None


def _connect_sqlite(target: Target, shared: bool = False) -> sqlite3.Connection:
    """A read-only connection; ``shared`` lets other threads use it (it only ever reads)."""
    path = target.path
    assert path is not None
    if not path.is_file():
        raise DatabaseError(
            f"no database at {target.spec!r}: build it with: python -m ttt_solver.build --db {target.spec}"
        )
    try:
        return sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=not shared)
    except sqlite3.Error as error:
        raise _corrupt(target, str(error)) from None


def _corrupt(target: Target, why: str, variant_name: str = "3x3") -> DatabaseError:
    return DatabaseError(f"database {target.spec!r} is corrupt ({why}); {rebuild_hint(target.spec, variant_name)}")


def _checked_meta(target: Target, query: Query, variant_name: str | None) -> dict[str, str]:
    tables = (
        {row[0] for row in query("SELECT name FROM sqlite_master WHERE type = 'table'", ())} if target.path else None
    )
    if tables is not None and "meta" not in tables:
        raise DatabaseError(
            f"{target.spec!r} is not a ttt-solver database (no meta table); {rebuild_hint(target.spec, variant_name or '3x3')}"
        )
    meta: dict[str, str] = dict(query("SELECT key, value FROM meta", ()))
    hint = rebuild_hint(target.spec, variant_name or meta.get("variant", "3x3"))
    if meta.get("generator") != GENERATOR:
        raise DatabaseError(f"{target.spec!r} is not a ttt-solver database; {hint}")
    if meta.get("schema_version") != SCHEMA_VERSION:
        raise DatabaseError(
            f"database {target.spec!r} has schema version {meta.get('schema_version')!r},"
            f" this ttt-solver reads version {SCHEMA_VERSION!r}; {hint}"
        )
    if variant_name is not None and meta.get("variant") != variant_name:
        raise DatabaseError(
            f"database {target.spec!r} holds variant {meta.get('variant')!r}, not {variant_name!r}; {hint}"
        )
    return meta


def _read_all(target: Target, query: Query, variant_name: str | None, verify: bool) -> Contents:
    meta = _checked_meta(target, query, variant_name)
    positions = query(f"SELECT {', '.join(POSITION_COLUMNS)} FROM positions", ())
    moves = query(f"SELECT {', '.join(MOVE_COLUMNS)} FROM moves", ())
    variant = meta["variant"]
    if (str(len(positions)), str(len(moves))) != (meta.get("positions"), meta.get("moves")):
        raise _corrupt(
            target,
            f"{len(positions)} positions and {len(moves)} moves, meta says {meta.get('positions')} and {meta.get('moves')}",
            variant,
        )
    if verify and content_digest(variant, positions, moves) != meta.get("digest"):
        raise _corrupt(target, "content digest does not match", variant)
    return Contents(meta, positions, moves)
