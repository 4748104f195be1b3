"""The board codec: one integer per board, its canonical code, and the rules over codes.

A board of ``n = variant.cells`` cells is the base-3 integer

    code = sum(digit[i] * 3**(n - 1 - i))      with 'O' = 0, '.' = 1, 'X' = 2,

cell 0 being the most significant digit. The digit is the array form's number plus one
(+1 X, -1 O, 0 empty), so ``code = array @ weights + offset(n)`` with
``weights[i] = 3**(n - 1 - i)``, and the side ``s`` (+1 X, -1 O) moving on cell ``c`` adds
``s * weights[c]``. The canonical code of a board is the smallest code among its images under
``variant.symmetries``; the database keys its rows by it, and :mod:`ttt_solver.game.symmetry`
uses the same order, so there is one canonical form everywhere.

This module is the only place that defines codes. The scalar functions at the top are pure
Python (the command line's lookups use them without importing numpy); the vectorised rules
below (terminal, legal, children, canonical codes of whole arrays) import numpy when first
called. Values are +1 win, 0 draw, -1 loss for the side to move.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, cast

from .variant import Permutation, Variant

if TYPE_CHECKING:
    import numpy as np

O_DIGIT, EMPTY_DIGIT, X_DIGIT = 0, 1, 2
_TO_DIGITS = str.maketrans("O.X", "012")
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
    code: int = int(text.translate(_TO_DIGITS), 3)
    return code


def decode(code: int, cells: int) -> str:
    """A code -> normalised text of ``cells`` cells."""
    chunks = _chunks()
    texts = []
    for _ in range(-(-cells // _CHUNK_DIGITS)):
        code, chunk = divmod(code, _CHUNK)
        texts.append(chunks[chunk])
    return "".join(reversed(texts))[-cells:]


_CHUNK_DIGITS = 5
_CHUNK = 3**_CHUNK_DIGITS


@cache
def _chunks() -> tuple[str, ...]:
    """The text of every group of five digits (decoding five at a time: lookups decode hundreds)."""
    found = []
    for chunk in range(_CHUNK):
        digits = []
        for _ in range(_CHUNK_DIGITS):
            chunk, digit = divmod(chunk, 3)
            digits.append("O.X"[digit])
        found.append("".join(reversed(digits)))
    return tuple(found)


@cache
def _getters(variant: Variant) -> tuple[tuple[Permutation, ...], tuple[object, ...]]:
    from operator import itemgetter

    return variant.symmetries, tuple(itemgetter(*perm) for perm in variant.symmetries)


def canonical(text: str, variant: Variant) -> tuple[int, Permutation]:
    """The canonical code of a normalised board and the symmetry that takes the board there
    (``canonical_board[i] == board[perm[i]]``)."""
    perms, getters = _getters(variant)
    digits = text.translate(_TO_DIGITS)
    join = "".join
    images = [join(get(digits)) for get in getters]  # type: ignore[operator]
    best = min(range(len(images)), key=images.__getitem__)
    return int(images[best], 3), perms[best]


def canonical_code(text: str, variant: Variant) -> int:
    """The canonical code of a normalised board."""
    _perms, getters = _getters(variant)
    digits = text.translate(_TO_DIGITS)
    join = "".join
    return int(min([join(get(digits)) for get in getters]), 3)  # type: ignore[operator]


def canonical_children(text: str, mark: str, variant: Variant) -> tuple[tuple[int, int], ...]:
    """``(cell, canonical code)`` of the board after ``mark`` (``X`` or ``O``) is put on each
    empty cell of a normalised board, ascending by cell (what a proof of one position needs).
    Each child's images are the board's images with one digit changed: one addition each."""
    _perms, getters = _getters(variant)
    digits = text.translate(_TO_DIGITS)
    join = "".join
    images = [int(join(get(digits)), 3) for get in getters]  # type: ignore[operator]
    step = 1 if mark == "X" else -1  # the empty digit 1 becomes X's 2 or O's 0
    landing = _landing(variant)
    return tuple(
        (cell, min([image + step * weights[cell] for image, weights in zip(images, landing)]))
        for cell in range(len(digits))
        if digits[cell] == "1"
    )


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
    return min(join(get(text.translate(_TO_DIGITS))) for get in getters).translate(_FROM_DIGITS)  # type: ignore[operator]


# -- vectorised, numpy ----------------------------------------------------------------------
class Geometry:
    """Tables over the two halves of a code, so that a rule over millions of codes is a few
    gathers per code: the high half is the first ``n - n // 2`` cells (``code // base``), the
    low half the last ``n // 2`` (``code % base``). Every table has ``3**(cells in the half)``
    rows (59,049 for a half of 10 cells), never one row per code.

    (A plain class: the command line imports this module, and a dataclass costs start-up time.)
    """

    def __init__(
        self,
        variant: Variant,
        weights: np.ndarray,
        digits: tuple[np.ndarray, np.ndarray],
        images: tuple[np.ndarray, np.ndarray],
        x_lines: tuple[np.ndarray, np.ndarray],
        o_lines: tuple[np.ndarray, np.ndarray],
        line_cells: np.ndarray,
    ) -> None:
        import numpy as np

        self.variant = variant
        self.n = variant.cells
        self.low_cells = variant.cells // 2
        self.high_cells = variant.cells - self.low_cells
        self.base = 3**self.low_cells  # code = high * base + low
        self.weights = weights  # (n,) int64: 3**(n - 1 - cell)
        self.digits = digits  # (3**m, m) uint8 digits of a half
        self.images = images  # (symmetries, 3**m) int64: a half's share of each image's code
        # The same shares split into the image's halves (digits never carry, so the two add
        # up): (high -> image's high half, high -> its low half, low -> high, low -> low).
        self.image_halves = [np.divmod(share, np.int64(self.base)) for share in images]
        self.x_lines = x_lines  # (3**m,) uint64: bit l if X fills the half's part of line l
        self.o_lines = o_lines  # the same for O
        self.line_cells = line_cells  # (L,) int64: the cells of each line as a bit mask


def _digit_table(m: int) -> np.ndarray:
    import numpy as np

    codes = np.arange(3**m, dtype=np.int64)
    return np.stack([codes // 3 ** (m - 1 - i) % 3 for i in range(m)], axis=1).astype(np.uint8).reshape(3**m, m)


def _line_table(digits: np.ndarray, cells: range, variant: Variant, mark: int) -> np.ndarray:
    import numpy as np

    masks = np.zeros(len(digits), dtype=np.uint64)
    for number, line in enumerate(variant.lines):
        inside = [cell - cells.start for cell in line if cell in cells]
        masks[np.all(digits[:, inside] == mark, axis=1)] |= np.uint64(1 << number)
    return masks


@cache
def geometry(variant: Variant) -> Geometry:
    """The variant's code tables, built once per process."""
    import numpy as np

    n = variant.cells
    low = n // 2
    halves = (range(n - low), range(n - low, n))
    weights = 3 ** np.arange(n - 1, -1, -1, dtype=np.int64)
    # image[i] = board[perm[i]]: board cell j lands at i = perm.index(j)
    moved = np.array([[weights[perm.index(j)] for j in range(n)] for perm in variant.symmetries], dtype=np.int64)
    digits = tuple(_digit_table(len(half)) for half in halves)
    images = tuple(np.ascontiguousarray(moved[:, half] @ d.T.astype(np.int64)) for half, d in zip(halves, digits))
    x_lines = tuple(_line_table(d, half, variant, X_DIGIT) for half, d in zip(halves, digits))
    o_lines = tuple(_line_table(d, half, variant, O_DIGIT) for half, d in zip(halves, digits))
    line_cells = np.array([sum(1 << cell for cell in line) for line in variant.lines], dtype=np.int64)
    return Geometry(
        variant,
        weights,
        (digits[0], digits[1]),
        (images[0], images[1]),
        (x_lines[0], x_lines[1]),
        (o_lines[0], o_lines[1]),
        line_cells,
    )


