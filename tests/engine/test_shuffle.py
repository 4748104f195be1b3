"""The result bytes made through files with one writer each (what a distributed engine's tasks
do: ttt_solver/engine/shuffle.py) are the bytes ``spread`` writes in one process, tier by tier,
whatever the chunks and ranges."""

from __future__ import annotations

import io
import os
import sqlite3
import zlib
from pathlib import Path
from typing import ClassVar
from unittest import mock

import numpy as np
import pytest
from support import extra_markers as extras
from support.pipeline_engines import cut_into

from ttt_solver.builder.build import build
from ttt_solver.engine import InProcess
from ttt_solver.engine.shuffle import (
    FEW_RANGES,
    Groups,
    below_bytes,
    gather_range,
    join_ranges,
    range_bounds,
    write_images,
)
from ttt_solver.engine.storage import Storage
from ttt_solver.errors import EngineError
from ttt_solver.game.value_bytes import NO_POSITION
from ttt_solver.game.variant import Variant
from ttt_solver.solver import checksums
from ttt_solver.solver.passes import new_tier, solve_chunk, spread
from ttt_solver.solver.tiers import tiers
from ttt_solver.system.compiled_loops import COMPILED, NUMPY
from ttt_solver.system.compiled_loops import VARIABLE as PASSES


# file://: a storage URL, through fsspec (which the [dask] extra brings)
@pytest.mark.parametrize("url", [False, pytest.param(True, marks=pytest.mark.dask)], ids=["folder", "url"])
@pytest.mark.parametrize(
    "name, chunk, memory, widest",
    [("3x4k3", 1_000, 1_400, 50), ("3x3-misere", 50, 60, 56), ("4x3k3", 10**6, 10**9, 1)],
)  # widest: the most ranges of a tier (3x4k3 at 1,400: ranges of 700 boards at most, 34,650 boards in its widest tier)
def test_the_shuffled_result_bytes_are_spreads(tmp_path, name, chunk, memory, widest, url):
    storage = Storage(f"file://{tmp_path}" if url else str(tmp_path))
    found = tiers(Variant.parse(name))
    below = None
    ranges_seen = []
    for ply in range(found.variant.cells, -1, -1):
        size = found.size(ply)
        starts = list(range(0, size, chunk))
        bounds = range_bounds(size, memory, len(starts))
        expected, groups = new_tier(found, ply), []
        for start in starts:
            solved = solve_chunk(found, ply, start, min(size, start + chunk), below)
            spread(found, ply, solved, expected)
            with storage.create(f"{ply}-{start}.bin") as file:
                file.write(b"rows first")  # a chunk's file holds its rows before its images
                groups.append(write_images(found, ply, solved, bounds, file))
        ranges = [f"{ply}-range-{first}.bin" for first in bounds[:-1]]
        crcs = []
        for r, range_name in enumerate(ranges):
            parts = [group.group(f"{ply}-{start}.bin", r) for start, group in zip(starts, groups)]
            crcs.append(gather_range(storage, parts, bounds[r + 1] - bounds[r], range_name))
        join_ranges(storage, ranges, bounds, crcs, str(tmp_path / f"{ply}-results.bin"))
        made = np.fromfile(tmp_path / f"{ply}-results.bin", dtype=np.uint8)
        assert np.array_equal(made, expected), (name, ply)  # the tier's bytes and one more
        assert checksums.file_crc(str(tmp_path / f"{ply}-results.bin")) == checksums.crc32(expected.data)
        ranges_seen.append(len(ranges))
        below = expected
    assert max(ranges_seen) == widest
    if name == "3x4k3":  # a tier of one range, tiers split a pass per range, tiers split by a sort
        assert 1 in ranges_seen and any(1 < n <= FEW_RANGES for n in ranges_seen) and widest > FEW_RANGES


@pytest.mark.fast
def test_the_files_crc32_is_isals_where_the_fast_extra_is_installed_and_zlibs_own_values():
    """The exchange's and the records' CRC-32 is ISA-L's where the [fast] extra is installed (about
    5x zlib's speed): the very values zlib gives, whole or continued piece by piece, of any
    contiguous array, so records written by either are read by the other."""
    isal_zlib = pytest.importorskip("isal.isal_zlib", reason=extras.reason("fast"))
    assert checksums.crc32 is isal_zlib.crc32
    data = np.random.default_rng(40).integers(0, 256, 1 << 20, dtype=np.uint8)
    for array in (data, data.view("<u4"), data[:0]):
        assert checksums.crc32(array.data) == zlib.crc32(array.data)
    running = checksums.Running()
    for piece in np.array_split(data, 7):
        running.update(piece.data)
    assert running.entry() == [len(data), f"{zlib.crc32(data.data):08x}"]


