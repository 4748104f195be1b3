"""The symmetries of the board and the canonical form of a position.

A symmetry is a permutation ``perm`` with ``image[i] = board[perm[i]]`` (see
:attr:`Variant.symmetries`). The canonical form of a board is the image with the smallest
code (:mod:`ttt_solver.game.codec`, which defines it); :func:`canonical` also returns which
symmetry produced it, so that a cell of the canonical board maps back to the real board with
``perm[cell]`` and a real cell maps onto the canonical board with ``inverse[cell]``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from operator import itemgetter
from typing import TYPE_CHECKING

from . import codec
from .variant import STANDARD, Permutation, Variant

if TYPE_CHECKING:
    from typing import Any


def apply(perm: Permutation, text: str) -> str:
    """The image of ``text`` under ``perm``."""
    return "".join(itemgetter(*perm)(text))


def inverse(perm: Permutation) -> Permutation:
    inv = [0] * len(perm)
    for i, source in enumerate(perm):
        inv[source] = i
    return tuple(inv)


@cache
def _getters(variant: Variant) -> tuple[itemgetter[Any], ...]:
    return tuple(itemgetter(*perm) for perm in variant.symmetries)


def images(text: str, variant: Variant = STANDARD) -> list[str]:
    """The images of a board under every symmetry, in the order of ``variant.symmetries``."""
    join = "".join
    return [join(get(text)) for get in _getters(variant)]


@dataclass(frozen=True)
class Canonical:
    """A board's canonical form and the symmetry that takes the board there."""

    text: str
    perm: Permutation  # canonical[i] == board[perm[i]]
    code: int  # the canonical code (the database key)

    def to_real(self, cell: int) -> int:
        """A cell of the canonical board -> the same cell on the real board."""
        return self.perm[cell]

    def to_canonical(self, cell: int) -> int:
        """A cell of the real board -> the same cell on the canonical board."""
        return self.perm.index(cell)

    def real_board(self) -> str:
        """The real board, recovered from the canonical one."""
        return apply(inverse(self.perm), self.text)


def canonical(text: str, variant: Variant = STANDARD) -> Canonical:
    """The canonical form of a normalised board, with the transform to map cells back."""
    code, perm = codec.canonical(text, variant)
    return Canonical(apply(perm, text), perm, code)


def canonical_text(text: str, variant: Variant = STANDARD) -> str:
    return codec.canonical_text(text, variant)


def orbit_size(text: str, variant: Variant = STANDARD) -> int:
    """How many distinct boards the symmetries make of ``text``."""
    return len(set(images(text, variant)))
