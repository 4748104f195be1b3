"""Boards as RGB images, drawn with numpy alone (``render_mode="rgb_array"``; no pygame).

Stable-Baselines3's ``make_vec_env`` asks for ``rgb_array`` by default, and video recorders
and notebooks show these frames. A frame is ``uint8 (rows * CELL, cols * CELL, 3)``: dark
grid lines on white, X as a blue cross, O as an orange ring (the Okabe-Ito colour-blind-safe
pair, told apart by shape as well).
"""

from __future__ import annotations

from functools import cache

import numpy as np

CELL = 64  # pixels per cell side
_BACKGROUND = (255, 255, 255)
_GRID = (60, 60, 60)
_X = (0, 114, 178)  # Okabe-Ito blue
_O = (230, 159, 0)  # Okabe-Ito orange


@cache
def _glyphs(cell: int) -> tuple[np.ndarray, np.ndarray]:
    """Boolean masks of an X and an O inside one cell."""
    centre = (cell - 1) / 2
    y, x = np.mgrid[0:cell, 0:cell] - centre
    width = cell * 0.06
    reach = cell * 0.30
    inside = (np.abs(x) <= reach) & (np.abs(y) <= reach)
    cross = inside & ((np.abs(x - y) <= width * 1.4) | (np.abs(x + y) <= width * 1.4))
    ring = np.abs(np.hypot(x, y) - reach) <= width
    return cross, ring


def draw(board: str, rows: int, cols: int, cell: int = CELL) -> np.ndarray:
    """The RGB image of a text board (``X``, ``O``, ``.``, row-major) of ``rows x cols`` cells."""
    image = np.empty((rows * cell, cols * cell, 3), dtype=np.uint8)
    image[:] = _BACKGROUND
    cross, ring = _glyphs(cell)
    for index, mark in enumerate(board):
        if mark in "XO":
            r, c = divmod(index, cols)
            block = image[r * cell : (r + 1) * cell, c * cell : (c + 1) * cell]
            block[cross if mark == "X" else ring] = _X if mark == "X" else _O
    line = max(1, cell // 32)
    for r in range(1, rows):
        image[r * cell - line : r * cell + line, :] = _GRID
    for c in range(1, cols):
        image[:, c * cell - line : c * cell + line] = _GRID
    return image