def test_ranges_are_of_one_width_within_the_budget_and_at_least_the_workers():
    assert range_bounds(10, 8, 1) == [0, 4, 8, 10]  # at most 4 boards (half of 8 bytes): 3 ranges
    assert range_bounds(10, 1000, 3) == [0, 4, 8, 10]  # at least 3 ranges
    assert range_bounds(10, 1000, 1) == [0, 10]
    assert range_bounds(2, 1000, 4) == [0, 1, 2]  # no empty range
    assert range_bounds(1, 1000, 1) == [0, 1]


def written(storage: Storage, files: dict[str, bytes]) -> list[int]:
    """Each of ``files`` written into ``storage``; the CRC-32 of each, as its task returns it."""
    for name, data in files.items():
        with storage.create(name) as file:
            file.write(data)
    return [zlib.crc32(data) for data in files.values()]


def ranges_written(storage: Storage, b: bytes, alone: bool) -> tuple[list[str], list[int], list[int]]:
    """Range files written into ``storage`` (``b.bin`` holding ``b``, and ``a.bin`` before it
    unless ``alone``): their names, their tier's bounds and the CRC-32 of each."""
    files = {"b.bin": b} if alone else {"a.bin": b"\x01\x02", "b.bin": b}
    bounds = [0, len(b)] if alone else [0, 2, 2 + len(b)]
    return list(files), bounds, written(storage, files)


@pytest.mark.parametrize("alone", [True, False], ids=["one range", "two"])
@pytest.mark.parametrize("length", [3, 5])
def test_a_range_file_cut_or_grown_since_its_task_wrote_it_is_refused_in_one_line(tmp_path, length, alone):
    storage = Storage(str(tmp_path))
    names, bounds, crcs = ranges_written(storage, bytes(4), alone)
    (tmp_path / "b.bin").write_bytes(bytes(length))
    with pytest.raises(EngineError, match=rf"b\.bin holds {length} bytes, not the 4 its task wrote$"):
        join_ranges(storage, names, bounds, crcs, str(tmp_path / "joined.bin"))


@pytest.mark.parametrize("alone", [True, False], ids=["one range", "two"])
def test_a_byte_flipped_in_a_range_file_since_its_task_wrote_it_is_refused_in_one_line(tmp_path, alone):
    storage = Storage(str(tmp_path))
    names, bounds, crcs = ranges_written(storage, b"\x00\x01\x02\x03", alone)
    flipped = b"\x00\x01\x03\x03"  # the same length
    (tmp_path / "b.bin").write_bytes(flipped)
    with pytest.raises(EngineError) as raised:
        join_ranges(storage, names, bounds, crcs, str(tmp_path / "joined.bin"))
    assert str(raised.value) == (
        f"{tmp_path / 'b.bin'} holds other bytes than its task wrote (CRC-32 {zlib.crc32(flipped):08x}, not {crcs[-1]:08x})"
    )
    if alone:  # refused before it is renamed: no joined file, the range file as it was
        assert not (tmp_path / "joined.bin").exists() and (tmp_path / "b.bin").read_bytes() == flipped


@pytest.mark.parametrize("elsewhere", [False, True], ids=["the storage's folder", "another folder"])
def test_one_range_file_is_renamed_into_the_joined_file_in_the_storages_folder_and_copied_elsewhere(
    tmp_path, elsewhere
):
    """A tier of one range (an in-process build's every tier) keeps its range file as its joined
    result bytes where they sit in one folder: renamed, not copied; the same bytes and CRC-32."""
    storage = Storage(str(tmp_path / "storage"))
    names, bounds, crcs = ranges_written(storage, b"\x00\x01\x02\x03", True)
    folder = tmp_path / ("local" if elsewhere else "storage")
    folder.mkdir(exist_ok=True)
    crc = join_ranges(storage, names, bounds, crcs, str(folder / "results-x.bin"))
    joined = (folder / "results-x.bin").read_bytes()
    assert joined == b"\x00\x01\x02\x03" + bytes([NO_POSITION]) and crc == zlib.crc32(joined)
    assert (tmp_path / "storage" / "b.bin").exists() == elsewhere


