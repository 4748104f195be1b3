"""The solver's passes as compiled loops: one board at a time, in registers, on one pass over
memory, where the numpy passes of :mod:`.passes` run each step as a whole-array operation with
temporaries as large as the chunk. The loops are C, the extension module ``kernels``
(``kernels.c`` beside this file), built with the package where a C compiler is at hand; this
module gives them their arguments. The results are the same, byte for byte (the tests build
every variant both ways); :func:`.passes.compiled_passes` chooses between them.

The loops read the very tables the numpy passes read (:class:`.tiers.Tiers`, the geometry of
:mod:`ttt_solver.game.array_rules`, the byte tables of :mod:`ttt_solver.game.value_bytes`),
passed in as arrays, and the constants of :data:`CONSTANTS`: the C file holds no table or rule
of its own.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from ..game.codec import ILLEGAL, PLAYING
from ..game.value_bytes import NO_MOVE, NO_POSITION, byte_tables
from ..game.values import SPAN
from . import kernels
from .tiers import Tiers

CELL_BITS = 5  # a move's cell in the low bits of :func:`_low_moves`'s entries (cells <= 25 < 32)
SPAN_BITS = SPAN.bit_length() - 1  # a score's kind (win, draw, loss, no move) is its top bits: score >> SPAN_BITS
assert 1 << SPAN_BITS == SPAN
# What the kernels take of the value bytes and of the codes, so that the C file has none of its own.
CONSTANTS = (CELL_BITS, ILLEGAL, PLAYING, NO_MOVE, SPAN_BITS)


# -- what the passes call -------------------------------------------------------------------
def solve_ranks(tiers: Tiers, ply: int, start: int, stop: int, below: np.ndarray | None) -> tuple[np.ndarray, ...]:
    """The columns of :func:`.passes.solve_chunk`: the canonical legal positions among ranks
    ``start`` to ``stop`` of tier ``ply``, solved from ``below``."""
    offsets = tiers.offsets[ply]
    first = int(np.searchsorted(offsets, start, side="right")) - 1
    boards = (offsets, tiers.partner[ply], tiers.class_start, tiers.lows, first)
    out = _columns(stop - start)
    count = kernels.solve_ranks(ply, start, stop, boards, *_valuing(tiers, ply, below), out)
    return tuple(column[:count].copy() for column in out)


def solve_found(tiers: Tiers, ply: int, high: np.ndarray, low: np.ndarray, orbit: np.ndarray, terminal: np.ndarray,
                below: np.ndarray | None) -> tuple[np.ndarray, ...]:  # fmt: skip
    """The columns of :func:`.passes.solve_chunk` for positions found already."""
    out = _columns(len(high))
    high_half, low_half = (np.ascontiguousarray(half, dtype=np.int64) for half in (high, low))
    kernels.solve_found(high_half, low_half, np.ascontiguousarray(terminal), *_valuing(tiers, ply, below), out)
    out[0][:] = high * tiers.geometry.base + low
    out[5][:] = orbit
    return out


def image_ranks(tiers: Tiers, ply: int, code: np.ndarray, symmetry: int) -> np.ndarray:
    """The rank in tier ``ply`` of each board's image under ``symmetry``."""
    ranks = np.empty(len(code), dtype=np.int64)
    kernels.image_ranks(np.ascontiguousarray(code), symmetry, _halves(tiers), tiers.offsets[ply], tiers.rank_low, ranks)
    return ranks


def spread(tiers: Tiers, ply: int, code: np.ndarray, result: np.ndarray, out: np.ndarray) -> None:
    """``out[rank of each image of each board] = its result``, boards of tier ``ply``."""
    code, result = np.ascontiguousarray(code), np.ascontiguousarray(result)
    kernels.spread(code, result, _halves(tiers), tiers.offsets[ply], tiers.rank_low, out)


def scatter(out: np.ndarray, ranks: np.ndarray, results: np.ndarray) -> None:
    """``out[ranks] = results``: numpy's fancy assignment copies the ranks to its own index type first."""
    kernels.scatter(out, np.ascontiguousarray(ranks), np.ascontiguousarray(results))


