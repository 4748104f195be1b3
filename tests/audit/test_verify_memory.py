"""``verify`` (and the proof of a resumed build) within its memory budget: the positions table
read a block at a time and the packed arrays a piece at a time, both sized by the budget. The
allocations are traced (tracemalloc counts numpy's arrays), never timed or sampled."""

from __future__ import annotations

import tracemalloc
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ttt_solver.audit.verify import READ_ROW_BYTES, verify_source
from ttt_solver.builder.build import build
from ttt_solver.game.variant import Variant
from ttt_solver.lookup.rows import DatabaseRows
from ttt_solver.solver.solve import Tables
from ttt_solver.store import Target
from ttt_solver.store.content import FEED_BYTES, pack_blob, unpack_pieces
from ttt_solver.store.reader import Reader

V3X4 = Variant.parse("3x4k3")  # 28,275 rows


def test_the_positions_table_is_read_in_blocks_the_budget_sizes(
    variant_db: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[int] = []
    with Reader(Target.parse(variant_db(V3X4.name)), V3X4.name) as reader:
        blocks = reader.position_blocks

        def spy(rows: int, limit: int) -> Iterator[tuple[Any, Any]]:
            asked.append(rows)
            return blocks(rows, limit)

        monkeypatch.setattr(reader, "position_blocks", spy)
        for memory in (4 << 20, 16 << 20):
            assert verify_source(DatabaseRows(reader, V3X4), memory).ok
    assert asked == [(4 << 20) // READ_ROW_BYTES, (16 << 20) // READ_ROW_BYTES]
    assert max(asked) < 28_275  # several blocks, not the table at once


def test_verify_allocates_within_twice_a_small_budget(solved: Callable[[str], Tables], tmp_path: Path) -> None:
    """At 1 MB, a block of rows, a piece of the packed arrays and a chunk of the proof at a time
    (a moves table, stored for small variants only, is compared whole: none here). Reading the
    3x4 table in one block and a packed part whole took 3.5 MB."""
    path = tmp_path / "3x4k3.sqlite"
    build(path, V3X4, tables=solved(V3X4.name), store_moves=False)
    memory = 1 << 20
    with Reader(Target.parse(path), V3X4.name) as reader:
        assert verify_source(DatabaseRows(reader, V3X4), memory).ok  # the variant's tables, made once
        tracemalloc.start()
        try:
            assert verify_source(DatabaseRows(reader, V3X4), memory).ok
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak <= 2 * memory


def test_a_packed_array_unpacks_a_piece_at_a_time() -> None:
    """A blob bigger than the compressed bytes fed at a time, unpacked in pieces of at most the
    rows asked; cut short, it is a zlib.error."""
    best = np.random.default_rng(1).integers(0, 1 << 32, size=FEED_BYTES // 2, dtype=np.uint32)
    blob = pack_blob("best", best.tobytes())
    assert len(blob) > FEED_BYTES
    pieces = list(unpack_pieces("best", blob, rows=50_000))
    assert max(len(piece) for piece in pieces) <= 50_000 * 4
    assert b"".join(pieces) == best.tobytes()
    with pytest.raises(zlib.error):
        list(unpack_pieces("best", blob[: len(blob) // 2], rows=50_000))
