"""Every legal board as a table index, with its observation planes and legal-move mask.

The environments keep a board as one integer, its balanced-ternary index
``sum(cell[i] * 3**i) + (3**cells - 1) // 2`` over the array form (+1 X, -1 O, 0 empty), the
same index as :mod:`ttt_solver.batch`. A move by ``side`` (+1 or -1) on ``cell`` adds
``side * 3**cell``. Everything the environments hand out is read from tables over that index,
so the single and the vectorised environment share one definition of each:

- ``planes[index, perspective]``: the observation, an int8 ``(rows, cols, 2)`` array; plane 0
  holds the learner's marks and plane 1 the opponent's, as PettingZoo's classic games do.
  ``perspective`` is 0 when the learner plays X and 1 when it plays O. Cells are row-major
  (cell ``c`` is ``[c // cols, c % cols]``), the numbering of the actions.
- ``masks[index]``: int8, 1 on each empty cell of an unfinished board (what
  ``Discrete.sample(mask=...)`` takes), all 0 on a finished or illegal board.
- ``final[index]``: the value of a finished board for the side to move (-1 when the last
  mover made a line, 0 on a full board; +1 in misère), :data:`PLAYING` otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from .. import board as rules
from ..variant import STANDARD, Variant

PLAYING = 2  # ``final`` of a legal board where play goes on
ILLEGAL = -128  # ``final`` of an index that is no legal board
MAX_CELLS = 9  # dense tables over 3**cells indices: 19,683 entries on 3x3


@dataclass(frozen=True, eq=False)
class BoardTables:
    """Dense per-index tables for one variant (see the module docstring)."""

    variant: Variant
    powers: tuple[int, ...]  # 3**cell: the index step of a mark on ``cell``
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
        return self.empty_index + sum(p * (1 if m == rules.X else -1) for p, m in zip(self.powers, text) if m != rules.EMPTY)

    def index_array(self, boards: np.ndarray) -> np.ndarray:
        """Table indices of an ``(N, cells)`` array of +1/-1/0 boards (not checked for legality)."""
        return np.asarray(boards, dtype=np.int64) @ np.asarray(self.powers, dtype=np.int64) + self.empty_index

    def is_legal(self, index: int) -> bool:
        return index in self.texts


def perspective(side: int) -> int:
    """Plane-table column of a learner playing ``side`` (+1 X -> 0, -1 O -> 1)."""
    return 0 if side > 0 else 1


@lru_cache(maxsize=4)
def board_tables(variant: Variant = STANDARD) -> BoardTables:
    """The tables of ``variant`` (built once per process, a few tens of milliseconds on 3x3)."""
    n = variant.cells
    if n > MAX_CELLS:
        raise ValueError(f"the environments cover boards of up to {MAX_CELLS} cells, not {variant.name}")
    size = 3**n
    powers = tuple(3**cell for cell in range(n))
    offset = (size - 1) // 2
    final = np.full(size, ILLEGAL, dtype=np.int8)
    masks = np.zeros((size, n), dtype=np.int8)
    planes = np.zeros((size, 2, variant.rows, variant.cols, 2), dtype=np.int8)
    empties = np.full((size, n), -1, dtype=np.int8)
    texts: dict[int, str] = {}
    for text in rules.all_boards(variant):
        cells = np.array(rules.to_array(text), dtype=np.int8)
        index = int(cells.astype(np.int64) @ np.array(powers, dtype=np.int64)) + offset
        texts[index] = text
        value = rules.terminal_value(text, variant)
        final[index] = PLAYING if value is None else value
        free = np.flatnonzero(cells == 0)
        empties[index, : len(free)] = free
        if value is None:
            masks[index, free] = 1
        grid = cells.reshape(variant.rows, variant.cols)
        for column, side in ((0, 1), (1, -1)):
            planes[index, column, :, :, 0] = grid == side
            planes[index, column, :, :, 1] = grid == -side
    for table in (final, masks, planes, empties):
        table.flags.writeable = False
    mask_rows: list[np.ndarray | None] = [None] * size
    plane_rows: tuple[list[np.ndarray | None], list[np.ndarray | None]] = ([None] * size, [None] * size)
    for index in texts:
        mask_rows[index] = masks[index]
        plane_rows[0][index] = planes[index, 0]
        plane_rows[1][index] = planes[index, 1]
    return BoardTables(
        variant, powers, offset, final, masks, planes, empties, texts,
        [int(v) for v in final], mask_rows, plane_rows,
    )
