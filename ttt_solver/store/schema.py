"""The SQLAlchemy Core schema, version 3 (imported only when writing, or reading a server URL).

``positions`` is keyed by the canonical code of :mod:`ttt_solver.game.codec` (SQLite's
``INTEGER PRIMARY KEY``: the rowid itself, so a lookup is one B-tree search and the table needs
no second index) and stores one more number, ``data``, that packs the rest of the row
(:mod:`ttt_solver.store.content`). Every other column is a generated column computed from
those two by SQL: ``VIRTUAL`` on SQLite (computed when read, nothing stored), ``STORED`` on
PostgreSQL (which computes virtual ones only from version 18). To SQL they are ordinary
columns: ``SELECT board, value, best_moves FROM positions`` works as it always did.

``packed`` holds the same solution as compact little-endian arrays in parts, so that an
in-memory load reads a few blobs instead of millions of rows; ``ttt-lookup verify`` proves the
two agree. ``moves`` is written for small variants only (see :mod:`ttt_solver.builder.build`).

On PostgreSQL the text columns use the "C" collation, so that ``ORDER BY board`` sorts as
SQLite does (byte order: ``.`` < ``O`` < ``X``) and a named query gives the same rows on both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from sqlalchemy import (
    BigInteger,
    Column,
    Computed,
    ForeignKeyConstraint,
    Integer,
    LargeBinary,
    MetaData,
    PrimaryKeyConstraint,
    SmallInteger,
    String,
    Table,
    Text,
)
from sqlalchemy.types import TypeEngine

from .row_data import BEST_SHIFT, DATA_FIELDS


def _text(length: int | None = None) -> TypeEngine[str]:
    plain: TypeEngine[str] = String(length) if length else Text()
    return plain.with_variant(String(length, collation="C") if length else Text(collation="C"), "postgresql")


class Tables(NamedTuple):
    meta: Table
    moves: Table
    packed: Table
    positions: Table


# Each table's named constraints (a primary key is also the name of its index).
CONSTRAINTS = {
    "meta": ("meta_pkey",),
    "moves": ("moves_pkey", "moves_code_fkey"),
    "packed": ("packed_pkey",),
    "positions": ("positions_pkey",),
}


def _field(name: str) -> str:
    shift, bits, added = DATA_FIELDS[name]
    return f"(((data >> {shift}) & {(1 << bits) - 1}) - {added})"


def _digit(cell: int, cells: int) -> str:
    """The digit of ``cell`` in the code: 0 O, 1 empty, 2 X."""
    return f"((code / {3 ** (cells - 1 - cell)}) % 3)"


def expressions(cells: int) -> dict[str, str]:
    """The SQL of each generated column of ``positions`` for a board of ``cells`` cells (one
    expression for SQLite and PostgreSQL; none refers to another generated column, which
    PostgreSQL does not allow)."""
    ply = "(" + " + ".join(f"CASE WHEN {_digit(c, cells)} <> 1 THEN 1 ELSE 0 END" for c in range(cells)) + ")"
    best = " || ".join(f"CASE WHEN ((data >> {BEST_SHIFT + c}) & 1) <> 0 THEN ',{c}' ELSE '' END" for c in range(cells))
    value, remoteness = _field("value"), _field("remoteness")
    return {
        "board": " || ".join(f"substr('O.X', CAST({_digit(c, cells)} AS INTEGER) + 1, 1)" for c in range(cells)),
        "ply": ply,
        "to_move": f"CASE WHEN {ply} % 2 = 0 THEN 'X' ELSE 'O' END",
        "value": value,
        "remoteness": remoteness,
        "best_moves": f"ltrim({best}, ',')",
        "wins": _field("wins"),
        "draws": _field("draws"),
        "losses": _field("losses"),
        "orbit": _field("orbit"),
        # A finished game with a value was won: by the side to move when it is +1 (misère),
        # else by the player who just moved.
        "winner": (
            f"CASE WHEN {remoteness} <> 0 OR {value} = 0 THEN NULL"
            f" WHEN ({value} > 0) = ({ply} % 2 = 0) THEN 'X' ELSE 'O' END"
        ),
    }


_GENERATED: dict[str, tuple[Callable[[int], TypeEngine[Any]], str]] = {
    "board": (lambda cells: _text(cells), "canonical text, row-major"),
    "ply": (lambda _cells: SmallInteger(), "pieces on the board"),
    "to_move": (lambda _cells: _text(1), "X or O"),
    "value": (lambda _cells: SmallInteger(), "+1/0/-1 for the side to move"),
    "remoteness": (lambda _cells: SmallInteger(), "plies to the end under perfect play"),
    "best_moves": (lambda _cells: _text(), "cells keeping the value, ascending"),
    "wins": (lambda _cells: SmallInteger(), "moves that win for the side to move"),
    "draws": (lambda _cells: SmallInteger(), "moves that draw"),
    "losses": (lambda _cells: SmallInteger(), "moves that lose"),
    "orbit": (lambda _cells: SmallInteger(), "distinct boards this row stands for"),
    "winner": (lambda _cells: _text(1), "X or O on a won finished board"),
}


def define(metadata: MetaData, cells: int, suffix: str = "", stored: bool = False, generated: bool = True) -> Tables:
    """The four tables in ``metadata`` for a board of ``cells`` cells, each name (and each
    constraint's) followed by ``suffix`` (a PostgreSQL build fills suffixed tables beside the
    live ones, then renames them into place). ``stored``: generated columns computed once
    when a row is written (PostgreSQL), instead of when it is read. ``generated=False``: without
    them, for a SQLite file that gets them after its rows (:func:`add_generated`)."""
    sql = expressions(cells) if generated else {}
    positions = Table(
        f"positions{suffix}",
        metadata,
        Column(
            "code",
            BigInteger().with_variant(Integer(), "sqlite"),
            autoincrement=False,
            comment="canonical base-3 code, the key",
        ),
        Column("data", BigInteger, nullable=False, comment="the row's numbers, packed (README: Schema)"),
        *(
            Column(name, kind(cells), Computed(sql[name], persisted=stored), comment=comment)
            for name, (kind, comment) in _GENERATED.items()
            if name in sql
        ),
        PrimaryKeyConstraint("code", name=f"positions_pkey{suffix}"),
    )
    moves = Table(
        f"moves{suffix}",
        metadata,
        Column("code", BigInteger().with_variant(Integer(), "sqlite"), autoincrement=False),
        Column("cell", SmallInteger, comment="in the canonical board's numbering"),
        Column("value", SmallInteger, nullable=False, comment="for the player making the move"),
        Column("remoteness", SmallInteger, nullable=False, comment="plies from the position to the end"),
        PrimaryKeyConstraint("code", "cell", name=f"moves_pkey{suffix}"),
        ForeignKeyConstraint(["code"], [positions.c.code], name=f"moves_code_fkey{suffix}"),
    )
    packed = Table(
        f"packed{suffix}",
        metadata,
        Column("name", _text(32), comment="a column of positions, or code"),
        Column("part", Integer, autoincrement=False, comment="parts of at most 2**24 rows, in order"),
        Column("dtype", _text(8), nullable=False, comment="numpy dtype of the array, little-endian"),
        Column("data", LargeBinary, nullable=False),
        PrimaryKeyConstraint("name", "part", name=f"packed_pkey{suffix}"),
    )
    meta = Table(
        f"meta{suffix}",
        metadata,
        Column("key", _text(64)),
        Column("value", _text(), nullable=False),
        PrimaryKeyConstraint("key", name=f"meta_pkey{suffix}"),
    )
    return Tables(meta, moves, packed, positions)


def define_shards(metadata: MetaData) -> Table:
    """The ``shards`` table of a database of shards' main file (:mod:`ttt_solver.store.shards`)."""
    return Table(
        "shards",
        metadata,
        Column("shard", Integer, autoincrement=False, comment="0, 1, ... in code order"),
        Column("file", Text, nullable=False, comment="relative to the main file's folder"),
        Column("build", Text, nullable=False, comment="the build it belongs to, as its meta table says"),
        Column("first_code", BigInteger().with_variant(Integer(), "sqlite"), nullable=False),
        Column("rows", BigInteger().with_variant(Integer(), "sqlite"), nullable=False),
        PrimaryKeyConstraint("shard", name="shards_pkey"),
    )


def add_generated(conn: Any, cells: int) -> None:
    """Add the generated columns to a SQLite ``positions`` table made without them. SQLite
    computes every generated column of a row as it inserts it, virtual ones too (14 times the
    cost of the insert itself for 16 cells), but adds a virtual column to a full table
    without touching a row."""
    have = {row[1] for row in conn.exec_driver_sql("PRAGMA table_xinfo(positions)")}
    sql = expressions(cells)
    for name, (kind, _comment) in _GENERATED.items():
        if name not in have:
            declared = kind(cells).compile(dialect=conn.dialect)
            conn.exec_driver_sql(
                f"ALTER TABLE positions ADD COLUMN {name} {declared} GENERATED ALWAYS AS ({sql[name]}) VIRTUAL"
            )
