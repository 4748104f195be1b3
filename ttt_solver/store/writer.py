"""Write a solved variant into a database, all or nothing.

A SQLite target is built in a temporary file beside it and renamed into place, so an
interrupted build never leaves a half-written database. Other SQLAlchemy URLs are written
in one transaction. Either way, a target that holds something ttt-solver did not make is
left alone unless ``force`` is given.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from collections.abc import Callable, Mapping
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import __version__
from ..errors import BuildError
from .content import GENERATOR, MOVE_COLUMNS, POSITION_COLUMNS, SCHEMA_VERSION, Row, content_digest
from .target import Target

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection

Progress = Callable[[str], None]
_CHUNK = 50_000  # rows per executemany: bounds the memory of the parameter lists


def existing_generator(path: Path) -> str | None:
    """The ``generator`` recorded in an existing SQLite file's meta table, if any."""
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = 'generator'").fetchone()
    except sqlite3.Error:
        return None
    return row[0] if row else None


def check_target(target: Target, force: bool = False) -> None:
    """Fail early, before any solving, if a SQLite target cannot or must not be written."""
    path = target.path
    if path is None:
        return  # a server URL is checked inside the writing transaction
    if path.is_dir():
        raise BuildError(f"cannot build database at {str(path)!r}: it is a directory")
    if path.exists() and not force and existing_generator(path) != GENERATOR:
        raise BuildError(
            f"refusing to overwrite {str(path)!r}: it is not a ttt-solver database (use --force to replace it)"
        )


def write(
    target: Target,
    variant_name: str,
    positions: list[Row],
    moves: list[Row],
    extra_meta: Mapping[str, str] = {},
    force: bool = False,
    progress: Progress | None = None,
) -> dict[str, str]:
    """Write the rows and return the meta table that was written."""
    if progress:
        progress(f"{variant_name}: hashing {len(positions):,} positions and {len(moves):,} moves")
    meta = _meta(variant_name, positions, moves, extra_meta)
    if progress:
        progress(f"{variant_name}: writing {target}")
    if target.path is None:
        _write_transaction(target, positions, moves, meta, force)
    else:
        _write_file(target, positions, moves, meta, force)
    return meta


def _meta(variant_name: str, positions: list[Row], moves: list[Row], extra: Mapping[str, str]) -> dict[str, str]:
    return {
        "generator": GENERATOR,
        "generator_version": __version__,
        "schema_version": SCHEMA_VERSION,
        "variant": variant_name,
        "positions": str(len(positions)),
        "moves": str(len(moves)),
        "digest": content_digest(variant_name, positions, moves),
        "built_at": datetime.now(UTC).isoformat(timespec="seconds"),
        **extra,
    }


def _write_file(target: Target, positions: list[Row], moves: list[Row], meta: dict[str, str], force: bool) -> None:
    path = target.path
    assert path is not None
    check_target(target, force)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".building", dir=path.parent)
        os.close(handle)
    except OSError as error:
        raise BuildError(f"cannot build database at {str(path)!r}: {error.strerror or error}") from None
    try:
        _fill(f"sqlite:///{temporary}", positions, moves, meta, sqlite=True)
        os.replace(temporary, path)
    except BaseException as error:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise BuildError(f"cannot build database at {str(path)!r}: {error.strerror or error}") from None
        raise


def _write_transaction(
    target: Target, positions: list[Row], moves: list[Row], meta: dict[str, str], force: bool
) -> None:
    from sqlalchemy import create_engine, inspect, select
    from sqlalchemy.exc import SQLAlchemyError, StatementError

    from . import schema

    try:
        engine = create_engine(target.url)
        with engine.begin() as conn:
            names = set(inspect(conn).get_table_names())
            ours = (
                "meta" in names
                and conn.execute(select(schema.meta.c.value).where(schema.meta.c.key == "generator")).scalar()
                == GENERATOR
            )
            if names & {"meta", "positions", "moves"} and not ours and not force:
                raise BuildError(
                    f"refusing to overwrite {target.spec!r}: it holds tables ttt-solver did not make"
                    " (use --force to replace them)"
                )
            schema.metadata.drop_all(conn)
            _insert(conn, positions, moves, meta)
        engine.dispose()
    except SQLAlchemyError as error:
        # Only statement errors wrap a driver error (.orig); others (a bad URL) carry their own message.
        cause = error.orig if isinstance(error, StatementError) else None
        raise BuildError(
            f"cannot build database at {target.spec!r}: {error.__class__.__name__}: {cause or error}"
        ) from None
    except ModuleNotFoundError as error:
        raise BuildError(f"cannot build database at {target.spec!r}: missing driver {error.name!r}") from None


def _fill(url: str, positions: list[Row], moves: list[Row], meta: dict[str, str], sqlite: bool) -> None:
    from sqlalchemy import create_engine, event

    engine = create_engine(url)
    if sqlite:
        # A private temporary file that is renamed only when complete: no journal needed.
        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_connection: sqlite3.Connection, _record: Any) -> None:
            dbapi_connection.execute("PRAGMA journal_mode = OFF")
            dbapi_connection.execute("PRAGMA synchronous = OFF")

    try:
        with engine.begin() as conn:
            _insert(conn, positions, moves, meta)
    finally:
        engine.dispose()


def _insert(conn: Connection, positions: list[Row], moves: list[Row], meta: dict[str, str]) -> None:
    from . import schema

    schema.metadata.create_all(conn)
    _insert_rows(conn, schema.positions, POSITION_COLUMNS, positions)
    _insert_rows(conn, schema.moves, MOVE_COLUMNS, moves)
    conn.execute(schema.meta.insert(), [{"key": k, "value": v} for k, v in sorted(meta.items())])


def _insert_rows(conn: Any, table: Any, columns: tuple[str, ...], rows: list[Row]) -> None:
    """Core executemany, a chunk at a time. On SQLite the row tuples go straight to the
    DBAPI cursor's executemany (still one compiled INSERT): about twice as fast as handing
    Core a dict per row, which matters for the 1.2 million rows of 4x4."""
    insert = table.insert()
    direct = conn.dialect.name == "sqlite"
    sql = str(insert.compile(dialect=conn.dialect, column_keys=list(columns))) if direct else ""
    for start in range(0, len(rows), _CHUNK):
        chunk = rows[start : start + _CHUNK]
        if direct:
            conn.exec_driver_sql(sql, chunk)
        else:
            conn.execute(insert, [dict(zip(columns, row)) for row in chunk])
