"""Compiled loops for the batch lookups: each board's code and its table entry in one pass over
the boards. The loops are C, the extension module ``batch_loops`` (``batch_loops.c`` beside
this file), built with the package where a C compiler is at hand; this module gives them their
arguments.

The numpy path (:meth:`.tables.BatchTables.lookup`) makes the code of a chunk of boards with a
product or two word tables, then gathers the table entries: whole-array steps with temporaries
as large as the chunk. Here, up to 15 cells, a loop makes a block of boards' codes, checking
their cells, and another reads their entries. A 16-cell board's value is read by its rank
(:mod:`.ranked_values`), its two halves read as two 64-bit words: a block of boards goes
through five steps, each a loop of its own. Where a loop meets a board at fault it returns
False, and the numpy path answers the same boards, raising the error it raises today.

The choice is made once, here, as this module is imported: the loops are used where the
extension was built, unless the environment asks for numpy's (``TTT_COMPILED=numpy``:
:mod:`ttt_solver.system.compiled_loops`).
"""

from __future__ import annotations

import numpy as np

from ..system import compiled_loops

try:
    from . import batch_loops
except ImportError:  # installed where no C compiler was at hand
    BUILT = False
else:
    BUILT = True

COMPILED = BUILT and compiled_loops.asked() != compiled_loops.NUMPY


def gather_bytes(
    boards: np.ndarray, weights: np.ndarray, table: np.ndarray, translate: np.ndarray, out: np.ndarray
) -> bool:
    """``out[i] = translate[table[code of boards[i]]]`` of (N, cells) integer boards; False,
    some rows not filled, if a row has a cell other than +1, -1 or 0, or an entry of 255 (no
    legal board)."""
    if boards.dtype != np.int8 or not boards.flags.c_contiguous:  # the loop reads int8 boards
        narrowed = np.empty(boards.shape, dtype=np.int8)
        if not narrow(boards, narrowed):
            return False
        boards = narrowed
    answered: bool = batch_loops.gather_bytes(boards, weights, table, translate, out)
    return answered


def values_by_rank(
    words: np.ndarray, base: np.ndarray, position: np.ndarray, packed: np.ndarray, out: np.ndarray
) -> bool:
    """The value of each 16-cell board (two words of ``words`` a board) from two bits a rank
    (:class:`.ranked_values.RankedValues`); False, some rows not filled, if a board has a cell
    other than +1, -1 or 0, impossible piece counts, or no legal board at its rank."""
    answered: bool = batch_loops.values_by_rank(words, base, position, packed, out)
    return answered


def narrow(boards: np.ndarray, out: np.ndarray) -> bool:
    """``out`` = ``boards`` (any integers, any layout) as int8; False at a value other than
    +1, -1 or 0."""
    answered: bool = batch_loops.narrow(_c_layout(boards), out)
    return answered


def _c_layout(boards: np.ndarray) -> np.ndarray:
    """The boards as the loops read them: C-contiguous, in this machine's byte order (a copy
    only where they are not)."""
    if boards.flags.c_contiguous and boards.dtype.isnative:
        return boards
    return np.ascontiguousarray(boards, dtype=boards.dtype.newbyteorder("="))
