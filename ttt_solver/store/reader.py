"""Read a database: the checked meta table, rows by code, the packed arrays, named queries.

SQLite files are read with the standard library's ``sqlite3`` on a read-only connection (no
numpy, no SQLAlchemy: a command-line lookup imports neither); other URLs through SQLAlchemy.
Every failure is a :class:`DatabaseError` whose message says what to run: a damaged or
outdated database of ours gets the exact rebuild command, a file that is not ours never gets
``--force``.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import Any, Self

from ..errors import DatabaseError, TTTError, install_hint, shown
from ..game.variant import Variant
from . import GENERATOR, MOVE_COLUMNS, SCHEMA_VERSION, TABLE_NAMES, number_in
from .hints import build_hint, rebuild_hint
from .target import Target, file_kind

Row = tuple[Any, ...]
_IN_CHUNK = 500  # codes per "WHERE code IN (...)"
# What provides a SQLAlchemy driver module, where the two names differ or are well known.
_DRIVER_PACKAGES = {"psycopg2": "psycopg2-binary", "MySQLdb": "mysqlclient", "pymysql": "pymysql"}


def sqlite_uri(path: str | os.PathLike[str], mode: str = "ro") -> str:
    """A ``file:`` URI for ``path``: ``%``, ``?`` and ``#`` in a file name are escaped, so they
    stay part of the name instead of starting URI syntax. A read of a write-ahead-log database
    that SQLite could not open otherwise is marked ``immutable`` (see :func:`_whole_without_log`)."""
    path = os.fspath(path)
    escaped = path.replace("%", "%25").replace("?", "%3f").replace("#", "%23")
    uri = f"file:{escaped}?mode={mode}"
    return f"{uri}&immutable=1" if mode == "ro" and _whole_without_log(path) else uri


_WAL_HEADER = 32  # bytes of a -wal file before its first page


def _whole_without_log(path: str) -> bool:
    """A WAL-mode file (a user ran ``PRAGMA journal_mode=WAL``) that holds every committed
    change itself, in a folder this process cannot write.

    SQLite reads a WAL-mode file through its ``-wal`` log and ``-shm`` index, creating them when
    they are missing, which it cannot do in such a folder (a read-only mount, another user's
    folder): even a read fails. When both exist it reads them. When the log is missing or holds
    no page, the file alone is the database, and ``immutable=1`` (SQLite's answer for read-only
    media) reads it without them. Immutable also skips locking and change detection: safe here,
    because ttt-solver never changes a database in place (a rebuild renames a new file over it,
    and an open connection keeps reading the file it opened), and a writer that appeared after
    this check would write its log, not the file, until a checkpoint. A log that holds pages is
    never skipped: without its index SQLite's own error stands (see ``Reader._open``).
    """
    try:
        with open(path, "rb") as file:
            header = file.read(20)
    except OSError:
        return False
    if header[18:20] != b"\x02\x02" or os.access(_folder(path), os.W_OK):  # bytes 18-19: 2 in WAL mode
        return False
    log, index = f"{path}-wal", f"{path}-shm"
    if os.path.exists(index):
        return not os.path.exists(log)
    return not os.path.exists(log) or os.path.getsize(log) <= _WAL_HEADER


def _folder(path: str) -> str:
    return os.path.dirname(path) or "."


_SNAPSHOT_ATTEMPTS = 5  # rebuilds in a row that a snapshot waits out before it gives up


def live_tables(conn: Any) -> list[str]:
    """Which of our tables a server connection sees (on the search path), in
    :data:`TABLE_NAMES` order: the order of every lock taken on them."""
    # Imported here, not at the top: SQLAlchemy (server URLs) and numpy stay off the command-line lookup path of a SQLite file.
    from sqlalchemy import inspect

    names = set(inspect(conn).get_table_names())
    return [name for name in TABLE_NAMES if name in names]


def missing_driver(error: ModuleNotFoundError) -> str:
    """What to say when a server URL's driver module is not installed."""
    if error.name == "psycopg":  # the driver of the [postgres] extra
        hint = install_hint("postgres", "'psycopg[binary]'")
        return f"its database driver 'psycopg' is not installed ({hint})"
    package = _DRIVER_PACKAGES.get(error.name or "")
    install = f" (pip install {package})" if package else ""
    return f"its database driver {error.name!r} is not installed{install}"


