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
from functools import cache
from typing import Any, TypeVar, cast

import numba
import numpy as np

from ..game.codec import ILLEGAL, PLAYING
from ..game.value_bytes import NO_MOVE, NO_POSITION, byte_tables
from ..game.values import SPAN
from .tiers import Tiers

Function = TypeVar("Function", bound=Callable[..., Any])
CELL_BITS = 5  # a move's cell in the low bits of :func:`_low_moves`'s entries (cells <= 25 < 32)
CELL_MASK = (1 << CELL_BITS) - 1
KINDS = 4  # a move's score by its value for the mover (score // SPAN): win, draw, loss, no move
SPREAD_BLOCK = 1 << 11  # boards _spread ranks at a time: their images' int64 ranks, 128 KB (512 to 32,768 ran alike)


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
def _canonical_orbit(shares: np.ndarray, low: int, image_low: np.ndarray) -> int:
    """The board's orbit if it is its own canonical form (no image has a smaller code), else 0;
    ``shares``: its high half's share of each image's code (``image_high[:, high]``)."""
    code = shares[0] + image_low[0, low]
    fixed = 1  # symmetries that map the board to itself
    for s in range(1, len(shares)):
        image = shares[s] + image_low[s, low]
        if image < code:
            return 0
        fixed += image == code
    return len(shares) // fixed


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
def _high_children(high: int, moves: tuple[Any, ...], children: np.ndarray, cells: np.ndarray) -> tuple[int, int]:
    """What the children of a high half's boards share. For each empty cell of the high half
    (``cells[i]``, how many returned): ``children[i]``, the rank in the tier below of the first
    board whose high half is the child's; and (returned) the same for a move in the low half."""
    high_steps, offsets = moves[0], moves[3]
    empty = 0
    for cell in range(high_steps.shape[0]):
        step = high_steps[cell, high]
        if step < high_steps.shape[1]:  # not taken
            children[empty], cells[empty] = offsets[step], cell
            empty += 1
    return empty, int(offsets[high])


