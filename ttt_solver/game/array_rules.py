"""The rules over whole numpy arrays of codes: terminal values, legality, children, canonical
codes and orbits, for millions of boards at once (the builder, the audit, the batch lookups and
the environments). The codes are :mod:`.codec`'s, and so is every scalar rule; this module is
their vectorised twin, checked against them position by position in the tests.

Values are +1 win, 0 draw, -1 loss for the side to move.
"""

from __future__ import annotations

from functools import cache
from typing import cast

import numpy as np

from .codec import EMPTY_DIGIT, O_DIGIT, PLAYING, TO_DIGITS, X_DIGIT, offset
from .variant import Variant


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

    codes = np.arange(3**m, dtype=np.int64)
    return np.stack([codes // 3 ** (m - 1 - i) % 3 for i in range(m)], axis=1).astype(np.uint8).reshape(3**m, m)


def _line_table(digits: np.ndarray, cells: range, variant: Variant, mark: int) -> np.ndarray:

    masks = np.zeros(len(digits), dtype=np.uint64)
    for number, line in enumerate(variant.lines):
        inside = [cell - cells.start for cell in line if cell in cells]
        masks[np.all(digits[:, inside] == mark, axis=1)] |= np.uint64(1 << number)
    return masks


@cache
def geometry(variant: Variant) -> Geometry:
    """The variant's code tables, built once per process."""

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

    high, low = np.divmod(np.asarray(codes, dtype=np.int64), np.int64(geometry(variant).base))
    return high, low


def digits(codes: np.ndarray, variant: Variant) -> np.ndarray:
    """(N, cells) uint8 digits of each code: 0 O, 1 empty, 2 X."""

    g = geometry(variant)
    high, low = halves(codes, variant)
    return np.concatenate([g.digits[0][high], g.digits[1][low]], axis=1)


def codes_of_arrays(boards: np.ndarray, variant: Variant) -> np.ndarray:
    """(N, cells) arrays of +1/-1/0 -> int64 codes (values not checked)."""

    g = geometry(variant)
    return cast("np.ndarray", np.asarray(boards, dtype=np.int64) @ g.weights + offset(g.n))


def encode_texts(texts: list[str], variant: Variant) -> np.ndarray:
    """Normalised text boards -> int64 codes."""

    if not texts:
        return np.zeros(0, dtype=np.int64)
    joined = "".join(texts).translate(TO_DIGITS).encode("ascii")
    return digit_rows_to_codes(np.frombuffer(joined, dtype=np.uint8).reshape(len(texts), -1) - ord("0"), variant)


def digit_rows_to_codes(rows: np.ndarray, variant: Variant) -> np.ndarray:
    """(N, cells) digits -> int64 codes (Horner's rule: faster than an int64 matmul)."""

    codes = np.zeros(len(rows), dtype=np.int64)
    for column in np.asarray(rows).T:
        codes *= 3
        codes += column
    return codes


def decode_texts(codes: np.ndarray, variant: Variant) -> list[str]:
    """int64 codes -> normalised text boards."""

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
    return terminal_of_lines(x_bits, o_bits, full, variant)


def terminal_of_lines(x_bits: np.ndarray, o_bits: np.ndarray, full: np.ndarray | bool, variant: Variant) -> np.ndarray:

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

    g = geometry(variant)
    codes = np.asarray(codes, dtype=np.int64)
    d = digits(codes, variant)
    side = np.where((d == X_DIGIT).sum(axis=1) > (d == O_DIGIT).sum(axis=1), -1, 1)
    rows, cells = np.nonzero(d == EMPTY_DIGIT)
    moved = codes[rows] + side[rows] * g.weights[cells]
    return rows, cells, canonical_codes(moved, variant)


def search(sorted_codes: np.ndarray, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each code sits in an ascending code array, and whether it is there at all."""

    index = np.searchsorted(sorted_codes, codes)
    found = index < len(sorted_codes)
    found[found] = sorted_codes[index[found]] == codes[found]
    return index, found
