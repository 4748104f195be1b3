"""Write a solved variant into a database, all or nothing.

A SQLite target is built in its build's scratch folder (:mod:`ttt_solver.engine.scratch`),
a block of rows per transaction, so that a build stopped while writing goes on from the last
block written when it runs again (:class:`FileWriter`); the finished file is synced to disk and
renamed over the target (:func:`install`), so a stopped build (or a crash of the machine)
never leaves a half-written database. On PostgreSQL the new tables are filled beside the live
ones in one transaction (by ``COPY`` through psycopg 3) and renamed into place at its end:
readers go on reading the old tables until the commit, and then the new ones, never a mixture,
and a build that dies leaves nothing behind. Other SQLAlchemy URLs are written in one
transaction. Either way, a target that holds something ttt-solver did not make is left alone
unless ``force`` is given. Rows go in key order, many rows per INSERT statement; the tables
have no secondary index to maintain while they fill.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import closing, contextmanager, suppress
from hashlib import sha256
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

# The SQLite dialect is loaded with this module, before any solving: a C extension loaded once the
# solve has taken the memory fails as an ImportError ("failed to map segment"), not a MemoryError.
import sqlalchemy.dialects.sqlite  # noqa: F401
from sqlalchemy import MetaData, create_engine, event
from sqlalchemy.exc import SQLAlchemyError

from ..errors import BuildError
from ..system.files import sync
from ..system.memory import out_of_memory
from ..system.os_errors import described
from ..system.stops import stops_held
from . import GENERATOR, MOVE_COLUMNS, TABLE_NAMES, schema
from .database_server import live_tables, missing_driver, server_error
from .schema import add_generated
from .shards import SHARD_NAME, Shard, shard_folder
from .sqlite_file import SQLITE_ERRORS, sqlite_message, sqlite_uri
from .target import Target, file_kind

if TYPE_CHECKING:
    from sqlalchemy import Table
    from sqlalchemy.engine import Connection, Engine

    from ..game.variant import Variant

Rows = np.ndarray  # a block of rows: int64, one row per table row, its columns in order
Blocks = Iterable[Rows]  # the rows, a block at a time, in key order
Packed = Iterable[tuple[str, int, str, bytes]]  # (name, part, dtype, blob)
Written = Callable[[int], None]  # position rows just written
_PARAMETERS = 32_766  # bound parameters per INSERT statement (SQLite's limit)
POSITION_STORED = ("code", "data")  # the stored columns of positions (the rest are generated)


def existing_generator(path: Path) -> str | None:
    """The ``generator`` recorded in an existing SQLite file's meta table, if any (sqlite3.Error
    if SQLite cannot read the file)."""

    with closing(sqlite3.connect(sqlite_uri(path), uri=True)) as conn:
        conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()  # the file itself is readable
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = 'generator'").fetchone()
        except sqlite3.Error:  # no meta table, or not ours
            return None
    return row[0] if row else None


def check_target(target: Target, force: bool = False) -> None:
    """Fail early, before any solving, if a SQLite target cannot or must not be written."""
    if target.file is None:  # checked again inside the writing transaction
        with _server(target) as engine, engine.connect() as conn:
            _check_tables(conn, target, force)
        return
    path = destination(Path(target.file))
    try:
        kind = file_kind(str(path))
    except OSError as error:  # a name too long, a loop of links, a folder this user may not enter
        raise _cannot_build(path, error) from None
    if kind is not None:
        raise BuildError(f"cannot build database at {str(path)!r}: it is {kind}, not a file")
    if path.exists() and not force:
        try:
            ours, why = existing_generator(path) == GENERATOR, "it is not a ttt-solver database"
        except SQLITE_ERRORS as error:  # not SQLite, damaged, or a writer's unfinished change that a read cannot undo
            why = f"SQLite cannot read it ({sqlite_message(error)}), so it is not known to be a ttt-solver database"
            ours = False
        if not ours:
            raise BuildError(f"refusing to overwrite {str(path)!r}: {why} (use --force to replace it)")


def destination(path: Path) -> Path:
    """The file a build of ``path`` writes: where a symbolic link points (dangling or not: the
    link stays, its file is replaced), else ``path`` itself."""
    return Path(os.path.realpath(path)) if os.path.islink(path) else path


def _remove_journals(path: Path) -> None:
    """Delete the rollback journal and write-ahead log of the database being replaced. SQLite
    finds them by name: left beside the new file, a hot journal would be rolled back into it and
    a log's pages read as part of it."""
    for suffix in ("-journal", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def failed_write(error: BaseException) -> bool:
    """An error of the file system or of SQLite (a full disk, a folder turned read-only), as
    opposed to an interrupt, running out of memory, or a bug."""

    return isinstance(error, OSError | sqlite3.Error | SQLAlchemyError) and not out_of_memory(error)  # mmap's ENOMEM


def _cannot_build(path: Path, error: BaseException) -> BuildError:
    """One line naming the cause: the driver's message, not SQLAlchemy's statement dump."""
    cause = getattr(error, "orig", None) or error
    lines = str(cause).splitlines() or [type(cause).__name__]
    why = described(cause, str(path)) if isinstance(cause, OSError) else lines[0]
    return BuildError(f"cannot build database at {str(path)!r}: {why}")


@contextmanager
def _server(target: Target) -> Iterator[Engine]:
    """An engine for a server URL, disposed of afterwards; a driver's or SQLAlchemy's error
    inside becomes a one-line :class:`BuildError`."""

    try:
        engine = create_engine(target.url)
    except ModuleNotFoundError as error:
        raise BuildError(f"cannot build database at {target.spec!r}: {missing_driver(error)}") from None
    except (SQLAlchemyError, ValueError) as error:
        raise BuildError(f"cannot build database at {target.spec!r}: {str(error).splitlines()[0]}") from None
    try:
        yield engine
    except Exception as error:
        why = server_error(error)
        if why is None:
            raise
        raise BuildError(f"cannot build database at {target.spec!r}: {why}") from None
    finally:
        engine.dispose()


def _check_tables(conn: Connection, target: Target, force: bool) -> None:
    """Refuse, unless ``force``, a target holding tables of our names that we did not make."""
    live = live_tables(conn)
    ours = "meta" in live and (
        conn.exec_driver_sql("SELECT value FROM meta WHERE key = 'generator'").scalar() == GENERATOR
    )
    if live and not ours and not force:
        raise BuildError(
            f"refusing to overwrite {target.spec!r}: it holds tables ttt-solver did not make (use --force to replace them)"
        )


def _swap(conn: Connection, suffix: str) -> None:
    """Drop the live tables and give the new ones their names, in the open transaction. The
    locks are taken in one statement, in one order (a reader's statement that reads two of the
    tables names positions first), so a reader waits for the commit instead of deadlocking."""

    live = live_tables(conn)
    if live:
        conn.exec_driver_sql(f"LOCK TABLE {', '.join(live)} IN ACCESS EXCLUSIVE MODE")
        conn.exec_driver_sql(f"DROP TABLE {', '.join(live)}")
    for name in TABLE_NAMES:
        conn.exec_driver_sql(f"ALTER TABLE {name}{suffix} RENAME TO {name}")
        for constraint in schema.CONSTRAINTS[name]:
            conn.exec_driver_sql(f"ALTER TABLE {name} RENAME CONSTRAINT {constraint}{suffix} TO {constraint}")


def _copy_rows(conn: Connection, table: Table, names: tuple[str, ...], blocks: Blocks) -> None:
    """``COPY ... FROM STDIN`` in PostgreSQL's text format: a tab between fields, a line a row
    (the rows are integers: no NULL, tab, newline or backslash to escape)."""
    driver = conn.connection.driver_connection
    assert driver is not None
    with driver.cursor() as cursor, cursor.copy(f"COPY {table.name} ({', '.join(names)}) FROM STDIN") as copy:
        for rows in blocks:
            copy.write("".join(["\t".join(map(str, row)) + "\n" for row in rows.tolist()]))


class FileWriter:
    """A SQLite database being written, resumable: each block of position rows is committed
    on its own, and :meth:`positions` skips the rows a stopped build already wrote.

    ``part``: the file of a database of shards it is (:mod:`.shards`): ``"main"`` (``meta``,
    an empty ``moves`` and ``shards``), or ``"shard"`` (``positions``, ``packed`` and ``meta``);
    None: the whole database."""

    def __init__(self, path: str, variant: Variant, part: str | None = None) -> None:
        self.path = path
        self.cells = variant.cells
        self.tables = schema.define(MetaData(), variant.cells, generated=False)
        self.shards = schema.define_shards(self.tables.meta.metadata) if part == "main" else None
        made: list[Table] = {
            None: list(self.tables),
            "main": [self.tables.meta, self.tables.moves, *([self.shards] if self.shards is not None else [])],
            "shard": [self.tables.positions, self.tables.packed, self.tables.meta],
        }[part]
        self.made = {table.name for table in made}
        # The connection is opened here, not from a URL: a file name may hold "?", "#" or "%".
        self.engine = create_engine("sqlite://", creator=lambda: sqlite3.connect(path))

        @event.listens_for(self.engine, "connect")
        def _pragmas(dbapi_connection: sqlite3.Connection, _record: Any) -> None:
            # SQLite's default page of 4 KiB: a lookup reads a page per row it finds, and a smaller
            # page is less to read (2.3 us a row against 3.7 for 16 KiB pages; the bulk insert
            # costs 0.39 us a row against 0.31).
            dbapi_connection.execute("PRAGMA page_size = 4096")
            # Each block is a transaction that a kill rolls back (its journal), so the blocks
            # before it stay, synced: a resumed build finds exactly what was committed. The
            # safe settings cost nothing measurable: on 3x6k4's 20.8 million rows no journal
            # mode (DELETE, PERSIST, MEMORY, OFF), synchronous OFF, a cache of 8 to 64 MB or
            # 200 to 16,383 rows a statement moved the insert's CPU out of its run-to-run
            # spread (270 to 340 ns a row): SQLite's B-tree insert is the cost, each row a
            # search from the root (sqlite3BtreeTableMoveto), as in its own INSERT ... SELECT.
            dbapi_connection.execute("PRAGMA synchronous = FULL")

        with self._transaction() as conn:
            self.tables.positions.metadata.create_all(conn, tables=made)

    @contextmanager
    def _transaction(self) -> Iterator[Connection]:
        """A transaction, committed (or rolled back) and its connection back in the pool before
        a stop signal takes effect: SQLAlchemy's bookkeeping is never left half done."""
        with stops_held(), self.engine.begin() as conn:
            yield conn

    def written(self) -> int | None:
        """The largest code written so far (None: no row yet)."""
        with self._transaction() as conn:
            found = conn.exec_driver_sql("SELECT max(code) FROM positions").scalar()
        return None if found is None else int(found)

    def positions(self, blocks: Blocks, written: Written | None = None) -> None:
        for rows in blocks:
            with self._transaction() as conn:
                _insert_rows(conn, self.tables.positions, POSITION_STORED, [rows])
            if written:
                written(len(rows))

    def rest(self, moves: Blocks, packed: Packed) -> None:
        """The moves and the packed arrays, in one transaction (written again whole after a
        stop), and no meta yet. The packed parts are read back once committed, and each must
        hash as it did when packed (BuildError if one does not): the file holds the very bytes
        packed from the arrays, whose digest :func:`.content.packed_parts` took on the way."""

        made: dict[tuple[str, int], bytes] = {}
        with self._transaction() as conn:
            if "positions" in self.made:
                add_generated(conn, self.cells)
            for table in (self.tables.meta, self.tables.packed, self.tables.moves):
                if table.name in self.made:
                    conn.execute(table.delete())
            if "moves" in self.made:
                _insert_rows(conn, self.tables.moves, MOVE_COLUMNS, moves)
            if "packed" in self.made:
                _insert_packed(conn, self.tables, _hashed(packed, made))
        if "packed" in self.made and self.packed_hashes() != made:
            raise BuildError(f"{self.path!r} holds packed arrays other than those packed from its rows")

    def packed_hashes(self) -> dict[tuple[str, int], bytes]:
        """The SHA-256 of each part of the packed arrays as the file holds it, by (name, part)
        (one blob in memory at a time)."""
        with self._transaction() as conn:
            keys = conn.exec_driver_sql("SELECT name, part FROM packed ORDER BY name, part").all()
            query = "SELECT data FROM packed WHERE name = ? AND part = ?"
            return {(name, part): sha256(conn.exec_driver_sql(query, (name, part)).scalar() or b"").digest()
                    for name, part in keys}  # fmt: skip

    def meta(self, meta: Mapping[str, str], shards: Sequence[Shard] = ()) -> None:
        """The meta table, last: a file without it is no finished database (nor shard); with
        the ``shards`` table of a main file in the same transaction."""
        with self._transaction() as conn:
            if self.shards is not None:
                conn.execute(self.shards.delete())
                conn.execute(
                    self.shards.insert(),
                    [
                        {
                            "shard": s.number,
                            "file": s.file,
                            "build": s.build,
                            "first_code": s.first_code,
                            "rows": s.rows,
                        }
                        for s in shards
                    ],
                )
            conn.execute(self.tables.meta.delete())
            conn.execute(self.tables.meta.insert(), [{"key": k, "value": v} for k, v in sorted(meta.items())])

    def close(self) -> None:
        with stops_held():
            self.engine.dispose()


def _hashed(parts: Packed, made: dict[tuple[str, int], bytes]) -> Packed:
    """``parts`` as they come, each blob's SHA-256 noted in ``made`` by (name, part)."""
    for name, part, dtype, blob in parts:
        made[name, part] = sha256(blob).digest()
        yield name, part, dtype, blob


def rows_written(path: str, expected: Callable[[int, int], tuple[Any, Any]]) -> tuple[int, str | None]:
    """The position rows of the half-written file at ``path``, and why it cannot be written
    on (None: it can): SQLite's quick check, then its rows in code order against
    ``expected(start, stop)``, the (codes, data) arrays they were written from."""

    start = 0
    try:
        with closing(sqlite3.connect(path)) as conn:  # read-write: a stopped transaction's journal is rolled back
            checked = conn.execute("PRAGMA quick_check").fetchone()[0]
            if checked != "ok":
                return 0, f"SQLite's check says {checked!r}"
            if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'positions'").fetchone():
                return 0, "it has no positions table"
            cursor = conn.execute("SELECT code, data FROM positions ORDER BY code")
            while rows := cursor.fetchmany(1 << 16):
                found = np.array(rows, dtype=np.int64).reshape(-1, 2)
                codes, data = expected(start, start + len(found))
                if len(codes) != len(found) or not (
                    np.array_equal(found[:, 0], codes) and np.array_equal(found[:, 1], data)
                ):
                    return 0, f"its rows from row {start:,} on differ from the solved ones"
                start += len(found)
    except (*SQLITE_ERRORS, OverflowError, ValueError, TypeError) as error:
        return 0, f"SQLite cannot read it ({sqlite_message(error)})"
    return start, None


def remove_database(path: str) -> None:
    """Delete a SQLite file and its journals."""
    Path(path).unlink(missing_ok=True)
    _remove_journals(Path(path))


def install(built: str, target: Target, shards: Sequence[Shard] = ()) -> None:
    """Put the finished file ``built`` in the place of the target: synced to disk first, so
    that a crash leaves the old database or the new one, never a mixture. The ``shards`` of a
    database of shards (their files beside ``built``, as its shards table names them) go into
    place first, under names no other build uses, and the shards of the database replaced are
    removed last (:func:`remove_stale_shards`)."""
    assert target.file is not None
    path = destination(Path(target.file))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        for shard in shards:
            placed = path.parent / shard.file
            placed.parent.mkdir(exist_ok=True)
            sync(os.path.join(os.path.dirname(built), shard.file), required=True)
            os.replace(os.path.join(os.path.dirname(built), shard.file), placed)
        if shards:
            sync(str(path.parent / os.path.dirname(shards[0].file)), required=True)  # the shards' names
        sync(built, required=True)  # the content reaches the disk before the name does
        _remove_journals(path)
        os.replace(built, path)
    except OSError as error:
        raise _cannot_build(path, error) from None
    remove_stale_shards(path, {os.path.basename(shard.file) for shard in shards})


_SHARD_OR_JOURNAL = re.compile(rf"{SHARD_NAME}(-journal)?")


def remove_stale_shards(path: Path, keep: Collection[str]) -> None:
    """Remove from the shards folder of the database file ``path`` every shard file that is not
    one of ``keep`` (the names its own shards table lists): the shards of the databases it
    replaced, or of a build killed while it put them in place. Other files are left alone, and
    the folder goes once it is empty. A file that cannot be removed is left for the next build
    (the database is installed: this is tidying)."""
    folder = shard_folder(str(path))
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if name not in keep and _SHARD_OR_JOURNAL.fullmatch(name):
            with suppress(OSError):
                os.unlink(os.path.join(folder, name))
    with suppress(OSError):
        os.rmdir(folder)  # only if empty


def write_server(
    target: Target, variant: Variant, positions: Blocks, moves: Blocks, packed: Packed, meta: Mapping[str, str],
    force: bool = False, written: Written | None = None,
) -> None:  # fmt: skip
    """Write everything to a server URL in one transaction."""

    def counted(blocks: Blocks) -> Iterator[Rows]:
        for block in blocks:
            yield block
            if written:
                written(len(block))

    with _server(target) as engine, engine.begin() as conn:
        _check_tables(conn, target, force)
        postgres = conn.dialect.name == "postgresql"
        # PostgreSQL computes only STORED generated columns (virtual ones from version 18).
        suffix = f"_build_{os.getpid()}" if postgres else ""
        tables = schema.define(MetaData(), variant.cells, suffix, stored=postgres)
        if not postgres:
            for name in reversed(live_tables(conn)):
                conn.exec_driver_sql(f"DROP TABLE {name}")
        tables.positions.metadata.create_all(conn)
        _insert_rows(conn, tables.positions, POSITION_STORED, counted(positions))
        _insert_rows(conn, tables.moves, MOVE_COLUMNS, moves)
        _insert_packed(conn, tables, packed)
        conn.execute(tables.meta.insert(), [{"key": k, "value": v} for k, v in sorted(meta.items())])
        if postgres:
            # Fill new tables beside the live ones, then swap them in: readers wait only for
            # the swap, and see the old tables or the new ones.
            for table in tables:
                conn.exec_driver_sql(f"ANALYZE {table.name}")
            _swap(conn, suffix)


def _insert_packed(conn: Connection, tables: schema.Tables, packed: Packed) -> None:
    for name, part, dtype, blob in packed:
        conn.execute(tables.packed.insert(), [{"name": name, "part": part, "dtype": dtype, "data": blob}])


def _insert_rows(conn: Connection, table: Table, names: tuple[str, ...], blocks: Blocks) -> None:
    """Insert rows given a block at a time. On SQLite many rows go in each statement: a few
    times faster than a statement per row. PostgreSQL through psycopg 3 gets ``COPY``, its
    bulk-load path; other databases get Core's executemany."""
    if conn.dialect.name == "postgresql" and conn.dialect.driver == "psycopg":
        _copy_rows(conn, table, names, blocks)
        return
    width = len(names)
    per = max(1, _PARAMETERS // width)
    head = f"INSERT INTO {table.name} ({', '.join(names)}) VALUES "
    one = "(" + ", ".join("?" * width) + ")"
    many = head + ", ".join([one] * per)
    for rows in blocks:
        if conn.dialect.name != "sqlite":
            conn.execute(table.insert(), [dict(zip(names, row)) for row in rows.tolist()])
            continue
        # A statement's parameters made at a time, by one tolist, and given to the driver as a
        # list (SQLAlchemy would copy it into a tuple): the fewest Python objects a row, and
        # the same memory reused by every statement, where a block's made at once took fresh
        # pages from the system for each block (3x6k4: 300,000 page faults, 0.7 s of CPU).
        driver = conn.connection.driver_connection
        assert driver is not None
        for start in range(0, len(rows), per):
            values = rows[start : start + per]
            sql = many if len(values) == per else head + ", ".join([one] * len(values))
            driver.execute(sql, values.ravel().tolist())
