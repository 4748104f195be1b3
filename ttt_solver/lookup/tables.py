"""Dense tables over every code, for whole-array lookups with no Python loop per board.

A board in array form (+1 X, -1 O, 0 empty) is its code ``array @ weights + offset`` (see
:mod:`ttt_solver.codec`), which indexes two tables over all ``3**cells`` codes: a score byte
(value and remoteness; :data:`ILLEGAL` where no legal board has that code) and the mask of
preferred moves (keep the value with the best remoteness) in the board's own numbering. They
are filled from the canonical rows by writing each row to every image of its board: 59 KB for
3x3, 129 MB for 4x4. Building them proves the whole table against the rules first
(:func:`ttt_solver.verify.prove_arrays`), which also yields the preferred moves.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any

import numpy as np

from .. import board as rules
from .. import codec
from ..errors import InvalidBoardError
from ..variant import Variant
from .arrays import Arrays

ILLEGAL = np.uint8(255)
_REMOTENESS = 32  # score = (value + 1) * 32 + remoteness: value = (score >> 5) - 1, remoteness = score & 31
_CHUNK = 16384  # boards per pass: keeps the working set in the CPU cache
# Rows per BLAS call. OpenBLAS splits a bigger matrix-vector product over its own threads,
# which then queue behind each other when two of our threads multiply at once (measured:
# 3x3 at 85 M boards/s instead of 150); a stack of small products stays on the calling thread.
_BLAS_ROWS = 512
_VALUE_OF = (np.arange(256) // _REMOTENESS - 1).astype(np.int8)  # score -> value
NO_VALUE = np.int8(codec.ILLEGAL)  # the value table's mark of a code that is no legal board
_REMOTENESS_OF = (np.arange(256) % _REMOTENESS).astype(np.int8)  # score -> remoteness


def checked_boards(boards: Any, cells: int) -> np.ndarray:
    """An (N, cells) integer array, or InvalidBoardError naming what is wrong (the values are
    checked chunk by chunk by :meth:`BatchTables.lookup`)."""
    try:
        array = np.asarray(boards)
    except ValueError:
        raise InvalidBoardError(f"invalid boards: expected an array of shape (N, {cells}), got ragged rows") from None
    if array.dtype == object:
        raise InvalidBoardError(
            f"invalid boards: expected an array of shape (N, {cells}) of integers, got {array.dtype}"
        )
    if array.ndim != 2 or array.shape[1] != cells:
        raise InvalidBoardError(f"invalid boards: expected an array of shape (N, {cells}), got {array.shape}")
    if array.dtype.kind not in "iu":
        raise InvalidBoardError(f"invalid boards: expected integers +1, -1 or 0, got dtype {array.dtype}")
    return array


def _bad_values(part: np.ndarray, start: int) -> InvalidBoardError:
    row = int(np.argmax((part < -1).any(axis=1) | (part > 1).any(axis=1)))
    return InvalidBoardError(
        f"invalid boards: row {start + row} has a value other than +1, -1 or 0: {part[row].tolist()}"
    )


@cache
def bit_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every 16-bit mask: its lowest set bit (-1 if none), its bit count, and its k-th set bit."""
    masks = np.arange(1 << 16, dtype=np.int64)
    bits = (masks[:, None] >> np.arange(16)) & 1
    count = bits.sum(axis=1).astype(np.int8)
    kth = np.full((1 << 16, 16), -1, dtype=np.int8)
    rank = np.cumsum(bits, axis=1) - 1
    rows, cells = np.nonzero(bits)
    kth[rows, rank[rows, cells]] = cells
    return kth[:, 0].copy(), count, kth


def _permuted_masks(masks: np.ndarray, perm: tuple[int, ...]) -> np.ndarray:
    """Masks in a canonical board's numbering -> the same cells on the image ``perm`` makes
    (``image[i] = canonical[perm[i]]``: canonical cell ``perm[i]`` is image cell ``i``)."""
    out = np.zeros(len(masks), dtype=np.uint16)
    for i, source in enumerate(perm):
        out |= ((masks >> np.uint16(source)) & np.uint16(1)) << np.uint16(i)
    return out


