"""How many legal and canonical positions a variant has, counted from the rules alone.

Independent of the solver: this module reads only the geometry of a :class:`Variant` (its
``lines`` and ``symmetries``) and uses numpy; it imports nothing of ``ttt_solver.solver``,
``ttt_solver.game.codec``, ``ttt_solver.lookup`` or ``ttt_solver.store``, and its boards are
its own arrays (0 empty, 1 X, 2 O), not the codec's codes.

**Legal.** A board can arise in a game that stops at the first completed line when X has as
many marks as O or one more, at most one player has a completed line, that player moved last
(X with one mark more, O with as many), and all of that player's completed lines share a cell
(the last move). Those conditions are enough: take the shared cell back and the board before
it has no line at all, so its marks can be played in any order.

**Canonical.** Counted by Burnside's lemma, not by choosing representatives: the number of
orbits is the mean, over the distinct symmetries, of the number of legal boards each one
fixes. A board fixed by a symmetry is one mark per cycle of its permutation, so those are
enumerated directly (at most 3^12 boards on 20 cells); the identity fixes every legal board.

**Method.** The board is cut into a high half (the first ``cells // 2`` cells) and a low half.
For each half board and each line, a bit says whether X (or O) fills the line's cells in that
half, so a line is complete exactly when its bits in both halves are set: one AND of two
integers (64-bit masks: no variant has more than 34 lines). Half boards are grouped by their
counts of X and O, only groups whose sums give legal counts are paired, and each pair of groups
is one numpy block (high rows against low columns) whose ply and player to have moved last are
known.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ttt_solver.game.variant import Variant

EMPTY, X, O = 0, 1, 2
BLOCK = 1 << 21  # boards per numpy block: 16 MB per uint64 array


@dataclass(frozen=True)
class Counts:
    """Legal and canonical positions of one variant, by ply (pieces on the board)."""

    variant: Variant
    legal_by_ply: tuple[int, ...]
    canonical_by_ply: tuple[int, ...]

    @property
    def legal(self) -> int:
        return sum(self.legal_by_ply)

    @property
    def canonical(self) -> int:
        return sum(self.canonical_by_ply)


def count_positions(variant: Variant | str) -> Counts:
    """The legal and canonical positions of ``variant``, by ply."""
    variant = variant if isinstance(variant, Variant) else Variant.parse(variant)
    legal = _count_legal(variant)
    group = _group(variant)
    totals = legal.copy()
    for perm in group:
        if perm != tuple(range(variant.cells)):
            totals += _fixed_legal(variant, perm)
    canonical, remainder = np.divmod(totals, len(group))
    if remainder.any():
        raise AssertionError(f"{variant.name}: Burnside's sums {totals.tolist()} are not multiples of {len(group)}")
    return Counts(variant, tuple(int(n) for n in legal), tuple(int(n) for n in canonical))


# -- the rule ---------------------------------------------------------------------------------
def _through(variant: Variant) -> np.ndarray:
    """For each cell, the mask of the lines through it."""
    masks = [sum(1 << i for i, line in enumerate(variant.lines) if cell in line) for cell in range(variant.cells)]
    return np.array(masks, dtype=np.uint64)


def _legal(winner: np.ndarray, loser: np.ndarray, through: np.ndarray) -> np.ndarray:
    """Which boards are legal, given the completed lines of the player who moved last
    (``winner``) and of the other (``loser``), on boards whose counts are already legal."""
    legal = loser == 0
    several = legal & ((winner & (winner - np.uint64(1))) != 0)  # two lines or more
    if several.any():
        lines = winner[several]
        shared = np.zeros(len(lines), dtype=bool)
        for mask in through:
            shared |= (lines & ~mask) == 0
        legal[several] = shared
    return legal


def _masks(boards: np.ndarray, start: int, variant: Variant) -> tuple[np.ndarray, np.ndarray]:
    """For boards of the cells ``start, start + 1, ...``: the masks of the lines whose cells
    among these X fills, and O fills (a line with no cell here counts as filled)."""
    stop = start + boards.shape[1]
    x_lines = np.zeros(len(boards), dtype=np.uint64)
    o_lines = np.zeros(len(boards), dtype=np.uint64)
    for i, line in enumerate(variant.lines):
        here = [cell - start for cell in line if start <= cell < stop]
        bit = np.uint64(1 << i)
        x_lines |= np.where(np.all(boards[:, here] == X, axis=1), bit, np.uint64(0))
        o_lines |= np.where(np.all(boards[:, here] == O, axis=1), bit, np.uint64(0))
    return x_lines, o_lines


def _all_boards(cells: int) -> np.ndarray:
    """Every board of ``cells`` cells, one row each (3**cells rows)."""
    index = np.arange(3**cells, dtype=np.int64)
    powers = 3 ** np.arange(cells - 1, -1, -1, dtype=np.int64)
    boards: np.ndarray = ((index[:, None] // powers) % 3).astype(np.int8)
    return boards


# -- legal boards ------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Half:
    """The half boards with ``x`` X and ``o`` O, as line masks."""

    x: int
    o: int
    x_lines: np.ndarray
    o_lines: np.ndarray


def _halves(variant: Variant, start: int, cells: int) -> list[_Half]:
    boards = _all_boards(cells)
    x_lines, o_lines = _masks(boards, start, variant)
    xs, os_ = np.count_nonzero(boards == X, axis=1), np.count_nonzero(boards == O, axis=1)
    found = []
    for x in range(cells + 1):
        for o in range(cells + 1 - x):
            pick = (xs == x) & (os_ == o)
            found.append(_Half(x, o, x_lines[pick], o_lines[pick]))
    return found


def _count_legal(variant: Variant) -> np.ndarray:
    """Legal boards by ply: every pair of half-board groups whose counts add up legally."""
    high_cells = variant.cells // 2
    highs = _halves(variant, 0, high_cells)
    lows = _halves(variant, high_cells, variant.cells - high_cells)
    through = _through(variant)
    legal = np.zeros(variant.cells + 1, dtype=np.int64)
    for high in highs:
        for low in lows:
            x, o = high.x + low.x, high.o + low.o
            if x - o in (0, 1):
                legal[x + o] += _count_block(high, low, x > o, variant.k, through)
    return legal


def _count_block(high: _Half, low: _Half, x_last: bool, k: int, through: np.ndarray) -> int:
    """Legal boards among every high half of one group with every low half of another."""
    winner_count, loser_count = (high.x + low.x, high.o + low.o) if x_last else (high.o + low.o, high.x + low.x)
    if winner_count < k and loser_count < k:  # no line is possible: every board is legal
        return len(high.x_lines) * len(low.x_lines)
    winner_high, winner_low = (high.x_lines, low.x_lines) if x_last else (high.o_lines, low.o_lines)
    loser_high, loser_low = (high.o_lines, low.o_lines) if x_last else (high.x_lines, low.x_lines)
    rows = max(1, BLOCK // max(1, len(winner_low)))
    total = 0
    for start in range(0, len(winner_high), rows):
        winner = winner_high[start : start + rows, None] & winner_low[None, :]
        if loser_count < k:
            loser = np.zeros(winner.shape, dtype=np.uint64)
        else:
            loser = loser_high[start : start + rows, None] & loser_low[None, :]
        total += int(np.count_nonzero(_legal(winner.ravel(), loser.ravel(), through)))
    return total


# -- Burnside ----------------------------------------------------------------------------------
def _group(variant: Variant) -> list[tuple[int, ...]]:
    """The distinct symmetries (on one row, flipping the rows is the identity), checked to
    form a group: Burnside's lemma needs one."""
    group = sorted(set(variant.symmetries))
    members = set(group)
    for a in group:
        for b in group:
            if tuple(a[b[i]] for i in range(variant.cells)) not in members:
                raise AssertionError(f"{variant.name}: the symmetries are not closed under composition")
    return group