@_inlined
def _back_up(low: int, high_empty: int, children: np.ndarray, cells: np.ndarray, low_child: int,
             moves: tuple[Any, ...], tally: np.ndarray) -> tuple[int, ...]:  # fmt: skip
    """The board's value, remoteness, best and preferred moves, and wins, draws and losses,
    from its children's result bytes (as :func:`.passes.solve_chunk` makes them with
    :func:`ttt_solver.game.value_bytes.back_up`), in one pass over the moves on its empty
    cells: each move's score, found by the child's rank (from :func:`_high_children` and
    :func:`_low_moves`), counted and its cell marked by the score's value (:func:`_tally`). A
    taken cell has no score, so no bit and no count."""
    _high_steps, low_moves, low_empty, _offsets, rank_low, below, move_score, move_value, top_remoteness = moves
    own_low = rank_low[low]
    tally[:] = 0
    top, preferred = NO_MOVE, 0
    for i in range(high_empty):
        top, preferred = _tally(move_score[below[children[i] + own_low]], cells[i], top, preferred, tally)
    for j in range(low_empty[low]):
        move = low_moves[low, j]
        score = move_score[below[low_child + (move >> CELL_BITS)]]
        top, preferred = _tally(score, move & CELL_MASK, top, preferred, tally)
    if top == NO_MOVE:  # no child is a position (bytes no solve makes): every cell alike, as numpy's back-up
        every = (1 << (moves[0].shape[0] + moves[1].shape[1])) - 1
        return move_value[top], top_remoteness[top], every, every, 0, 0, 0
    best = tally[KINDS + top // SPAN]  # the moves of the best move's value
    return move_value[top], top_remoteness[top], best, preferred, tally[0], tally[1], tally[2]


@_inlined
def _tally(score: int, cell: int, top: int, preferred: int, tally: np.ndarray) -> tuple[int, int]:
    """One move's score counted: ``tally[kind]`` counts the moves of each kind of score (its
    value: a win, a draw, a loss, no move) and ``tally[KINDS + kind]`` marks their cells; the
    best (lowest) score so far and the cells that reach it."""
    kind = score // SPAN
    tally[kind] += 1
    tally[KINDS + kind] |= 1 << cell
    if score < top:
        return score, 1 << cell
    if score == top:
        return top, preferred | 1 << cell
    return top, preferred


@_inlined
def _scratch(moves: tuple[Any, ...]) -> tuple[np.ndarray, ...]:
    """Room for a board's tally of its moves (:func:`_tally`) and for its high half's moves
    (their children's ranks and their cells, :func:`_high_children`)."""
    high_cells = moves[0].shape[0]
    return (np.empty(2 * KINDS, dtype=np.int64), np.empty(high_cells, dtype=np.int64),
            np.empty(high_cells, dtype=np.int64))  # fmt: skip


# -- loops over a chunk (each unpacks its tables once: unpacked per board, they cost more than
# the board's work; and looks up what a high half's boards share once per high half) ----------
@_compiled
def _solve_ranks(ply: int, start: int, stop: int, boards: tuple[Any, ...], rules: tuple[Any, ...],
                 moves: tuple[Any, ...], out: tuple[Any, ...]) -> int:  # fmt: skip
    """The canonical legal boards among ranks ``start`` to ``stop`` of tier ``ply``, solved into
    the first rows of ``out``; how many. The boards come in rank order, as
    :meth:`.tiers.Tiers.boards` makes them: the run of low halves of each high half in turn."""
    offsets, partner, class_start, lows, high = boards
    image_high, image_low, x_high, x_low, o_high, o_low, line_cells, base, misere = rules
    code, value, remoteness, best, preferred, orbit, wins, draws, losses = out
    tally, children, cells = _scratch(moves)
    shares = np.empty(image_high.shape[0], dtype=np.int64)
    x_moved_last, full = ply % 2 == 1, ply == moves[0].shape[0] + moves[1].shape[1]
    count = 0
    while offsets[high] < stop:
        begin, end = max(offsets[high], start), min(offsets[high + 1], stop)
        run = class_start[max(partner[high], 0)] - offsets[high]  # (no run where the high half has no boards)
        shares[:] = image_high[:, high]
        high_empty, low_child = _high_children(high, moves, children, cells)
        x_own, o_own, high_code = x_high[high], o_high[high], high * base
        for rank in range(begin, end):
            low = lows[run + rank]
            symmetric = _canonical_orbit(shares, low, image_low)
            if symmetric == 0:
                continue
            terminal = _terminal(x_own & x_low[low], o_own & o_low[low], x_moved_last, full, line_cells, misere)
            if terminal == ILLEGAL:
                continue
            code[count], orbit[count], value[count] = high_code + low, symmetric, terminal
            remoteness[count] = best[count] = preferred[count] = wins[count] = draws[count] = losses[count] = 0
            if terminal == PLAYING:
                (value[count], remoteness[count], best[count], preferred[count], wins[count], draws[count],
                 losses[count]) = _back_up(low, high_empty, children, cells, low_child, moves, tally)  # fmt: skip
            count += 1
        high += 1
    return count


@_compiled
def _solve_found(high: np.ndarray, low: np.ndarray, terminal: np.ndarray, moves: tuple[Any, ...],
                 out: tuple[Any, ...]) -> None:  # fmt: skip
    """Canonical legal positions found already (:func:`.passes.positions`, in code order)
    valued into ``out``."""
    _code, value, remoteness, best, preferred, _orbit, wins, draws, losses = out
    tally, children, cells = _scratch(moves)
    high_empty, low_child, children_of = 0, 0, -1
    for i in range(len(high)):
        value[i] = terminal[i]
        remoteness[i] = best[i] = preferred[i] = wins[i] = draws[i] = losses[i] = 0
        if terminal[i] == PLAYING:
            if high[i] != children_of:
                (high_empty, low_child), children_of = _high_children(high[i], moves, children, cells), high[i]
            value[i], remoteness[i], best[i], preferred[i], wins[i], draws[i], losses[i] = _back_up(
                low[i], high_empty, children, cells, low_child, moves, tally
            )


@_compiled
def _image_ranks(code: np.ndarray, base: int, s: int, halves: tuple[Any, ...], offsets: np.ndarray,
                 rank_low: np.ndarray, out: np.ndarray) -> None:  # fmt: skip
    """``out[i]``: the rank in its tier of board ``i``'s image under symmetry ``s``, each half's
    share of the image's halves added (see :class:`ttt_solver.game.array_rules.Geometry`)."""
    high_high, high_low, low_high, low_low = halves
    high = 0
    for i in range(len(code)):
        high, low = _halves_of(code[i], high, base)
        out[i] = _image_rank(
            offsets, rank_low, high_high[s, high], high_low[s, high], low_high[s, low], low_low[s, low]
        )


@_compiled
def _spread(code: np.ndarray, result: np.ndarray, base: int, halves: tuple[Any, ...], offsets: np.ndarray,
            rank_low: np.ndarray, out: np.ndarray) -> None:  # fmt: skip
    """``out[rank of each image of board i] = result[i]``, ranks as :func:`_every_image_rank`,
    :data:`SPREAD_BLOCK` boards at a time, written a symmetry at a time: one symmetry's images
    of boards in code order land near each other, one board's all over the tier (a board's
    images written in turn cost 2 to 3x the CPU on 3x6k4's widest tiers)."""
    ranks = np.empty((len(halves[0]), SPREAD_BLOCK), dtype=np.int64)
    for first in range(0, len(code), SPREAD_BLOCK):
        count = min(len(code) - first, SPREAD_BLOCK)
        block = ranks[:, :count]
        _every_image_rank(code[first : first + count], base, halves, offsets, rank_low, block)
        for s in range(len(block)):
            for i in range(count):
                out[block[s, i]] = result[first + i]


@_compiled
def _every_image_rank(code: np.ndarray, base: int, halves: tuple[Any, ...], offsets: np.ndarray,
                      rank_low: np.ndarray, out: np.ndarray) -> None:  # fmt: skip
    """``out[s, i]``: the rank in its tier of board ``i``'s image under symmetry ``s``, as
    :func:`_image_ranks` but board after board: the high half's shares looked up once a run of
    boards with that high half."""
    high_high, high_low, low_high, low_low = halves
    high_shares, low_shares = np.empty(len(high_high), dtype=np.int64), np.empty(len(high_high), dtype=np.int64)
    high, shared = 0, -1  # the high half of the board, and the one whose shares are looked up
    for i in range(len(code)):
        high, low = _halves_of(code[i], high, base)
        if high != shared:
            high_shares[:], low_shares[:], shared = high_high[:, high], high_low[:, high], high
        for s in range(len(high_high)):
            out[s, i] = _image_rank(offsets, rank_low, high_shares[s], low_shares[s], low_high[s, low], low_low[s, low])


@_inlined
def _image_rank(offsets: np.ndarray, rank_low: np.ndarray, high_from_high: int, low_from_high: int,
                high_from_low: int, low_from_low: int) -> int:  # fmt: skip
    """An image's rank in its tier from the shares of the image's halves that the board's
    halves give (``low_from_high``: the board's high half's share of the image's low half, ...):
    the offset of the image's high half, plus the rank of its low half under it."""
    return offsets[high_from_high + high_from_low] + rank_low[low_from_high + low_from_low]  # type: ignore[no-any-return]


@_inlined
def _halves_of(code: int, high: int, base: int) -> tuple[int, int]:
    """The halves of ``code``, the high one tried first as the last board's (boards come in
    code order, a run of them to a high half): a division (slow) only where the run ends."""
    low = code - high * base
    if low < 0 or low >= base:
        high = code // base
        low = code - high * base
    return high, low


@_compiled
def _scatter(out: np.ndarray, ranks: np.ndarray, results: np.ndarray) -> None:
    """``out[ranks[i]] = results[i]``."""
    for i in range(len(ranks)):
        out[ranks[i]] = results[i]


@_compiled
def _pack_rows(code: np.ndarray, best: np.ndarray, best_shift: int, fields: tuple[Any, ...], shifts: np.ndarray,
               added: np.ndarray, out: np.ndarray) -> None:  # fmt: skip
    """``out[i]``: board ``i``'s code, and its numbers in one integer: ``best[i]`` shifted
    ``best_shift`` up and each ``fields[f][i] + added[f]`` shifted ``shifts[f]`` up."""
    for i in range(len(code)):
        data = np.int64(best[i]) << best_shift
        for f in range(len(fields)):
            data |= (np.int64(fields[f][i]) + added[f]) << shifts[f]
        out[i, 0] = code[i]
        out[i, 1] = data


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


def scatter(out: np.ndarray, ranks: np.ndarray, results: np.ndarray) -> None:
    """``out[ranks] = results``: numpy's fancy assignment copies the ranks to its own index type first."""
    _scatter(out, ranks, results)


def pack_rows(code: np.ndarray, best: np.ndarray, best_shift: int, fields: list[tuple[np.ndarray, int, int]],
              out: np.ndarray) -> None:  # fmt: skip
    """``out``: (code, the numbers packed) int64 rows, ``fields`` each a one-byte column, its
    shift and what is added to it (their numbers are below 32: read as int8, the value's -1 too)."""
    columns = tuple(np.ascontiguousarray(column).view(np.int8) for column, _shift, _added in fields)
    shifts = np.array([shift for _column, shift, _added in fields], dtype=np.int64)
    added = np.array([plus for _column, _shift, plus in fields], dtype=np.int64)
    _pack_rows(code, best, best_shift, columns, shifts, added, out)


@cache
def _halves(tiers: Tiers) -> tuple[np.ndarray, ...]:
    """Each half's share of each image's halves (:class:`ttt_solver.game.array_rules.Geometry`),
    as int32 (each under 3**13): half the bytes of int64, so that a symmetry's four tables sit
    in the cache together."""
    (high_high, high_low), (low_high, low_low) = tiers.geometry.image_halves
    return tuple(table.astype(np.int32) for table in (high_high, high_low, low_high, low_low))


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