@dataclass(frozen=True, eq=False)
class BatchTables:
    variant: Variant
    score: np.ndarray  # uint8 per code
    preferred: np.ndarray  # uint16 per code

    @classmethod
    def build(cls, arrays: Arrays, location: str, hint: str) -> BatchTables:
        from ..verify import Report, prove_arrays

        variant = arrays.variant
        proof = prove_arrays(arrays, Report(variant.name, location, hint))
        proof.report.raise_for_contradictions()
        score = np.full(3**variant.cells, ILLEGAL, dtype=np.uint8)
        preferred = np.zeros(3**variant.cells, dtype=np.uint16)
        row_score = ((arrays.value + 1).astype(np.uint8) * _REMOTENESS + arrays.remoteness.astype(np.uint8)).astype(
            np.uint8
        )
        images = codec.image_codes(arrays.code, variant)
        for s, perm in enumerate(variant.symmetries):
            score[images[s]] = row_score
            preferred[images[s]] = _permuted_masks(proof.preferred, perm)
        for table in (score, preferred):
            table.flags.writeable = False
        return cls(variant, score, preferred)

    @cached_property
    def value(self) -> np.ndarray:
        """int8 value per code, :data:`NO_VALUE` where no legal board has it: ``values()``
        gathers once per board instead of a score and then its value (made on first use)."""
        marked = _VALUE_OF.copy()
        marked[ILLEGAL] = NO_VALUE
        table = np.take(marked, self.score)
        table.flags.writeable = False
        return table

    def lookup(
        self,
        boards: Any,
        table: np.ndarray,
        translate: np.ndarray | None = None,
        mark: int | np.integer[Any] | None = None,
    ) -> np.ndarray:
        """``table[code]`` of each (N, cells) +1/-1/0 board (then ``translate[...]`` of that);
        InvalidBoardError for a bad or illegal row: ``mark`` is ``table``'s own mark of a code no
        legal board has, or None to read the score table's. A cache-sized chunk at a time: the
        checks and gathers run while the chunk is in the CPU cache."""
        marked, illegal = (self.score, ILLEGAL) if mark is None else (table, mark)
        array = checked_boards(boards, self.variant.cells)
        # Codes by a matrix-vector product (BLAS): faster than a numpy pass per cell. Exact:
        # float32 while every partial sum stays below 2**24 (up to 15 cells), else float64.
        cells = self.variant.cells
        weights = codec.geometry(self.variant).weights.astype(np.float32 if 3**cells < 2**25 else np.float64)
        empty = np.int32(codec.offset(self.variant.cells))
        out = np.empty(len(array), dtype=(translate if translate is not None else table).dtype)

        def fill(first: int, last: int) -> None:
            for start in range(first, last, _CHUNK):
                part = array[start : min(start + _CHUNK, last)]
                if part.size and (part.min() < -1 or part.max() > 1):
                    raise _bad_values(part, start)
                code = _codes(part.astype(weights.dtype), weights)
                code += empty
                checked = np.take(marked, code)
                if (checked == illegal).any():
                    raise self._illegal(part, start, int(np.argmax(checked == illegal)))
                found = checked if table is marked else np.take(table, code)
                if translate is None:
                    out[start : start + len(part)] = found
                else:
                    np.take(translate, found, out=out[start : start + len(part)])

        _in_parallel(fill, len(array))
        return out

    def _illegal(self, part: np.ndarray, start: int, row: int) -> InvalidBoardError:
        text = "".join(".XO"[v] for v in part[row].tolist())
        reason = rules.legality_error(text, self.variant) or "not a legal position"
        return InvalidBoardError(f"invalid boards: row {start + row} ({text!r}) is illegal: {reason}")

    def values(self, boards: Any) -> np.ndarray:
        return self.lookup(boards, self.value, mark=NO_VALUE)

    def remoteness(self, boards: Any) -> np.ndarray:
        return self.lookup(boards, self.score, _REMOTENESS_OF, mark=ILLEGAL)

    def best_moves(self, boards: Any, rng: Any = None) -> np.ndarray:
        """The lowest preferred cell of each board (uniform among them with ``rng``), -1 if over."""
        masks = self.lookup(boards, self.preferred)
        lowest, count, kth = bit_tables()
        if rng is None:
            first: np.ndarray = lowest[masks]
            return first
        pick = (_uniform(rng, len(masks)) * count[masks]).astype(np.intp)
        chosen: np.ndarray = kth[masks, pick]
        return chosen


def _codes(floats: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``floats @ weights`` as int32, in products of at most :data:`_BLAS_ROWS` rows."""
    code = np.empty(len(floats), dtype=np.int32)
    whole = len(floats) - len(floats) % _BLAS_ROWS
    code[:whole] = (floats[:whole].reshape(-1, _BLAS_ROWS, floats.shape[1]) @ weights).ravel()
    code[whole:] = floats[whole:] @ weights
    return code


def _uniform(rng: Any, size: int) -> np.ndarray:
    """``size`` floats in [0, 1) from a numpy Generator or a random.Random."""
    if hasattr(rng, "random") and hasattr(rng, "integers"):
        return np.asarray(rng.random(size))
    if hasattr(rng, "getrandbits"):
        return np.random.default_rng(rng.getrandbits(64)).random(size)
    from ..errors import InvalidArgumentError

    raise InvalidArgumentError(f"rng must be a random.Random or a numpy.random.Generator, got {type(rng).__name__}")


@cache
def _cores() -> int:
    import os

    return os.cpu_count() or 1


def _in_parallel(fill: Any, count: int) -> None:
    """``fill(first, last)`` over ``range(count)``: in one piece, or for a big batch in one
    piece per core on threads (numpy releases the GIL while it gathers and multiplies). The
    first error of the lowest piece is raised, as one thread would have raised it."""
    workers = min(_cores(), count // (4 * _CHUNK))
    if workers < 2:
        fill(0, count)
        return
    from concurrent.futures import ThreadPoolExecutor

    step = -(-count // workers // _CHUNK) * _CHUNK
    with ThreadPoolExecutor(workers) as pool:
        futures = [pool.submit(fill, first, min(first + step, count)) for first in range(0, count, step)]
    for future in futures:
        future.result()
