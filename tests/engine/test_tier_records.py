"""A finished tier's record (``tier-PP/rows.json``) names its variant, its ply and its build, so a
tier folder in another tier's place matches its own checksums and is still found out: solved
again, and the build installs the digest of a build never stopped. Before, two swapped tiers
were reused: the lowest two made the resumed build die in ``solver/passes.py: spread`` with an
IndexError, others made the proof refuse every later run until ``--force``."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import zlib
from pathlib import Path

import numpy as np
import pytest

from ttt_solver.builder.build import build
from ttt_solver.engine.scratch import FORMAT, TierSink, other_tier
from ttt_solver.engine.solving import append_rows, solve_chunk_task
from ttt_solver.engine.storage import Storage
from ttt_solver.errors import EngineError
from ttt_solver.game.variant import Variant
from ttt_solver.solver import STORED_COLUMNS, STORED_ROW_BYTES, Solved, new_tier, solve_chunk, spread, tiers

NAME = "3x5k4"
MEMORY = 64 << 20  # 3x5k4 solved tier by tier in its scratch folder, not in memory


class Stop(Exception):
    """Stands for a build killed once a tier is recorded."""


def digest(path: Path) -> str:
    with sqlite3.connect(path) as db:
        return str(db.execute("SELECT value FROM meta WHERE key = 'digest'").fetchone()[0])


def stopped_at(target: Path, ply: int) -> Path:
    """The scratch folder of a build of 3x5k4 at ``target`` stopped once tier ``ply`` is recorded."""

    def progress(line: str) -> None:
        if line.startswith(f"{NAME}: ply {ply}:"):
            raise Stop

    with pytest.raises(Stop):
        build(target, Variant.parse(NAME), memory=MEMORY, progress=progress)
    return target.parent / f".{target.name}.solving"


def swap(scratch: Path, a: int, b: int) -> None:
    (scratch / f"tier-{a:02d}").rename(scratch / "swapped")
    (scratch / f"tier-{b:02d}").rename(scratch / f"tier-{a:02d}")
    (scratch / "swapped").rename(scratch / f"tier-{b:02d}")


@pytest.mark.parametrize(("a", "b"), [(12, 13), (13, 14)])
def test_two_swapped_tier_folders_are_solved_again_and_the_digest_is_the_unstopped_builds(variant_db, tmp_path, a, b):
    target = tmp_path / f"{NAME}.sqlite"
    scratch = stopped_at(target, 12)  # tiers 15 to 12 recorded
    record = json.loads((scratch / "tier-12" / "rows.json").read_text())
    assert (record["variant"], record["ply"], record["build"]["format"]) == (NAME, 12, FORMAT)
    swap(scratch, a, b)
    lines: list[str] = []
    report = build(target, Variant.parse(NAME), memory=MEMORY, progress=lines.append)
    for here, there in ((a, b), (b, a)):
        said = f"{NAME}: tier-{here:02d} in {scratch} holds tier {there}, not this tier: solving it again"
        assert said in lines, lines
    assert f"{NAME}: ply {a}: " in "\n".join(lines) and f"{NAME}: ply {b}: " in "\n".join(lines)  # solved again
    assert report.digest == digest(target) == digest(variant_db(NAME))


@pytest.mark.parametrize(
    ("record", "said"),
    [
        ({"variant": "3x5k4", "ply": 12, "build": {"solver": 1}}, None),
        ({"variant": "3x5k4", "ply": 13, "build": {"solver": 1}}, "tier 13"),
        ({"variant": "3x4k3", "ply": 12, "build": {"solver": 1}}, "a tier of '3x4k3'"),
        ({"variant": "3x5k4", "ply": 12, "build": {"solver": 2}}, "a tier of another build"),
        ({"rows": 3, "files": {}}, "a tier of None"),  # a record of format 2 names nothing
    ],
)
def test_a_tier_record_says_what_it_is_where_it_is_not_this_tier(record, said):
    assert other_tier(record, {"variant": "3x5k4", "ply": 12, "build": {"solver": 1}}) == said


def test_a_tier_records_each_file_with_its_length_and_crc32(tmp_path):
    """CRC-32 (about 4x BLAKE2b's speed): the column files' taken as they are appended, the
    result bytes' as the join writes them (not read again), each the file's as it lies."""
    scratch = stopped_at(tmp_path / f"{NAME}.sqlite", 12)
    checked = []
    for ply in (15, 14, 13, 12):
        folder = scratch / f"tier-{ply:02d}"
        files = json.loads((folder / "rows.json").read_text())["files"]
        assert "results.bin" in files and "code.bin" in files
        for name, entry in files.items():
            raw = (folder / name).read_bytes() if (folder / name).exists() else None
            if raw is None:  # results.bin of a tier the tier below has used (removed)
                continue
            assert entry == [len(raw), f"{zlib.crc32(raw):08x}"], (ply, name)
            checked.append(name)
    assert checked.count("results.bin") == 1 and checked.count("code.bin") == 4  # tier 12's results kept


def chunk_file(tmp_path: Path) -> tuple[Storage, Solved, tuple[int, list[int]]]:
    """A chunk file of tier 15 of 4x4 written by its task (its rows, then its images), the rows
    its task solved, and what it returned of them (their count and each column's CRC-32)."""
    storage, found = Storage(str(tmp_path)), tiers(Variant.parse("4x4"))
    below = new_tier(found, 16)
    spread(found, 16, solve_chunk(found, 16, 0, found.size(16), None), below)
    with storage.create("below.bin") as file:
        file.write(below.data)
    size = found.size(15)
    found_rows, _groups = solve_chunk_task(
        storage, "chunk.bin", ("below.bin", zlib.crc32(below.data)), [0, size], "4x4", 15, 0, size
    )
    return storage, solve_chunk(found, 15, 0, size, below), found_rows


def test_a_chunks_rows_are_copied_to_the_tiers_column_files_through_one_small_buffer(tmp_path, monkeypatch):
    """Read back whole into fresh memory, then appended, 3x6k4's rows cost its solve 0.49 s of
    CPU; copied through one buffer, 0.16 s (benchmarks/profile_solve.py, medians of 3 runs).
    Every byte is read into the buffer's 1 KB (counted by the reads, not by tracemalloc's peak,
    which counts every thread's allocations: a Dask cluster's in the same process too)."""
    storage, solved, (rows, crcs) = chunk_file(tmp_path)
    (tmp_path / "tier").mkdir()
    sink, buffer = TierSink(str(tmp_path / "tier")), memoryview(bytearray(1 << 10))
    reads: list[int] = []
    read_into = Storage.read_into

    def spied(self: Storage, name: str, offset: int, out: np.ndarray) -> None:
        reads.append(out.nbytes)
        read_into(self, name, offset, out)

    monkeypatch.setattr(Storage, "read_into", spied)
    append_rows(storage, "chunk.bin", rows, crcs, sink, buffer)
    append_rows(storage, "chunk.bin", rows, crcs, sink, buffer)  # a second chunk follows the first
    assert rows == len(solved) > 10_000
    assert max(reads) == len(buffer) and sum(reads) == 2 * rows * STORED_ROW_BYTES  # read whole: one read of it all
    sink.close()
    assert sink.rows == 2 * rows
    entries = sink.entries()
    assert sorted(os.listdir(tmp_path / "tier")) == sorted(f"{name}.bin" for name, _dtype in STORED_COLUMNS)
    assert "preferred.bin" not in os.listdir(tmp_path / "tier") and STORED_ROW_BYTES == 18  # no column nobody reads
    for (name, dtype), column in zip(STORED_COLUMNS, solved.stored(), strict=True):
        raw = (tmp_path / "tier" / f"{name}.bin").read_bytes()
        assert raw == 2 * column.astype(dtype).tobytes(), name
        assert entries[f"{name}.bin"] == [len(raw), f"{zlib.crc32(raw):08x}"], name


@pytest.mark.parametrize("column", range(len(STORED_COLUMNS)))
@pytest.mark.parametrize("kind", ["flip", "cut"])
def test_a_chunk_file_damaged_before_its_record_is_refused_naming_it(tmp_path, column, kind):
    """A byte flipped in any column, or the file cut there: one line, and the tier is not
    recorded (the error stops the record before its rows.json)."""
    storage, solved, (rows, crcs) = chunk_file(tmp_path)
    at = sum(len(solved) * np.dtype(dtype).itemsize for _name, dtype in STORED_COLUMNS[:column]) + rows // 2
    with open(tmp_path / "chunk.bin", "r+b") as file:
        if kind == "cut":
            file.truncate(at)
        else:
            file.seek(at)
            byte = file.read(1)[0]
            file.seek(at)
            file.write(bytes([byte ^ 0x04]))
    (tmp_path / "tier").mkdir()
    said = (
        f"{tmp_path / 'chunk.bin'} ends before byte {rows * STORED_ROW_BYTES:,}"
        if kind == "cut"
        else f"{tmp_path / 'chunk.bin'} (its {rows:,} rows' {STORED_COLUMNS[column][0]} column) holds other bytes than its"
        " task wrote (CRC-32 "
    )
    with pytest.raises(EngineError, match=f"^{re.escape(said)}"):
        append_rows(storage, "chunk.bin", rows, crcs, TierSink(str(tmp_path / "tier")), memoryview(bytearray(4096)))
