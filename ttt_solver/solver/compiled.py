"""The solver's passes as compiled loops (numba, the ``[fast]`` extra): one board at a time, in
registers, on one pass over memory, where the numpy passes of :mod:`.passes` run each step as a
whole-array operation with temporaries as large as the chunk. The results are the same, byte
for byte (the tests build every variant both ways); :func:`.passes.solve_chunk` and
:func:`.passes.spread` choose between them.

The kernels read the very tables the numpy passes read (:class:`.tiers.Tiers`, the geometry of
:mod:`ttt_solver.game.array_rules`, the byte tables of :mod:`ttt_solver.game.value_bytes`),
passed in as arrays. Each is compiled on its first call in a process and kept in numba's cache,
so later processes load it instead (see docs/performance.md): next to this file, else (a
read-only installation) in the user's cache folder, or where ``NUMBA_CACHE_DIR`` says.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba
import numpy as np

from ..game.codec import ILLEGAL, PLAYING
from ..game.value_bytes import NO_POSITION, byte_tables
from .tiers import Tiers

Function = TypeVar("Function", bound=Callable[..., Any])


def _compiled(function: Function) -> Function:
    """``function`` compiled on first call, cached on disk, and run without the GIL."""
    try:
        return cast("Function", numba.njit(cache=True, nogil=True)(function))
    except RuntimeError:  # no folder to cache in (this one read-only, no writable user cache folder)
        return cast("Function", numba.njit(nogil=True)(function))  # compiled again by every process


def _inlined(function: Function) -> Function:
    """``function`` compiled into each caller, so that a loop over a chunk is one function: a
    call per board, counting references to each array it takes, costs more than the board's work."""
    return cast("Function", numba.njit(inline="always")(function))


# -- one board ----------------------------------------------------------------------------
@_inlined
def _canonical_orbit(high: int, low: int, image_high: np.ndarray, image_low: np.ndarray) -> int:
    """The board's orbit if it is its own canonical form (no image has a smaller code), else 0."""
    code = image_high[0, high] + image_low[0, low]
    fixed = 1  # symmetries that map the board to itself
    for s in range(1, len(image_high)):
        image = image_high[s, high] + image_low[s, low]
        if image < code:
            return 0
        fixed += image == code
    return len(image_high) // fixed


@_inlined
def _terminal(x_bits: int, o_bits: int, x_moved_last: bool, full: bool, line_cells: np.ndarray, misere: bool) -> int:
    """The value of a finished game, PLAYING while play goes on, ILLEGAL for lines no game
    makes (as :func:`ttt_solver.game.array_rules.lines_legal` and ``terminal_of_lines``)."""
    if x_bits != 0 and o_bits != 0 or x_bits != 0 and not x_moved_last or o_bits != 0 and x_moved_last:
        return ILLEGAL
    owner = x_bits | o_bits
    if owner == 0:
        return 0 if full else PLAYING
    shared = -1  # the cells common to the owner's lines: one cell at least, the last move
    for number in range(line_cells.shape[0]):
        if owner >> number & 1:
            shared &= line_cells[number]
    if shared == 0:
        return ILLEGAL  # two separate lines: a move after the game ended
    return 1 if misere else -1


@_inlined
def _back_up(high: int, low: int, moves: tuple[Any, ...], scores: np.ndarray) -> tuple[int, ...]:
    """The board's value, remoteness, best and preferred moves, and wins, draws and losses,
    from its children's result bytes (as :func:`.passes.solve_chunk` makes them with
    :func:`ttt_solver.game.value_bytes.back_up`): each move's score, found by the child's rank,
    and the best (lowest) score."""
    high_steps, low_steps, offsets, rank_low, below, move_score, move_value, top_remoteness = moves
    last = below.shape[0] - 1  # the NO_POSITION byte a taken cell's rank is clipped to
    split = high_steps.shape[0]
    top = 255
    for cell in range(scores.shape[0]):
        if cell < split:
            rank = offsets[high_steps[cell, high]] + rank_low[low]
        else:
            rank = offsets[high] + rank_low[low_steps[cell - split, low]]
        scores[cell] = move_score[below[min(rank, last)]]
        top = min(top, scores[cell])
    value = move_value[top]
    best = preferred = wins = draws = losses = 0
    for cell in range(scores.shape[0]):
        score_value = move_value[scores[cell]]
        wins += score_value == 1
        draws += score_value == 0
        losses += score_value == -1
        if score_value == value:
            best |= 1 << cell
        if scores[cell] == top:
            preferred |= 1 << cell
    return value, top_remoteness[top], best, preferred, wins, draws, losses


