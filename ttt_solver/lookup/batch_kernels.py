"""Compiled loops for the batch lookups: each board's code and its table entry in one pass over
the boards, where numba is installed (the ``fast`` extra).

The numpy path (:meth:`.tables.BatchTables.lookup`) makes the code of a chunk of boards with a
product or two word tables, then gathers the table entries: whole-array steps with temporaries
as large as the chunk. Here, up to 15 cells, a loop makes a block of boards' codes, checking
their cells, and another reads their entries. A 16-cell board's value is read by its rank
(:mod:`.ranked_values`), its two halves read as two 64-bit words: a block of boards goes
through five steps, each a loop of its own (:func:`_values_by_rank`). Where a loop meets a
board at fault it stops, and the numpy path answers the same boards, raising the error it
raises today.

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
BOARDS_A_BLOCK = 16384  # the same for 16 cells: 208 KB of steps' results, in the L2 cache


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


# A 16-cell board read as two little-endian 64-bit words, eight cells each: byte j is the
# half's cell j, its first cell the most significant digit of its half code.
_LOW_SEVEN = np.uint64(0x7F7F7F7F7F7F7F7F)
_HIGH_BITS = np.uint64(0x8080808080808080)
_ONES = np.uint64(0x0101010101010101)
_PAST_TWO = np.uint64(0x7D7D7D7D7D7D7D7D)  # + a byte's low seven bits: bit 7 set from 3 up
_EVEN_BYTES = np.uint64(0x00FF00FF00FF00FF)
_EVEN_PAIRS = np.uint64(0x0000FFFF0000FFFF)
_TWO_BITS = np.uint64(0x0303030303030303)  # a digit's (the rest: a cell at fault)
_LOW_HALF = np.uint64(0xFFFFFFFF)


def _half(word: np.uint64) -> np.uint32:
    """One word's half code (13 bits) and digit sum (from bit 16: 8 + X's marks less O's),
    where the word's bytes are +1, -1 or 0."""
    digits = ((word & _LOW_SEVEN) + _ONES) ^ (word & _HIGH_BITS)  # each byte + 1, no carries
    pairs = (digits & _EVEN_BYTES) * np.uint64(3) + ((digits >> np.uint64(8)) & _EVEN_BYTES)
    fours = (pairs & _EVEN_PAIRS) * np.uint64(9) + ((pairs >> np.uint64(16)) & _EVEN_PAIRS)
    code = (fours & _LOW_HALF) * np.uint64(81) + (fours >> np.uint64(32))
    return np.uint32((code | (_byte_sum(digits & _TWO_BITS) << np.uint64(16))) & _LOW_HALF)


def _byte_sum(word: np.uint64) -> np.uint64:
    """The sum of a word's bytes, each at most 3."""
    word += word >> np.uint64(8)
    word += word >> np.uint64(16)
    word += word >> np.uint64(32)
    return word & np.uint64(255)


def _halves(words: np.ndarray, halves: np.ndarray) -> np.uint64:
    """Each word's :func:`_half`; nonzero if a byte of the words is not +1, -1 or 0 (a digit
    above 2: the halves are then of no use). One loop: a vector loop, where two cost more."""
    faults = np.uint64(0)
    for i in range(words.shape[0]):
        digits = ((words[i] & _LOW_SEVEN) + _ONES) ^ (words[i] & _HIGH_BITS)
        faults |= (((digits & _LOW_SEVEN) + _PAST_TWO) | digits) & _HIGH_BITS
        halves[i] = _half(words[i])
    return faults


def _counts_wrong(halves: np.ndarray) -> bool:
    """Whether on a board X has neither as many marks as O nor one more (digit sum not 16 or 17)."""
    wrong = False
    for row in range(halves.shape[0] // 2):
        total = (halves[2 * row] + halves[2 * row + 1]) >> np.uint32(16)
        wrong |= (total ^ np.uint32(16)) > np.uint32(1)
    return wrong


def _ranks(halves: np.ndarray, base: np.ndarray, position: np.ndarray, ranks: np.ndarray) -> None:
    """Each board's rank (:class:`.ranked_values.RankedValues`) from its two halves."""
    for row in range(ranks.shape[0]):
        high, low = halves[2 * row] & np.uint32(0xFFFF), halves[2 * row + 1] & np.uint32(0xFFFF)
        ranks[row] = np.uint32(base[high] + position[low])


def _read(ranks: np.ndarray, packed: np.ndarray, found: np.ndarray) -> None:
    for row in range(ranks.shape[0]):  # only the reads: more of them in flight
        found[row] = packed[ranks[row] >> np.uint32(2)]


def _decode(ranks: np.ndarray, found: np.ndarray, out: np.ndarray) -> bool:
    """``out`` = each rank's value from its byte; whether a rank has no legal board."""
    missing = False
    for row in range(ranks.shape[0]):
        two = (found[row] >> np.uint8((ranks[row] & np.uint32(3)) << np.uint32(1))) & np.uint8(3)
        missing |= two == 0
        out[row] = np.int8(two) - np.int8(2)
    return missing


def _values_by_rank(
    words: np.ndarray, base: np.ndarray, position: np.ndarray, packed: np.ndarray, out: np.ndarray
) -> bool:
    """The value of each 16-cell board (two words of ``words`` a board) from two bits a rank
    (:class:`.ranked_values.RankedValues`); False, some rows not filled, if a board has a cell
    other than +1, -1 or 0, impossible piece counts, or no legal board at its rank.

    Each step is a loop of its own over a block, and a function of its own: so compiled, the
    words' loops are vector loops, and the reads of the table have nothing else in their way
    (in one loop, or inlined in one function, the same steps ran three to four times slower)."""
    halves = np.empty(2 * BOARDS_A_BLOCK, dtype=np.uint32)
    ranks = np.empty(BOARDS_A_BLOCK, dtype=np.uint32)
    found = np.empty(BOARDS_A_BLOCK, dtype=np.uint8)
    boards = out.shape[0]
    for start in range(0, boards, BOARDS_A_BLOCK):
        rows = min(boards - start, BOARDS_A_BLOCK)
        if _halves(words[2 * start : 2 * (start + rows)], halves) or _counts_wrong(halves[: 2 * rows]):
            return False
        _ranks(halves, base, position, ranks[:rows])
        _read(ranks[:rows], packed, found)
        if _decode(ranks[:rows], found, out[start : start + rows]):
            return False
    return True


def _narrow(boards: np.ndarray, out: np.ndarray) -> bool:
    """``out`` = ``boards`` (any integers, any layout) as int8; False at a value other than
    +1, -1 or 0."""
    for row in range(boards.shape[0]):
        for cell in range(boards.shape[1]):
            value = boards[row, cell]
            if value < -1 or value > 1:
                return False
            out[row, cell] = value
    return True


if COMPILED:  # compiled on first use, once per type of boards, and cached on disk beside this file
    _compile = numba.njit(nogil=True, cache=True)
    _codes = _compile(_codes)
    _byte_sum = numba.njit(nogil=True, cache=True, inline="always")(_byte_sum)
    _half = numba.njit(nogil=True, cache=True, inline="always")(_half)
    _halves, _counts_wrong = _compile(_halves), _compile(_counts_wrong)
    _ranks, _read, _decode = _compile(_ranks), _compile(_read), _compile(_decode)
    gather_bytes, values_by_rank, narrow = _compile(_gather_bytes), _compile(_values_by_rank), _compile(_narrow)
else:
    gather_bytes, values_by_rank, narrow = _gather_bytes, _values_by_rank, _narrow