def halves(codes: np.ndarray, variant: Variant) -> tuple[np.ndarray, np.ndarray]:
    """The high and low half of each code (int64)."""
    import numpy as np

    high, low = np.divmod(np.asarray(codes, dtype=np.int64), np.int64(geometry(variant).base))
    return high, low


def digits(codes: np.ndarray, variant: Variant) -> np.ndarray:
    """(N, cells) uint8 digits of each code: 0 O, 1 empty, 2 X."""
    import numpy as np

    g = geometry(variant)
    high, low = halves(codes, variant)
    return np.concatenate([g.digits[0][high], g.digits[1][low]], axis=1)


def codes_of_arrays(boards: np.ndarray, variant: Variant) -> np.ndarray:
    """(N, cells) arrays of +1/-1/0 -> int64 codes (values not checked)."""
    import numpy as np

    g = geometry(variant)
    return cast("np.ndarray", np.asarray(boards, dtype=np.int64) @ g.weights + offset(g.n))


def encode_texts(texts: list[str], variant: Variant) -> np.ndarray:
    """Normalised text boards -> int64 codes."""
    import numpy as np

    if not texts:
        return np.zeros(0, dtype=np.int64)
    joined = "".join(texts).translate(_TO_DIGITS).encode("ascii")
    return digit_rows_to_codes(np.frombuffer(joined, dtype=np.uint8).reshape(len(texts), -1) - ord("0"), variant)


