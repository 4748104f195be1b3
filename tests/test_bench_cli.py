"""benchmarks/bench_cli.py takes every variant the lookup goal is measured on (3x3, 3x6k4, 4x5k4)."""

from __future__ import annotations

import runpy
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_cli.py"


def test_the_default_board_fits_each_variant():
    default_board = runpy.run_path(str(BENCH))["default_board"]
    assert default_board(9) == "X...O...."
    assert default_board(18) == "X...O" + "." * 13
    assert len(default_board(20)) == 20


def test_a_variant_too_big_to_build_here_asks_for_its_database():
    done = subprocess.run(
        [sys.executable, str(BENCH), "--variant", "4x5k4", "--runs", "1"],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr == "Error: 4x5k4 has 20 cells; build it once and give --db\n"
