"""Write a solved variant into a database, all or nothing.

A SQLite target is built in a temporary file beside it and renamed into place, so an
interrupted build never leaves a half-written database. Other SQLAlchemy URLs are written in
one transaction. Either way, a target that holds something ttt-solver did not make is left
alone unless ``force`` is given. Rows go in key order, many rows per INSERT statement; the
tables have no secondary index to maintain while they fill.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import closing
from glob import escape as glob_escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import BuildError
from . import GENERATOR, MOVE_COLUMNS, POSITION_COLUMNS
from .target import Target

if TYPE_CHECKING:
    from sqlalchemy import Table
    from sqlalchemy.engine import Connection

Progress = Callable[[str], None]
Columns = Sequence[Sequence[Any]]  # one list per column
Blocks = Iterable[Columns]  # the rows, a block at a time, in key order
_PARAMETERS = 12_000  # bound parameters per INSERT statement (SQLite allows 32,766)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def existing_generator(path: Path) -> str | None:
    """The ``generator`` recorded in an existing SQLite file's meta table, if any."""
    from .reader import sqlite_uri

    try:
        with closing(sqlite3.connect(sqlite_uri(path), uri=True)) as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = 'generator'").fetchone()
    except sqlite3.Error:
        return None
    return row[0] if row else None


def check_target(target: Target, force: bool = False) -> None:
    """Fail early, before any solving, if a target cannot or must not be written."""
    path = target.path
    if path is None:  # a server URL: its dialect and driver load now; its tables are checked when writing
        _server_engine(target).dispose()
        return
    if path.is_dir():
        raise BuildError(f"cannot build database at {str(path)!r}: it is a directory")
    if path.exists() and not path.is_file():
        raise BuildError(f"cannot build database at {str(path)!r}: it is not a regular file (a FIFO, device or socket)")
    if path.exists() and not force and existing_generator(path) != GENERATOR:
        raise BuildError(
            f"refusing to overwrite {str(path)!r}: it is not a ttt-solver database (use --force to replace it)"
        )


def write(
    target: Target,
    positions: Blocks,
    moves: Blocks,
    packed: Mapping[str, bytes],
    meta: Mapping[str, str],
    force: bool = False,
) -> None:
    """Write the rows, the packed arrays and the meta table."""

    def fill(conn: Connection) -> None:
        _insert(conn, positions, moves, packed, meta)

    if target.path is None:
        _write_transaction(target, fill, force)
    else:
        _write_file(target, fill, force)


Fill = Callable[["Connection"], None]  # writes the whole content through an open connection


def _write_file(target: Target, fill: Fill, force: bool) -> None:
    path = target.path
    assert path is not None
    check_target(target, force)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _remove_leftovers(path)
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=_BUILDING, dir=path.parent)
        _lock(handle)  # held while this build lives: a later build knows the file is not a leftover
        os.chmod(temporary, 0o666 & ~_umask())  # mkstemp makes it 0600: give it the mode a new file gets
    except OSError as error:
        raise BuildError(f"cannot build database at {str(path)!r}: {error.strerror or error}") from None
    try:
        _fill_file(temporary, fill)
        os.replace(temporary, path)
    except BaseException as error:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise BuildError(f"cannot build database at {str(path)!r}: {error.strerror or error}") from None
        raise
    finally:
        os.close(handle)


_BUILDING = ".building"


def _lock(handle: int, wait: bool = True) -> bool:
    """An exclusive advisory lock on an open file (POSIX ``flock``; nothing elsewhere)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return False
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except OSError:
        return False
    return True


def _remove_leftovers(path: Path) -> None:
    """Delete the temporary files of builds of ``path`` that were killed: a live build holds a
    lock on its file, a killed one's lock went with its process."""
    for leftover in path.parent.glob(f".{glob_escape(path.name)}.*{_BUILDING}"):
        try:
            handle = os.open(leftover, os.O_RDONLY)
        except OSError:
            continue
        try:
            if _lock(handle, wait=False):
                leftover.unlink(missing_ok=True)
        finally:
            os.close(handle)


