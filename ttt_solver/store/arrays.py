"""Every canonical position of a variant as compact numpy arrays: the in-memory rows.

:class:`Arrays` is what an eager oracle, the batch tables, ``stats`` and ``verify`` work on:
the packed arrays of a database (:func:`unpack`, digest checked) or solved tables.
"""

from __future__ import annotations

import zlib
from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..game.array_rules import search
from ..game.variant import Variant
from .content import PACKED, digest, unpack_blob
from .row_data import Row

if TYPE_CHECKING:
    from ..solver import Tables


@dataclass(frozen=True)
class Arrays:
    """Every canonical position as compact arrays sorted by code (1.2 million rows of 4x4 in
    18 MB); the names follow :data:`ttt_solver.store.content.PACKED`."""

    variant: Variant
    code: np.ndarray  # int64, ascending
    value: np.ndarray  # int8
    remoteness: np.ndarray  # int8
    best: np.ndarray  # uint32 masks
    orbit: np.ndarray  # int8
    wins: np.ndarray  # uint8
    draws: np.ndarray  # uint8
    losses: np.ndarray  # uint8

    @classmethod
    def from_tables(cls, tables: Tables) -> Arrays:
        s = tables.solved
        return cls(tables.variant, s.code, s.value, s.remoteness, s.best, s.orbit, s.wins, s.draws, s.losses)

    def __len__(self) -> int:
        return len(self.code)

    def fetch(self, codes: Collection[int]) -> dict[int, Row]:
        wanted = np.fromiter(codes, dtype=np.int64, count=len(codes))
        index, found = search(self.code, wanted)
        columns = [
            a[index[found]].tolist()
            for a in (self.value, self.remoteness, self.best, self.wins, self.draws, self.losses)
        ]
        return {code: Row(*row) for code, *row in zip(wanted[found].tolist(), *columns)}


def unpack(packed: dict[str, tuple[str, list[bytes]]], variant: Variant, meta: dict[str, str]) -> Arrays:
    """The packed arrays as :class:`Arrays`, their digest and row count checked against the
    meta table; ValueError saying what is wrong."""

    if sorted(packed) != sorted(name for name, _ in PACKED) or any(packed[name][0] != dtype for name, dtype in PACKED):
        raise ValueError(f"the packed arrays are {sorted(packed)!r}, not the {len(PACKED)} columns this version writes")
    try:
        raw = {name: b"".join(unpack_blob(name, part) for part in parts) for name, (_dtype, parts) in packed.items()}
    except (zlib.error, ValueError) as error:
        raise ValueError(f"a packed array does not decompress: {error}") from None
    if digest(variant.name, raw) != meta.get("digest"):
        raise ValueError("the content digest does not match")
    columns = {}
    for name, dtype in PACKED:
        if len(raw[name]) % np.dtype(dtype).itemsize:
            raise ValueError(f"the packed array {name!r} is not a whole number of {dtype} values")
        columns[name] = np.frombuffer(raw[name], dtype=dtype)
    sizes = {len(column) for column in columns.values()}
    if sizes != {len(columns["code"])} or str(len(columns["code"])) != meta.get("positions"):
        raise ValueError(f"packed arrays of {sorted(sizes)} rows, meta says {meta.get('positions')!r}")
    native = {name: column.astype(column.dtype.newbyteorder("=")) for name, column in columns.items()}
    return Arrays(variant, **native)
