"""Whole-array lookups for the oracle: one table entry per possible board, indexed in numpy.

A board of ``n`` cells in array form (+1 X, -1 O, 0 empty) is read as a balanced-ternary
number, ``sum(cell[i] * 3**i) + (3**n - 1) // 2``, which indexes dense tables of every
board's value and perfect moves. Illegal boards hold a sentinel and are reported, never
silently answered.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from . import board as rules
from .errors import InvalidBoardError

if TYPE_CHECKING:
    from .oracle import Oracle

ILLEGAL = np.int8(-128)
_CHUNK = 16384  # boards per pass: keeps the working set in the CPU cache


@dataclass(frozen=True)
class BatchTables:
    cells: int
    value: np.ndarray  # int8 per board index, ILLEGAL where the board cannot arise
    choices: np.ndarray  # int8 (index, cells): the preferred cells, padded with -1
    counts: np.ndarray  # int8 per board index: how many preferred cells (0 when over)

    @classmethod
    def from_oracle(cls, oracle: Oracle) -> BatchTables:
        n = oracle.variant.cells
        size = 3**n
        value = np.full(size, ILLEGAL, dtype=np.int8)
        choices = np.full((size, n), -1, dtype=np.int8)
        counts = np.zeros(size, dtype=np.int8)
        weights = 3 ** np.arange(n, dtype=np.int64)
        offset = (size - 1) // 2
        for text, position in oracle.all_positions().items():
            index = int(np.dot(rules.to_array(text), weights)) + offset
            value[index] = position.value
            counts[index] = len(position.preferred)
            choices[index, : len(position.preferred)] = position.preferred
        return cls(n, value, choices, counts)

    def lookup(self, boards: Any) -> tuple[np.ndarray, np.ndarray]:
        """Table indices and values of an (N, cells) array; raise InvalidBoardError for a bad row."""
        array = np.asarray(boards)
        if array.ndim != 2 or array.shape[1] != self.cells:
            raise InvalidBoardError(f"invalid boards: expected an array of shape (N, {self.cells}), got {array.shape}")
        if array.dtype.kind not in "iub":
            raise InvalidBoardError(f"invalid boards: expected integers +1, -1 or 0, got dtype {array.dtype}")
        if array.size and (array.min() < -1 or array.max() > 1):
            row = int(np.argmax((array < -1).any(axis=1) | (array > 1).any(axis=1)))
            raise InvalidBoardError(f"invalid boards: row {row} has a value other than +1, -1 or 0: {array[row].tolist()}")
        count = len(array)
        index = np.empty(count, dtype=np.int16 if self.cells <= 9 else np.int32)
        found = np.empty(count, dtype=np.int8)
        for start in range(0, count, _CHUNK):
            stop = min(start + _CHUNK, count)
            self._index_chunk(array[start:stop], index[start:stop])
            np.take(self.value, index[start:stop], out=found[start:stop])
        if (found == ILLEGAL).any():
            row = int(np.argmax(found == ILLEGAL))
            text = "".join(".XO"[v] for v in array[row].tolist())
            reason = rules.legality_error(text) or "not a legal position"
            raise InvalidBoardError(f"invalid boards: row {row} ({text!r}) is illegal: {reason}")
        return index, found

    def _index_chunk(self, rows: np.ndarray, out: np.ndarray) -> None:
        # A column-major int8 copy of a cache-sized chunk: the per-cell passes then stream.
        columns = np.ascontiguousarray(rows.T, dtype=np.int8)
        dtype = out.dtype.type
        np.add(columns[0], dtype((3**self.cells - 1) // 2), out=out, dtype=out.dtype)
        for i in range(1, self.cells):
            out += columns[i] * dtype(3**i)

    def values(self, boards: Any) -> np.ndarray:
        return self.lookup(boards)[1]

    def best_moves(self, boards: Any, rng: Any = None) -> np.ndarray:
        index = self.lookup(boards)[0]
        if rng is None:
            return self.choices[index, 0]
        counts = self.counts[index]
        pick = (rng.random(len(index)) * counts).astype(np.intp)
        return self.choices[index, pick]
