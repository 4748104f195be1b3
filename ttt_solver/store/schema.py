"""The SQLAlchemy Core schema, version 2 (imported only when writing, or reading a server URL).

``positions`` is keyed by the canonical code of :mod:`ttt_solver.codec` (SQLite's
``INTEGER PRIMARY KEY``: the rowid itself, so a lookup is one B-tree search and the table needs
no second index); ``board`` keeps the text form for people reading the table in SQL. ``packed``
holds the same solution as compact little-endian arrays, one row per column, so that an
in-memory load reads a few blobs instead of a million rows; ``ttt-lookup verify`` proves the
two agree. ``moves`` is written for small variants only (see :mod:`ttt_solver.build`).
"""

from __future__ import annotations

from sqlalchemy import Column, ForeignKey, Integer, LargeBinary, MetaData, SmallInteger, String, Table, Text

metadata = MetaData()

positions = Table(
    "positions",
    metadata,
    Column("code", Integer, primary_key=True, autoincrement=False, comment="canonical base-3 code, the key"),
    Column("board", String(16), nullable=False, comment="canonical text, row-major"),
    Column("ply", SmallInteger, nullable=False),
    Column("to_move", String(1), nullable=False),
    Column("value", SmallInteger, nullable=False, comment="+1/0/-1 for the side to move"),
    Column("remoteness", SmallInteger, nullable=False, comment="plies to the end under perfect play"),
    Column("best_moves", Text, nullable=False, comment="cells keeping the value, ascending"),
    Column("wins", SmallInteger, nullable=False, comment="moves that win for the side to move"),
    Column("draws", SmallInteger, nullable=False, comment="moves that draw"),
    Column("losses", SmallInteger, nullable=False, comment="moves that lose"),
    Column("orbit", SmallInteger, nullable=False, comment="distinct boards this row stands for"),
    Column("winner", String(1), nullable=True, comment="X or O on a won finished board"),
)

moves = Table(
    "moves",
    metadata,
    Column("code", Integer, ForeignKey("positions.code"), primary_key=True, autoincrement=False),
    Column("cell", SmallInteger, primary_key=True, comment="in the canonical board's numbering"),
    Column("value", SmallInteger, nullable=False, comment="for the player making the move"),
    Column("remoteness", SmallInteger, nullable=False, comment="plies from the position to the end"),
)

packed = Table(
    "packed",
    metadata,
    Column("name", String(32), primary_key=True, comment="a column of positions, or code"),
    Column("dtype", String(8), nullable=False, comment="numpy dtype of the array, little-endian"),
    Column("data", LargeBinary, nullable=False),
)

meta = Table(
    "meta",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

TABLES = (meta, moves, packed, positions)
