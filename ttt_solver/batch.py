"""Whole-array lookups for the oracle, in numpy.

Small variants (up to :data:`DENSE_MAX_CELLS` cells, as 3x3): a board of ``n`` cells in array
form (+1 X, -1 O, 0 empty) is read as a balanced-ternary number,
``sum(cell[i] * 3**i) + (3**n - 1) // 2``, which indexes dense tables of every board's value
and perfect moves (:class:`BatchTables`). Illegal boards hold a sentinel and are reported,
never silently answered.

Big variants (4x4: 3**16 boards, too many for a table of moves per board): :class:`ArrayRows`
holds every canonical position's code (see :mod:`ttt_solver.backward`), value and remoteness,
sorted by code, for single lookups (binary search); :class:`CanonicalTables` adds one byte
of value and remoteness per possible canonical code for the batch lookups, which find a
board through its canonical code and its moves through its children's.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from . import board as rules
from .backward import canonical_codes, children, encode, encode_joined, search
from .errors import DatabaseError, InvalidBoardError
from .variant import STANDARD, Variant

if TYPE_CHECKING:
    import numpy.typing as npt

    from .oracle import Oracle, _Row

ILLEGAL = np.int8(-128)
DENSE_MAX_CELLS = 12  # 3**12 boards x 12 cells of moves: 6 MB; 4x4 would take 690 MB
_CHUNK = 16384  # boards per pass: keeps the working set in the CPU cache


def checked_boards(boards: Any, cells: int) -> np.ndarray:
    """An (N, cells) integer array of +1/-1/0, or InvalidBoardError naming what is wrong."""
    array = np.asarray(boards)
    if array.ndim != 2 or array.shape[1] != cells:
        raise InvalidBoardError(f"invalid boards: expected an array of shape (N, {cells}), got {array.shape}")
    if array.dtype.kind not in "iub":
        raise InvalidBoardError(f"invalid boards: expected integers +1, -1 or 0, got dtype {array.dtype}")
    if array.size and (array.min() < -1 or array.max() > 1):
        row = int(np.argmax((array < -1).any(axis=1) | (array > 1).any(axis=1)))
        raise InvalidBoardError(f"invalid boards: row {row} has a value other than +1, -1 or 0: {array[row].tolist()}")
    return array


def _illegal_row(array: np.ndarray, row: int, variant: Variant) -> InvalidBoardError:
    text = "".join(".XO"[v] for v in array[row].tolist())
    reason = rules.legality_error(text, variant) or "not a legal position"
    return InvalidBoardError(f"invalid boards: row {row} ({text!r}) is illegal: {reason}")


@dataclass(frozen=True)
class BatchTables:
    cells: int
    value: np.ndarray  # int8 per board index, ILLEGAL where the board cannot arise
    choices: np.ndarray  # int8 (index, cells): the preferred cells, padded with -1
    counts: np.ndarray  # int8 per board index: how many preferred cells (0 when over)
    variant: Variant = STANDARD

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
        return cls(n, value, choices, counts, oracle.variant)

    def lookup(self, boards: Any) -> tuple[np.ndarray, np.ndarray]:
        """Table indices and values of an (N, cells) array; raise InvalidBoardError for a bad row."""
        array = checked_boards(boards, self.cells)
        count = len(array)
        index: npt.NDArray[np.signedinteger[Any]] = np.empty(count, dtype=np.int16 if self.cells <= 9 else np.int32)
        found = np.empty(count, dtype=np.int8)
        for start in range(0, count, _CHUNK):
            stop = min(start + _CHUNK, count)
            self._index_chunk(array[start:stop], index[start:stop])
            np.take(self.value, index[start:stop], out=found[start:stop])
        if (found == ILLEGAL).any():
            raise _illegal_row(array, int(np.argmax(found == ILLEGAL)), self.variant)
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
            return cast(np.ndarray, self.choices[index, 0])
        counts = self.counts[index]
        pick = (rng.random(len(index)) * counts).astype(np.intp)
        return cast(np.ndarray, self.choices[index, pick])


@dataclass(frozen=True)
class ArrayRows:
    """Every canonical position of a variant as three compact arrays, sorted by code: the
    in-process row source of a big variant (1.2 million rows of 4x4 in 12 MB)."""

    variant: Variant
    codes: np.ndarray  # int64 canonical codes, ascending
    value: np.ndarray  # int8 for the side to move
    remoteness: np.ndarray  # int8
    source: str = "<memory>"

    @classmethod
    def from_columns(
        cls, variant: Variant, boards: str, values: str, remoteness: str, source: str = "<memory>"
    ) -> ArrayRows:
        """From :func:`ttt_solver.store.reader.read_values`'s strings (rows in any order)."""
        count = len(values)
        if len(boards) != variant.cells * count or len(remoteness) != count:
            raise DatabaseError(f"database {source!r} is corrupt (boards of the wrong length); rebuild it")
        try:
            codes = encode_joined(boards, variant.cells)
        except InvalidBoardError:
            raise DatabaseError(f"database {source!r} is corrupt (a board with a bad character); rebuild it") from None
        order = np.argsort(codes)
        codes = codes[order]
        if np.any(codes[1:] == codes[:-1]):
            raise DatabaseError(f"database {source!r} is corrupt (a board is repeated); rebuild it")
        value = np.frombuffer(values.encode("ascii"), dtype=np.uint8)[order].astype(np.int8) - 49
        remote = np.frombuffer(remoteness.encode("ascii"), dtype=np.uint8)[order].astype(np.int8) - 48
        return cls(variant, codes, value, remote, source)

    @classmethod
    def from_rows(cls, variant: Variant, rows: Iterable[tuple[str, int, int]], source: str = "<memory>") -> ArrayRows:
        """From (board, value, remoteness) rows in any order."""
        rows = list(rows)
        return cls.from_columns(
            variant,
            "".join(row[0] for row in rows),
            "".join(chr(49 + row[1]) for row in rows),
            "".join(chr(48 + row[2]) for row in rows),
            source,
        )

    def get(self, text: str) -> _Row | None:
        """The row of a canonical board, its moves derived from its children."""
        from .oracle import _Row

        code = encode([text])
        index, found = search(self.codes, code)
        if not found[0]:
            return None
        i = int(index[0])
        value, remoteness = int(self.value[i]), int(self.remoteness[i])
        if remoteness == 0:
            return _Row(value, 0, ())
        _rows, cells, result = children(code, self.variant)
        kids = self.find(result)
        moves = zip(cells.tolist(), (-self.value[kids]).tolist(), (self.remoteness[kids] + 1).tolist())
        return _Row(value, remoteness, tuple(moves))

    def find(self, codes: np.ndarray) -> np.ndarray:
        """Row indices of canonical codes that must be present (children of known rows)."""
        index, found = search(self.codes, codes)
        if not found.all():
            raise DatabaseError(f"database {self.source!r} is missing positions: it is incomplete; rebuild it")
        return index


