"""Opening a database: a read-only connection, checked to hold ttt-solver's tables of one
variant by its meta table, and what every failure says.

SQLite files are read with the standard library's ``sqlite3`` on a read-only connection (no
numpy, no SQLAlchemy: a command-line lookup imports neither); other URLs through SQLAlchemy.
Every failure is a :class:`DatabaseError` whose message says what to run: a damaged or
outdated database of ours gets the exact rebuild command, a file that is not ours never gets
``--force``. The queries of its tables are :class:`~.reader.Reader`'s.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import Any, Self

from ..errors import DatabaseError, TTTError, shown
from ..game.variant import Variant
from . import GENERATOR, SCHEMA_VERSION, SHARDS_KEY, number_in
from .database_server import live_tables, missing_driver, server_error, unreachable
from .hints import build_hint, rebuild_hint
from .shards import Shard, ShardError, attach, read_shards
from .sqlite_file import (
    SQLITE_ERRORS,
    SQLITE_FULL,
    TEMPORARY_FILE_ERRORS,
    folder_of,
    sqlite_message,
    sqlite_uri,
    temp_folder,
)
from .target import Target, file_kind

Row = tuple[Any, ...]
_SNAPSHOT_ATTEMPTS = 5  # rebuilds in a row that a snapshot waits out before it gives up


def _variant_named(text: bytes, otherwise: str) -> str:
    """The name of the variant that ``text`` names, or ``otherwise``."""

    try:
        return Variant.parse(text.decode()).name
    except (UnicodeDecodeError, TTTError):
        return otherwise


def _identity(path: str | None) -> tuple[int, int] | None:
    """Which file is at ``path`` (device and inode), if any."""
    try:
        found = os.stat(path) if path is not None else None
    except OSError:
        return None
    return None if found is None else (found.st_dev, found.st_ino)


class Connection:
    """An open, checked database of one variant (opening checks its meta table); :class:`~.reader.Reader`
    adds the queries of its tables."""

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
        self.shards: list[Shard] = []  # a database of shards' (:mod:`.shards`)
        self.files: list[str] = []  # the files read: the database file, then its shards
        for attempt in range(2):
            self.shards = []
            opened = self._open()
            try:
                self.meta = self._checked_meta()
                if SHARDS_KEY in self.meta:
                    self._attach_shards()
                break
            except DatabaseError:
                self.close()
                # A rebuild that renamed a new database in after this one was opened, and then
                # removed the old one's shards: open the new one.
                if attempt or opened is None or opened == _identity(self.target.file):
                    raise
            except BaseException:
                self.close()
                raise

    # -- connection -----------------------------------------------------------------------
    def _open(self) -> tuple[int, int] | None:
        """Open the connection; the identity of the file opened (None for a server)."""
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
            return None
        opened = _identity(path)
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
            if os.path.exists(log) and not os.path.exists(f"{path}-shm") and not os.access(folder_of(path), os.W_OK):
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
        self.files = [path]
        return opened

    def _attach_shards(self) -> None:
        """Attach the shards a database of shards names (:func:`.shards.attach`); a shard that is
        missing or damaged makes the database damaged."""
        count = number_in(self.meta[SHARDS_KEY])
        try:
            if self._conn is None or count is None:
                raise ShardError(f"its meta table says shards {shown(self.meta[SHARDS_KEY])}")
            self.shards = read_shards(self._conn, count)
            assert self.target.file is not None
            self.files += attach(self._conn, self.target.file, self.shards, self.variant_name)
        except ShardError as error:
            raise self._damaged(str(error)) from None
        except SQLITE_ERRORS as error:
            raise self._damaged(f"its shards cannot be read: {sqlite_message(error)}") from None

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
        else (a bug is not a database problem: the caller raises it as it is). SQLite's
        temporary files that cannot be written (a sort that no index gives, on a full disk) are
        said as such: the file, only read, is not at fault."""
        if isinstance(error, SQLITE_ERRORS):
            code = getattr(error, "sqlite_errorcode", 0)
            if code in TEMPORARY_FILE_ERRORS:
                remedy = "free some space there" if code == SQLITE_FULL else "check the disk and ulimit -f"
                return DatabaseError(
                    f"cannot read {self.target.spec!r}: SQLite cannot write its temporary files in {temp_folder()!r}"
                    f" ({sqlite_message(error)}): {remedy}, or set SQLITE_TMPDIR to a folder with room"
                )
            # SQLITE_CORRUPT (11) and SQLITE_NOTADB (26), "database disk image is malformed": a
            # file of ours (its meta table was read) that is damaged, whatever the caller was doing.
            corrupt = (code & 0xFF) in (11, 26) or "malformed" in str(error)
            return (self._damaged if corrupt and self.meta else meaning)(sqlite_message(error))
        why = server_error(error)  # SQLAlchemy's or the driver's, imported only for server URLs
        if why is None:
            return None
        return self._cannot_reach(why) if unreachable(error) else meaning(why)

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
