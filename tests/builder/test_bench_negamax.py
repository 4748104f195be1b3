"""The compiled negamax of ``benchmarks/bench_negamax.py`` (``benchmarks/negamax.c``) answers as
the database does: the empty board and boards of random games, finished ones included, of small
variants. Skipped, naming why, where gcc is not installed."""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from support.playouts import playouts

from ttt_solver.game import rules
from ttt_solver.game.variant import Variant
from ttt_solver.lookup.oracle import Oracle

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed (the benchmark compiles C)")


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_negamax", ROOT / "benchmarks" / "bench_negamax.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def program(bench: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> Path:
    compiled: Path = bench.compile_negamax(tmp_path_factory.mktemp("negamax"))
    return compiled


@pytest.mark.parametrize("name", ["3x3", "3x3-misere", "3x4k3", "4x3k3", "3x4k3-misere"])
def test_the_compiled_negamax_answers_as_the_database(
    name: str, bench: ModuleType, program: Path, variant_db: Callable[[str], Path]
) -> None:
    variant = Variant.parse(name)
    oracle = Oracle.load(variant_db(name), name)
    boards = ["." * variant.cells, *playouts(variant, 12, seed=len(name))]
    assert any(rules.terminal_value(board, variant) is not None for board in boards)  # finished boards too
    for board in boards:
        assert bench.negamax_root(program, variant, board) == (oracle.value(board), oracle.remoteness(board)), board