_DIGIT = np.array([0, 2, 1], dtype=np.int64)  # indexed by +1/-1/0: X -> 2, O -> 1 (-1 wraps to O)
_UNKNOWN = np.uint8(255)


class CanonicalTables:
    """Batch lookups for big variants: one byte per possible *canonical* code, holding value
    and remoteness (43 MB for 4x4, where a dense table of moves per board would take 690 MB).
    A board is found through its canonical code, its moves through its children's."""

    def __init__(self, rows: ArrayRows) -> None:
        self.rows = rows
        self.cells = rows.variant.cells
        self.score = np.full(3**self.cells, _UNKNOWN, dtype=np.uint8)
        self.score[rows.codes] = (rows.value + 1).astype(np.uint8) * 32 + rows.remoteness.astype(np.uint8)

    def locate(self, boards: Any) -> tuple[np.ndarray, np.ndarray]:
        """Codes of the boards as given, and the score of each (value and remoteness)."""
        array = checked_boards(boards, self.cells)
        codes = np.zeros(len(array), dtype=np.int64)
        score = np.empty(len(array), dtype=np.uint8)
        for start in range(0, len(array), _CHUNK):
            stop = min(start + _CHUNK, len(array))
            part = codes[start:stop]
            for column in np.ascontiguousarray(array[start:stop].T):  # cell 0 is the top digit
                part *= 3
                part += _DIGIT[column]
            np.take(self.score, canonical_codes(part, self.rows.variant), out=score[start:stop])
        if (score == _UNKNOWN).any():
            raise _illegal_row(array, int(np.argmax(score == _UNKNOWN)), self.rows.variant)
        return codes, score

    def values(self, boards: Any) -> np.ndarray:
        return (self.locate(boards)[1] // 32).astype(np.int8) - 1

    def best_moves(self, boards: Any, rng: Any = None) -> np.ndarray:
        """The lowest preferred cell of each board (uniform among them with ``rng``), -1 if over."""
        codes, score = self.locate(boards)
        out = np.full(len(codes), -1, dtype=np.int8)
        for start in range(0, len(codes), _CHUNK):
            stop = min(start + _CHUNK, len(codes))
            self._best_chunk(codes[start:stop], score[start:stop], out[start:stop], rng)
        return out

    def _best_chunk(self, codes: np.ndarray, score: np.ndarray, out: np.ndarray, rng: Any) -> None:
        live = np.flatnonzero(score % 32 > 0)
        if not live.size:
            return
        board, cells, result = children(codes[live], self.rows.variant)
        child = self.score[result].astype(np.int16)
        own = score[live][board].astype(np.int16)
        # Preferred: the move keeps the position's value and its (best) remoteness, i.e. the
        # child's value is minus ours and its remoteness one less.
        keep = (2 - child // 32 == own // 32) & (child % 32 + 1 == own % 32)
        board, cells = board[keep], cells[keep]  # still ordered by board, then cell
        first = np.flatnonzero(np.concatenate([[True], board[1:] != board[:-1]]))
        pick = first
        if rng is not None:
            counts = np.diff(np.append(first, len(board)))
            pick = first + (rng.random(len(first)) * counts).astype(np.intp)
        out[live[board[first]]] = cells[pick]
