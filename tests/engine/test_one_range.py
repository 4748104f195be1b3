"""A tier of one range (each tier of a build in one process) exchanges its chunks' rows, not
their images (ttt_solver/engine/shuffle.py): its result bytes, the tables' digest and verify's
report are those of the same tiers cut into several ranges, on this process's engine and on
Dask; a chunk file changed or cut before its range task reads it is refused, naming it."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from support import extra_markers as extras
from support.damage import set_number
from support.pipeline_engines import Counting, cut_into

from ttt_solver.audit.verify import verify_source
from ttt_solver.builder.build import build
from ttt_solver.engine import pipeline
from ttt_solver.engine.shuffle import (
    ROW_COLUMNS,
    Rows,
    gather_range,
    join_ranges,
    range_bounds,
    range_tasks,
    spread_range,
    write_exchange,
    write_rows,
)
from ttt_solver.engine.storage import Storage
from ttt_solver.errors import EngineError
from ttt_solver.game.variant import Variant
from ttt_solver.lookup.rows import DatabaseRows
from ttt_solver.solver import STORED_COLUMNS
from ttt_solver.solver.passes import new_tier, solve_chunk, spread
from ttt_solver.solver.tiers import tiers
from ttt_solver.store import Target
from ttt_solver.store.reader import Reader
from ttt_solver.system.compiled_loops import COMPILED, NUMPY
from ttt_solver.system.compiled_loops import VARIABLE as PASSES

VARIANTS = ["3x3", "3x3-misere", "3x4k3", "4x3k3-misere"]
MEMORY = 1 << 20  # every tier of these one range in one process


def solved_and_built(engine, tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch) -> tuple[list[bytes], str]:  # type: ignore[no-untyped-def]
    """Each tier's result bytes as the pipeline joined them in a build on ``engine`` (last ply
    first), and the build's digest."""
    joined: list[bytes] = []

    def join(*args, **kwargs):  # type: ignore[no-untyped-def]
        crc = join_ranges(*args, **kwargs)
        joined.append(Path(args[4]).read_bytes())
        return crc

    monkeypatch.setattr(pipeline, "join_ranges", join)
    build(tmp_path / "built.sqlite", Variant.parse(name), memory=MEMORY, engine=engine)
    assert len(joined) == Variant.parse(name).cells + 1
    return joined, digest(tmp_path / "built.sqlite")


def digest(path: Path) -> str:
    with sqlite3.connect(path) as db:
        return str(db.execute("SELECT value FROM meta WHERE key = 'digest'").fetchone()[0])


@pytest.mark.parametrize("name", VARIANTS)
def test_a_tier_of_one_range_makes_the_result_bytes_and_digest_of_many_ranges(tmp_path, monkeypatch, variant_db, name):
    made = {}
    for least in (1, 3):
        cut_into(monkeypatch, least)
        engine = Counting()
        made[least] = solved_and_built(engine, tmp_path / str(least), name, monkeypatch)
        spreads, gathers = engine.ran.get(spread_range.__name__, 0), engine.ran.get(gather_range.__name__, 0)
        cells = Variant.parse(name).cells
        # cut into 3, every tier but ply 0's (one board) gathers the images of 3 ranges
        assert (spreads, gathers) == ((cells + 1, 0) if least == 1 else (1, 3 * cells)), engine.ran
    assert made[1] == made[3]
    assert made[1][1] == digest(variant_db(name))


@pytest.mark.dask
@pytest.mark.parametrize("name", ["3x3-misere", "3x4k3"])
def test_on_dask_a_tier_of_one_range_makes_the_result_bytes_and_digest_of_many(
    tmp_path, monkeypatch, variant_db, dask_client, name
):
    extras.need("dask", "dask.distributed")
    from ttt_solver.engine.engine_dask import DaskEngine  # the optional extra

    made = {}
    for least in (1, 3):
        cut_into(monkeypatch, least)
        with DaskEngine(client=dask_client) as engine:
            made[least] = solved_and_built(engine, tmp_path / str(least), name, monkeypatch)
    assert made[1] == made[3]
    assert made[1][1] == digest(variant_db(name))


@pytest.mark.parametrize("damaged", [False, True])
def test_verify_reports_alike_on_one_range_and_many(tmp_path, monkeypatch, db_path, damaged):
    """The proof's chunks exchange their sound rows' code, value and remoteness for a tier of
    one range, their images for several; the report is the same (the sound rows below a
    damaged one too)."""
    copy = tmp_path / "copy.sqlite"
    shutil.copyfile(db_path, copy)
    if damaged:
        with sqlite3.connect(copy) as db:
            db.execute(f"UPDATE positions SET {set_number('remoteness', '7')} WHERE board = '....X....'")
    reports = {}
    for least in (1, 3):
        cut_into(monkeypatch, least)
        engine = Counting()
        with Reader(Target.parse(str(copy)), "3x3") as reader:
            report = verify_source(DatabaseRows(reader, Variant.parse("3x3")), MEMORY, engine=engine)
        reports[least] = (report.ok, report.found, report.contradictions, report.checks)
        assert (gather_range.__name__ in engine.ran) is (least == 3)
    assert reports[1] == reports[3]
    assert reports[1][0] is not damaged