def _cycles(perm: tuple[int, ...]) -> list[list[int]]:
    seen: set[int] = set()
    cycles = []
    for first in range(len(perm)):
        if first not in seen:
            cycle, cell = [], first
            while cell not in seen:
                seen.add(cell)
                cycle.append(cell)
                cell = perm[cell]
            cycles.append(cycle)
    return cycles


def _fixed_legal(variant: Variant, perm: tuple[int, ...]) -> np.ndarray:
    """Legal boards left unchanged by ``perm``, by ply: one mark per cycle."""
    cycles = _cycles(perm)
    marks = _all_boards(len(cycles))
    boards = np.zeros((len(marks), variant.cells), dtype=np.int8)
    for i, cycle in enumerate(cycles):
        boards[:, cycle] = marks[:, i : i + 1]
    xs, os_ = np.count_nonzero(boards == X, axis=1), np.count_nonzero(boards == O, axis=1)
    keep = (xs - os_ == 0) | (xs - os_ == 1)
    x_lines, o_lines = _masks(boards[keep], 0, variant)
    x_last = (xs > os_)[keep]
    legal = _legal(np.where(x_last, x_lines, o_lines), np.where(x_last, o_lines, x_lines), _through(variant))
    return np.bincount((xs + os_)[keep][legal], minlength=variant.cells + 1).astype(np.int64)
