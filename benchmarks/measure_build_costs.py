"""Measure the per-board costs that ``ttt-lookup build --plan`` scales from
(:data:`ttt_solver.store.build_cost.SOLVE_SECONDS`, ``WRITE_SECONDS`` and ``VERIFY_SECONDS``).

For each variant: the CPU seconds of solving its tiers (the passes, into a scratch folder),
per board of its tiers and cell; then the CPU seconds of the rest of the build (merge into code
order, write the SQLite file, digest), per canonical row; then of ``verify`` of the file, per
row. CPU time of this process, so a machine shared with other work changes the numbers less
than wall time would.

    python benchmarks/measure_build_costs.py 4x4 3x6k4
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from ttt_solver.audit.verify import verify_source
from ttt_solver.builder.build import build
from ttt_solver.engine.engines import InProcess
from ttt_solver.engine.scratch import open_scratch
from ttt_solver.engine.solving import solve_tiers
from ttt_solver.game.variant import Variant
from ttt_solver.lookup.rows import DatabaseRows
from ttt_solver.solver.solve import default_memory
from ttt_solver.store import Target
from ttt_solver.store.build_cost import tier_boards
from ttt_solver.store.reader import Reader


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="+")
    args = parser.parse_args()
    for name in args.variants:
        variant = Variant.parse(name)
        boards = tier_boards(variant)
        with tempfile.TemporaryDirectory() as folder:
            scratch = open_scratch(os.path.join(folder, "scratch"), variant, {"bench": 1})
            started = time.process_time()
            solve_tiers(InProcess(), scratch, default_memory())
            solve = time.process_time() - started
            started = time.process_time()
            report = build(os.path.join(folder, "db.sqlite"), variant)
            whole = time.process_time() - started
            started = time.process_time()
            with Reader(Target.parse(report.target), variant.name) as reader:
                assert verify_source(DatabaseRows(reader, variant)).ok
            proof = time.process_time() - started
        rows = report.canonical_positions
        print(
            f"{variant}: {boards:,} boards, {rows:,} rows; solve {solve:.2f} s CPU"
            f" = {solve / boards / variant.cells * 1e9:.2f} ns per board and cell;"
            f" build {whole:.2f} s CPU, the rest {whole - solve:.2f} s = {(whole - solve) / rows * 1e9:.0f} ns per row;"
            f" verify {proof:.2f} s CPU = {proof / rows * 1e9:.0f} ns per row"
        )


if __name__ == "__main__":
    main()
