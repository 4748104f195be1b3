"""Every legal board as a table index, with its observation planes and legal-move mask.

The environments keep a board as one integer, its code (:mod:`ttt_solver.game.codec`): the array
form (+1 X, -1 O, 0 empty) read as ``array @ weights + offset``, the same index as the
oracle's batch tables. A move by ``side`` (+1 or -1) on ``cell`` adds ``side * powers[cell]``
(``powers[cell] = 3**(cells - 1 - cell)``). Everything the environments hand out is read from
tables over that index, so the single and the vectorised environment share one definition of
each:

- ``planes[index, perspective]``: the observation, an int8 ``(rows, cols, 2)`` array; plane 0
  holds the learner's marks and plane 1 the opponent's, as PettingZoo's classic games do.
  ``perspective`` is 0 when the learner plays X and 1 when it plays O. Cells are row-major
  (cell ``c`` is ``[c // cols, c % cols]``), the numbering of the actions. The environments'
  ``observation="flat"`` hands out the same array as a vector of ``2 * cells``
  (:func:`observation_shape`): Stable-Baselines3 takes any 3-D observation for an image, and
  the planes are not one (int8 0/1, 3x3 pixels), so it warns; its MLP policies take the vector.
- ``masks[index]``: int8, 1 on each empty cell of an unfinished board (what
  ``Discrete.sample(mask=...)`` takes), all 0 on a finished or illegal board.
- ``final[index]``: the value of a finished board for the side to move (-1 when the last
  mover made a line, 0 on a full board; +1 in misère), :data:`PLAYING` otherwise.
- ``children(tables)[index * cells + cell]`` (dense tables only, for the vectorised
  environment): the index after the side to move marks ``cell``; -1 when the cell is taken or
  the board illegal; on a finished board, the empty board (the vectorised environment's
  autoreset: any action on a finished game starts a new one).

Boards of up to :data:`DENSE_CELLS` cells (3x3, 3x4k3, 4x3k3, ...) get dense numpy tables over
all ``3**cells`` indices, built in numpy at once (531,441 entries for 12 cells). Bigger boards
(4x4: 43 million indices) get :class:`LazyBoardTables`: the same rows, worked out from the
rules per board when first asked for; only the single environment takes them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from ..game import array_rules, codec
from ..game import board as rules
from ..game.variant import STANDARD, Variant

PLAYING = codec.PLAYING  # ``final`` of a legal board where play goes on
ILLEGAL = codec.ILLEGAL  # ``final`` of an index that is no legal board
DENSE_CELLS = 12  # dense tables over 3**cells indices: 19,683 entries on 3x3, 531,441 on 3x4
_LAZY_CACHE = 1 << 16  # boards whose rows a lazy table keeps


@dataclass(frozen=True, eq=False)
class BoardTables:
    """Dense per-index tables for one variant (see the module docstring)."""

    variant: Variant
    powers: tuple[int, ...]  # the index step of a mark on ``cell`` (codec weights)
    empty_index: int
    final: np.ndarray  # int8 (3**cells,)
    masks: np.ndarray  # int8 (3**cells, cells)
    planes: np.ndarray  # int8 (3**cells, 2, rows, cols, 2)
    empties: np.ndarray  # int8 (3**cells, cells): the empty cells ascending, padded with -1
    texts: dict[int, str] = field(repr=False)  # index -> normalised text, legal boards only
    # Python-side copies for the single environment's hot path (list indexing beats numpy scalars).
    final_list: list[int] = field(repr=False, default_factory=list)
    mask_rows: list[np.ndarray | None] = field(repr=False, default_factory=list)
    plane_rows: tuple[list[np.ndarray | None], list[np.ndarray | None]] = field(repr=False, default=([], []))

    def index_of(self, text: str) -> int:
        """The table index of a normalised text board."""
        return codec.encode(text)

    def index_array(self, boards: np.ndarray) -> np.ndarray:
        """Table indices of an ``(N, cells)`` array of +1/-1/0 boards (not checked for legality)."""
        return array_rules.codes_of_arrays(boards, self.variant)

    def is_legal(self, index: int) -> bool:
        return index in self.texts


class _Rows:
    """``rows[index]``, worked out by ``compute(index)`` on first use and kept (LRU)."""

    def __init__(self, compute: Callable[[int], Any]) -> None:
        self._get = lru_cache(maxsize=_LAZY_CACHE)(compute)

    def __getitem__(self, index: int) -> Any:
        return self._get(index)


class LazyBoardTables:
    """The tables of a board too big to tabulate, row by row from the rules (see the module docstring).

    ``texts``, ``final_list``, ``masks``, ``mask_rows`` and ``plane_rows[perspective]`` are
    indexed like :class:`BoardTables`'; a row is computed when first asked for and cached.
    """

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self.powers = tuple(int(w) for w in array_rules.geometry(variant).weights)
        self.empty_index = codec.offset(variant.cells)
        self.texts = _Rows(self._text)
        self.final_list = _Rows(self._final)
        self.masks = self.mask_rows = _Rows(self._mask)
        planes = _Rows(self._planes)
        self.plane_rows = (_Rows(lambda index: planes[index][0]), _Rows(lambda index: planes[index][1]))

    def index_of(self, text: str) -> int:
        return codec.encode(text)

    def is_legal(self, index: int) -> bool:
        try:
            self.texts[index]
        except KeyError:
            return False
        return True

    def _text(self, index: int) -> str:
        if not 0 <= index < 3 * self.empty_index + 1:
            raise KeyError(index)
        text = codec.decode(index, self.variant.cells)
        if rules.legality_error(text, self.variant) is not None:
            raise KeyError(index)
        return text

    def _final(self, index: int) -> int:
        value = rules.terminal_value(self.texts[index], self.variant)
        return PLAYING if value is None else value

    def _mask(self, index: int) -> np.ndarray:
        text = self.texts[index]
        mask = np.zeros(len(text), dtype=np.int8)
        if self.final_list[index] == PLAYING:
            mask[[cell for cell, mark in enumerate(text) if mark == rules.EMPTY]] = 1
        mask.flags.writeable = False
        return mask

    def _planes(self, index: int) -> tuple[np.ndarray, np.ndarray]:
        grid = np.array(rules.to_array(self.texts[index]), dtype=np.int8).reshape(self.variant.rows, self.variant.cols)
        as_x = np.stack([grid == 1, grid == -1], axis=-1).astype(np.int8)
        as_o = as_x[..., ::-1].copy()
        as_x.flags.writeable = as_o.flags.writeable = False
        return as_x, as_o


OBSERVATIONS = ("planes", "flat")  # the layouts of an observation the environments offer


def observation_shape(variant: Variant, observation: str) -> tuple[int, ...]:
    """The shape of one observation: ``"planes"`` ``(rows, cols, 2)``, ``"flat"`` ``(2 * cells,)``,
    the planes read row-major (cell ``c``'s learner mark at ``2 * c``, the opponent's at ``2 * c + 1``)."""
    if observation not in OBSERVATIONS:
        raise ValueError(f"invalid observation {observation!r}: expected 'planes' or 'flat'")
    return (variant.rows, variant.cols, 2) if observation == "planes" else (2 * variant.cells,)


def perspective(side: int) -> int:
    """Plane-table column of a learner playing ``side`` (+1 X -> 0, -1 O -> 1)."""
    return 0 if side > 0 else 1


@lru_cache(maxsize=4)
def board_tables(variant: Variant = STANDARD) -> BoardTables | LazyBoardTables:
    """The tables of ``variant``, built once per process: dense up to :data:`DENSE_CELLS` cells
    (a few milliseconds on 3x3, under a second on 3x4), lazy beyond."""
    if variant.cells > DENSE_CELLS:
        return LazyBoardTables(variant)
    return _dense_tables(variant)


def x_to_move(tables: BoardTables) -> np.ndarray:
    """Whether X is the side to move on each index of the dense ``tables`` (as many X's as O's)."""
    size, n = tables.masks.shape
    marks = tables.planes[:, 0].reshape(size, n, 2).sum(axis=1, dtype=np.int64)  # X's, O's
    found: np.ndarray = marks[:, 0] == marks[:, 1]
    return found


@lru_cache(maxsize=4)
def children(tables: BoardTables) -> np.ndarray:
    """Every move of the dense ``tables`` as a flat intp table (see the module docstring)."""
    size = len(tables.final)
    mover = np.where(x_to_move(tables), 1, -1)
    moves = np.arange(size)[:, None] + mover[:, None] * np.array(tables.powers)
    over = ((tables.final != PLAYING) & (tables.final != ILLEGAL))[:, None]
    table = np.where(tables.masks == 1, moves, np.where(over, tables.empty_index, -1)).astype(np.intp).ravel()
    table.flags.writeable = False
    return table


def _dense_tables(variant: Variant) -> BoardTables:
    n = variant.cells
    size = 3**n
    codes = np.arange(size, dtype=np.int64)
    cells = (array_rules.digits(codes, variant).astype(np.int8) - 1).astype(np.int8)  # +1 X, -1 O, 0 empty
    legal = array_rules.legal(codes, variant)
    final = np.where(legal, array_rules.terminal_values(codes, variant), np.int8(ILLEGAL)).astype(np.int8)
    empty = cells == 0
    masks = (empty & (final == PLAYING)[:, None]).astype(np.int8)
    order = np.argsort(~empty, axis=1, kind="stable").astype(np.int8)  # empty cells first, ascending
    empties = np.where(np.take_along_axis(empty, order.astype(np.intp), axis=1) & legal[:, None], order, -1).astype(
        np.int8
    )
    grid = (cells * legal[:, None]).reshape(size, variant.rows, variant.cols)
    planes = np.zeros((size, 2, variant.rows, variant.cols, 2), dtype=np.int8)
    for column, side in ((0, 1), (1, -1)):
        planes[:, column, :, :, 0] = grid == side
        planes[:, column, :, :, 1] = grid == -side
    legal_index = np.flatnonzero(legal)
    texts = dict(zip(legal_index.tolist(), array_rules.decode_texts(legal_index, variant)))
    for table in (final, masks, planes, empties):
        table.flags.writeable = False
    mask_rows: list[np.ndarray | None] = [None] * size
    plane_rows: tuple[list[np.ndarray | None], list[np.ndarray | None]] = ([None] * size, [None] * size)
    for i in texts:
        mask_rows[i] = masks[i]
        plane_rows[0][i] = planes[i, 0]
        plane_rows[1][i] = planes[i, 1]
    powers = tuple(int(w) for w in array_rules.geometry(variant).weights)
    return BoardTables(
        variant, powers, codec.offset(n), final, masks, planes, empties, texts, final.tolist(), mask_rows, plane_rows
    )
