"""The SQLite writer's rows and packed arrays: rows in statements of many rows, the last one
shorter, read back as written; the digest taken as the arrays are packed; and packed parts that
the file does not hold as packed refused, not recorded under a digest."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from ttt_solver import solver
from ttt_solver.builder.build import build
from ttt_solver.errors import BuildError
from ttt_solver.game.variant import STANDARD, Variant
from ttt_solver.solver import Tables, pack_rows
from ttt_solver.store import content, writer
from ttt_solver.store.content import PACKED, Hashes, digest, packed_arrays, packed_parts, position_blocks
from ttt_solver.store.row_data import pack_data
from ttt_solver.store.writer import FileWriter
from ttt_solver.system.compiled_loops import COMPILED, NUMPY
from ttt_solver.system.compiled_loops import VARIABLE as PASSES


def test_rows_over_several_statements_read_back_as_written(tmp_path):
    rows = 2 * (writer._PARAMETERS // 2) + 5  # two full statements and a short one
    codes = np.arange(rows, dtype=np.int64) * 7 + 3
    data = (np.arange(rows, dtype=np.int64) * 31) << 20
    file = FileWriter(str(tmp_path / "rows.sqlite"), Variant.parse("4x4"))
    try:
        file.positions([np.column_stack([codes, data])])
    finally:
        file.close()
    with sqlite3.connect(tmp_path / "rows.sqlite") as conn:
        found = np.array(conn.execute("SELECT code, data FROM positions ORDER BY code").fetchall(), dtype=np.int64)
    assert np.array_equal(found[:, 0], codes) and np.array_equal(found[:, 1], data)


@pytest.mark.parametrize("passes", [pytest.param(COMPILED, marks=pytest.mark.compiled), NUMPY])
@pytest.mark.parametrize("name", ["3x3", "3x4k3-misere"])
def test_position_blocks_are_the_codes_and_their_data(solved: Callable[[str], Tables], monkeypatch, name, passes):
    """Packed by the compiled loop and by numpy's alike, a block at a time (each read before
    the next is made, in the same memory): 3x3 in one block, 3x4k3's misère rows in several."""
    monkeypatch.setenv(PASSES, passes)
    monkeypatch.setattr(content, "BLOCK", 10_000)
    compiled: list[bool] = []

    def spied(*args: Any) -> bool:
        compiled.append(pack_rows(*args))
        return compiled[-1]

    monkeypatch.setattr(solver, "pack_rows", spied)
    rows = solved(name).solved
    found = []
    for block in position_blocks(rows):
        assert block.dtype == np.int64 and block.shape[1] == 2
        found.append(block.copy())
    assert len(found) == -(-len(rows) // 10_000)
    packed = np.concatenate(found)
    assert np.array_equal(packed[:, 0], rows.code) and np.array_equal(packed[:, 1], pack_data(rows))
    assert compiled == [passes == COMPILED] * len(found)


def test_the_digest_taken_while_packing_is_the_arrays_digest(solved: Callable[[str], Tables]):
    arrays = packed_arrays(solved("3x4k3").solved)
    hashes = Hashes("3x4k3")
    parts = list(packed_parts(arrays, hashes=hashes))
    assert [name for name, *_rest in parts] == [name for name, _dtype in PACKED]
    assert hashes.hexdigest() == digest("3x4k3", arrays)


def test_a_packed_part_stored_other_than_packed_fails_the_build(tmp_path, monkeypatch):
    """As if the disk changed a blob between the write and the read back: the build stops,
    instead of installing a file whose digest is of other arrays."""
    insert = writer._insert_packed

    def damaged(conn: Any, tables: Any, packed: Any) -> None:
        insert(conn, tables, ((n, p, d, blob[:-1] + bytes([blob[-1] ^ 1])) for n, p, d, blob in packed))

    monkeypatch.setattr(writer, "_insert_packed", damaged)
    target = tmp_path / "ttt.sqlite"
    with pytest.raises(BuildError, match="holds packed arrays other than those packed from its rows"):
        build(target, STANDARD)
    assert not target.exists()
