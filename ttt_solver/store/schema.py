"""The SQLAlchemy Core schema, version 2 (imported only when writing, or reading a server URL).

``positions`` is keyed by the canonical code of :mod:`ttt_solver.codec` (SQLite's
``INTEGER PRIMARY KEY``: the rowid itself, so a lookup is one B-tree search and the table needs
no second index); ``board`` keeps the text form for people reading the table in SQL. ``packed``
holds the same solution as compact little-endian arrays, one row per column, so that an
in-memory load reads a few blobs instead of a million rows; ``ttt-lookup verify`` proves the
two agree. ``moves`` is written for small variants only (see :mod:`ttt_solver.build`).

On PostgreSQL the text columns use the "C" collation, so that ``ORDER BY board`` sorts as
SQLite does (byte order: ``.`` < ``O`` < ``X``) and a named query gives the same rows on both.
"""

from __future__ import annotations

from typing import NamedTuple

from sqlalchemy import (
    Column,
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


def define(metadata: MetaData, suffix: str = "") -> Tables:
    """The four tables in ``metadata``, each name, and each constraint's, followed by ``suffix``
    (a PostgreSQL build fills suffixed tables beside the live ones, then renames them into place)."""
    positions = Table(
        f"positions{suffix}",
        metadata,
        Column("code", Integer, autoincrement=False, comment="canonical base-3 code, the key"),
        Column("board", _text(16), nullable=False, comment="canonical text, row-major"),
        Column("ply", SmallInteger, nullable=False),
        Column("to_move", _text(1), nullable=False),
        Column("value", SmallInteger, nullable=False, comment="+1/0/-1 for the side to move"),
        Column("remoteness", SmallInteger, nullable=False, comment="plies to the end under perfect play"),
        Column("best_moves", _text(), nullable=False, comment="cells keeping the value, ascending"),
        Column("wins", SmallInteger, nullable=False, comment="moves that win for the side to move"),
        Column("draws", SmallInteger, nullable=False, comment="moves that draw"),
        Column("losses", SmallInteger, nullable=False, comment="moves that lose"),
        Column("orbit", SmallInteger, nullable=False, comment="distinct boards this row stands for"),
        Column("winner", _text(1), nullable=True, comment="X or O on a won finished board"),
        PrimaryKeyConstraint("code", name=f"positions_pkey{suffix}"),
    )
    moves = Table(
        f"moves{suffix}",
        metadata,
        Column("code", Integer, autoincrement=False),
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
        Column("dtype", _text(8), nullable=False, comment="numpy dtype of the array, little-endian"),
        Column("data", LargeBinary, nullable=False),
        PrimaryKeyConstraint("name", name=f"packed_pkey{suffix}"),
    )
    meta = Table(
        f"meta{suffix}",
        metadata,
        Column("key", _text(64)),
        Column("value", _text(), nullable=False),
        PrimaryKeyConstraint("key", name=f"meta_pkey{suffix}"),
    )
    return Tables(meta, moves, packed, positions)


metadata = MetaData()
meta, moves, packed, positions = TABLES = define(metadata)
