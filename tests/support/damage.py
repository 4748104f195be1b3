"""How the damage tests make their files: a copy of a database changed by SQL statements, and
the SQL that changes one number of a ``positions`` row (the numbers live packed in ``data``;
the readable columns are generated from it and cannot be written)."""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

from ttt_solver.store.row_data import BEST_SHIFT, DATA_FIELDS


def copy_with(db: Path, folder: Path, *statements: str) -> Path:
    """``db`` copied into ``folder`` (as ``copy.sqlite``), then each statement run on the copy."""
    copy = folder / "copy.sqlite"
    shutil.copyfile(db, copy)
    with closing(sqlite3.connect(copy)) as conn, conn:
        for statement in statements:
            conn.execute(statement)
    return copy


def set_number(name: str, value: str) -> str:
    """``data = ...`` that sets the number ``name`` (value, remoteness, wins, draws, losses,
    orbit, best: the mask) to the SQL expression ``value``, which may read the old row's
    generated columns (``value``, ``remoteness``, ...)."""
    if name == "best":
        return f"data = (data & {(1 << BEST_SHIFT) - 1}) | (({value}) << {BEST_SHIFT})"
    shift, bits, added = DATA_FIELDS[name]
    return f"data = (data & ~({(1 << bits) - 1} << {shift})) | (((({value}) + {added}) & {(1 << bits) - 1}) << {shift})"
