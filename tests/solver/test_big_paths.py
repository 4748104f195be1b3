"""The paths of a big (20-cell) database, run on small variants: an eager load that keeps to
the file and memory-maps its arrays, batch tables memory-mapped from a cache folder, stats a
part at a time, and a verify whose tiers spill to a folder under a tiny memory budget; each
checked against the in-memory answers."""

from __future__ import annotations

import numpy as np
import pytest

from ttt_solver import Oracle
from ttt_solver.audit.verify import verify_source
from ttt_solver.game import array_rules
from ttt_solver.game.variant import Variant
from ttt_solver.lookup import rows
from ttt_solver.lookup.proved import ProvedFromFile
from ttt_solver.lookup.rows import DatabaseRows
from ttt_solver.lookup.stats import compute, load_stats
from ttt_solver.store import Target
from ttt_solver.store.reader import Reader


@pytest.fixture
def big(monkeypatch, tmp_path):
    """Every database counts as big, and the cache folder is the test's own."""
    monkeypatch.setattr(rows, "EAGER_ROWS", 0)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "ttt-solver"


def some_boards(variant: Variant, arrays, count: int, seed: int = 0) -> np.ndarray:
    """Legal boards in array form: canonical rows under random symmetries."""
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, len(arrays.code), count)
    images = array_rules.image_codes(np.asarray(arrays.code)[rows], variant)
    chosen = images[rng.integers(0, len(images), count), np.arange(count)]
    return (array_rules.digits(chosen, variant).astype(np.int8) - 1).astype(np.int8)


@pytest.mark.parametrize("name", ["3x4k3", "3x3-misere"])
def test_a_big_database_answers_from_the_file_and_memory_maps_its_arrays(big, variant_db, name):
    variant = Variant.parse(name)
    small = Oracle.load(variant_db(name), name)
    with Oracle.load(variant_db(name), name) as oracle:
        assert isinstance(oracle.rows, ProvedFromFile) and oracle.source is not None
        assert oracle.source._arrays is None  # nothing read into memory at load
        arrays = oracle.arrays()
        assert isinstance(arrays.code, np.memmap)
        for column in ("code", "value", "remoteness", "best", "orbit", "wins", "draws", "losses"):
            assert np.array_equal(getattr(arrays, column), getattr(small.arrays(), column)), column
        boards = some_boards(variant, arrays, 3000)
        assert np.array_equal(oracle.value_batch(boards), small.value_batch(boards))
        assert np.array_equal(oracle.remoteness_batch(boards), small.remoteness_batch(boards))
        # the big tables find best moves from the children (no table of masks): the same moves
        assert oracle.batch_tables().preferred is None
        assert np.array_equal(oracle.best_move_batch(boards), small.best_move_batch(boards))
        texts = ["".join(".XO"[v] for v in row) for row in boards[:200].tolist()]
        assert [oracle.probe(t) for t in texts] == [small.probe(t) for t in texts]
    assert sorted(p.name for p in big.iterdir()) == [f"{name}-{small.meta['digest'][:24]}"]
    assert load_stats(variant_db(name), variant) == compute(small.arrays())


def test_a_damaged_packed_array_is_not_mapped(big, variant_db, tmp_path):
    import shutil
    import sqlite3
    from contextlib import closing

    from ttt_solver.errors import DatabaseError

    copy = tmp_path / "copy.sqlite"
    shutil.copyfile(variant_db("3x4k3"), copy)
    with closing(sqlite3.connect(copy)) as conn, conn:
        conn.execute("UPDATE meta SET value = 'ab' WHERE key = 'digest'")
    with Oracle.load(copy, "3x4k3") as oracle, pytest.raises(DatabaseError, match="the content digest does not match"):
        oracle.value_batch(np.zeros((1, 12), dtype=np.int8))
    assert not big.exists() or not any(
        p.name.startswith("3x4k3-ab") and not p.name.endswith(".part") for p in big.iterdir()
    )


@pytest.mark.parametrize("name", ["3x4k3", "3x3"])
def test_verify_with_a_tiny_budget_proves_the_same_through_its_folder(variant_db, name, monkeypatch):
    """Every verify puts the tiers' rows in a folder of its own, which its proof's tasks read
    (on this process's engine by default); the tiny budget's many chunks report the same."""
    import os
    import tempfile

    folders: list[str] = []
    made = tempfile.mkdtemp

    def recorded(*args, **kwargs):
        folders.append(made(*args, **kwargs))
        return folders[-1]

    monkeypatch.setattr(tempfile, "mkdtemp", recorded)
    with Reader(Target.parse(variant_db(name)), name) as reader:
        tiny = verify_source(DatabaseRows(reader, Variant.parse(name)), memory=1 << 16)
        default = verify_source(DatabaseRows(reader, Variant.parse(name)))
    assert tiny.ok and default.ok and tiny.checks == default.checks
    assert len(folders) == 2 and not any(os.path.exists(folder) for folder in folders)  # each removed after
