"""Board geometry as data: rows, columns, k in a row, normal or misère.

Everything that depends on the shape of the board (its cells, its winning lines, its
symmetries) is derived here from a :class:`Variant`, so the rest of the code never bakes in
3x3. Variant names: ``RxC`` with optional ``kK`` and ``-misere`` (``-misère`` is read too), e.g.
``3x3``, ``4x4k3``, ``3x3-misere``; k defaults to ``max(R, C)`` and is written out only when it differs.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cached_property
from math import comb
from operator import itemgetter

from ..errors import InvalidVariantError, shown
from .suggest import did_you_mean

Cell = int
Line = tuple[Cell, ...]
Permutation = tuple[Cell, ...]


# Cells of a line read from a board's text at once (k is at least 3: a read is always a tuple),
# and what they read as when X, and when O, holds them all (see :attr:`Variant.line_reads`): a
# plain tuple, unpacked where it is read; a NamedTuple's class would cost every lookup's import
# some 0.4% of importing click.
LineRead = tuple[Callable[[str], tuple[str, ...]], tuple[str, ...], tuple[str, ...]]


MAX_CELLS = 25
# Variants with a name people use (shell completion, Gymnasium ids); any RxC[kK][-misere] works.
NAMED_VARIANTS = ("3x3", "3x3-misere", "3x4k3", "4x3k3", "3x4k3-misere", "4x4", "4x4k3", "4x4-misere")

# "misère" as French and the README's prose spell it, composed or as e + a combining grave accent.
_NAME = re.compile("([0-9]+)x([0-9]+)(?:k([0-9]+))?(-mis(?:e|\u00e8|e\u0300)re)?")


class Variant:
    """An m x n board, k in a row wins (or, misère, loses). Immutable and hashable.

    (A plain class rather than a dataclass: the command line imports it on every lookup, and
    building a dataclass costs start-up time.)
    """

    rows: int
    cols: int
    k: int
    misere: bool

    def __init__(self, rows: int = 3, cols: int = 3, k: int = 3, misere: bool = False) -> None:
        for what, value in (("rows", rows), ("cols", cols), ("k", k)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidVariantError(f"invalid variant: {what} must be an integer, got {shown(value)}")
        if not isinstance(misere, bool):
            raise InvalidVariantError(f"invalid variant: misere must be True or False, got {shown(misere)}")
        fields = self.__dict__
        fields["rows"], fields["cols"], fields["k"], fields["misere"] = rows, cols, k, misere
        wrong = _wrong_part(rows, cols, k)
        if wrong:
            raise InvalidVariantError(f"invalid variant {shown(self.name)}: {wrong}")
        # Hashed once: a variant is part of the key of every memo of the rules (a sampled game
        # hashes it at each move).
        fields["_hash"] = hash(self._key())

    @classmethod
    def parse(cls, name: str) -> Variant:
        """Parse ``3x3``, ``4x4``, ``4x4k3``, ``3x3-misere`` (or ``3x3-misère``), ...; any case;
        raise InvalidVariantError. The name it gives back is ASCII (``3x3-misere``)."""
        if not isinstance(name, str):
            raise InvalidVariantError(f"invalid variant {shown(name)}: expected text such as 4x4k3")
        typed = name.strip().lower()
        match = _NAME.fullmatch(typed)
        if match is None:
            hint = did_you_mean(typed, _names_like(typed))
            raise InvalidVariantError(
                f"invalid variant {shown(name)}: expected RxC with optional kK and -misere, e.g. 4x4k3"
                + (f"; {hint}" if hint else "")
            )
        rows, cols = _number(match[1]), _number(match[2])
        k = _number(match[3]) if match[3] else max(rows, cols)
        wrong = _wrong_part(rows, cols, k, (match[1], match[2], match[3] or str(k)))
        if wrong:
            raise InvalidVariantError(f"invalid variant {shown(name)}: {wrong}")
        return cls(rows, cols, k, bool(match[4]))

    @property
    def name(self) -> str:
        k = "" if self.k == max(self.rows, self.cols) else f"k{self.k}"
        return f"{self.rows}x{self.cols}{k}{'-misere' if self.misere else ''}"

    def __str__(self) -> str:
        return self.name

    def _key(self) -> tuple[int, int, int, bool]:
        return (self.rows, self.cols, self.k, self.misere)

    def __eq__(self, other: object) -> bool:
        return other.__class__ is Variant and self._key() == other._key()

    def __hash__(self) -> int:
        hashed: int = self.__dict__["_hash"]
        return hashed

    def __repr__(self) -> str:
        return f"Variant(rows={self.rows}, cols={self.cols}, k={self.k}, misere={self.misere})"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Variant is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Variant is immutable: cannot delete {name!r}")

    @property
    def cells(self) -> int:
        return self.rows * self.cols

    @cached_property
    def lines(self) -> tuple[Line, ...]:
        """Every run of k cells in a row, column or diagonal."""
        r, c, k = self.rows, self.cols, self.k
        found = []
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            for row in range(r):
                for col in range(c):
                    end_r, end_c = row + dr * (k - 1), col + dc * (k - 1)
                    if 0 <= end_r < r and 0 <= end_c < c:
                        found.append(tuple((row + dr * i) * c + col + dc * i for i in range(k)))
        return tuple(found)

    @cached_property
    def lines_through(self) -> tuple[tuple[Line, ...], ...]:
        """For each cell, the lines that contain it (a move can only complete these)."""
        return tuple(tuple(line for line in self.lines if cell in line) for cell in range(self.cells))

    @cached_property
    def line_reads(self) -> tuple[LineRead, ...]:
        """For each line, what reads its marks from a board's text at once (an
        ``operator.itemgetter`` of its cells), and what that read gives when X, and when O,
        holds the whole line: the pure-Python rules' fast test of a completed line."""
        return tuple(_line_read(line, self.cells) for line in self.lines)

    @cached_property
    def reads_through(self) -> tuple[tuple[LineRead, ...], ...]:
        """For each cell, a :attr:`line_reads` entry for each line through it, reading the
        line's other cells: the cell completes the line for a player who holds them all."""
        return tuple(
            tuple(_line_read(tuple(other for other in line if other != cell), self.cells) for line in lines)
            for cell, lines in enumerate(self.lines_through)
        )

    @cached_property
    def symmetries(self) -> tuple[Permutation, ...]:
        """The symmetries of the board as permutations: ``image[i] = board[perm[i]]``.

        The 8 of the square for square boards, the 4 of the rectangle otherwise; the
        identity comes first.
        """
        r, c = self.rows, self.cols

        # f maps an image (row, col) to its source (row, col)
        def perm(f: Callable[[int, int], tuple[int, int]]) -> Permutation:
            return tuple(f(i // c, i % c)[0] * c + f(i // c, i % c)[1] for i in range(r * c))

        maps = [
            lambda y, x: (y, x),
            lambda y, x: (y, c - 1 - x),
            lambda y, x: (r - 1 - y, x),
            lambda y, x: (r - 1 - y, c - 1 - x),
        ]
        if r == c:
            maps += [
                lambda y, x: (x, y),
                lambda y, x: (c - 1 - x, y),
                lambda y, x: (x, r - 1 - y),
                lambda y, x: (c - 1 - x, r - 1 - y),
            ]
        return tuple(perm(f) for f in maps)


def _line_read(cells: tuple[Cell, ...], size: int) -> LineRead:
    marks = itemgetter(*cells)
    return marks, marks("X" * size), marks("O" * size)


def _number(digits: str) -> int:
    """The number ASCII ``digits`` write, or 1000 for one of more than 3 digits (besides leading
    zeros): out of every range, and int() of thousands of digits is refused."""
    significant = digits.lstrip("0")
    return int(digits) if len(significant) <= 3 else 1000


def _names_like(typed: str) -> list[str]:
    """Variant names a mistyped one may have meant: those its first three numbers make
    (``3x3misere`` -> ``3x3-misere``), else the named variants (``33x`` -> ``3x3``)."""
    numbers = [_number(digits) for digits in re.findall("[0-9]+", typed)[:3]]
    shapes = [(numbers[0], numbers[1], max(numbers[:2]))] if len(numbers) >= 2 else []
    shapes += [(numbers[0], numbers[1], numbers[2])] if len(numbers) == 3 else []
    made = [
        f"{rows}x{cols}{'' if k == max(rows, cols) else f'k{k}'}{ending}"
        for rows, cols, k in shapes
        if not _wrong_part(rows, cols, k)
        for ending in ("", "-misere")
    ]
    return made or list(NAMED_VARIANTS)


def _wrong_part(rows: int, cols: int, k: int, typed: tuple[str, str, str] | None = None) -> str:
    """What is wrong with a board of ``rows`` x ``cols``, ``k`` in a row, naming the part (rows,
    columns, cells or k); "" if nothing. ``typed``: the three numbers as the user wrote them,
    for the message (a number too long to read is said as it was given)."""
    said = dict(zip(("rows", "columns", "k"), typed or (str(rows), str(cols), str(k))))
    for what, value in (("rows", rows), ("columns", cols)):
        if not 1 <= value <= MAX_CELLS:
            return f"{what} must be from 1 to {MAX_CELLS}, not {_said(said[what])}"
    if rows * cols > MAX_CELLS:
        return f"a {rows}x{cols} board has {rows * cols} cells; the most is {MAX_CELLS}"
    if 3 <= k <= max(rows, cols):
        return ""
    side, board = max(rows, cols), f"{rows}x{cols}"
    if side < 3:
        return f"a {board} board is too small: k (how many in a row) is at least 3, so a side needs 3 cells or more"
    allowed = "3" if side == 3 else "3 or 4" if side == 4 else f"from 3 to {side}"
    return f"on a {board} board k must be {allowed}, not {_said(said['k'])} (k runs from 3 to the longer side)"


def _said(digits: str) -> str:
    """A number as a message repeats it: as typed, the middle of a very long one left out."""
    return digits if len(digits) <= 24 else f"{digits[:10]}...{digits[-10:]} ({len(digits):,} digits)"


STANDARD = Variant()


def as_variant(value: Variant | str) -> Variant:
    """``value`` if it is a :class:`Variant`, else the variant a name such as ``"4x4k3"`` names;
    InvalidVariantError for anything else. What every function taking a ``variant`` accepts."""
    return value if isinstance(value, Variant) else Variant.parse(value)


def position_bound(empty: int, plies: int | None = None) -> int:
    """How many boards of ``empty`` cells have legal piece counts (X as many as O or one more):
    a bound on the positions reachable from a board with ``empty`` empty cells (within
    ``plies`` moves of it, if given: what a search of that depth can visit)."""

    last = empty if plies is None else min(plies, empty)
    return sum(comb(empty, ply) * comb(ply, ply // 2) for ply in range(last + 1))