def digit_rows_to_codes(rows: np.ndarray, variant: Variant) -> np.ndarray:
    """(N, cells) digits -> int64 codes (Horner's rule: faster than an int64 matmul)."""
    import numpy as np

    codes = np.zeros(len(rows), dtype=np.int64)
    for column in np.asarray(rows).T:
        codes *= 3
        codes += column
    return codes


def decode_texts(codes: np.ndarray, variant: Variant) -> list[str]:
    """int64 codes -> normalised text boards."""
    import numpy as np

    n = variant.cells
    chars = np.frombuffer(b"O.X", dtype=np.uint8)[digits(codes, variant)]
    joined = np.ascontiguousarray(chars).tobytes().decode("ascii")
    return [joined[i : i + n] for i in range(0, len(joined), n)]


def image_codes(codes: np.ndarray, variant: Variant) -> np.ndarray:
    """(symmetries, N) int64: the code of each image of each board."""
    g = geometry(variant)
    high, low = halves(codes, variant)
    return cast("np.ndarray", g.images[0][:, high] + g.images[1][:, low])


def canonical_halves(high: np.ndarray, low: np.ndarray, variant: Variant) -> np.ndarray:
    """The canonical code (smallest image) of each board given by its halves."""
    import numpy as np

    g = geometry(variant)
    best = np.take(g.images[0][0], high)
    best += np.take(g.images[1][0], low)
    image = np.empty_like(best)
    other = np.empty_like(best)
    for s in range(1, len(g.images[0])):
        np.take(g.images[0][s], high, out=image)
        np.take(g.images[1][s], low, out=other)
        image += other
        np.minimum(best, image, out=best)
    return best


def canonical_codes(codes: np.ndarray, variant: Variant) -> np.ndarray:
    """The canonical code (smallest image) of each code."""
    return canonical_halves(*halves(codes, variant), variant)


def orbits(codes: np.ndarray, variant: Variant) -> np.ndarray:
    """int8: how many distinct boards the symmetries make of each code."""
    import numpy as np

    out = np.empty(len(codes), dtype=np.int8)
    for start in range(0, len(codes), 1 << 17):  # a block at a time: the images take 8 codes each
        images = np.sort(image_codes(codes[start : start + (1 << 17)], variant), axis=0)
        out[start : start + (1 << 17)] = 1 + np.count_nonzero(np.diff(images, axis=0), axis=0)
    return out


