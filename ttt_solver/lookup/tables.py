"""The tables behind the batch lookups: whole arrays of boards answered with no Python loop
per board.

Each legal board has a place (:mod:`ttt_solver.lookup.places`: its code up to 16 cells, its
rank in its tier above). :class:`BatchTables` holds, by place, one result byte ((value + 1) *
32 + remoteness; 255 where no legal board is), and up to 16 cells the values (a byte a code up
to 15 cells; for 16, two bits a board by its rank among the boards with legal piece counts,
:mod:`.ranked_values`, 2.5 MB for 4x4, so that ``values`` reads a table that stays in the CPU
caches) and the preferred moves as a mask (86 MB for 4x4). They are filled from the canonical rows by writing each row
to the place of every image of its board. The best move is the preferred move of lowest cell:
read from the mask where there is one, else found from the result bytes of the board's
children, a gather per cell (741 MB of result bytes for 4x5, and nothing else).

Building the tables from rows in memory proves the whole table against the rules first
(:func:`ttt_solver.audit.retrograde.prove_arrays`), which also yields the preferred moves;
tables built from a big database's packed arrays (:mod:`ttt_solver.lookup.mapped`) rely on
their digest, and ``ttt-lookup verify`` proves the table.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from typing import Any

import numpy as np

from ..audit.report import Report
from ..audit.retrograde import prove_arrays
from ..errors import InvalidArgumentError, InvalidBoardError
from ..game import array_rules, rules
from ..game.value_bytes import NO_MOVE, NO_POSITION, REMOTENESS_BITS, byte_tables, result_bytes
from ..game.variant import Variant
from ..solver import Tiers
from ..store.arrays import Arrays
from . import batch_kernels
from .places import Codes, Places, index_of
from .ranked_values import RankedValues

# Boards per pass. Two threads release and take back the GIL around every numpy call: with
# smaller passes they queue for it (4x4 value_batch on two threads: 24 M/s with 4,096 boards a
# pass, 50 with 16,384, 70-75 with 65,536; one thread 46-48 at any of these sizes).
_CHUNK = 65536
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


class BatchTables:
    """The answers of every legal board by place (see the module docstring)."""

    def __init__(
        self, variant: Variant, index: Codes | Places, results: np.ndarray, preferred: np.ndarray | None = None
    ) -> None:
        self.variant = variant
        self.index = index
        self.results = results  # uint8 per place, and one more at the end: no position
        self.preferred = preferred  # uint16 preferred-move masks per place (Codes only), or None
        # Up to 16 cells a table of values: a byte a code up to 15 cells (14 MB at most), two
        # bits a board by rank for 16, so that it stays in the caches.
        self.value_bytes: np.ndarray | None = None
        self.ranked_values: RankedValues | None = None
        if preferred is not None and len(results) <= 1 << 24:
            self.value_bytes = np.take(_VALUE_OF, results)
        elif preferred is not None:
            self.ranked_values = RankedValues(variant, results)

    @classmethod
    def build(cls, arrays: Arrays, location: str, hint: str) -> BatchTables:
        """The tables of rows in memory, proved whole first."""

        variant = arrays.variant
        proof = prove_arrays(arrays, Report(variant.name, location, hint))
        proof.report.raise_for_contradictions()
        index = index_of(variant)
        results = np.full(index.size + 1, NO_POSITION, dtype=np.uint8)
        spread_rows(index, arrays.code, result_bytes(arrays.value, arrays.remoteness), results)
        preferred = None
        if isinstance(index, Codes):
            preferred = np.zeros(index.size + 1, dtype=np.uint16)
            spread_rows(index, arrays.code, proof.preferred, preferred, permute=True)
            preferred.flags.writeable = False
        results.flags.writeable = False
        return cls(variant, index, results, preferred)

    # -- lookups --------------------------------------------------------------------------
    def lookup(self, boards: Any, translate: np.ndarray) -> np.ndarray:
        """``translate[result byte]`` of each (N, cells) +1/-1/0 board; InvalidBoardError for a
        bad or illegal row."""
        array = checked_boards(boards, self.variant.cells)
        out = np.empty(len(array), dtype=translate.dtype)
        if self._compiled_lookup(array, translate, out):
            return out
        ranked = self.ranked_values if translate is _VALUE_OF else None

        def fill(first: int, last: int) -> None:
            for start in range(first, last, _CHUNK):
                part = self._checked(array, start, min(start + _CHUNK, last))
                place = self.index.locate(part)
                if ranked is not None:  # two bits a board: a table that stays in the caches
                    two = ranked.states(place)
                    if not two.all():
                        self._raise_if_illegal(np.take(self.results, place), part, start)
                    np.subtract(two, 2, out=out[start : start + len(part)], casting="unsafe")
                    continue
                if translate is _VALUE_OF and self.value_bytes is not None:
                    found = np.take(self.value_bytes, place, out=out[start : start + len(part)])
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
        draws = None
        if rng is not None:
            self.values(array)  # a bad board is reported before a bad rng, as without one
            draws = _uniform(rng, len(array))

        def fill(first: int, last: int) -> None:
            for start in range(first, last, _CHUNK):
                part = self._checked(array, start, min(start + _CHUNK, last))
                here = None if draws is None else draws[start : start + len(part)]
                out[start : start + len(part)] = self._best(part, start, here)

        _in_parallel(fill, len(array))
        return out

    def legal(self, boards: Any) -> np.ndarray:
        """Whether each (N, cells) row of +1/-1/0 is a legal board, for a batch that answers
        the legal ones and names the others (InvalidBoardError for an array of another shape
        or other values)."""
        array = checked_boards(boards, self.variant.cells)
        out = np.empty(len(array), dtype=bool)
        for start in range(0, len(array), _CHUNK):
            part = self._checked(array, start, min(start + _CHUNK, len(array)))
            np.not_equal(
                np.take(self.results, self.index.locate(part)), NO_POSITION, out=out[start : start + len(part)]
            )
        return out

    def preferred_masks(self, boards: np.ndarray) -> np.ndarray:
        """uint16 preferred-move masks of legal (N, cells) boards, in their own numbering (up to
        16 cells)."""
        assert self.preferred is not None
        return np.take(self.preferred, self.index.locate(boards))

    # -- internals ------------------------------------------------------------------------
    def _compiled_lookup(self, array: np.ndarray, translate: np.ndarray, out: np.ndarray) -> bool:
        """:meth:`lookup` by the compiled loops (:mod:`.batch_kernels`) where they are used and
        the boards' codes are their places (up to 16 cells); False where not, or where a board
        is at fault (the numpy path then raises the error it names)."""
        if not batch_kernels.COMPILED or not isinstance(self.index, Codes):
            return False
        if translate is _VALUE_OF and self.ranked_values is not None:
            return self._compiled_values_by_rank(array, out)
        weights = array_rules.geometry(self.variant).weights
        answered = []

        def fill(first: int, last: int) -> None:
            part, into = array[first:last], out[first:last]
            answered.append(batch_kernels.gather_bytes(part, weights, self.results, translate, into))

        _in_parallel(fill, len(array))
        return all(answered)

    def _compiled_values_by_rank(self, array: np.ndarray, out: np.ndarray) -> bool:
        """The values of 16-cell boards by :func:`.batch_kernels.values_by_rank`, which reads
        each board as two 64-bit words: int8 boards in rows of 16 bytes as they are, others
        copied into int8 first (False at a value that does not fit: the numpy path names it).

        On this thread only: a second one answered a batch sooner but cost CPU (4x4, 1,000,000
        random boards, interleaved: 179-234 M boards a CPU-second on two threads, 225-239 on one)."""
        if array.dtype != np.int8 or not array.flags.c_contiguous or array.ctypes.data % 8:
            narrowed = np.empty(array.shape, dtype=np.int8)
            if not batch_kernels.narrow(array, narrowed):
                return False
            array = narrowed
        ranked = self.ranked_values
        assert ranked is not None
        words = array.reshape(-1).view(np.uint64)
        return batch_kernels.values_by_rank(words, ranked.base, ranked.position, ranked.packed, out)

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
        if self.preferred is not None:
            place = self.index.locate(part)
            self._raise_if_illegal(np.take(self.results, place), part, start)
            masks = np.take(self.preferred, place)
            lowest, count, kth = bit_tables()
            chosen: np.ndarray = lowest[masks] if draws is None else kth[masks, (draws * count[masks]).astype(np.intp)]
            return chosen
        assert isinstance(self.index, Places)
        place, high, low = self.index.locate_halves(part)
        self._raise_if_illegal(np.take(self.results, place), part, start)
        scores = self._move_scores(part, self.index.plies(high, low), high, low)
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
        places = self.index
        assert isinstance(places, Places)
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

    even, odd = found.steps(0), found.steps(1)
    return np.concatenate([even[0], odd[0]], axis=1), np.concatenate([even[1], odd[1]], axis=1)


def spread_rows(
    index: Codes | Places, codes: np.ndarray, values: np.ndarray, out: np.ndarray, permute: bool = False
) -> None:
    """Write each canonical row's ``values`` to the place of every image of its board
    (``permute``: the values are cell masks, renumbered for each image)."""
    for place, perm in zip(index.images(codes), index.variant.symmetries):
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

    raise InvalidArgumentError(f"rng must be a random.Random or a numpy.random.Generator, got {type(rng).__name__}")


@cache
def _cores() -> int:
    return os.cpu_count() or 1


def _in_parallel(fill: Any, count: int) -> None:
    """``fill(first, last)`` over ``range(count)``: in one piece, or for a big batch in one
    piece per core on threads (numpy releases the GIL while it gathers and multiplies). The
    first error of the lowest piece is raised, as one thread would have raised it."""
    workers = min(_cores(), count // _CHUNK)
    if workers < 2:
        fill(0, count)
        return

    step = -(-count // workers // _CHUNK) * _CHUNK
    with ThreadPoolExecutor(workers) as pool:
        futures = [pool.submit(fill, first, min(first + step, count)) for first in range(0, count, step)]
    for future in futures:
        future.result()