# -- loops over a chunk (each unpacks its tables once: unpacked per board, they cost more than
# the board's work) ---------------------------------------------------------------------------
@_compiled
def _solve_ranks(ply: int, start: int, stop: int, boards: tuple[Any, ...], rules: tuple[Any, ...],
                 moves: tuple[Any, ...], out: tuple[Any, ...]) -> int:  # fmt: skip
    """The canonical legal boards among ranks ``start`` to ``stop`` of tier ``ply``, solved into
    the first rows of ``out`` (zeros); how many. The boards come in rank order, as
    :meth:`.tiers.Tiers.boards` makes them: the run of low halves of each high half in turn."""
    offsets, partner, class_start, lows, high = boards
    image_high, image_low, x_high, x_low, o_high, o_low, line_cells, base, misere = rules
    code, value, remoteness, best, preferred, orbit, wins, draws, losses = out
    scores = np.empty(moves[0].shape[0] + moves[1].shape[0], dtype=np.uint8)
    x_moved_last, full = ply % 2 == 1, ply == len(scores)
    count = 0
    while offsets[high] < stop:
        begin, end = max(offsets[high], start), min(offsets[high + 1], stop)
        run = class_start[max(partner[high], 0)] - offsets[high]  # (no run where the high half has no boards)
        for rank in range(begin, end):
            low = lows[run + rank]
            symmetric = _canonical_orbit(high, low, image_high, image_low)
            if symmetric == 0:
                continue
            x_bits, o_bits = x_high[high] & x_low[low], o_high[high] & o_low[low]
            terminal = _terminal(x_bits, o_bits, x_moved_last, full, line_cells, misere)
            if terminal == ILLEGAL:
                continue
            code[count], orbit[count], value[count] = high * base + low, symmetric, terminal
            if terminal == PLAYING:
                (value[count], remoteness[count], best[count], preferred[count], wins[count], draws[count],
                 losses[count]) = _back_up(high, low, moves, scores)  # fmt: skip
            count += 1
        high += 1
    return count


@_compiled
def _solve_found(high: np.ndarray, low: np.ndarray, terminal: np.ndarray, moves: tuple[Any, ...],
                 out: tuple[Any, ...]) -> None:  # fmt: skip
    """Canonical legal positions found already (:func:`.passes.positions`) valued into ``out``
    (zeros)."""
    _code, value, remoteness, best, preferred, _orbit, wins, draws, losses = out
    scores = np.empty(moves[0].shape[0] + moves[1].shape[0], dtype=np.uint8)
    for i in range(len(high)):
        value[i] = terminal[i]
        if terminal[i] == PLAYING:
            value[i], remoteness[i], best[i], preferred[i], wins[i], draws[i], losses[i] = _back_up(
                high[i], low[i], moves, scores
            )


@_compiled
def _image_ranks(code: np.ndarray, base: int, s: int, halves: tuple[Any, ...], offsets: np.ndarray,
                 rank_low: np.ndarray, out: np.ndarray) -> None:  # fmt: skip
    """``out[i]``: the rank in its tier of board ``i``'s image under symmetry ``s``, each half's
    share of the image's halves added (see :class:`ttt_solver.game.array_rules.Geometry`)."""
    high_high, high_low, low_high, low_low = halves
    for i in range(len(code)):
        high, low = code[i] // base, code[i] % base
        out[i] = offsets[high_high[s, high] + low_high[s, low]] + rank_low[high_low[s, high] + low_low[s, low]]