@pytest.mark.compiled
@pytest.mark.parametrize("name, chunk, memory", [("3x4k3", 9_000, 1_400), ("4x3k3-misere", 20_000, 3_000)])
def test_a_chunks_images_are_written_alike_by_the_compiled_pass_and_numpys(name, chunk, memory):
    found = tiers(Variant.parse(name))
    below, counts = None, set()
    for ply in range(found.variant.cells, -1, -1):
        size = found.size(ply)
        bounds = range_bounds(size, memory, 1)
        counts.add(len(bounds) - 1)
        results = new_tier(found, ply)
        for start in range(0, size, chunk):
            solved = solve_chunk(found, ply, start, min(size, start + chunk), below)
            spread(found, ply, solved, results)
            written = []
            for passes in (COMPILED, NUMPY):
                with mock.patch.dict(os.environ, {PASSES: passes}):
                    file = io.BytesIO(b"rows first")  # a chunk's file holds its rows before its images
                    file.seek(0, io.SEEK_END)
                    written.append((write_images(found, ply, solved, bounds, file), file.getvalue()))
            assert written[0] == written[1], (name, ply, start)
        below = results
    assert 1 in counts and any(1 < count <= FEW_RANGES for count in counts) and max(counts) > FEW_RANGES


def chunk_of_two_ranges(tmp_path: Path) -> tuple[Storage, list[int], Groups]:
    """3x3's last tier cut into two ranges, its images written into ``chunk.bin``: the storage,
    the ranges' bounds and the chunk's groups."""
    storage = Storage(str(tmp_path))
    found = tiers(Variant.parse("3x3"))
    bounds = range_bounds(found.size(9), 1 << 20, 2)
    with storage.create("chunk.bin") as file:
        groups = write_images(found, 9, solve_chunk(found, 9, 0, found.size(9), None), bounds, file)
    return storage, bounds, groups


def test_a_byte_flipped_in_a_chunk_files_group_of_images_is_refused_by_the_range_task(tmp_path):
    storage, bounds, groups = chunk_of_two_ranges(tmp_path)
    data = bytearray((tmp_path / "chunk.bin").read_bytes())
    data[groups.starts[1]] ^= 0x01  # the second group's first byte
    (tmp_path / "chunk.bin").write_bytes(bytes(data))
    gather_range(storage, [groups.group("chunk.bin", 0)], bounds[1] - bounds[0], "range-0.bin")  # untouched
    start, stop = groups.starts[1], groups.starts[2]
    with pytest.raises(
        EngineError, match=rf"chunk\.bin \(bytes {start:,} to {stop:,}\) holds other bytes than its task wrote"
    ):
        gather_range(storage, [groups.group("chunk.bin", 1)], bounds[2] - bounds[1], "range-1.bin")


def test_a_chunk_file_cut_before_its_range_task_reads_its_group_is_refused_naming_it(tmp_path):
    storage, bounds, groups = chunk_of_two_ranges(tmp_path)
    (tmp_path / "chunk.bin").write_bytes((tmp_path / "chunk.bin").read_bytes()[: groups.starts[2] - 1])
    with pytest.raises(EngineError, match=rf"^{tmp_path / 'chunk.bin'} ends before byte {groups.starts[2]:,}$"):
        gather_range(storage, [groups.group("chunk.bin", 1)], bounds[2] - bounds[1], "range-1.bin")
    assert not (tmp_path / "range-1.bin").exists()


def flipping(base: type, ply: int, where: str) -> type:
    """An engine of class ``base`` that flips a byte of one file, once, as tier ``ply`` runs:
    ``where`` is a range file, a chunk file's rows (its code column's first byte: the one range
    task of a tier of one range reads it first, else the record) or its images (written by its
    tasks), or the tier above's joined result bytes (before its tasks read them)."""

    class Flipping(base):  # type: ignore[misc, valid-type]
        flipped: ClassVar[list[str]] = []  # a class of its own each call

        def run(self, function, calls, name, done=None):  # type: ignore[no-untyped-def]
            ours = not self.flipped and name.endswith(f"-{ply}{'-ranges' if where == 'range' else ''}")
            if ours and where == "joined":
                self.flip(calls[0][0].path(calls[0][2][0]), 0)
            results = super().run(function, calls, name, done)
            if ours and where != "joined":
                storage, file = calls[0][0], calls[0][-1 if where == "range" else 1]  # a range task's file: its last
                self.flip(storage.path(file), 0 if where != "images" else results[0][1].starts[0])
            return results

        def flip(self, path: str, at: int) -> None:
            with open(path, "r+b") as opened:
                opened.seek(at)
                byte = opened.read(1)[0]
                opened.seek(at)
                opened.write(bytes([byte ^ 0x10]))
            self.flipped.append(path)

    return Flipping