def one_range_chunks(storage: Storage, name: str, ply: int, chunk: int) -> tuple[list[str], list[Rows], np.ndarray]:
    """Tier ``ply`` of ``name`` (the tier above's bytes solved in memory) in chunk files of
    ``chunk`` ranks, each its rows as the build's task writes them; their files and rows, and
    the tier's result bytes by :func:`spread`."""
    found = tiers(Variant.parse(name))
    below = None
    for above in range(found.variant.cells, ply, -1):
        spread(found, above, solve_chunk(found, above, 0, found.size(above), below), made := new_tier(found, above))
        below = made
    bounds = range_bounds(found.size(ply), 1 << 30, 1)
    expected, files, exchanged = new_tier(found, ply), [], []
    for start in range(0, found.size(ply), chunk):
        solved = solve_chunk(found, ply, start, min(found.size(ply), start + chunk), below)
        spread(found, ply, solved, expected)
        files.append(f"{start}.bin")
        with storage.create(files[-1]) as file:
            exchanged.append(write_exchange(found, ply, solved, bounds, file, write_rows(file, solved)))
    return files, exchanged, expected


def spread_tier(storage: Storage, name: str, ply: int, files: list[str], exchanged: list[Rows], joined: Path) -> bytes:
    """Tier ``ply``'s result bytes made by its one range task and joined into ``joined``."""
    found = tiers(Variant.parse(name))
    bounds = range_bounds(found.size(ply), 1 << 30, 1)
    function, calls = range_tasks(storage, files, exchanged, bounds, ["range.bin"], name, ply)
    assert function is spread_range and len(calls) == 1
    crc = function(*calls[0])
    join_ranges(storage, ["range.bin"], bounds, [crc], str(joined))
    return joined.read_bytes()


@pytest.mark.parametrize("passes", [COMPILED, NUMPY])
@pytest.mark.parametrize("url", [False, pytest.param(True, marks=pytest.mark.dask)], ids=["folder", "url"])
def test_a_tier_of_one_range_is_spread_from_its_chunks_rows_alone(tmp_path, monkeypatch, url, passes):
    monkeypatch.setenv(PASSES, passes)
    storage = Storage(f"file://{tmp_path}" if url else str(tmp_path))
    files, exchanged, expected = one_range_chunks(storage, "3x4k3-misere", 6, 2_000)
    assert len(files) > 2 and all(isinstance(rows, Rows) for rows in exchanged)
    for file, rows in zip(files, exchanged):  # nothing after the rows
        assert (tmp_path / file).stat().st_size == rows.count * sum(np.dtype(d).itemsize for _n, d in STORED_COLUMNS)
    assert spread_tier(storage, "3x4k3-misere", 6, files, exchanged, tmp_path / "joined.bin") == expected.tobytes()


def test_the_proofs_chunk_file_of_a_tier_of_one_range_holds_its_rows_code_value_and_remoteness(tmp_path):
    found = tiers(Variant.parse("3x3"))
    solved = solve_chunk(found, 9, 0, found.size(9), None)
    storage = Storage(str(tmp_path))
    with storage.create("chunk.bin") as file:
        rows = write_exchange(found, 9, solved, [0, found.size(9)], file)
    assert isinstance(rows, Rows) and len(rows.starts) == ROW_COLUMNS
    data = (tmp_path / "chunk.bin").read_bytes()
    assert data == solved.code.astype("<i8").tobytes() + solved.value.tobytes() + solved.remoteness.tobytes()


@pytest.mark.parametrize("column", ["code", "value", "remoteness"])
def test_a_byte_flipped_in_a_chunk_files_rows_is_refused_by_the_one_range_task(tmp_path, column):
    storage = Storage(str(tmp_path))
    files, exchanged, _expected = one_range_chunks(storage, "3x3-misere", 5, 300)
    index = [name for name, _dtype in STORED_COLUMNS].index(column)
    rows = exchanged[1]
    data = bytearray((tmp_path / files[1]).read_bytes())
    data[rows.starts[index] + 5] ^= 0x01
    (tmp_path / files[1]).write_bytes(bytes(data))
    with pytest.raises(EngineError) as raised:
        spread_tier(storage, "3x3-misere", 5, files, exchanged, tmp_path / "joined.bin")
    said = str(raised.value)
    assert said.startswith(f"{tmp_path / files[1]} (its {rows.count:,} rows' {column} column) holds other bytes than")
    assert "\n" not in said and not (tmp_path / "range.bin").exists()


def test_a_chunk_file_cut_before_the_one_range_task_reads_it_is_refused(tmp_path):
    storage = Storage(str(tmp_path))
    files, exchanged, _expected = one_range_chunks(storage, "3x3-misere", 5, 300)
    rows = exchanged[0]
    end = rows.starts[ROW_COLUMNS - 1] + rows.count  # the remoteness column's end
    (tmp_path / files[0]).write_bytes((tmp_path / files[0]).read_bytes()[: end - 1])
    with pytest.raises(EngineError, match=rf"^{tmp_path / files[0]} ends before byte {end:,}$"):
        spread_tier(storage, "3x3-misere", 5, files, exchanged, tmp_path / "joined.bin")
    assert not (tmp_path / "range.bin").exists()
