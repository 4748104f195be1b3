"""The solver's passes, each a function over one chunk of a tier (a range of ranks, see
:mod:`ttt_solver.solver.tiers`) with no state of its own: what a pass needs comes in as
arrays, and what it makes goes out as arrays. The tier pipeline
(:mod:`ttt_solver.engine.pipeline`) runs them as an engine's tasks, in this process or on a
Dask cluster's workers; :func:`ttt_solver.solver.solve.solve_tables` runs them in memory.

- :func:`solve_chunk`: the canonical legal positions of a chunk, each valued from the results
  of its children in the tier below (one byte per board of that tier, by rank).
- :func:`spread`: the results of a chunk's canonical positions written to the ranks of every
  image of each (:func:`images`), so that the next tier up finds any child by its rank
  without canonicalising it.
- :func:`scatter`: result bytes written to their ranks, where an engine gathers a range of a
  tier from the images its chunks' tasks wrote.

Each pass runs as numpy's whole-array steps or, where the package was built with its C
extension, as a compiled loop over the boards (:mod:`.compiled`): the same results, byte for
byte. :func:`compiled_passes` chooses, for every pass, in one place.

Values are +1 win, 0 draw, -1 loss for the side to move (see :mod:`ttt_solver.game.values`).
"""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType
from typing import NamedTuple

import numpy as np

from ..game import array_rules, codec
from ..game.value_bytes import NO_POSITION, back_up, byte_tables, result_bytes
from ..system import compiled_loops
from .tiers import Tiers

compiled: ModuleType | None
try:
    from . import compiled
except ImportError:  # the C extension was not built (no C compiler where the package was installed)
    compiled = None

# The columns of solved positions: name -> dtype (little-endian where it matters).
COLUMNS = (
    ("code", "<i8"), ("value", "i1"), ("remoteness", "i1"), ("best", "<u4"), ("preferred", "<u4"),
    ("orbit", "i1"), ("wins", "u1"), ("draws", "u1"), ("losses", "u1"),
)  # fmt: skip
ROW_BYTES = sum(np.dtype(dtype).itemsize for _name, dtype in COLUMNS)  # a solved row's columns: 22 bytes
# What a build keeps of each solved row (:class:`StoredRows`: its scratch files, the merge, the
# shards): every column but ``preferred``, which the database does not store (a lookup derives
# it from the children's rows) and nothing in a build reads. The same list as the packed arrays'
# (:data:`ttt_solver.store.content.PACKED`).
STORED_COLUMNS = tuple((name, dtype) for name, dtype in COLUMNS if name != "preferred")
STORED_ROW_BYTES = sum(np.dtype(dtype).itemsize for _name, dtype in STORED_COLUMNS)  # 18 bytes


class Solved(NamedTuple):
    """Canonical legal positions in code order with their solution (one entry each)."""

    code: np.ndarray  # int64
    value: np.ndarray  # int8, for the side to move
    remoteness: np.ndarray  # int8 plies to the end under perfect play
    best: np.ndarray  # uint32: bit c if the move on cell c keeps the value
    preferred: np.ndarray  # uint32: bit c if it keeps the value with the best remoteness
    orbit: np.ndarray  # int8: distinct boards the symmetries make of it
    wins: np.ndarray  # uint8 moves that win for the mover
    draws: np.ndarray  # uint8
    losses: np.ndarray  # uint8

    def __len__(self) -> int:
        return len(self.code)

    def take(self, index: np.ndarray | slice) -> Solved:
        return Solved(*(column[index] for column in self))

    @classmethod
    def empty(cls) -> Solved:
        return cls(*(np.zeros(0, dtype=dtype) for _name, dtype in COLUMNS))

    @classmethod
    def concatenate(cls, pieces: list[Solved]) -> Solved:
        if not pieces:
            return cls.empty()
        return cls(*(np.concatenate(columns) for columns in zip(*pieces)))

    def stored(self) -> StoredRows:
        """The columns a build keeps (views, no copy)."""
        return StoredRows(*(getattr(self, name) for name, _dtype in STORED_COLUMNS))


