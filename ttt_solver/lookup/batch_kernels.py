"""Compiled loops for the batch lookups: each board's code and its table entry in one pass over
the boards, where numba is installed (the ``fast`` extra).

The numpy path (:meth:`.tables.BatchTables.lookup`) makes the code of a chunk of boards with a
product or two word tables, then gathers the table entries: whole-array steps with temporaries
as large as the chunk. Here one loop reads a board's cells, checks them, adds up its code and
reads its entry. Where a loop meets a board at fault it stops, and the numpy path answers the
same boards, raising the error it raises today.

The choice is made once, here, as this module is imported: numba is used if it can be imported,
unless the environment asks for numpy's (``TTT_COMPILED=numpy``: :mod:`ttt_solver.system.compiled_loops`). :mod:`.tables` imports this module on the first
batch lookup only, so that loading a database never imports numba.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..system import compiled_loops

numba: Any
if compiled_loops.asked() == compiled_loops.NUMPY:
    numba = None
else:
    try:
        import numba
    except (ImportError, OSError):  # the fast extra is not installed, or llvmlite cannot load
        numba = None

COMPILED = numba is not None
BLOCK = 512  # boards whose codes are made, then whose entries are read, at a time


def _codes(boards: np.ndarray, weights: np.ndarray, start: int, stop: int, codes: np.ndarray) -> bool:
    """The codes of rows ``start`` to ``stop`` into ``codes``; whether a cell of one is not
    +1, -1 or 0. A loop of its own, with no branch: the compiler makes it a vector loop."""
    bad = False
    for row in range(start, stop):
        code = 0
        for cell in range(boards.shape[1]):
            digit = int(boards[row, cell]) + 1
            bad |= (digit < 0) | (digit > 2)
            code += digit * weights[cell]
        codes[row - start] = code
    return bad


def _gather_bytes(
    boards: np.ndarray, weights: np.ndarray, table: np.ndarray, translate: np.ndarray, out: np.ndarray
) -> bool:
    """``out[i] = translate[table[code of boards[i]]]``; False, some rows not filled, if a row
    has a cell other than +1, -1 or 0, or an entry of 255 (no legal board)."""
    codes = np.empty(BLOCK, dtype=np.int64)
    for start in range(0, boards.shape[0], BLOCK):
        stop = min(boards.shape[0], start + BLOCK)
        if _codes(boards, weights, start, stop, codes):
            return False
        missing = False
        for row in range(start, stop):  # independent reads: the processor overlaps their misses
            entry = table[codes[row - start]]
            missing |= entry == 255
            out[row] = translate[entry]
        if missing:
            return False
    return True


def _gather_two_bits(boards: np.ndarray, weights: np.ndarray, packed: np.ndarray, out: np.ndarray) -> bool:
    """``out[i]`` = the value of ``boards[i]`` from a table of two bits a code (0: no legal
    board, else value + 2; four codes a byte, lowest first); False as :func:`_gather_bytes`."""
    codes = np.empty(BLOCK, dtype=np.int64)
    for start in range(0, boards.shape[0], BLOCK):
        stop = min(boards.shape[0], start + BLOCK)
        if _codes(boards, weights, start, stop, codes):
            return False
        missing = False
        for row in range(start, stop):
            code = codes[row - start]
            two = (packed[code >> 2] >> ((code & 3) << 1)) & 3
            missing |= two == 0
            out[row] = two - 2
        if missing:
            return False
    return True


if COMPILED:  # compiled on first use, once per type of boards, and cached on disk beside this file
    _codes = numba.njit(nogil=True, cache=True)(_codes)
    gather_bytes = numba.njit(nogil=True, cache=True)(_gather_bytes)
    gather_two_bits = numba.njit(nogil=True, cache=True)(_gather_two_bits)
else:
    gather_bytes, gather_two_bits = _gather_bytes, _gather_two_bits
