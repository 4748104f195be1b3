"""Rows held in memory (solved tables, or the recursive solver's solutions) as an oracle's source."""

from __future__ import annotations

from collections.abc import Collection

from ..store.arrays import Arrays
from ..store.content import Row


class ArrayRows:
    """Rows held in memory: from solved tables, or from the recursive solver."""

    def __init__(self, arrays: Arrays, location: str = "<memory>") -> None:
        self.variant = arrays.variant
        self.location = location
        self._arrays = arrays

    def fetch(self, codes: Collection[int]) -> dict[int, Row]:
        return self._arrays.fetch(codes)

    def arrays(self) -> Arrays:
        return self._arrays

    def rebuild_hint(self) -> str:
        return "solve the variant again"

    def close(self) -> None:
        pass