def _fill_file(path: str, fill: Fill) -> None:
    from sqlalchemy import create_engine, event

    # The connection is opened here, not from a URL: a file name may hold "?", "#" or "%".
    engine = create_engine("sqlite://", creator=lambda: sqlite3.connect(path))

    # A private temporary file that is renamed only when complete: no journal needed.
    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_connection: sqlite3.Connection, _record: Any) -> None:
        dbapi_connection.execute("PRAGMA page_size = 16384")  # fewer, fuller pages: a faster bulk insert
        dbapi_connection.execute("PRAGMA journal_mode = OFF")
        dbapi_connection.execute("PRAGMA synchronous = OFF")

    try:
        with engine.begin() as conn:
            fill(conn)
    finally:
        engine.dispose()


def _server_engine(target: Target) -> Any:
    """An engine for a server URL, not yet connected; BuildError if its dialect or driver is missing."""
    from sqlalchemy import create_engine
    from sqlalchemy.exc import SQLAlchemyError

    try:
        return create_engine(target.url)
    except (SQLAlchemyError, ValueError) as error:
        raise BuildError(f"cannot build database at {target.spec!r}: {error.__class__.__name__}: {error}") from None
    except ModuleNotFoundError as error:
        raise BuildError(f"cannot build database at {target.spec!r}: missing driver {error.name!r}") from None


def _write_transaction(target: Target, fill: Fill, force: bool) -> None:
    from sqlalchemy import inspect, select
    from sqlalchemy.exc import SQLAlchemyError, StatementError

    from . import schema

    try:
        engine = _server_engine(target)
        with engine.begin() as conn:
            names = set(inspect(conn).get_table_names())
            ours = (
                "meta" in names
                and conn.execute(select(schema.meta.c.value).where(schema.meta.c.key == "generator")).scalar()
                == GENERATOR
            )
            if names & {"meta", "positions", "moves", "packed"} and not ours and not force:
                raise BuildError(
                    f"refusing to overwrite {target.spec!r}: it holds tables ttt-solver did not make"
                    " (use --force to replace them)"
                )
            schema.metadata.drop_all(conn)
            fill(conn)
        engine.dispose()
    except SQLAlchemyError as error:
        # Only statement errors wrap a driver error (.orig); others (a bad URL) carry their own message.
        cause = error.orig if isinstance(error, StatementError) else None
        raise BuildError(
            f"cannot build database at {target.spec!r}: {error.__class__.__name__}: {cause or error}"
        ) from None
    except ModuleNotFoundError as error:
        raise BuildError(f"cannot build database at {target.spec!r}: missing driver {error.name!r}") from None


def _insert(
    conn: Connection, positions: Blocks, moves: Blocks, packed: Mapping[str, bytes], meta: Mapping[str, str]
) -> None:
    from . import schema
    from .content import PACKED

    schema.metadata.create_all(conn)
    _insert_columns(conn, schema.positions, POSITION_COLUMNS, positions)
    _insert_columns(conn, schema.moves, MOVE_COLUMNS, moves)
    dtypes = dict(PACKED)
    conn.execute(schema.packed.insert(), [{"name": k, "dtype": dtypes[k], "data": v} for k, v in packed.items()])
    conn.execute(schema.meta.insert(), [{"key": k, "value": v} for k, v in sorted(meta.items())])


def _insert_columns(conn: Connection, table: Table, names: tuple[str, ...], blocks: Blocks) -> None:
    """Insert rows given a block at a time, column by column. On SQLite many rows go in each
    statement: a few times faster than a statement per row, which matters for the 1.2 million
    rows of 4x4. Other databases get Core's executemany."""
    import numpy as np

    width = len(names)
    per = max(1, _PARAMETERS // width)
    head = f"INSERT INTO {table.name} ({', '.join(names)}) VALUES "
    one = "(" + ", ".join("?" * width) + ")"
    for columns in blocks:
        count = len(columns[0])
        if conn.dialect.name != "sqlite":
            conn.execute(table.insert(), [dict(zip(names, row)) for row in zip(*columns)])
            continue
        grid = np.empty((count, width), dtype=object)
        for j, column in enumerate(columns):
            grid[:, j] = column
        full = count // per * per
        if full:
            statements = grid[:full].reshape(-1, per * width).tolist()
            conn.exec_driver_sql(head + ", ".join([one] * per), list(map(tuple, statements)))
        if full < count:
            conn.exec_driver_sql(head + ", ".join([one] * (count - full)), tuple(grid[full:].ravel().tolist()))
