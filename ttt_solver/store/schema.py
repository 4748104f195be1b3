"""The SQLAlchemy Core schema (imported only when writing, or reading a non-SQLite URL)."""

from __future__ import annotations

from sqlalchemy import Column, ForeignKey, Index, MetaData, SmallInteger, String, Table, Text

metadata = MetaData()

positions = Table(
    "positions",
    metadata,
    Column("board", String(16), primary_key=True, comment="canonical text, row-major"),
    Column("ply", SmallInteger, nullable=False),
    Column("to_move", String(1), nullable=False),
    Column("value", SmallInteger, nullable=False, comment="+1/0/-1 for the side to move"),
    Column("remoteness", SmallInteger, nullable=False, comment="plies to the end under perfect play"),
    Column("best_moves", Text, nullable=False, comment="cells keeping the value, ascending"),
    Column("orbit", SmallInteger, nullable=False, comment="distinct boards this row stands for"),
    Column("winner", String(1), nullable=True, comment="X or O on a won finished board"),
    Index("ix_positions_ply_value", "ply", "value"),
    Index("ix_positions_value_remoteness", "value", "remoteness"),
)

moves = Table(
    "moves",
    metadata,
    Column("board", String(16), ForeignKey("positions.board"), primary_key=True),
    Column("cell", SmallInteger, primary_key=True, comment="in the canonical board's numbering"),
    Column("value", SmallInteger, nullable=False, comment="for the player making the move"),
    Column("remoteness", SmallInteger, nullable=False, comment="plies from the position to the end"),
    Index("ix_moves_value", "value"),
)

meta = Table(
    "meta",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

TABLES = (meta, moves, positions)