def pack_rows(code: np.ndarray, best: np.ndarray, best_shift: int, fields: list[tuple[np.ndarray, int, int]],
              out: np.ndarray) -> None:  # fmt: skip
    """``out``: (code, the numbers packed) int64 rows, ``fields`` each a one-byte column, its
    shift and what is added to it (their numbers are below 32: read as int8, the value's -1 too)."""
    columns = tuple(np.ascontiguousarray(column).view(np.int8) for column, _shift, _added in fields)
    shifts = np.array([shift for _column, shift, _added in fields], dtype=np.int64)
    added = np.array([plus for _column, _shift, plus in fields], dtype=np.int64)
    kernels.pack_rows(np.ascontiguousarray(code), np.ascontiguousarray(best), best_shift, columns, shifts, added, out)


Valuing = tuple[tuple[Any, ...], tuple[Any, ...], tuple[int, ...], tuple[int, ...]]  # rules, moves, constants, shape


def _valuing(tiers: Tiers, ply: int, below: np.ndarray | None) -> Valuing:
    """The arguments that valuing positions of tier ``ply`` takes: the rules, the moves (from
    :func:`_moves`), the constants and the shape of the tables."""
    g = tiers.geometry
    lines = (table.view(np.int64) for table in (*g.x_lines, *g.o_lines))  # bit masks: int64 is uint64's twin here
    rules = (*g.images, *lines, g.line_cells, g.base, tiers.variant.misere)
    moves = _moves(tiers, ply, below)
    image_high, image_low = g.images
    shape = (*image_high.shape, image_low.shape[1], moves[0].shape[0], moves[1].shape[1])  # symmetries, halves, cells
    return rules, moves, CONSTANTS, shape


@cache
def _halves(tiers: Tiers) -> tuple[Any, ...]:
    """The symmetries, the halves of each half and the base of the codes, then each half's share of each
    image's halves (:class:`ttt_solver.game.array_rules.Geometry`), as int32 (each under 3**13):
    half the bytes of int64, so that a symmetry's four tables sit in the cache together."""
    (high_high, high_low), (low_high, low_low) = tiers.geometry.image_halves
    tables = tuple(table.astype(np.int32) for table in (high_high, high_low, low_high, low_low))
    return (*high_high.shape, low_high.shape[1], tiers.geometry.base, *tables)


def _moves(tiers: Tiers, ply: int, below: np.ndarray | None) -> tuple[Any, ...]:
    """What valuing a position of tier ``ply`` from its children reads (dummies in the last
    tier, whose positions are all finished)."""
    tables = byte_tables()
    high_steps, _low_steps = tiers.steps(ply)
    low_moves, low_empty = _low_moves(tiers, ply % 2)
    offsets = tiers.offsets_padded[min(ply + 1, tiers.variant.cells)]
    below = np.full(1, NO_POSITION, dtype=np.uint8) if below is None else below
    return (high_steps, low_moves, low_empty, offsets, tiers.rank_low, below, tables.move_score, tables.move_value,
            tables.remoteness)  # fmt: skip


@cache
def _low_moves(tiers: Tiers, parity: int) -> tuple[np.ndarray, np.ndarray]:
    """The moves on a low half's empty cells, as (halves, cells of the half) int32 and the
    count of each half's, first in each row: the rank of the child's low half in its class
    (:attr:`.tiers.Tiers.rank_low`) times 2**CELL_BITS plus the cell. A child's rank is the
    rank of its high half's first board and this, one lookup a move where a taken cell costs
    none."""
    low_steps = tiers.steps(parity)[1]
    halves = low_steps.shape[1]
    empty = low_steps < halves  # (cells of the half, halves)
    cell = np.arange(len(low_steps), dtype=np.int64)[:, None] + tiers.geometry.high_cells
    move = tiers.rank_low[np.minimum(low_steps, halves - 1)] << CELL_BITS | cell
    order = np.argsort(~empty, axis=0, kind="stable")  # each half's empty cells first
    moves = np.take_along_axis(np.where(empty, move, 0), order, axis=0).T.astype(np.int32)
    return np.ascontiguousarray(moves), empty.sum(axis=0).astype(np.int64)


def _columns(count: int) -> tuple[np.ndarray, ...]:
    """Solved columns (as :data:`.passes.COLUMNS`) of ``count`` rows, for a kernel to fill."""
    dtypes = (np.int64, np.int8, np.int8, np.uint32, np.uint32, np.int8, np.uint8, np.uint8, np.uint8)
    return tuple(np.empty(count, dtype=dtype) for dtype in dtypes)