class StoredRows(NamedTuple):
    """Solved positions as a build keeps them: :class:`Solved` without ``preferred``."""

    code: np.ndarray  # int64
    value: np.ndarray  # int8
    remoteness: np.ndarray  # int8
    best: np.ndarray  # uint32
    orbit: np.ndarray  # int8
    wins: np.ndarray  # uint8
    draws: np.ndarray  # uint8
    losses: np.ndarray  # uint8

    def __len__(self) -> int:
        return len(self.code)

    def take(self, index: np.ndarray | slice) -> StoredRows:
        return StoredRows(*(column[index] for column in self))


class Positions(NamedTuple):
    """The canonical legal positions of a chunk as the rules see them, before any solving."""

    high: np.ndarray  # int64 half codes
    low: np.ndarray
    orbit: np.ndarray  # int8
    terminal: np.ndarray  # int8: the value of a finished game, codec.PLAYING while play goes on
    live: np.ndarray  # the indices of the positions where play goes on


def positions(tiers: Tiers, ply: int, start: int, stop: int) -> Positions:
    """The canonical legal positions among ranks ``start`` to ``stop`` of tier ``ply`` (they do
    not depend on any result: a proof of many tables of one small variant computes them once)."""
    variant = tiers.variant
    high, low = tiers.boards(ply, start, stop)
    high, low, orbit = _canonical(tiers, high, low)
    g = tiers.geometry
    x_bits = np.take(g.x_lines[0], high) & np.take(g.x_lines[1], low)
    o_bits = np.take(g.o_lines[0], high) & np.take(g.o_lines[1], low)
    legal = array_rules.lines_legal(x_bits, o_bits, ply % 2 == 1, variant)
    high, low, orbit, x_bits, o_bits = high[legal], low[legal], orbit[legal], x_bits[legal], o_bits[legal]
    terminal = array_rules.terminal_of_lines(x_bits, o_bits, ply == variant.cells, variant)
    return Positions(high, low, orbit, terminal, np.flatnonzero(terminal == codec.PLAYING))


def solve_chunk(
    tiers: Tiers, ply: int, start: int, stop: int, below: np.ndarray | None, found: Positions | None = None
) -> Solved:
    """The canonical legal positions among ranks ``start`` to ``stop`` of tier ``ply``, solved.
    ``below``: the result byte of every board of tier ``ply + 1`` by rank (None for the last
    tier); ``found``: the chunk's :func:`positions`, if they are at hand."""
    kernels = compiled_passes()
    if kernels is not None and found is None:
        return Solved(*kernels.solve_ranks(tiers, ply, start, stop, below))
    high, low, orbit, terminal, live = found if found is not None else positions(tiers, ply, start, stop)
    if kernels is not None:
        return Solved(*kernels.solve_found(tiers, ply, high, low, orbit, terminal, below))
    count = len(high)
    value = terminal.copy()
    remoteness = np.zeros(count, dtype=np.int8)
    masks = [np.zeros(count, dtype=np.uint32) for _ in range(2)]
    counts = [np.zeros(count, dtype=np.uint8) for _ in range(3)]
    if len(live):
        assert below is not None, "a live position in the last tier"
        backed = back_up(_move_scores(tiers, ply, high[live], low[live], below))
        value[live], remoteness[live] = backed.value, backed.remoteness
        for column, solved in zip((*masks, *counts), backed[2:]):
            column[live] = solved  # type: ignore[index]
    code = high * tiers.geometry.base + low
    return Solved(code, value, remoteness, masks[0], masks[1], orbit, *counts)


