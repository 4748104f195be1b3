"""The tables behind the batch lookups: whole arrays of boards answered with no Python loop
per board and no table over every code.

Every legal board has a place in its tier (:mod:`ttt_solver.solver.tiers`): its rank among
the boards with the same piece counts. :class:`BatchTables` holds one result byte per board
of every tier ((value + 1) * 32 + remoteness; 255 where no legal board has that place: 14 MB
for 4x4 and 741 MB for 4x5, against 43 million and 3.5 billion codes), filled from the
canonical rows by writing each row to every image of its board. A board given as an array
(+1 X, -1 O, 0 empty) finds its place from its two half codes (one small matrix product) and
three small tables. The best move is the preferred move of lowest cell: read from a table of
preferred-move masks by place where that table is small (up to 16 cells: 28 MB for 4x4), else
found from the result bytes of the board's children, a gather per empty cell.

Building the tables from rows in memory proves the whole table against the rules first
(:func:`ttt_solver.lookup.retrograde.prove_arrays`), which also yields the preferred moves;
tables built from a big database's packed arrays (:mod:`ttt_solver.lookup.mapped`) rely on
their digest, and ``ttt-lookup verify`` proves the table.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from ..errors import InvalidBoardError
from ..game import board as rules
from ..game.values import NO_MOVE, NO_POSITION, REMOTENESS_BITS, byte_tables, result_bytes
from ..game.variant import Variant
from ..solver.tiers import Tiers, tiers
from .arrays import Arrays

_CHUNK = 16384  # boards per pass: keeps the working set in the CPU cache
# Rows per BLAS call. OpenBLAS splits a bigger matrix product over its own threads, which then
# queue behind each other when two of our threads multiply at once.
_BLAS_ROWS = 512
PREFERRED_CELLS = 16  # up to this many cells the preferred masks are a table (uint16)
NO_VALUE = np.int8(-128)  # the value table's mark of a place no legal board has
_VALUE_OF = np.where(np.arange(256) == NO_POSITION, NO_VALUE, np.arange(256) // (1 << REMOTENESS_BITS) - 1).astype(
    np.int8
)
_REMOTENESS_OF = (np.arange(256) % (1 << REMOTENESS_BITS)).astype(np.int8)


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


class Places:
    """Where each board of a variant sits among the result bytes: small tables over half codes."""

    def __init__(self, found: Tiers) -> None:
        g = found.geometry
        self.tiers = found
        self.n, self.hi = g.n, g.high_cells
        self.starts = np.concatenate([[0], np.cumsum(found.sizes)]).astype(np.int64)
        self.size = int(self.starts[-1])  # one more byte after it: the place of no board
        # base[ply * width + high]: where the tier's boards with this high half begin; one more
        # column, the place of no board, for a taken cell's "child" (:data:`Tiers.taken_high`).
        base = found.offsets + self.starts[:-1, None]
        self.width = base.shape[1] + 1
        self.base = np.concatenate([base, np.full((len(base), 1), self.size)], axis=1).ravel()
        self.rank_low = found.rank_low
        self.rank_low_padded = found.rank_low_padded  # a taken cell of the low half: past every place
        self.pieces = (
            np.count_nonzero(g.digits[0] != 1, axis=1).astype(np.int64),
            np.count_nonzero(g.digits[1] != 1, axis=1).astype(np.int64),
        )
        weights = g.weights.astype(np.float64)
        matrix = np.zeros((self.n, 3), dtype=np.float32)
        matrix[: self.hi, 0] = weights[: self.hi] // g.base
        matrix[self.hi :, 1] = weights[self.hi :]
        matrix[:, 2] = 1  # X's marks less O's
        self.matrix = matrix
        # The half codes of the empty halves, added after the product (digits are the array's
        # numbers plus one).
        self.empty_halves = (int(matrix[:, 0].sum()), int(matrix[:, 1].sum()))
        # One gather for the low half's rank and pieces, one for where its tier's boards with
        # this high half begin: base[(pieces of the high half + pieces of the low) * width + high].
        pieces_high = self.pieces[0]
        self.low_info = (self.rank_low << 8) | self.pieces[1]
        lows = np.arange(g.low_cells + 1)[:, None]
        highs = np.arange(len(pieces_high))[None, :]
        self.by_low_pieces = np.take(self.base, (pieces_high[None, :] + lows) * self.width + highs).ravel()

    def locate(self, part: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(place, high half, low half) of each +1/-1/0 board; the place is :attr:`size` (no
        board) where the piece counts are impossible."""
        found = np.empty((len(part), 3), dtype=np.float32)
        floats = part.astype(np.float32)
        whole = len(part) - len(part) % _BLAS_ROWS
        if whole:
            found[:whole] = (floats[:whole].reshape(-1, _BLAS_ROWS, self.n) @ self.matrix).reshape(-1, 3)
        found[whole:] = floats[whole:] @ self.matrix
        halves = found.astype(np.int64)
        high = halves[:, 0] + self.empty_halves[0]  # a column at a time: an add over rows of 3 is slow
        low = halves[:, 1] + self.empty_halves[1]
        info = np.take(self.low_info, low)
        place = np.take(self.by_low_pieces, (info & 255) * len(self.pieces[0]) + high)
        place += info >> 8
        counted = (halves[:, 2] & ~1) == 0  # X has as many marks as O, or one more
        if not counted.all():
            place[~counted] = self.size
        return place, high, low

    def plies(self, high: np.ndarray, low: np.ndarray) -> np.ndarray:
        ply: np.ndarray = np.take(self.pieces[0], high)
        ply += np.take(self.pieces[1], low)
        return ply


