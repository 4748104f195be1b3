"""Where an oracle's rows come from: one small interface, three sources.

A source answers ``fetch(codes)`` with the rows of those canonical codes (as :class:`Row`)
and ``arrays()`` with every row as compact numpy arrays (:class:`Arrays`). A database is one
source (:class:`DatabaseRows`: indexed queries per lookup, the packed arrays for an in-memory
load, the digest checked on that load); solved tables or the recursive solver's solutions
are another (:class:`ArrayRows`). The oracle does not know which it has.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, Protocol

from ..errors import DatabaseError
from ..variant import Variant

if TYPE_CHECKING:
    import numpy as np

    from ..solve import Tables
    from ..store.reader import Reader


class Row(NamedTuple):
    """What a lookup needs of one canonical position (canonical cell numbering)."""

    value: int
    remoteness: int
    best: tuple[int, ...]  # ascending cells that keep the value
    wins: int
    draws: int
    losses: int


class RowSource(Protocol):
    variant: Variant
    location: str  # for messages: the database as the user named it, or "<memory>"

    def fetch(self, codes: Collection[int]) -> dict[int, Row]: ...

    def arrays(self) -> Arrays: ...

    def rebuild_hint(self) -> str: ...

    def close(self) -> None: ...


def _cells(mask: int) -> tuple[int, ...]:
    return tuple(cell for cell in range(mask.bit_length()) if mask >> cell & 1)


@dataclass(frozen=True)
class Arrays:
    """Every canonical position as compact arrays sorted by code (1.2 million rows of 4x4 in
    18 MB); the names follow :data:`ttt_solver.store.content.PACKED`."""

    variant: Variant
    code: np.ndarray  # int64, ascending
    value: np.ndarray  # int8
    remoteness: np.ndarray  # int8
    best: np.ndarray  # uint16 masks
    orbit: np.ndarray  # int8
    wins: np.ndarray  # uint8
    draws: np.ndarray  # uint8
    losses: np.ndarray  # uint8

    @classmethod
    def from_tables(cls, tables: Tables) -> Arrays:
        t = tables
        return cls(t.variant, t.codes, t.value, t.remoteness, t.best, t.orbit, t.wins, t.draws, t.losses)

    def __len__(self) -> int:
        return len(self.code)

    def fetch(self, codes: Collection[int]) -> dict[int, Row]:
        import numpy as np

        from ..codec import search

        wanted = np.fromiter(codes, dtype=np.int64, count=len(codes))
        index, found = search(self.code, wanted)
        columns = [
            a[index[found]].tolist()
            for a in (self.value, self.remoteness, self.best, self.wins, self.draws, self.losses)
        ]
        return {
            code: Row(v, r, _cells(b), w, d, lo) for code, v, r, b, w, d, lo in zip(wanted[found].tolist(), *columns)
        }


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


class DatabaseRows:
    """Rows read from a database through :class:`ttt_solver.store.reader.Reader`."""

    def __init__(self, reader: Reader, variant: Variant) -> None:
        self.variant = variant
        self.reader = reader
        self.location = reader.target.spec
        self._arrays: Arrays | None = None

    @property
    def meta(self) -> dict[str, str]:
        return self.reader.meta

    def fetch(self, codes: Collection[int]) -> dict[int, Row]:
        found = {}
        for code, (value, remoteness, best, wins, draws, losses) in self.reader.rows(codes).items():
            try:
                cells = tuple(int(cell) for cell in best.split(",")) if best else ()
            except (AttributeError, ValueError):
                raise DatabaseError(
                    f"database {self.location!r} is damaged (best_moves of code {code} is {str(best)[:20]!r});"
                    f" {self.rebuild_hint()}"
                ) from None
            found[code] = Row(value, remoteness, cells, wins, draws, losses)
        return found

    def arrays(self) -> Arrays:
        """The packed arrays, read once, their digest checked against the meta table."""
        if self._arrays is None:
            self._arrays = self._load_arrays()
        return self._arrays

    def _load_arrays(self) -> Arrays:
        try:
            return unpack(self.reader.packed(), self.variant, self.meta)
        except ValueError as why:
            raise self._damaged(str(why)) from None

    def _damaged(self, why: str) -> DatabaseError:
        return DatabaseError(f"database {self.location!r} is damaged ({why}); {self.rebuild_hint()}")

    def rebuild_hint(self) -> str:
        from ..store.hints import rebuild_hint

        return rebuild_hint(self.location, self.variant.name)

    def close(self) -> None:
        self.reader.close()


def unpack(packed: dict[str, tuple[str, bytes]], variant: Variant, meta: dict[str, str]) -> Arrays:
    """The packed arrays as :class:`Arrays`, their digest and row count checked against the
    meta table; ValueError saying what is wrong."""
    import zlib

    import numpy as np

    from ..store.content import PACKED, digest, unpack_blob

    if sorted(packed) != sorted(name for name, _ in PACKED) or any(packed[name][0] != dtype for name, dtype in PACKED):
        raise ValueError(f"the packed arrays are {sorted(packed)!r}, not the {len(PACKED)} columns this version writes")
    try:
        raw = {name: unpack_blob(name, data) for name, (_dtype, data) in packed.items()}
    except (zlib.error, ValueError) as error:
        raise ValueError(f"a packed array does not decompress: {error}") from None
    if digest(variant.name, raw) != meta.get("digest"):
        raise ValueError("the content digest does not match")
    columns = {name: np.frombuffer(raw[name], dtype=dtype) for name, dtype in PACKED}
    sizes = {len(column) for column in columns.values()}
    if sizes != {len(columns["code"])} or str(len(columns["code"])) != meta.get("positions"):
        raise ValueError(f"packed arrays of {sorted(sizes)} rows, meta says {meta.get('positions')!r}")
    native = {name: column.astype(column.dtype.newbyteorder("=")) for name, column in columns.items()}
    return Arrays(variant, **native)