def _canonical(tiers: Tiers, high: np.ndarray, low: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The boards that are their own canonical form (smallest image), with their orbits. Each
    symmetry is tried on the boards that passed the ones before it (about half of them)."""
    images = tiers.geometry.images
    code = np.take(images[0][0], high)
    code += np.take(images[1][0], low)
    fixed = np.ones(len(code), dtype=np.int8)  # symmetries that map the board to itself
    for s in range(1, len(images[0])):
        image = np.take(images[0][s], high)
        image += np.take(images[1][s], low)
        keep = code <= image
        fixed += code == image
        high, low, code, fixed = high[keep], low[keep], code[keep], fixed[keep]
    return high, low, np.int8(len(images[0])) // fixed


def _move_scores(tiers: Tiers, ply: int, high: np.ndarray, low: np.ndarray, below: np.ndarray) -> np.ndarray:
    """(cells, N) uint8: the score of each move for the mover (:data:`NO_MOVE` on a taken
    cell), from the result of its child, found by rank in tier ``ply + 1`` (``below`` ends
    in one :data:`NO_POSITION` byte, where every taken cell's rank lands)."""
    move_score = byte_tables().move_score
    scores = np.empty((tiers.variant.cells, len(high)), dtype=np.uint8)
    for cell, row in enumerate(scores):
        np.take(move_score, np.take(below, tiers.child_ranks(ply, high, low, cell), mode="clip"), out=row)
    return scores


def new_tier(tiers: Tiers, ply: int) -> np.ndarray:
    """The result bytes of tier ``ply`` by rank, all :data:`NO_POSITION` (no legal board yet),
    with one more at the end (see :func:`_move_scores`)."""
    return np.full(tiers.size(ply) + 1, NO_POSITION, dtype=np.uint8)


def images(tiers: Tiers, ply: int, solved: Solved | StoredRows) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """For each symmetry in turn: the rank in tier ``ply`` of each position's image under it,
    and the result bytes the images get (one per position, the same array each time)."""
    result = result_bytes(solved.value, solved.remoteness)
    for ranks in _image_ranks(tiers, ply, solved.code):
        yield ranks, result


def _image_ranks(tiers: Tiers, ply: int, code: np.ndarray) -> Iterator[np.ndarray]:
    """For each symmetry in turn: the rank in tier ``ply`` of the image of each board ``code``."""
    g = tiers.geometry
    kernels = compiled_passes()
    if kernels is not None:
        for s in range(len(g.images[0])):
            yield kernels.image_ranks(tiers, ply, code, s)
        return
    high, low = np.divmod(code, np.int64(g.base))
    (high_high, high_low), (low_high, low_low) = g.image_halves
    for s in range(len(high_high)):
        image_high = np.take(high_high[s], high)
        image_high += np.take(low_high[s], low)
        image_low = np.take(high_low[s], high)
        image_low += np.take(low_low[s], low)
        yield tiers.ranks(ply, image_high, image_low)


def spread(tiers: Tiers, ply: int, solved: Solved | StoredRows, out: np.ndarray) -> None:
    """Write each position's result byte to the rank of each of its images in ``out``, the
    tier's result bytes by rank."""
    spread_results(tiers, ply, solved.code, result_bytes(solved.value, solved.remoteness), out)


def spread_results(tiers: Tiers, ply: int, code: np.ndarray, result: np.ndarray, out: np.ndarray) -> None:
    """:func:`spread` of the positions ``code`` whose result bytes are ``result``: what a range
    task reads of a chunk's rows (:func:`ttt_solver.engine.shuffle.spread_range`)."""
    kernels = compiled_passes()
    if kernels is not None:
        kernels.spread(tiers, ply, code, result, out)
        return
    for ranks in _image_ranks(tiers, ply, code):
        out[ranks] = result


def scatter(out: np.ndarray, ranks: np.ndarray, results: np.ndarray) -> None:
    """``out[ranks] = results``: a range's images written into its result bytes
    (:func:`ttt_solver.engine.shuffle.gather_range`)."""
    kernels = compiled_passes()
    if kernels is None:
        out[ranks] = results
    else:
        kernels.scatter(out, ranks, results)


def pack_rows(
    code: np.ndarray, best: np.ndarray, best_shift: int, fields: list[tuple[np.ndarray, int, int]], out: np.ndarray
) -> bool:
    """Pack rows into ``out`` by the compiled loop (:func:`.compiled.pack_rows`) where the
    compiled passes run; False where they do not (the caller packs with numpy)."""
    kernels = compiled_passes()
    if kernels is None:
        return False
    kernels.pack_rows(code, best, best_shift, fields, out)
    return True


def compiled_passes() -> ModuleType | None:
    """The compiled passes (:mod:`.compiled`), or None for numpy's: the compiled ones where the
    C extension was built, unless the environment asks for numpy's
    (:mod:`ttt_solver.system.compiled_loops`). Every tier alike: loading them costs nothing."""
    return compiled if compiled_loops.wanted() else None