class BatchTables:
    """The result byte (and, up to 16 cells, the preferred moves) of every legal board."""

    def __init__(self, variant: Variant, results: np.ndarray, preferred: np.ndarray | None) -> None:
        self.variant = variant
        self.places = Places(tiers(variant))
        self.results = results  # uint8, places.size + 1 (the last: no board)
        self.preferred = preferred  # uint16 per place, or None
        # The value of each place (up to 16 cells, as the preferred moves): values() gathers once.
        self.value_table = None if preferred is None else np.take(_VALUE_OF, results)

    @classmethod
    def build(cls, arrays: Arrays, location: str, hint: str) -> BatchTables:
        """The tables of rows in memory, proved whole first."""
        from .report import Report
        from .retrograde import prove_arrays

        variant = arrays.variant
        proof = prove_arrays(arrays, Report(variant.name, location, hint))
        proof.report.raise_for_contradictions()
        places = Places(tiers(variant))
        results = np.full(places.size + 1, NO_POSITION, dtype=np.uint8)
        preferred = np.zeros(places.size + 1, dtype=np.uint16) if variant.cells <= PREFERRED_CELLS else None
        spread_rows(variant, places, arrays.code, result_bytes(arrays.value, arrays.remoteness), results)
        if preferred is not None:
            spread_rows(variant, places, arrays.code, proof.preferred, preferred, permute=True)
        for table in (results, preferred):
            if table is not None:
                table.flags.writeable = False
        return cls(variant, results, preferred)

    # -- lookups --------------------------------------------------------------------------
    def lookup(self, boards: Any, translate: np.ndarray) -> np.ndarray:
        """``translate[result byte]`` of each (N, cells) +1/-1/0 board; InvalidBoardError for a
        bad or illegal row."""
        array = checked_boards(boards, self.variant.cells)
        out = np.empty(len(array), dtype=translate.dtype)

        def fill(first: int, last: int) -> None:
            for start in range(first, last, _CHUNK):
                part = self._checked(array, start, min(start + _CHUNK, last))
                place = self.places.locate(part)[0]
                if translate is _VALUE_OF and self.value_table is not None:  # one gather, not two
                    found = np.take(self.value_table, place, out=out[start : start + len(part)])
                    if (found == NO_VALUE).any():
                        self._raise_if_illegal(np.take(self.results, place), part, start)
                    continue
                found = np.take(self.results, place)
                self._raise_if_illegal(found, part, start)
                np.take(translate, found, out=out[start : start + len(part)])

        _in_parallel(fill, len(array))
        return out

    def values(self, boards: Any) -> np.ndarray:
        return self.lookup(boards, _VALUE_OF)

    def remoteness(self, boards: Any) -> np.ndarray:
        return self.lookup(boards, _REMOTENESS_OF)

    def best_moves(self, boards: Any, rng: Any = None) -> np.ndarray:
        """The lowest preferred cell of each board (uniform among them with ``rng``), -1 if over."""
        array = checked_boards(boards, self.variant.cells)
        out = np.empty(len(array), dtype=np.int8)
        draws = None if rng is None else _uniform(rng, len(array))

        def fill(first: int, last: int) -> None:
            for start in range(first, last, _CHUNK):
                part = self._checked(array, start, min(start + _CHUNK, last))
                here = None if draws is None else draws[start : start + len(part)]
                out[start : start + len(part)] = self._best(part, start, here)

        _in_parallel(fill, len(array))
        return out

    def preferred_masks(self, boards: np.ndarray) -> np.ndarray:
        """uint16 preferred-move masks of legal (N, cells) boards, in their own numbering (up to
        16 cells)."""
        assert self.preferred is not None
        return np.take(self.preferred, self.places.locate(boards)[0])

    # -- internals ------------------------------------------------------------------------
    def _checked(self, array: np.ndarray, start: int, stop: int) -> np.ndarray:
        part = array[start:stop]
        if part.size and (part.min() < -1 or part.max() > 1):
            row = int(np.argmax((part < -1).any(axis=1) | (part > 1).any(axis=1)))
            raise InvalidBoardError(
                f"invalid boards: row {start + row} has a value other than +1, -1 or 0: {part[row].tolist()}"
            )
        return part

    def _raise_if_illegal(self, found: np.ndarray, part: np.ndarray, start: int) -> None:
        if (found == NO_POSITION).any():
            row = int(np.argmax(found == NO_POSITION))
            text = "".join(".XO"[v] for v in part[row].tolist())
            reason = rules.legality_error(text, self.variant) or "not a legal position"
            raise InvalidBoardError(f"invalid boards: row {start + row} ({text!r}) is illegal: {reason}")

    def _best(self, part: np.ndarray, start: int, draws: np.ndarray | None) -> np.ndarray:
        place, high, low = self.places.locate(part)
        self._raise_if_illegal(np.take(self.results, place), part, start)
        ply = self.places.plies(high, low)
        if self.preferred is not None:
            masks = np.take(self.preferred, place)
            lowest, count, kth = bit_tables()
            chosen: np.ndarray = lowest[masks] if draws is None else kth[masks, (draws * count[masks]).astype(np.intp)]
            return chosen
        scores = self._move_scores(part, ply, high, low)
        top = scores.min(axis=0)
        if draws is None:
            best = np.argmax(scores == top, axis=0).astype(np.int8)
        else:
            ties = scores == top
            pick = (draws * np.count_nonzero(ties, axis=0)).astype(np.int64)
            best = np.argmax(np.cumsum(ties, axis=0) > pick, axis=0).astype(np.int8)
        best[top == NO_MOVE] = -1
        found: np.ndarray = best
        return found

    def _move_scores(self, part: np.ndarray, ply: np.ndarray, high: np.ndarray, low: np.ndarray) -> np.ndarray:
        """(cells, N): each move's score for the mover (:data:`NO_MOVE` where the cell is taken:
        its "child" is the place of no board)."""
        places = self.places
        g = places.tiers.geometry
        move_score = byte_tables().move_score
        high_steps, low_steps = _both_steps(places.tiers)
        parity = ply % 2
        high_key = parity * len(g.digits[0]) + high
        low_key = parity * len(g.digits[1]) + low
        child_base = np.minimum(ply + 1, self.variant.cells) * places.width  # a full board has no child
        low_rank = np.take(places.rank_low, low)
        high_base = np.take(places.base, child_base + high)
        scores = np.empty((self.variant.cells, len(part)), dtype=np.uint8)
        for cell in range(self.variant.cells):
            if cell < g.high_cells:
                where = np.take(places.base, child_base + np.take(high_steps[cell], high_key))
                where += low_rank
            else:
                where = np.take(places.rank_low_padded, np.take(low_steps[cell - g.high_cells], low_key))
                where += high_base
            np.take(move_score, np.take(self.results, where, mode="clip"), out=scores[cell])
        return scores