def server_error(error: BaseException) -> str | None:
    """A SQLAlchemy or driver error in one line (None for any other error): the driver's own
    message, without the SQL or SQLAlchemy's background link."""
    if type(error).__module__.split(".")[0] not in ("sqlalchemy", "psycopg", "psycopg2"):
        return None
    cause = getattr(error, "orig", None) or error
    lines = str(cause).strip().splitlines()
    found = f"{type(cause).__name__}: {lines[0] if lines else ''}".rstrip(": ")
    detail = getattr(getattr(cause, "diag", None), "message_detail", None)  # PostgreSQL's DETAIL
    return f"{found} ({detail.splitlines()[0]})" if detail else found


# What a statement on a SQLite file raises when the file is at fault. The second: Python's
# sqlite3 fails to decode SQLite's own message when it quotes a damaged schema's bytes.
SQLITE_ERRORS = (sqlite3.Error, UnicodeDecodeError)


def sqlite_message(error: BaseException) -> str:
    """The message of one of :data:`SQLITE_ERRORS`, short (Python's sqlite3 quotes the whole
    text it could not decode: megabytes for a column read whole), undecodable bytes replaced."""
    if isinstance(error, UnicodeDecodeError) and isinstance(error.object, bytes):
        text = error.object.decode("utf-8", "replace")
    else:
        text = str(error)
    return text if len(text) <= 200 else text[:197] + "..."


def _unreachable(error: BaseException) -> bool:
    """A server that is down or a connection that failed (not a problem of the data)."""
    return type(error).__name__ in ("OperationalError", "InterfaceError")


def held_variant(spec: str | os.PathLike[str]) -> str:
    """The name of the variant a database holds, as its checked meta table says; a
    :class:`DatabaseError` (or an invalid-target error) when it cannot be read."""
    with Reader(Target.parse(spec), None) as reader:
        return reader.variant_name


def _variant_named(text: bytes, otherwise: str) -> str:
    """The name of the variant that ``text`` names, or ``otherwise``."""

    try:
        return Variant.parse(text.decode()).name
    except (UnicodeDecodeError, TTTError):
        return otherwise


