"""Split the solve of a build's tiers (the in-process engine, what ``ttt-lookup build`` runs before
it merges) into its parts, CPU seconds.

For each variant, its tiers solved into a fresh scratch folder (``solve_tiers`` on the in-process
engine, the build's default budget), the whole timed by ``time.process_time`` (every thread of
this process) and each part by ``time.thread_time`` of the thread that runs it (the driver
records a tier in a thread of its own while the next tier's tasks run): a chunk's solve (the
passes: canonical forms, legality, the back-up), its rows and
images written to its chunk file, a range's gather of its images (or, a tier of one range,
its spread of the chunks' rows), the join of the ranges, and
the record of a tier (its rows appended from the chunk files to its column files, hashed and
checked). No profiler: its cost per call would swamp the short calls and hide the recording thread.

    python benchmarks/profile_solve.py 3x6k4
"""

from __future__ import annotations

import argparse
import functools
import os
import tempfile
import time
from collections.abc import Callable
from typing import Any

from ttt_solver.engine import InProcess, open_scratch, pipeline, scratch, shuffle, solving
from ttt_solver.game.variant import Variant
from ttt_solver.solver import default_memory
from ttt_solver.system.cost_model import tier_boards

# The parts: (what, the module or class whose attribute is timed, its name).
PARTS: tuple[tuple[str, Any, str], ...] = (
    ("a chunk's solve (the passes)", solving, "solve_chunk"),
    ("a chunk's rows written", solving, "write_rows"),
    ("a chunk's images written", shuffle, "write_images"),
    ("a range's images gathered", shuffle, "gather_range"),
    ("a range spread from the rows", shuffle, "spread_range"),
    ("the ranges joined", pipeline, "join_ranges"),
    ("a tier recorded", solving._Solve, "record"),
    ("  its rows appended, checked", scratch.TierSink, "append"),
)


def timed(function: Callable[..., Any], seconds: dict[str, float], what: str) -> Callable[..., Any]:
    """``function``, adding the CPU time of the thread that runs it to ``seconds[what]``."""

    @functools.wraps(function)
    def run(*args: Any, **kwargs: Any) -> Any:
        started = time.thread_time()
        try:
            return function(*args, **kwargs)
        finally:
            seconds[what] += time.thread_time() - started

    return run


def measure(variant: Variant) -> None:
    seconds = dict.fromkeys((what for what, _owner, _name in PARTS), 0.0)
    originals = [(owner, name, getattr(owner, name)) for _what, owner, name in PARTS]
    for (what, owner, name), (_owner, _name, function) in zip(PARTS, originals):
        setattr(owner, name, timed(function, seconds, what))
    try:
        with tempfile.TemporaryDirectory() as folder:
            found = open_scratch(os.path.join(folder, "scratch"), variant, {"benchmark": "profile_solve"})
            started = time.process_time()
            solving.solve_tiers(InProcess(), found, default_memory())
            whole = time.process_time() - started
    finally:
        for owner, name, function in originals:
            setattr(owner, name, function)
    boards = tier_boards(variant)
    print(
        f"{variant}: solve_tiers {whole:.2f} s CPU = {whole / boards / variant.cells * 1e9:.2f} ns per board and cell"
    )
    for what, spent in seconds.items():
        print(f"  {what:<32} {spent:6.2f} s ({spent / whole:4.0%})")
    parts = sum(spent for what, spent in seconds.items() if not what.startswith(" "))
    print(f"  {'other':<32} {whole - parts:6.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="+")
    for name in parser.parse_args().variants:
        measure(Variant.parse(name))


if __name__ == "__main__":
    main()