@_compiled
def _spread(code: np.ndarray, result: np.ndarray, base: int, halves: tuple[Any, ...], offsets: np.ndarray,
            rank_low: np.ndarray, out: np.ndarray) -> None:  # fmt: skip
    """``out[rank of each image of board i] = result[i]``, ranks as :func:`_image_ranks`."""
    high_high, high_low, low_high, low_low = halves
    for i in range(len(code)):
        high, low = code[i] // base, code[i] % base
        for s in range(len(high_high)):
            rank = offsets[high_high[s, high] + low_high[s, low]] + rank_low[high_low[s, high] + low_low[s, low]]
            out[rank] = result[i]


# -- what the passes call -------------------------------------------------------------------
def solve_ranks(tiers: Tiers, ply: int, start: int, stop: int, below: np.ndarray | None) -> tuple[np.ndarray, ...]:
    """The columns of :func:`.passes.solve_chunk`: the canonical legal positions among ranks
    ``start`` to ``stop`` of tier ``ply``, solved from ``below``."""
    g = tiers.geometry
    offsets = tiers.offsets[ply]
    first = int(np.searchsorted(offsets, start, side="right")) - 1
    boards = (offsets, tiers.partner[ply], tiers.class_start, tiers.lows, first)
    lines = (table.view(np.int64) for table in (*g.x_lines, *g.o_lines))  # bit masks: int64 is uint64's twin here
    rules = (*g.images, *lines, g.line_cells, g.base, tiers.variant.misere)
    out = _columns(stop - start)
    count = _solve_ranks(ply, start, stop, boards, rules, _moves(tiers, ply, below), out)
    return tuple(column[:count].copy() for column in out)


def solve_found(tiers: Tiers, ply: int, high: np.ndarray, low: np.ndarray, orbit: np.ndarray, terminal: np.ndarray,
                below: np.ndarray | None) -> tuple[np.ndarray, ...]:  # fmt: skip
    """The columns of :func:`.passes.solve_chunk` for positions found already."""
    out = _columns(len(high))
    _solve_found(high, low, terminal, _moves(tiers, ply, below), out)
    out[0][:] = high * tiers.geometry.base + low
    out[5][:] = orbit
    return out


def image_ranks(tiers: Tiers, ply: int, code: np.ndarray, symmetry: int) -> np.ndarray:
    """The rank in tier ``ply`` of each board's image under ``symmetry``."""
    ranks = np.empty(len(code), dtype=np.int64)
    _image_ranks(code, tiers.geometry.base, symmetry, _halves(tiers), tiers.offsets[ply], tiers.rank_low, ranks)
    return ranks


def spread(tiers: Tiers, ply: int, code: np.ndarray, result: np.ndarray, out: np.ndarray) -> None:
    """``out[rank of each image of each board] = its result``, boards of tier ``ply``."""
    _spread(code, result, tiers.geometry.base, _halves(tiers), tiers.offsets[ply], tiers.rank_low, out)


def _halves(tiers: Tiers) -> tuple[np.ndarray, ...]:
    (high_high, high_low), (low_high, low_low) = tiers.geometry.image_halves
    return high_high, high_low, low_high, low_low


def _moves(tiers: Tiers, ply: int, below: np.ndarray | None) -> tuple[Any, ...]:
    """What valuing a position of tier ``ply`` from its children reads (dummies in the last
    tier, whose positions are all finished)."""
    tables = byte_tables()
    high_steps, low_steps = tiers.steps(ply)
    offsets = tiers.offsets_padded[min(ply + 1, tiers.variant.cells)]
    below = np.full(1, NO_POSITION, dtype=np.uint8) if below is None else below
    return (high_steps, low_steps, offsets, tiers.rank_low_padded, below, tables.move_score, tables.move_value,
            tables.remoteness)  # fmt: skip


def _columns(count: int) -> tuple[np.ndarray, ...]:
    """Solved columns (as :data:`.passes.COLUMNS`) of ``count`` rows of zeros."""
    dtypes = (np.int64, np.int8, np.int8, np.uint32, np.uint32, np.int8, np.uint8, np.uint8, np.uint8)
    return tuple(np.zeros(count, dtype=dtype) for dtype in dtypes)