def line_bits(codes: np.ndarray, variant: Variant) -> tuple[np.ndarray, np.ndarray]:
    """uint64 per code for X and for O: bit l if that player fills line l."""
    g = geometry(variant)
    high, low = halves(codes, variant)
    return g.x_lines[0][high] & g.x_lines[1][low], g.o_lines[0][high] & g.o_lines[1][low]


def terminal_values(codes: np.ndarray, variant: Variant) -> np.ndarray:
    """int8 per legal code: the value of a finished game for the side to move (-1 when the
    last mover made k in a row, +1 in misère, 0 on a full board), :data:`PLAYING` otherwise."""

    x_bits, o_bits = line_bits(codes, variant)
    full = (digits(codes, variant) != EMPTY_DIGIT).all(axis=1)
    return _terminal(x_bits, o_bits, full, variant)


def _terminal(x_bits: np.ndarray, o_bits: np.ndarray, full: np.ndarray | bool, variant: Variant) -> np.ndarray:
    import numpy as np

    lined = np.int8(1 if variant.misere else -1)
    finished_by_line = (x_bits | o_bits) != 0
    return np.where(finished_by_line, lined, np.where(full, np.int8(0), np.int8(PLAYING))).astype(np.int8)


def legal(codes: np.ndarray, variant: Variant) -> np.ndarray:
    """bool per code: the board can arise in a real game (the rules of
    :func:`ttt_solver.game.board.legality_error`, vectorised)."""

    d = digits(codes, variant)
    xs = (d == X_DIGIT).sum(axis=1)
    os = (d == O_DIGIT).sum(axis=1)
    found: np.ndarray = ((xs - os == 0) | (xs - os == 1)) & lines_legal(*line_bits(codes, variant), xs > os, variant)
    return found


def lines_legal(
    x_bits: np.ndarray, o_bits: np.ndarray, x_moved_last: np.ndarray | bool, variant: Variant
) -> np.ndarray:
    """bool per board with legal piece counts: its completed lines can be there (only the last
    mover has any, and all of them pass through one cell, the last move)."""
    import numpy as np

    g = geometry(variant)
    x_owns, o_owns = x_bits != 0, o_bits != 0
    ok = ~(x_owns & o_owns) & ~(x_owns & ~np.asarray(x_moved_last)) & ~(o_owns & np.asarray(x_moved_last))
    lined = np.flatnonzero(ok & (x_owns | o_owns))
    if len(lined):
        owner_bits = np.where(x_owns[lined], x_bits[lined], o_bits[lined])
        shared = np.full(len(lined), (1 << g.n) - 1, dtype=np.int64)  # cells common to the owner's lines
        for number in range(len(variant.lines)):
            on = (owner_bits >> np.uint64(number)) & np.uint64(1) != 0
            shared = np.where(on, shared & g.line_cells[number], shared)
        ok[lined[shared == 0]] = False  # two separate lines: a move after the game ended
    return cast("np.ndarray", ok)


def children(codes: np.ndarray, variant: Variant) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every move on every board: (board row, cell, canonical code of the result), ordered by
    row then cell. The side to move follows from the piece counts; the caller leaves out
    finished boards."""
    import numpy as np

    g = geometry(variant)
    codes = np.asarray(codes, dtype=np.int64)
    d = digits(codes, variant)
    side = np.where((d == X_DIGIT).sum(axis=1) > (d == O_DIGIT).sum(axis=1), -1, 1)
    rows, cells = np.nonzero(d == EMPTY_DIGIT)
    moved = codes[rows] + side[rows] * g.weights[cells]
    return rows, cells, canonical_codes(moved, variant)


def search(sorted_codes: np.ndarray, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each code sits in an ascending code array, and whether it is there at all."""
    import numpy as np

    index = np.searchsorted(sorted_codes, codes)
    found = index < len(sorted_codes)
    found[found] = sorted_codes[index[found]] == codes[found]
    return index, found
