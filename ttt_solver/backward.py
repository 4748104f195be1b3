"""Vectorised backward induction: every canonical legal position, solved layer by layer in numpy.

Encoding. A board of ``n = variant.cells`` cells is the base-3 integer

    code = sum(digit[i] * 3**(n - 1 - i))      with '.' = 0, 'O' = 1, 'X' = 2,

cell 0 being the most significant digit (int64; 3**16 = 43,046,721). Because ``'.' < 'O' < 'X'``
in ASCII, comparing codes compares the text forms, so the canonical form of a board (the
smallest of its images under ``variant.symmetries`` in string order, see
:mod:`ttt_solver.symmetry`) is simply the smallest image code.

Method. A code splits into a high part (the first ``n - n // 2`` cells) and a low part (the
last ``n // 2`` cells); small tables indexed by each part give the digits, the image codes
under every symmetry, and which lines are complete, so each of those costs two gathers per
board. Layer ``p`` holds the canonical legal positions with ``p`` pieces: it is generated
from layer ``p - 1`` by playing every move of every unfinished position and keeping the
distinct canonical children. Values are then backed up from the last layer to the first
with the same rule as :func:`ttt_solver.solver.combine`.

Values are +1 win, 0 draw, -1 loss for the side to move; remoteness counts plies to the
end under perfect play (see :mod:`ttt_solver.solver`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import cast

import numpy as np

from . import board as rules
from .errors import InvalidBoardError
from .variant import Variant

O_DIGIT, X_DIGIT = 1, 2
_CHARS = np.frombuffer(b".OX", dtype=np.uint8)
_DIGITS = np.full(256, 255, dtype=np.uint8)
_DIGITS[list(b".OX")] = [0, O_DIGIT, X_DIGIT]
_SPAN = 64  # score = (1 - value) * _SPAN + remoteness key; remoteness <= 16 < _SPAN // 2

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Tables:
    """Every canonical legal position of a variant with its solution, sorted by code."""

    variant: Variant
    codes: np.ndarray  # int64, ascending: every canonical legal position
    value: np.ndarray  # int8 for the side to move: +1 win, 0 draw, -1 loss
    remoteness: np.ndarray  # int8 plies to the end under perfect play
    orbit: np.ndarray  # int8 distinct boards the symmetries make of it (sums to the legal count)
    ply: np.ndarray  # int8 pieces on the board
    best: np.ndarray  # uint16 bit c set if the move on cell c keeps the value (canonical numbering)


@dataclass(frozen=True)
class _Geometry:
    """Lookup tables over the two halves of a code."""

    n: int
    base: int  # 3 ** (cells in the low half)
    pow3: np.ndarray  # (n,) int64: the weight of each cell
    digits: tuple[np.ndarray, np.ndarray]  # (high, low): (3**m, m) uint8 digits of a half
    images: tuple[np.ndarray, np.ndarray]  # (symmetries, 3**m) int32: a half's share of each image
    lines: tuple[np.ndarray, np.ndarray]  # (3**m,) uint64: bit l (X) / L + l (O) if the half fills line l


def _digit_table(m: int) -> np.ndarray:
    codes = np.arange(3**m, dtype=np.int64)
    return np.stack([codes // 3 ** (m - 1 - i) % 3 for i in range(m)], axis=1).astype(np.uint8)


def _line_table(digits: np.ndarray, cells: range, variant: Variant) -> np.ndarray:
    masks = np.zeros(len(digits), dtype=np.uint64)
    nlines = len(variant.lines)
    for number, line in enumerate(variant.lines):
        inside = [cell - cells.start for cell in line if cell in cells]
        for mark, bit in ((X_DIGIT, number), (O_DIGIT, nlines + number)):
            full = np.all(digits[:, inside] == mark, axis=1)
            masks[full] |= np.uint64(1 << bit)
    return masks


@cache
def _geometry(variant: Variant) -> _Geometry:
    n = variant.cells
    low = n // 2
    halves = (range(n - low), range(n - low, n))
    pow3 = 3 ** np.arange(n - 1, -1, -1, dtype=np.int64)
    # image[i] = board[perm[i]]: board cell j lands at i = perm.index(j)
    weights = np.array([[pow3[perm.index(j)] for j in range(n)] for perm in variant.symmetries])
    digits = tuple(_digit_table(len(half)) for half in halves)
    images = tuple((weights[:, half] @ d.T.astype(np.int64)).astype(np.int32) for half, d in zip(halves, digits))
    lines = tuple(_line_table(d, half, variant) for half, d in zip(halves, digits))
    return _Geometry(n, 3**low, pow3, (digits[0], digits[1]), (images[0], images[1]), (lines[0], lines[1]))


def encode(texts: Sequence[str]) -> np.ndarray:
    """Normalised text boards (all the same length) -> int64 codes."""
    if len(texts) == 0:
        return np.zeros(0, dtype=np.int64)
    n = len(texts[0])
    if (np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)) != n).any():
        raise InvalidBoardError("boards to encode must all have the same number of cells")
    return encode_joined("".join(texts), n)


def encode_joined(boards: str, n: int) -> np.ndarray:
    """Boards of ``n`` cells written one after another in one string -> int64 codes."""
    if n <= 0 or len(boards) % n:
        raise InvalidBoardError(f"boards to encode must be {n} cells each")
    digits = _DIGITS[np.frombuffer(boards.encode("ascii", "replace"), dtype=np.uint8)].reshape(-1, n)
    if (digits == 255).any():
        raise InvalidBoardError("boards to encode must be normalised text of X, O and .")
    codes = np.zeros(len(digits), dtype=np.int64)
    for column in digits.T:  # Horner's rule, cell 0 first: much faster than an int64 matmul
        codes *= 3
        codes += column
    return codes


def _digits(codes: np.ndarray, g: _Geometry) -> np.ndarray:
    high, low = np.divmod(codes, g.base)
    return np.concatenate([g.digits[0][high], g.digits[1][low]], axis=1)


def decode(codes: np.ndarray, variant: Variant) -> list[str]:
    """int64 codes -> normalised text boards."""
    g = _geometry(variant)
    chars = np.ascontiguousarray(_CHARS[_digits(np.asarray(codes, dtype=np.int64), g)])
    return chars.view(f"S{g.n}").ravel().astype(str).tolist()


# The casts below: numpy's stubs type arithmetic and fancy indexing on dtype[Any] arrays as Any.
def _has_line(codes: np.ndarray, g: _Geometry) -> np.ndarray:
    high, low = np.divmod(codes, g.base)
    return cast(np.ndarray, (g.lines[0][high] & g.lines[1][low]) != 0)


def _image_codes(codes: np.ndarray, g: _Geometry) -> np.ndarray:
    """(symmetries, len(codes)) int64: the code of each image of each board."""
    high, low = np.divmod(codes, g.base)
    return cast(np.ndarray, g.images[0][:, high] + g.images[1][:, low])


def canonical_codes(codes: np.ndarray, variant: Variant) -> np.ndarray:
    """The canonical code (smallest image) of each code."""
    g = _geometry(variant)
    high, low = np.divmod(np.asarray(codes, dtype=np.int64), g.base)
    best = g.images[0][0][high] + g.images[1][0][low]
    image = np.empty_like(best)
    for s in range(1, len(g.images[0])):
        np.take(g.images[0][s], high, out=image)
        image += g.images[1][s][low]
        np.minimum(best, image, out=best)
    return cast(np.ndarray, best.astype(np.int64))


def _unique_inverse(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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


def _orbits(codes: np.ndarray, g: _Geometry) -> np.ndarray:
    images = np.sort(_image_codes(codes, g), axis=0)
    return cast(np.ndarray, (1 + np.count_nonzero(np.diff(images, axis=0), axis=0)).astype(np.int8))


@dataclass(frozen=True)
class _Layer:
    codes: np.ndarray  # canonical positions with `ply` pieces, ascending
    line: np.ndarray  # bool: the previous player made k in a row
    live: np.ndarray  # bool: play goes on
    starts: np.ndarray  # offset of each live position's first move in `child`
    cells: np.ndarray  # uint8: the cell of each move, ascending within a position
    child: np.ndarray  # int32: index in the next layer of each move's canonical result


def _expand(codes: np.ndarray, ply: int, g: _Geometry, variant: Variant) -> tuple[_Layer, np.ndarray]:
    """Classify one layer and generate the next one (returned as sorted canonical codes)."""
    line = _has_line(codes, g)
    live = ~line if ply < g.n else np.zeros(len(codes), dtype=bool)
    empty = _digits(codes[live], g) == 0
    rows, cells = np.nonzero(empty)  # row-major: the moves of each position are contiguous
    mover = X_DIGIT if ply % 2 == 0 else O_DIGIT
    children = canonical_codes(codes[live][rows] + mover * g.pow3[cells], variant)
    nxt, child = _unique_inverse(children)
    counts = empty.sum(axis=1)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    return _Layer(codes, line, live, starts, cells.astype(np.uint8), child), nxt


def _back_up(
    layer: _Layer, value: np.ndarray, remoteness: np.ndarray, misere: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One layer's (value, remoteness, best-move mask) from the next layer's."""
    n = len(layer.codes)
    out_value = np.where(layer.line, np.int8(1 if misere else -1), np.int8(0)).astype(np.int8)
    out_rem = np.zeros(n, dtype=np.int8)
    out_best = np.zeros(n, dtype=np.uint16)
    if layer.child.size:
        move_value = -value[layer.child].astype(np.int16)
        move_rem = remoteness[layer.child].astype(np.int16) + 1
        key = np.where(move_value > 0, move_rem, _SPAN // 2 - move_rem)
        best = np.minimum.reduceat((1 - move_value) * _SPAN + key, layer.starts)
        best_value = 1 - best // _SPAN
        out_value[layer.live] = best_value
        out_rem[layer.live] = np.where(best_value > 0, best % _SPAN, _SPAN // 2 - best % _SPAN)
        # The moves keeping the value, as one bit per cell: every live position has a move,
        # so reduceat's segments are never empty.
        counts = np.diff(np.append(layer.starts, layer.child.size))
        keeps = move_value == np.repeat(best_value, counts)
        bits = np.where(keeps, np.left_shift(np.uint16(1), layer.cells, dtype=np.uint16), np.uint16(0))
        out_best[layer.live] = np.bitwise_or.reduceat(bits, layer.starts)
    return out_value, out_rem, out_best


def solve_tables(variant: Variant, progress: Progress | None = None) -> Tables:
    """Solve every legal position of ``variant`` (canonical forms only)."""
    g = _geometry(variant)
    layers: list[_Layer] = []
    codes = np.zeros(1, dtype=np.int64)
    for ply in range(g.n + 1):
        layer, codes = _expand(codes, ply, g, variant)
        layers.append(layer)
        if progress:
            progress(f"{variant}: ply {ply}: {len(layer.codes):,} positions")
        if not len(codes):
            break
    value = remoteness = np.zeros(0, dtype=np.int8)
    solved: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    for layer in reversed(layers):
        value, remoteness, best = _back_up(layer, value, remoteness, variant.misere)
        solved.append((value, remoteness, best))
    solved.reverse()
    if progress:
        progress(f"{variant}: backed up {len(layers)} layers")
    return _assemble(variant, layers, solved, g)


def _assemble(
    variant: Variant, layers: list[_Layer], solved: list[tuple[np.ndarray, np.ndarray, np.ndarray]], g: _Geometry
) -> Tables:
    """All layers in one table sorted by code."""
    codes = np.concatenate([layer.codes for layer in layers])
    order = np.argsort(codes, kind="stable")
    plies = np.concatenate([np.full(len(layer.codes), p, np.int8) for p, layer in enumerate(layers)])
    orbit = np.concatenate([_orbits(layer.codes, g) for layer in layers])
    value, remoteness, best = (np.concatenate(columns) for columns in zip(*solved))
    return Tables(variant, codes[order], value[order], remoteness[order], orbit[order], plies[order], best[order])


def search(sorted_codes: np.ndarray, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each code sits in an ascending code array, and whether it is there at all."""
    index = np.searchsorted(sorted_codes, codes)
    found = index < len(sorted_codes)
    found[found] = sorted_codes[index[found]] == codes[found]
    return index, found


def find(tables: Tables, codes: np.ndarray) -> np.ndarray:
    """Row indices in ``tables`` of canonical codes; InvalidBoardError if any is missing."""
    codes = np.asarray(codes, dtype=np.int64)
    index, found = search(tables.codes, codes)
    if not found.all():
        raise InvalidBoardError(f"not a legal {tables.variant} position: code {codes[~found][0]}")
    return index


def children(codes: np.ndarray, variant: Variant) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every move on every board: (board row, cell, canonical code of the result), ordered
    by row then cell. The side to move follows from the piece counts; the caller leaves out
    finished boards."""
    g = _geometry(variant)
    digits = _digits(np.asarray(codes, dtype=np.int64), g)
    mover = np.where((digits != 0).sum(axis=1) % 2 == 0, X_DIGIT, O_DIGIT)
    rows, cells = np.nonzero(digits == 0)
    result = canonical_codes(codes[rows] + mover[rows] * g.pow3[cells], variant)
    return rows, cells, result


def move_table(tables: Tables) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every move of every unfinished position, ordered by position then cell: (row index of
    the position, cell in its own numbering, value for the mover, remoteness)."""
    live = np.flatnonzero(tables.remoteness > 0)
    rows, cells, result = children(tables.codes[live], tables.variant)
    index = find(tables, result)
    value = -tables.value[index]
    remoteness = tables.remoteness[index] + 1
    return live[rows], cells.astype(np.int8), value.astype(np.int8), remoteness.astype(np.int8)


def move_results(tables: Tables, text: str) -> list[tuple[int, int, int]]:
    """(cell, value for the mover, remoteness) of each move, ascending by cell, in the
    board's own numbering; empty when the game is over."""
    variant = tables.variant
    board = rules.parse(text, variant)
    if rules.terminal_value(board, variant) is not None:
        return []
    _rows, cells, result = children(encode([board]), variant)
    index = find(tables, result)
    return [(int(cell), -int(tables.value[i]), int(tables.remoteness[i]) + 1) for cell, i in zip(cells, index)]
