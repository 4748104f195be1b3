"""Read a database: rows by code, the packed arrays, the tables' own checks, named queries.

:class:`Reader` is a :class:`~.connection.Connection` (opened, its meta table checked) with
the queries of ttt-solver's tables; it only reads.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from typing import Any

from ..errors import DatabaseError, InvalidStatementError, shown
from . import MOVE_COLUMNS, TABLE_NAMES
from .connection import Connection, Row
from .database_server import live_tables
from .shards import SHARD_TABLES
from .target import Target

_IN_CHUNK = 500  # codes per "WHERE code IN (...)"


def held_variant(spec: str | os.PathLike[str]) -> str:
    """The name of the variant a database holds, as its checked meta table says; a
    :class:`DatabaseError` (or an invalid-target error) when it cannot be read."""
    with Reader(Target.parse(spec), None) as reader:
        return reader.variant_name


class Reader(Connection):
    """An open, checked database of one variant and the queries of its tables."""

    # -- rows -------------------------------------------------------------------------------
    def rows(self, codes: Collection[int]) -> dict[int, Any]:
        """``{code: data}`` for the codes that have a row (``data`` as stored: the caller
        unpacks and checks it, :func:`ttt_solver.store.row_data.unpack_data`); in a database of
        shards, each asked of its shard."""
        if self.shards:  # each code asked of the one shard whose range holds it, not of the view
            found: dict[int, Any] = {}
            firsts = [shard.first_code for shard in self.shards]
            by_shard: dict[int, list[int]] = {}
            for code in codes:  # its shard: the last whose first code is at most the code (at most 10)
                by_shard.setdefault(max(0, sum(first <= code for first in firsts) - 1), []).append(code)
            for index, wanted in by_shard.items():
                found.update(self._rows_of(f"shard{index}.positions", wanted))
            return found
        return self._rows_of("positions", list(codes))

    def _rows_of(self, table: str, wanted: list[int]) -> dict[int, Any]:
        found: dict[int, Any] = {}
        for start in range(0, len(wanted), _IN_CHUNK):
            chunk = wanted[start : start + _IN_CHUNK]
            sql = f"SELECT code, data FROM {table} WHERE code IN ({', '.join('?' * len(chunk))})"
            for code, data in self._query(sql, chunk):
                found[code] = data
        return found

    def packed(self) -> dict[str, tuple[str, list[bytes]]]:
        """``{name: (dtype, [blob of each part])}``: the packed arrays, parts in order
        (ValueError if a name has two dtypes, a part is missing, or a row is not two texts, a
        number and a blob: a damaged file may hold anything there)."""
        found: dict[str, tuple[str, list[bytes]]] = {}
        for name, part, dtype, data in self._query("SELECT name, part, dtype, data FROM packed ORDER BY name, part"):
            if not (isinstance(name, str) and isinstance(dtype, str) and isinstance(data, bytes | memoryview)):
                raise ValueError(f"the packed row {shown(name)} holds {shown(data)}, not a blob")  # noqa: TRY004 (damage)
            known, parts = found.setdefault(name, (dtype, []))
            if known != dtype or part != len(parts):
                raise ValueError(f"the packed array {name!r} has a damaged part {shown(part)}")
            parts.append(bytes(data))
        return found

    def position_blocks(self, rows: int, limit: int) -> Iterator[tuple[Any, Any]]:
        """Every row of ``positions`` in code order as int64 numpy arrays (codes, data), about
        ``rows`` at a time; a ``data`` that is not an integer from 0 to ``limit`` (a damaged
        file holds anything: a text, a real, a blob) reads as -1. On SQLite each block comes
        as one text of numbers that numpy parses: no Python object per row."""
        import numpy as np

        last = -1
        while True:
            if self._conn is None:
                block = self._query(
                    f"SELECT code, data FROM positions WHERE code > ? ORDER BY code LIMIT {int(rows)}", (last,)
                )
                if not block:
                    return
                codes = np.array([row[0] for row in block], dtype=np.int64)
                data = np.array([v if v.__class__ is int and 0 <= v < limit else -1 for _c, v in block], dtype=np.int64)
            else:
                text, count = self._query(
                    "SELECT group_concat(code || ',' || CASE WHEN typeof(data) = 'integer' AND data >= 0"
                    f" AND data < {int(limit)} THEN data ELSE -1 END, ','), count(*) FROM (SELECT code, data"
                    f" FROM positions NOT INDEXED WHERE code > ? ORDER BY code LIMIT {int(rows)})",
                    (last,),
                )[0]
                if not count:
                    return
                both = np.fromstring(text, dtype=np.int64, sep=",")
                if len(both) != 2 * count:
                    raise ValueError(f"has {count:,} rows after code {last} of which {len(both) // 2:,} could be read")
                codes, data = both[0::2].copy(), both[1::2].copy()
            yield codes, data
            last = int(codes[-1])

    def stored_data(self, codes: Collection[int]) -> dict[int, Any]:
        """``data`` as stored, whatever it is, of the rows of these codes (for messages)."""
        marks = ", ".join("?" * len(codes))
        return dict(self._query(f"SELECT code, data FROM positions WHERE code IN ({marks})", list(codes)))

    def schema_sql(self) -> str | None:
        """How SQLite says the ``positions`` table is made (None on a server)."""
        if self._conn is None:
            return None
        schemas = [f"shard{shard.number}" for shard in self.shards] or ["main"]
        made = set()
        for schema in schemas:
            found = self._query(f"SELECT sql FROM {schema}.sqlite_master WHERE type = 'table' AND name = 'positions'")
            made.add(str(found[0][0]) if found else "")
        return made.pop() if len(made) == 1 else "the shards' positions tables differ"

    def move_blocks(self, rows: int) -> Iterator[list[Row]]:
        """Every row of ``moves`` by code then cell, in :data:`MOVE_COLUMNS` order, ``rows`` at
        a time, whatever the meta table says (the caller asks :meth:`tables` whether there is
        one). On SQLite it reads the table itself, not its index: :meth:`integrity_problem`
        compares the two."""
        table = "moves NOT INDEXED" if self._conn is not None else "moves"
        select = f"SELECT {', '.join(MOVE_COLUMNS)} FROM {table}"
        block = self._query(f"{select} ORDER BY code, cell LIMIT {int(rows)}")
        while block:
            yield block
            if len(block) < rows:
                return
            code, cell = block[-1][0], block[-1][1]
            after = "WHERE code > ? OR (code = ? AND cell > ?) ORDER BY code, cell"
            block = self._query(f"{select} {after} LIMIT {int(rows)}", (code, code, cell))

    def move_count(self) -> int:
        """The rows of ``moves`` (of the table itself, on SQLite, as :meth:`move_blocks`)."""
        table = "moves NOT INDEXED" if self._conn is not None else "moves"
        return int(self._query(f"SELECT count(*) FROM {table}")[0][0])

    def tables(self) -> list[str]:
        """Which of our tables the database holds, in :data:`TABLE_NAMES` order."""
        if self._conn is None:
            held = self._held
            if held is not None and held[0] == threading.get_ident():
                return live_tables(held[1])
            return self._server_tables()
        names = {str(name).lower() for (name,) in self._query("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if self.shards:  # the views over the shards (each checked to hold a meta table when attached)
            names.update(SHARD_TABLES)
        return [name for name in TABLE_NAMES if name in names]

    def integrity_problem(self, whole: bool = True) -> str | None:
        """SQLite's own check of the file (every page, the order of every b-tree, each index
        against its table): its first complaint, or None; None on a server, which keeps its own
        pages. The check computes every generated column of every row (about 5 us a row: 6 s
        for the 1.2 million rows of 4x4), so unless ``whole`` the ``positions`` table is left
        out, and the other tables are checked one by one (then pages in no table go unseen). The
        shards of a database of shards are checked with it."""
        if self._conn is None:
            return None
        if whole:
            statements = ["PRAGMA integrity_check(1)"]
        else:
            held = [name for name in self.tables() if name not in (SHARD_TABLES if self.shards else ("positions",))]
            statements = [f"PRAGMA main.integrity_check({name})" for name in held]
            for shard in self.shards:
                statements += [f"PRAGMA shard{shard.number}.integrity_check({name})" for name in ("packed", "meta")]
            if self.shards:
                statements.append("PRAGMA main.integrity_check(shards)")
        for statement in statements:
            found = self._query(statement)
            first = str(found[0][0]) if found and found[0] else "no answer"
            if first != "ok":
                return first.replace("\n", " ")
        return None

    def shard_problems(self) -> list[str]:
        """What is wrong with the rows of a database of shards (none for one file): a shard whose
        row count is not the one the shards table records, or that holds a code outside its
        range (below its first code, or at or above the next shard's)."""
        problems = []
        for shard, after in zip(self.shards, [*(s.first_code for s in self.shards[1:]), None]):
            table = f"shard{shard.number}.positions"
            count, low, high = self._query(f"SELECT count(*), min(code), max(code) FROM {table}")[0]
            if count != shard.rows:
                problems.append(f"shard {shard.number} holds {count:,} rows, not {shard.rows:,}")
            if count and (low < shard.first_code or (after is not None and high >= after)):
                problems.append(f"shard {shard.number} holds codes outside its range")
        return problems

    def has_moves(self) -> bool:
        """Whether the ``moves`` table holds any row."""
        return bool(self._query("SELECT EXISTS (SELECT 1 FROM moves)")[0][0])

    def packed_index(self) -> dict[str, tuple[str, int]]:
        """``{name: (dtype, parts)}`` of the packed arrays (ValueError if the parts of an array
        are not numbered 0, 1, ... or name two dtypes)."""
        found: dict[str, tuple[str, int]] = {}
        for name, dtype, parts, first, last in self._query(
            "SELECT name, min(dtype), count(*), min(part), max(part) FROM packed GROUP BY name HAVING count(DISTINCT dtype) = 1"
        ):
            if first != 0 or last != parts - 1:
                raise ValueError(f"the parts of the packed array {shown(name)} are not numbered 0 to {parts - 1}")
            found[str(name)] = (str(dtype), int(parts))
        return found

    def packed_part(self, name: str, part: int) -> bytes:
        """One stored part of a packed array (ValueError if it is missing or not a blob)."""
        rows = self._query("SELECT data FROM packed WHERE name = ? AND part = ?", (name, part))
        if len(rows) != 1 or not isinstance(rows[0][0], bytes):
            raise ValueError(f"part {part} of the packed array {name!r} is missing or not a blob")
        return rows[0][0]

    def query(self, sql: str, params: dict[str, Any]) -> tuple[list[str], list[Row]]:
        """One read-only statement with bound parameters: column names and rows."""
        try:
            return self._run(sql, params)
        except Exception as error:
            failure = self._failure(error, lambda why: DatabaseError(f"query failed on {self.target.spec!r}: {why}"))
            if failure is None:
                raise
            raise failure from None

    def statement(self, sql: str, params: dict[str, Any]) -> tuple[list[str], list[Row]]:
        """SQL the user wrote (``ttt-lookup query "SELECT ..."``), with bound parameters: column
        names and rows. It cannot write, whatever it says: the connection only reads (SQLite's
        ``mode=ro``, a server's read-only transactions). What the database refuses in it (a write,
        a syntax error, a table that is not there) is an InvalidStatementError naming why.

        On a SQLite file SQLite's authorizer also refuses, while it runs, all but reads: ``mode=ro``
        keeps the file unchanged, but would let ATTACH create a file, or a temporary table be made."""
        try:
            with self._reading_only():
                return self._run(sql, params)
        except Exception as error:
            failure = self._failure(error, _StatementFailed)
            if failure is None:
                raise
            if isinstance(failure, _StatementFailed):
                raise InvalidStatementError(f"invalid SQL {shown(sql)}: {_why_refused(error, str(failure))}") from None
            raise failure from None

    @contextmanager
    def _reading_only(self) -> Iterator[None]:
        if self._conn is None:  # a server: its read-only transactions refuse any write
            yield
            return
        self._conn.set_authorizer(_reads)
        try:
            yield
        finally:
            self._conn.set_authorizer(None)


_READS = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
# PRAGMAs that describe a table or index named as their argument (any PRAGMA without one reports).
_DESCRIBING = {"table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo", "foreign_key_list"}


def _reads(action: int, arg1: str | None, arg2: str | None, _db: str | None, trigger: str | None) -> int:
    """SQLite's authorizer for the user's SQL: reading tables, calling functions, a PRAGMA that
    reports (``PRAGMA table_info(positions)``, or its table-valued form
    ``pragma_table_info('positions')``), and nothing else (a PRAGMA that sets, ATTACH, any table
    made or changed)."""
    reporting = arg2 is None or (arg1 or "").lower() in _DESCRIBING
    reads = (
        action in _READS
        or (action == sqlite3.SQLITE_PRAGMA and reporting)
        or _setting_up_a_pragma(action, arg1, trigger)
    )
    return sqlite3.SQLITE_OK if reads else sqlite3.SQLITE_DENY


def _setting_up_a_pragma(action: int, table: str | None, trigger: str | None) -> bool:
    """Whether SQLite asks about its own step: the first use of a table-valued PRAGMA function on
    a connection (``pragma_table_info(...)``, a virtual table SQLite makes as it is named) asks
    to UPDATE the columns of ``sqlite_master``. No statement of the user's is asked that: SQLite
    refuses any change to ``sqlite_master`` before the authorizer sees it, unless
    ``writable_schema`` is on, a PRAGMA setting that the authorizer refuses; the PRAGMA itself is
    asked next, as a PRAGMA."""
    return action == sqlite3.SQLITE_UPDATE and table == "sqlite_master" and trigger is None


class _StatementFailed(DatabaseError):
    """What :meth:`Reader.statement` says of a statement the database refused, before it says it
    as the user's mistake."""


_SQLITE_READONLY = 8  # the primary result code of a write on a read-only connection
_SQLITE_AUTH = 23  # and of what the authorizer refused


def _why_refused(error: Exception, why: str) -> str:
    """The database's reason, said plainly when the statement would have written."""
    code = getattr(error, "sqlite_errorcode", 0) & 0xFF
    if code == _SQLITE_READONLY or "read-only" in why or "readonly" in why:
        return f"it would change the database, which query only reads ({why})"
    if code == _SQLITE_AUTH or why == "not authorized":
        return f"query only reads: no changes, ATTACH or PRAGMA settings ({why})"
    return why
