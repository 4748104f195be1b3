"""Split a build's CPU into the solve and the rest, the rest into its parts, against the write's floor.

For each variant, one build in this process under a profile that counts CPU time: the CPU
seconds of solving its tiers, per board of its tiers and cell; then of the rest of the build,
per canonical row, and the rest's parts: the merge into code order, the rows written to SQLite
(SQLite's own statements apart from making the rows), the packed arrays, the digest (the arrays
hashed as they are packed) and the packed parts read back from the file and proved to be the
bytes packed. Then the write's floor: SQLite copying the same rows, whole records, into
an empty table of the same file format (``INSERT INTO positions SELECT ...``: no Python, no
decoding of a row). Last, ``verify`` of the file (the proof a resumed build runs), per row.
CPU time of this process, so a machine shared with other work changes the numbers less than
wall time would.

    python benchmarks/profile_build_rest.py 4x4 3x6k4

(What the cost model's constants are set from, every process counted, is
``benchmarks/measure_build_costs.py``.)
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sqlite3
import tempfile
import time
from collections.abc import Callable

from ttt_solver.audit.verify import verify_source
from ttt_solver.builder.build import build
from ttt_solver.game.variant import Variant
from ttt_solver.lookup.rows import DatabaseRows
from ttt_solver.store import Target
from ttt_solver.store.reader import Reader
from ttt_solver.store.writer import FileWriter
from ttt_solver.system.cost_model import tier_boards

# The parts of the rest of the build: (what, the functions whose CPU it is, by file and name).
PARTS = (
    ("merge into code order", [("builder/merge.py", "merge_scratch")]),
    ("legal boards by value", [("builder/merge.py", "count_outcomes")]),
    ("rows: made and bound", [("store/writer.py", "positions")]),
    (
        "rows: SQLite's statements",  # and the moves table's, where one is stored (up to 16 cells)
        [
            ("~", "<method 'executemany' of 'sqlite3.Connection' objects>"),
            ("~", "<method 'execute' of 'sqlite3.Connection' objects>"),
            ("~", "<method 'commit' of 'sqlite3.Connection' objects>"),
        ],
    ),
    ("packed arrays", [("store/writer.py", "rest")]),
    ("digest (arrays hashed)", [("store/content.py", "update")]),
    ("packed parts read back", [("store/writer.py", "packed_hashes")]),
)


def cumulative(stats: pstats.Stats, where: str, name: str) -> float:
    """The CPU seconds spent in the function ``name`` of a file ending in ``where`` and below it."""
    table: dict[tuple[str, int, str], tuple[int, int, float, float, object]] = stats.stats  # type: ignore[attr-defined]
    return sum(
        entry[3] for (file, _line, function), entry in table.items() if file.endswith(where) and function == name
    )


def cpu(work: Callable[[], object]) -> float:
    started = time.process_time()
    work()
    return time.process_time() - started


def record_copy(built: str, variant: Variant, folder: str) -> float:
    """CPU seconds of SQLite copying the positions rows of ``built`` into an empty table made by
    the builder's own writer, whole records (what a write of these rows costs at the least)."""
    copy = os.path.join(folder, "copy.sqlite")
    FileWriter(copy, variant).close()
    with sqlite3.connect(copy) as conn:
        conn.execute("ATTACH DATABASE ? AS built", (built,))
        return cpu(lambda: conn.execute("INSERT INTO positions (code, data) SELECT code, data FROM built.positions"))


def measure(variant: Variant) -> None:
    """Build ``variant`` once under the profile and print its costs and the rest's parts."""
    boards = tier_boards(variant)
    with tempfile.TemporaryDirectory() as folder:
        target = os.path.join(folder, "db.sqlite")
        profile = cProfile.Profile(time.process_time)
        report = profile.runcall(build, target, variant)
        stats = pstats.Stats(profile)
        whole = cumulative(stats, "builder/build.py", "build")
        solve = cumulative(stats, "engine/solving.py", "solve_tiers")
        floor = record_copy(target, variant, folder)
        with Reader(Target.parse(report.target), variant.name) as reader:
            proof = cpu(lambda: verify_source(DatabaseRows(reader, variant)))
    rows = report.canonical_positions
    rest = whole - solve
    print(
        f"{variant}: {boards:,} boards, {rows:,} rows; solve {solve:.2f} s CPU"
        f" = {solve / boards / variant.cells * 1e9:.2f} ns per board and cell;"
        f" build {whole:.2f} s CPU, the rest {rest:.2f} s = {rest / rows * 1e9:.0f} ns per row;"
        f" verify {proof:.2f} s CPU = {proof / rows * 1e9:.0f} ns per row"
    )
    parts = {what: sum(cumulative(stats, *where) for where in functions) for what, functions in PARTS}
    parts["rows: made and bound"] -= parts["rows: SQLite's statements"]
    parts["packed arrays"] -= parts["digest (arrays hashed)"] + parts["packed parts read back"]
    parts["other"] = rest - sum(parts.values())
    for what, seconds in parts.items():
        print(f"  {what:<26} {seconds:6.2f} s = {seconds / rows * 1e9:4.0f} ns per row ({seconds / rest:4.0%})")
    print(
        f"  the write's floor: SQLite copying the rows' records {floor:.2f} s = {floor / rows * 1e9:.0f} ns per"
        f" row; the rest of the build is {rest / floor:.2f}x that"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="+")
    for name in parser.parse_args().variants:
        measure(Variant.parse(name))


if __name__ == "__main__":
    main()
