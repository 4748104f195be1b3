"""An independent solver for the tests: the project's first vectorised backward induction,
which generates each layer from the one before by playing every move (``np.unique`` of the
children) instead of enumerating tiers, and backs values up with its own ``reduceat`` rule.
The streaming tier solver (:mod:`ttt_solver.solver`) is compared with it row by row.

Vectorised backward induction: every canonical legal position, solved layer by layer in numpy.

Layer ``p`` holds the canonical legal positions with ``p`` pieces (codes of
:mod:`ttt_solver.game.codec`): it is generated from layer ``p - 1`` by playing every move of every
unfinished position and keeping the distinct canonical children. Values are then backed up
from the last layer to the first with :func:`back_up` below.

Values are +1 win, 0 draw, -1 loss for the side to move; remoteness counts plies to the end
under perfect play (see :mod:`ttt_solver.game.values`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ttt_solver.game import array_rules, codec
from ttt_solver.game.variant import Variant

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Tables:
    """Every canonical legal position of a variant with its solution, sorted by code."""

    variant: Variant
    codes: np.ndarray  # int64, ascending: every canonical legal position
    value: np.ndarray  # int8 for the side to move: +1 win, 0 draw, -1 loss
    remoteness: np.ndarray  # int8 plies to the end under perfect play
    best: np.ndarray  # uint32: bit c set if the move on cell c keeps the value (canonical numbering)
    orbit: np.ndarray  # int8 distinct boards the symmetries make of it (sums to the legal count)
    wins: np.ndarray  # uint8: moves that win for the mover
    draws: np.ndarray  # uint8: moves that draw
    losses: np.ndarray  # uint8: moves that lose
    ply: np.ndarray  # int8 pieces on the board

    def __len__(self) -> int:
        return len(self.codes)

    @property
    def legal_positions(self) -> int:
        return int(self.orbit.sum(dtype=np.int64))


@dataclass(frozen=True)
class _Layer:
    codes: np.ndarray  # canonical positions with `ply` pieces, ascending
    terminal: np.ndarray  # int8: the value of a finished position, codec.PLAYING otherwise
    starts: np.ndarray  # offset of each live position's first move in `child`
    cells: np.ndarray  # uint8: the cell of each move, ascending within a position
    child: np.ndarray  # int32: index in the next layer of each move's canonical result


def unique_inverse(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """np.unique(values, return_inverse=True) for codes, several times faster: sorting
    (code << bits | position) is an argsort at the speed of a plain sort."""
    bits = max(len(values), 1).bit_length()
    packed = np.sort((values << bits) | np.arange(len(values), dtype=np.int64))
    ordered, order = packed >> bits, packed & ((1 << bits) - 1)
    first = np.empty(len(values), dtype=bool)
    first[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    inverse = np.empty(len(values), dtype=np.int32)
    inverse[order] = np.cumsum(first, dtype=np.int32) - 1
    return ordered[first], inverse


def _expand(codes: np.ndarray, variant: Variant) -> tuple[_Layer, np.ndarray]:
    """Classify one layer and generate the next one (returned as sorted canonical codes)."""
    terminal = array_rules.terminal_values(codes, variant)
    live = terminal == codec.PLAYING
    rows, cells, children = array_rules.children(codes[live], variant)
    following, child = unique_inverse(children)
    counts = np.bincount(rows, minlength=int(live.sum()))
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    return _Layer(codes, terminal, starts, cells.astype(np.uint8), child), following


def solve_tables(variant: Variant, progress: Progress | None = None) -> Tables:
    """Solve every legal position of ``variant`` (canonical forms only)."""
    layers: list[_Layer] = []
    codes = np.array([codec.offset(variant.cells)], dtype=np.int64)
    while len(codes):
        layer, codes = _expand(codes, variant)
        layers.append(layer)
        if progress:
            progress(f"{variant}: ply {len(layers) - 1}: {len(layer.codes):,} positions")
    columns: list[tuple[np.ndarray, ...]] = []
    value = remoteness = np.zeros(0, dtype=np.int8)
    for layer in reversed(layers):
        solved = _back_up(layer, value, remoteness)
        value, remoteness = solved[0], solved[1]
        columns.append(solved)
    columns.reverse()
    if progress:
        progress(f"{variant}: backed up {len(layers)} layers")
    codes = np.concatenate([layer.codes for layer in layers])
    order = np.argsort(codes, kind="stable")
    value, remoteness, best, wins, draws, losses = (np.concatenate(parts)[order] for parts in zip(*columns))
    plies = np.concatenate([np.full(len(layer.codes), p, np.int8) for p, layer in enumerate(layers)])[order]
    codes = codes[order]
    return Tables(
        variant, codes, value, remoteness, best, array_rules.orbits(codes, variant), wins, draws, losses, plies
    )


def _back_up(layer: _Layer, value: np.ndarray, remoteness: np.ndarray) -> tuple[np.ndarray, ...]:
    """One layer's (value, remoteness, best, wins, draws, losses) from the next layer's."""
    n = len(layer.codes)
    live = layer.terminal == codec.PLAYING
    out_value = np.where(live, np.int8(0), layer.terminal).astype(np.int8)
    out: list[np.ndarray] = [out_value, np.zeros(n, np.int8), np.zeros(n, np.uint32)]
    out += [np.zeros(n, np.uint8) for _ in range(3)]
    if layer.child.size:
        backed = back_up(value[layer.child], remoteness[layer.child], layer.starts, layer.cells)
        for column, found in zip(out, (*backed[:3], *backed[4:])):
            column[live] = found
    return tuple(out)


SPAN = 64


def back_up(child_value: np.ndarray, child_remoteness: np.ndarray, starts: np.ndarray, cells: np.ndarray) -> tuple:
    """Each position's (value, remoteness, best, preferred, wins, draws, losses) from its
    moves: the moves of position ``i`` are ``starts[i]`` up to the next start."""
    move_value = -child_value.astype(np.int16)
    move_rem = child_remoteness.astype(np.int16) + 1
    score = (1 - move_value) * SPAN + np.where(move_value > 0, move_rem, SPAN // 2 - move_rem)
    top = np.minimum.reduceat(score, starts)
    value = (1 - top // SPAN).astype(np.int8)
    remoteness = np.where(value > 0, top % SPAN, SPAN // 2 - top % SPAN).astype(np.int8)
    counts = np.diff(np.append(starts, len(score)))
    bit = np.left_shift(np.uint32(1), cells.astype(np.uint32), dtype=np.uint32)
    keeps = move_value == np.repeat(value, counts)
    fastest = score == np.repeat(top, counts)
    best = np.bitwise_or.reduceat(np.where(keeps, bit, np.uint32(0)), starts)
    preferred = np.bitwise_or.reduceat(np.where(fastest, bit, np.uint32(0)), starts)
    wins = np.add.reduceat((move_value > 0).astype(np.uint8), starts)
    losses = np.add.reduceat((move_value < 0).astype(np.uint8), starts)
    draws = (counts - wins - losses).astype(np.uint8)
    return value, remoteness, best, preferred, wins, draws, losses


def move_table(tables: Tables) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every move of every unfinished position, ordered by position then cell: (row index of
    the position, cell in its own numbering, value for the mover, remoteness)."""
    live = np.flatnonzero(tables.remoteness > 0)
    rows, cells, result = array_rules.children(tables.codes[live], tables.variant)
    index = np.searchsorted(tables.codes, result)
    return (
        live[rows],
        cells.astype(np.int8),
        (-tables.value[index]).astype(np.int8),
        (tables.remoteness[index] + 1).astype(np.int8),
    )
