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

from ttt_solver.audit.proof_tasks import READ_BYTES, column_file, tier_rows
from ttt_solver.audit.retrograde import plies, prove_chunk
from ttt_solver.audit.verify import READ_ROW_BYTES, verify_source
from ttt_solver.builder.build import build
from ttt_solver.game.variant import Variant
from ttt_solver.lookup.rows import DatabaseRows
from ttt_solver.solver.passes import COLUMNS, ROW_BYTES, new_tier, spread
from ttt_solver.solver.solve import Tables
from ttt_solver.solver.tiers import tiers
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
        for memory in (16 << 20, 64 << 20):
            assert verify_source(DatabaseRows(reader, V3X4), memory).ok
    assert asked == [(16 << 20) // READ_ROW_BYTES, (64 << 20) // READ_ROW_BYTES]
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


def _mapped_kb(path: Path) -> int:
    """Resident KB of this process's mappings of ``path`` (from /proc/self/smaps)."""
    total, inside = 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()
        if head and "-" in head[0] and not head[0].endswith(":"):
            inside = len(head) >= 6 and head[5] == str(path)
        elif inside and line.startswith("Rss:"):
            total += int(head[1])
    return total


@pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="reads Linux's /proc/self/smaps")
def test_the_proof_finds_each_chunk_in_a_tier_file_without_touching_its_memory_map(
    solved: Callable[[str], Tables], tmp_path: Path
) -> None:
    """A tier's stored rows come from files (a resumed build, verify under a budget): the proof
    of each chunk finds its rows by a search read from the file, as the merge does. A binary
    search through the memory map faulted in a read-ahead window at each step, and over a
    tier's chunks kept most of the code column resident: 240 MB of 4x5k4's tier 13."""
    variant = Variant.parse("4x4")
    found, rows = tiers(variant), solved("4x4").solved
    ply = int(np.argmax(found.sizes))  # the widest tier: 1.6 MB of codes
    tier_of = plies(rows.code, variant)
    for p in (ply, ply + 1):
        part = rows.take(np.flatnonzero(tier_of == p))
        for column, (name, dtype) in zip(part, COLUMNS):
            column.astype(dtype).tofile(column_file(str(tmp_path), p, name))
    counts = {p: int((tier_of == p).sum()) for p in (ply, ply + 1)}
    below = new_tier(found, ply + 1)
    spread(found, ply + 1, tier_rows(str(tmp_path), ply + 1, counts[ply + 1]), below)
    stored = tier_rows(str(tmp_path), ply, counts[ply])
    size, chunk = found.size(ply), max(1, found.size(ply) // 64)
    for start in range(0, size, chunk):
        assert not prove_chunk(found, ply, start, min(size, start + chunk), below, stored).findings.bad
    code_file = Path(column_file(str(tmp_path), ply, "code"))
    assert code_file.stat().st_size > 1 << 20
    assert _mapped_kb(code_file) <= 64, _mapped_kb(code_file)  # a page or two at the ends, not the column


def test_a_small_tier_is_read_whole_and_a_big_one_mapped(solved: Callable[[str], Tables], tmp_path: Path) -> None:
    """A tier whose rows take less than READ_BYTES is read into memory (a mapping's cost, paid
    some 30 times a proof, was half of a 3x3 verify's CPU); a bigger one is mapped, so that the
    proof's memory stays within its budget; a column file shorter than its rows is refused."""
    variant = Variant.parse("4x4")
    rows = solved("4x4").solved
    tier_of = plies(rows.code, variant)
    counts = {p: int((tier_of == p).sum()) for p in range(variant.cells + 1)}
    small = next(p for p, count in counts.items() if 0 < count * ROW_BYTES < READ_BYTES)
    big = max(counts, key=counts.__getitem__)
    for p in (small, big):
        part = rows.take(np.flatnonzero(tier_of == p))
        for column, (name, dtype) in zip(part, COLUMNS):
            column.astype(dtype).tofile(column_file(str(tmp_path), p, name))
    read, mapped = tier_rows(str(tmp_path), small, counts[small]), tier_rows(str(tmp_path), big, counts[big])
    assert not any(isinstance(column, np.memmap) for column in read)
    assert all(isinstance(column, np.memmap) for column in mapped) and counts[big] * ROW_BYTES >= READ_BYTES
    for got, expected in zip(read, rows.take(np.flatnonzero(tier_of == small))):
        assert np.array_equal(got, expected)
    with pytest.raises(ValueError, match="fewer than"):
        tier_rows(str(tmp_path), small, counts[small] + 1)
