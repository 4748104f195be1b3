"""Count the legal and canonical positions of variants from the rules alone (``tests/support/counting.py``).

    python benchmarks/count_positions.py VARIANT... [--by-ply]

One line per variant: its legal and canonical positions and the wall and CPU seconds the count
took (the counter is independent of the solver: see its docstring). ``--by-ply`` adds a line
per ply. These are the numbers ``tests/lookup/test_twenty.py`` pins for the 20-cell databases.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from support.counting import count_positions  # from tests/, put on the path above

from ttt_solver.game.variant import Variant


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("variants", nargs="+", metavar="VARIANT", help="e.g. 4x5k4 5x4k3 4x5k4-misere")
    parser.add_argument("--by-ply", action="store_true", help="also print the counts of each ply")
    args = parser.parse_args()
    variants = [Variant.parse(name) for name in args.variants]  # every name checked before the first count
    for variant in variants:
        wall, cpu = time.perf_counter(), time.process_time()
        counts = count_positions(variant)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(
            f"{variant.name}: {counts.legal:,} legal positions, {counts.canonical:,} canonical"
            f" ({wall:.1f} s wall, {cpu:.1f} s CPU)",
            flush=True,
        )
        if args.by_ply:
            for ply, (legal, canonical) in enumerate(zip(counts.legal_by_ply, counts.canonical_by_ply)):
                print(f"  ply {ply:2}: {legal:>13,} legal {canonical:>12,} canonical")


if __name__ == "__main__":
    main()