@cache
def _both_steps(found: Tiers) -> tuple[np.ndarray, np.ndarray]:
    """The tables of :meth:`Tiers.steps` for X to move and then for O, side by side: a board's
    row is its half code, plus the half's size when O is to move."""
    from ..solver.tiers import _steps

    even, odd = _steps(found.geometry, 0), _steps(found.geometry, 1)
    return np.concatenate([even[0], odd[0]], axis=1), np.concatenate([even[1], odd[1]], axis=1)


def spread_rows(
    variant: Variant, places: Places, codes: np.ndarray, values: np.ndarray, out: np.ndarray, permute: bool = False
) -> None:
    """Write each canonical row's ``values`` to the place of every image of its board
    (``permute``: the values are cell masks, renumbered for each image)."""
    g = places.tiers.geometry
    high, low = np.divmod(np.asarray(codes, dtype=np.int64), np.int64(g.base))
    ply = np.take(places.pieces[0], high) + np.take(places.pieces[1], low)
    (high_high, high_low), (low_high, low_low) = g.image_halves
    for s, perm in enumerate(variant.symmetries):
        image_high = np.take(high_high[s], high) + np.take(low_high[s], low)
        image_low = np.take(high_low[s], high) + np.take(low_low[s], low)
        place = np.take(places.base, ply * places.width + image_high) + np.take(places.rank_low, image_low)
        out[place] = _permuted_masks(values, perm) if permute else values


def _permuted_masks(masks: np.ndarray, perm: tuple[int, ...]) -> np.ndarray:
    """Masks in a canonical board's numbering -> the same cells on the image ``perm`` makes
    (``image[i] = canonical[perm[i]]``: canonical cell ``perm[i]`` is image cell ``i``)."""
    out = np.zeros(len(masks), dtype=np.uint32)
    wide = masks.astype(np.uint32)
    for i, source in enumerate(perm):
        out |= ((wide >> np.uint32(source)) & np.uint32(1)) << np.uint32(i)
    return out


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
