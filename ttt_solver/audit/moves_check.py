"""A ``moves`` table against the children's rows: each stored move's value and remoteness
must be minus its child's value and one more than its remoteness; and ``meta`` against what
is stored (a table where none is said, none where one is said)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..game import array_rules
from . import Audited
from .held_tiers import HeldTiers
from .report import Report

if TYPE_CHECKING:
    from ..game.variant import Variant
    from ..solver import Solved


def check_moves(source: Audited, variant: Variant, tiers: HeldTiers, report: Report, table: bool, rows: int) -> None:
    """The ``moves`` table (``table``: there is one), ``rows`` at a time, against the
    children's rows, whatever ``meta`` says of it; and ``meta`` against what is there."""
    said, count = source.meta.get("moves_stored"), source.meta.get("moves")
    if table and (said == "1" or source.reader.has_moves()):
        report.stage("checking the moves table")
    stored = source.reader.move_count() if table else 0
    report.check(str(stored) == count, f"{stored:,} rows in moves as meta says")
    if said == "1" and not table:
        report.failed("meta says the moves are stored, but there is no moves table")
    elif said == "0" and stored:
        report.failed(f"meta says no moves are stored, but the moves table has {stored:,} rows")
    if not stored and said != "1":
        report.passed("no moves stored (moves are derived from the children)")
        return
    everything = tiers.everything()
    if everything is None:
        report.failed("a moves table in a database too big to hold one")
        return
    compare_moves(source.reader.move_blocks(rows) if table else [], everything, variant, report)


def compare_moves(blocks: Iterable[Sequence[tuple[Any, ...]]], rows: Solved, variant: Variant, report: Report) -> None:
    """Rows of ``moves`` (code, cell, value, remoteness, by code then cell), a block at a time,
    against what the children's rows imply."""
    live = np.flatnonzero(rows.remoteness > 0)
    parent, cells, children = array_rules.children(rows.code[live], variant)
    index, found = array_rules.search(rows.code, children)
    index[~found] = 0  # a missing child is reported by the proof of the positions
    expected = np.stack(
        [rows.code[live][parent], cells, -rows.value[index].astype(np.int64), rows.remoteness[index] + 1], axis=1
    ).astype(np.int64)
    seen = wrong = 0
    codes: list[int] = []  # the first three wrong rows'
    for block in blocks:
        got = _move_numbers(block, report)
        if got is None:
            return
        mine = expected[seen : seen + len(got)]
        seen += len(got)
        if len(mine) == len(got):
            differ = (got != mine).any(axis=1)
            wrong += int(differ.sum())
            codes += got[differ][: 3 - len(codes), 0].tolist()
    if seen != len(expected):
        report.failed(f"the moves table has {seen:,} rows, the children imply {len(expected):,}")
        return
    if wrong:
        listed = np.array(codes, dtype=np.int64)
        outside = (listed < 0) | (listed >= 3**variant.cells)  # a damaged code: no board to show
        shown_codes = listed.astype(str).tolist() if outside.any() else array_rules.decode_texts(listed, variant)
        report.failed("moves rows differ from the children's rows", shown_codes, wrong)
    else:
        report.passed("every moves row equals its child's row")


def _move_numbers(block: Sequence[tuple[Any, ...]], report: Report) -> np.ndarray | None:
    """A block of ``moves`` rows as an array of int64 (None, and said, if a number is not an
    integer or out of range)."""
    # Exactly integers: numpy would read a real 0.5 as 0, and a text "1" as 1.
    if any(number.__class__ is not int for row in block for number in row):
        report.failed("the moves table holds a value that is not an integer")
        return None
    try:
        return np.array(block, dtype=np.int64).reshape(len(block), 4)
    except (ValueError, OverflowError):
        report.failed("the moves table holds an integer out of range")
        return None
