"""The board codec: one integer per board, its canonical code, and the rules over codes.

A board of ``n = variant.cells`` cells is the base-3 integer

    code = sum(digit[i] * 3**(n - 1 - i))      with 'O' = 0, '.' = 1, 'X' = 2,

cell 0 being the most significant digit. The digit is the array form's number plus one
(+1 X, -1 O, 0 empty), so ``code = array @ weights + offset(n)`` with
``weights[i] = 3**(n - 1 - i)``, and the side ``s`` (+1 X, -1 O) moving on cell ``c`` adds
``s * weights[c]``. The canonical code of a board is the smallest code among its images under
``variant.symmetries``; the database keys its rows by it, and :mod:`ttt_solver.game.symmetry`
uses the same order, so there is one canonical form everywhere.

This module is the only place that defines codes, in pure Python (the command line's lookups
use it without importing numpy); :mod:`.array_rules` applies the same rules to whole numpy
arrays of codes. Values are +1 win, 0 draw, -1 loss for the side to move.
"""

from __future__ import annotations

from functools import cache
from operator import itemgetter

from .variant import Permutation, Variant

O_DIGIT, EMPTY_DIGIT, X_DIGIT = 0, 1, 2
TO_DIGITS = str.maketrans("O.X", "012")
_FROM_DIGITS = str.maketrans("012", "O.X")
PLAYING = 2  # the terminal value of a board where play goes on
ILLEGAL = -128  # the terminal value of a code that is no legal board


# -- scalar, pure Python ------------------------------------------------------------------
def offset(cells: int) -> int:
    """The code of the empty board: ``(3**cells - 1) // 2``."""
    empty: int = (3**cells - 1) // 2
    return empty


def encode(text: str) -> int:
    """Normalised text (``X``, ``O``, ``.``) -> its code."""
    code: int = int(text.translate(TO_DIGITS), 3)
    return code


def decode(code: int, cells: int) -> str:
    """A code -> normalised text of ``cells`` cells."""
    marks = []
    for _ in range(cells):
        code, digit = divmod(code, 3)
        marks.append("O.X"[digit])
    return "".join(reversed(marks))


@cache
def _getters(variant: Variant) -> tuple[tuple[Permutation, ...], tuple[object, ...]]:
    return variant.symmetries, tuple(itemgetter(*perm) for perm in variant.symmetries)


def canonical(text: str, variant: Variant) -> tuple[int, Permutation]:
    """The canonical code of a normalised board and the symmetry that takes the board there
    (``canonical_board[i] == board[perm[i]]``)."""
    perms, getters = _getters(variant)
    digits = text.translate(TO_DIGITS)
    join = "".join
    images = [join(get(digits)) for get in getters]  # type: ignore[operator]
    best = min(range(len(images)), key=images.__getitem__)
    return int(images[best], 3), perms[best]


def canonical_code(text: str, variant: Variant) -> int:
    """The canonical code of a normalised board."""
    _perms, getters = _getters(variant)
    digits = text.translate(TO_DIGITS)
    join = "".join
    return int(min([join(get(digits)) for get in getters]), 3)  # type: ignore[operator]


def canonical_children(text: str, mark: str, variant: Variant) -> tuple[tuple[int, int], ...]:
    """``(cell, canonical code)`` of the board after ``mark`` (``X`` or ``O``) is put on each
    empty cell of a normalised board, ascending by cell (what a proof of one position needs).
    Each child's images are the board's images with one digit changed: one addition each."""
    _perms, getters = _getters(variant)
    digits = text.translate(TO_DIGITS)
    join = "".join
    images = [int(join(get(digits)), 3) for get in getters]  # type: ignore[operator]
    step = 1 if mark == "X" else -1  # the empty digit 1 becomes X's 2 or O's 0
    empty = [cell for cell, digit in enumerate(digits) if digit == "1"]
    # Each symmetry's images of every empty cell's child, then the least image of each child.
    children = [[image + step * weights[cell] for cell in empty] for image, weights in zip(images, _landing(variant))]
    return tuple(zip(empty, map(min, *children)))


@cache
def _landing(variant: Variant) -> tuple[tuple[int, ...], ...]:
    """For each symmetry and each cell of a board, the weight of the digit it becomes in the
    image (``image[i] = board[perm[i]]``: cell ``c`` lands at ``perm.index(c)``)."""
    n = variant.cells
    return tuple(tuple(3 ** (n - 1 - perm.index(cell)) for cell in range(n)) for perm in variant.symmetries)


def canonical_text(text: str, variant: Variant) -> str:
    """The canonical form of a normalised board, as text."""
    _perms, getters = _getters(variant)
    join = "".join
    return min(join(get(text.translate(TO_DIGITS))) for get in getters).translate(_FROM_DIGITS)  # type: ignore[operator]