class Reader:
    """An open, checked database of one variant (opening checks its meta table)."""

    def __init__(self, target: Target, variant_name: str | None) -> None:
        """``variant_name``: the variant the database must hold (None: whichever it holds)."""
        self.target = target
        self.variant_name = variant_name or "3x3"
        self._expected = variant_name
        self._lock = threading.Lock()  # one connection, shared by threads (it only reads)
        self._engine: Any = None
        self._conn: Any = None
        self._held: tuple[int, Any] | None = None  # (thread, server connection) of a snapshot
        self.meta: dict[str, str] = {}  # read and checked below: then the database is known to be ours
        self._open()
        try:
            self.meta = self._checked_meta()
        except BaseException:
            self.close()
            raise

    # -- connection -----------------------------------------------------------------------
    def _open(self) -> None:
        path = self.target.file
        if path is None:
            from sqlalchemy import create_engine
            from sqlalchemy.exc import SQLAlchemyError

            try:
                self._engine = create_engine(self.target.url, execution_options={"postgresql_readonly": True})
            except ModuleNotFoundError as error:
                raise DatabaseError(f"cannot read {self.target.spec!r}: {missing_driver(error)}") from None
            except (SQLAlchemyError, ValueError) as error:
                raise DatabaseError(f"cannot read {self.target.spec!r}: {str(error).splitlines()[0]}") from None
            return
        try:
            kind = file_kind(path)
        except OSError as error:  # a name too long, a loop of links, a folder this user may not enter
            raise DatabaseError(f"cannot read {self.target.spec!r}: {error.strerror or error}") from None
        if kind is not None:  # a folder, FIFO or device can never become a database: no advice to build one
            raise DatabaseError(f"{self.target.spec!r} is {kind}, not a database file: give --db a database file")
        if not os.path.isfile(path):
            raise DatabaseError(
                f"no database at {self.target.spec!r}; {build_hint(self.target.spec, self.variant_name)}"
            )
        try:
            self._conn = sqlite3.connect(sqlite_uri(path), uri=True, check_same_thread=False)
            self._conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()  # open it now
        except SQLITE_ERRORS as error:
            self.close()
            log = f"{path}-wal"
            if os.path.exists(log) and not os.path.exists(f"{path}-shm") and not os.access(_folder(path), os.W_OK):
                name = os.path.basename(path)
                raise DatabaseError(
                    f"cannot read {self.target.spec!r}: its write-ahead log {name + '-wal'!r} holds changes that"
                    f" SQLite reads only through an index file {name + '-shm'!r}, which it cannot create in a"
                    " folder this user cannot write: open the database once as a user who can write the folder"
                    " (closing it moves the log into the file)"
                ) from None
            why = sqlite_message(error)
            if "malformed" in why:  # a damaged SQLite file: ours, perhaps, but its meta cannot say
                raise DatabaseError(
                    f"{self.target.spec!r} is damaged ({why}); if it is a ttt-solver database,"
                    f" {rebuild_hint(self.target.spec, self.variant_name)}"
                ) from None
            raise self._unreadable(why) from None

    def _run(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> tuple[list[str], list[Row]]:
        if self._conn is None and self._engine is None:
            raise DatabaseError(f"database {self.target.spec!r} is closed")
        if self._conn is not None:
            with self._lock:
                cursor = self._conn.execute(sql, params)
                return [d[0] for d in cursor.description or ()], cursor.fetchall()
        from sqlalchemy import text

        if not isinstance(params, dict):
            names = {f"p{i}": value for i, value in enumerate(params)}
            for name in names:
                sql = sql.replace("?", f":{name}", 1)
            params = names
        held = self._held
        if held is not None and held[0] == threading.get_ident():
            result = held[1].execute(text(sql), params)
            return list(result.keys()), [tuple(row) for row in result]
        with self._engine.connect() as server:
            result = server.execute(text(sql), params)
            return list(result.keys()), [tuple(row) for row in result]

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Every read of this thread inside sees one committed state of the database, and the
        meta table is read again in it: what ``verify`` needs to compare tables with each other.

        A server gets one REPEATABLE READ transaction that first takes shared locks on our tables,
        in the order a rebuild's swap takes its exclusive ones: a rebuild that reaches its swap
        meanwhile waits for the snapshot to end, and neither ever holds a table the other is
        waiting for. The locks come before any query of the transaction, since its first query
        fixes the snapshot: a snapshot older than a swap would see the new tables empty. A
        SQLite file needs nothing: a rebuild renames a new file in, and the open connection goes
        on reading the file it opened.
        """
        if self._engine is None:
            yield
            return
        with ExitStack() as stack:
            try:
                conn = stack.enter_context(self._locked_snapshot())
            except Exception as error:
                failure = self._failure(error, self._damaged)
                if failure is None:
                    raise
                raise failure from None
            self._held = (threading.get_ident(), conn)
            try:
                self.meta = self._checked_meta()
                yield
            finally:
                self._held = None

    @contextmanager
    def _locked_snapshot(self) -> Iterator[Any]:
        """A server connection in a REPEATABLE READ transaction holding shared locks on every
        table of ours it sees. Which tables are ours is asked on another connection (a query
        here would fix the snapshot before the locks), and asked again once they are locked:
        if a rebuild changed the set in between, the transaction starts again."""
        from sqlalchemy.exc import ProgrammingError

        for attempt in range(_SNAPSHOT_ATTEMPTS):
            with self._engine.connect() as probe:
                names = live_tables(probe)
            with self._engine.connect() as conn:
                conn.execution_options(isolation_level="REPEATABLE READ")
                transaction = conn.begin()
                try:
                    if names:
                        conn.exec_driver_sql(f"LOCK TABLE {', '.join(names)} IN ACCESS SHARE MODE")
                    same = live_tables(conn) == names  # the snapshot is taken here: after the locks
                except ProgrammingError:  # a table dropped meanwhile (a rebuild's swap)
                    transaction.rollback()
                    if attempt + 1 == _SNAPSHOT_ATTEMPTS:
                        raise
                    continue
                if not same:
                    transaction.rollback()
                    continue
                with transaction:
                    yield conn
                return
        raise DatabaseError(f"database {self.target.spec!r} kept changing while it was opened; try again")

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """Rows of one statement; a database error becomes a DatabaseError naming the cause."""
        try:
            return self._run(sql, params)[1]
        except Exception as error:
            failure = self._failure(error, self._damaged)
            if failure is None:
                raise
            raise failure from None

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- errors -----------------------------------------------------------------------------
    def _damaged(self, why: str) -> DatabaseError:
        """A database of ours that cannot be read as written."""

        return DatabaseError(
            f"database {self.target.spec!r} is damaged ({why}); {rebuild_hint(self.target.spec, self.variant_name)}"
        )

    def _failure(self, error: Exception, meaning: Callable[[str], DatabaseError]) -> DatabaseError | None:
        """What a failed statement says: ``meaning(why)`` for an error of SQLite or of the
        database, "cannot reach" for a server connection that failed, and None for anything
        else (a bug is not a database problem: the caller raises it as it is)."""
        if isinstance(error, SQLITE_ERRORS):
            # SQLITE_CORRUPT (11) and SQLITE_NOTADB (26), "database disk image is malformed": a
            # file of ours (its meta table was read) that is damaged, whatever the caller was doing.
            corrupt = (getattr(error, "sqlite_errorcode", 0) & 0xFF) in (11, 26) or "malformed" in str(error)
            return (self._damaged if corrupt and self.meta else meaning)(sqlite_message(error))
        why = server_error(error)  # SQLAlchemy's or the driver's, imported only for server URLs
        if why is None:
            return None
        return self._cannot_reach(why) if _unreachable(error) else meaning(why)

    def _no_meta(self, why: str) -> DatabaseError:
        """The meta table could not be read: an empty server database, or not our database."""
        if self._engine is not None and not self._server_tables():
            spec = self.target.spec
            return DatabaseError(f"no ttt-solver database at {spec!r}; {build_hint(spec, self.variant_name)}")
        return self._unreadable(why)

    def _cannot_reach(self, why: str) -> DatabaseError:
        """A server that cannot be reached: nothing is known about the database, so no hint to rebuild."""
        return DatabaseError(f"cannot reach the database server of {self.target.spec!r} ({why})")

    def _unreadable(self, why: str) -> DatabaseError:
        """A file that is not (or no longer recognisably) a ttt-solver database."""
        return DatabaseError(
            f"{self.target.spec!r} is not a readable ttt-solver database ({why}); give --db a ttt-solver"
            f" database, or build the default one with: ttt-lookup build --variant {self.variant_name}"
        )

    # -- meta ---------------------------------------------------------------------------------
    def _checked_meta(self) -> dict[str, str]:
        spec, name = self.target.spec, self.variant_name
        try:
            meta = {str(key): str(value) for key, value in self._run("SELECT key, value FROM meta")[1]}
        except Exception as error:
            if self._conn is not None and "Could not decode" in str(error):
                raw = self._meta_bytes()  # a text no longer UTF-8: ours, if the rest says so
                if raw.get(b"generator") == GENERATOR.encode():
                    if self._expected is None:  # the variant it names, if that still names one
                        self.variant_name = _variant_named(raw.get(b"variant", b""), self.variant_name)
                    raise self._damaged(sqlite_message(error)) from None
            failure = self._failure(error, self._no_meta)
            if failure is None:
                raise
            raise failure from None
        if meta.get("generator") != GENERATOR:
            raise self._unreadable(f"its meta table names generator {shown(meta.get('generator'))}")
        version = meta.get("schema_version")
        if version != SCHEMA_VERSION:
            number = number_in(version)
            older = number is not None and number < int(SCHEMA_VERSION)
            if older:
                raise DatabaseError(
                    f"database {spec!r} was built by an older version of ttt-solver (schema {version});"
                    f" {rebuild_hint(spec, name)}"
                )
            raise DatabaseError(
                f"database {spec!r} has schema version {shown(version)}, this ttt-solver reads version"
                f" {SCHEMA_VERSION}: upgrade ttt-solver, or {rebuild_hint(spec, name)}"
            )
        if self._expected is None and isinstance(meta.get("variant"), str):
            self.variant_name = name = meta["variant"]
        if meta.get("variant") != name:
            held = meta.get("variant")

            if held is None:
                raise DatabaseError(
                    f"database {spec!r} does not say which variant it holds; {rebuild_hint(spec, name)}"
                )
            raise DatabaseError(
                f"database {spec!r} holds variant {shown(held)}, not {name!r}: pass the variant it holds,"
                f" or build the {name} database with: ttt-lookup build --variant {name}"
            )
        return meta

    def _meta_bytes(self) -> dict[bytes, bytes]:
        """The meta table of a SQLite file read as bytes (empty if even that fails)."""
        assert self._conn is not None
        with self._lock:
            self._conn.text_factory = bytes
            try:
                rows = self._conn.execute("SELECT key, value FROM meta").fetchall()
            except SQLITE_ERRORS:
                return {}
            finally:
                self._conn.text_factory = str
        return {key: value for key, value in rows if isinstance(key, bytes) and isinstance(value, bytes)}

    def _server_tables(self) -> list[str]:
        """Which of our tables a server database has (none: it is empty of ttt-solver)."""
        with self._engine.connect() as server:
            return live_tables(server)

    # -- rows -------------------------------------------------------------------------------
    def rows(self, codes: Collection[int]) -> dict[int, Any]:
        """``{code: data}`` for the codes that have a row (``data`` as stored: the caller
        unpacks and checks it, :func:`ttt_solver.store.content.unpack_data`)."""
        found: dict[int, Any] = {}
        wanted = list(codes)
        for start in range(0, len(wanted), _IN_CHUNK):
            chunk = wanted[start : start + _IN_CHUNK]
            sql = f"SELECT code, data FROM positions WHERE code IN ({', '.join('?' * len(chunk))})"
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
        found = self._query("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'positions'")
        return str(found[0][0]) if found else ""

    def moves(self) -> list[Row]:
        """Every row of ``moves`` by code then cell, in :data:`MOVE_COLUMNS` order, whatever the
        meta table says (the caller asks :meth:`tables` whether there is one). On SQLite it
        reads the table itself, not its index: :meth:`integrity_problem` compares the two."""
        table = "moves NOT INDEXED" if self._conn is not None else "moves"
        return self._query(f"SELECT {', '.join(MOVE_COLUMNS)} FROM {table} ORDER BY code, cell")

    def tables(self) -> list[str]:
        """Which of our tables the database holds, in :data:`TABLE_NAMES` order."""
        if self._conn is None:
            held = self._held
            if held is not None and held[0] == threading.get_ident():
                return live_tables(held[1])
            return self._server_tables()
        names = {str(name).lower() for (name,) in self._query("SELECT name FROM sqlite_master WHERE type = 'table'")}
        return [name for name in TABLE_NAMES if name in names]

    def integrity_problem(self, whole: bool = True) -> str | None:
        """SQLite's own check of the file (every page, the order of every b-tree, each index
        against its table): its first complaint, or None; None on a server, which keeps its own
        pages. The check computes every generated column of every row (about 5 us a row: 6 s
        for the 1.2 million rows of 4x4), so unless ``whole`` the ``positions`` table is left
        out, and the other tables are checked one by one (then pages in no table go unseen)."""
        if self._conn is None:
            return None
        if whole:
            statements = ["PRAGMA integrity_check(1)"]
        else:
            statements = [f"PRAGMA integrity_check({name})" for name in self.tables() if name != "positions"]
        for statement in statements:
            found = self._query(statement)
            first = str(found[0][0]) if found and found[0] else "no answer"
            if first != "ok":
                return first.replace("\n", " ")
        return None

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