def digest(path: Path) -> str:
    with sqlite3.connect(path) as db:
        return str(db.execute("SELECT value FROM meta WHERE key = 'digest'").fetchone()[0])


def refused_then_rebuilt(engine, tmp_path: Path, variant_db, ply: int) -> None:  # type: ignore[no-untyped-def]
    """A build of 3x3 on ``engine`` (which flips a byte as tier ``ply`` runs) is refused in one
    line, that tier not recorded; the same build run again installs the one-process digest."""
    target = tmp_path / "3x3.sqlite"
    with engine, pytest.raises(EngineError) as raised:
        build(target, Variant.parse("3x3"), memory=64 << 10, engine=engine)
    writer = "the join" if os.path.basename(engine.flipped[0]).startswith("results-") else "its task"
    assert f"holds other bytes than {writer} wrote" in str(raised.value)
    assert "\n" not in str(raised.value) and not target.exists()
    recorded = sorted(path.name for path in (tmp_path / ".3x3.sqlite.solving").glob("tier-[0-9][0-9]"))
    assert f"tier-{ply:02d}" not in recorded and "tier-09" in recorded
    build(target, Variant.parse("3x3"), memory=64 << 10)
    assert digest(target) == digest(variant_db("3x3"))


@pytest.fixture(params=[1, 3], ids=["one range", "ranges"])
def ranges(request, monkeypatch):  # type: ignore[no-untyped-def]
    """The tiers of a build cut into one range (what an in-process build's are: their chunks
    exchange rows) or into 3 at least where they are that wide (their chunks exchange images)."""
    cut_into(monkeypatch, request.param)
    return request.param


@pytest.mark.parametrize(
    ("where", "ranges"),
    [
        *((where, 1) for where in ("range", "rows", "joined")),
        *((where, 3) for where in ("range", "rows", "images", "joined")),
    ],
    indirect=["ranges"],
)  # the chunks of a tier of one range write no images
def test_a_byte_flipped_in_a_tasks_file_mid_build_is_refused_and_solved_again(tmp_path, variant_db, where, ranges):
    refused_then_rebuilt(flipping(InProcess, 6, where)(), tmp_path, variant_db, 6)


@pytest.mark.dask
@pytest.mark.parametrize("where", ["range", "rows", "joined"])
def test_a_byte_flipped_on_a_dask_worker_is_refused_and_solved_again(tmp_path, variant_db, dask_client, where, ranges):
    extras.need("dask", "dask.distributed")
    from ttt_solver.engine.engine_dask import DaskEngine  # the optional extra

    refused_then_rebuilt(flipping(DaskEngine, 6, where)(client=dask_client), tmp_path, variant_db, 6)


def test_the_tier_belows_bytes_are_checked_against_their_joins_crc_once_a_process_and_again_once_changed(tmp_path):
    storage = Storage(str(tmp_path))
    crcs = written(storage, {"a.bin": b"\x01\x02", "b.bin": b"\x00\x01\x02\x03"})
    crc = join_ranges(storage, ["a.bin", "b.bin"], [0, 2, 6], crcs, str(tmp_path / "results-x.bin"))
    joined = (tmp_path / "results-x.bin").read_bytes()
    assert crc == zlib.crc32(joined) and joined[-1] == NO_POSITION
    assert bytes(below_bytes(storage, ("results-x.bin", crc))) == joined
    (tmp_path / "results-x.bin").write_bytes(b"\x01\x02\x00\x01\x02\x07" + bytes([NO_POSITION]))  # written again,
    os.utime(tmp_path / "results-x.bin", ns=(1, 1))  # later than the clock's tick, as damage is
    with pytest.raises(EngineError, match=r"results-x\.bin holds other bytes than the join wrote \(CRC-32 "):
        below_bytes(storage, ("results-x.bin", crc))
    assert below_bytes(storage, None) is None
