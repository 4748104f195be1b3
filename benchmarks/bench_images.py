"""How a distributed build's task splits a chunk's images by range of ranks
(:func:`ttt_solver.engine.shuffle.write_images`: a pass per range up to
:data:`~ttt_solver.engine.shuffle.FEW_RANGES` ranges, a sort beyond) against one stable sort
of every image by its range whatever their number (how it was split before), on the same
chunk, measured in the same run. Prints the CPU time a million images of each, the median of
``--repeat`` runs, and the ratio, for 1 to 32 ranges.

    python benchmarks/bench_images.py --variant 4x5k4 --ply 17

The chunk is the first of tier ``--ply`` (2 million boards at most, as a task's under the
default budget), solved in memory after the tiers above it (seconds for 4x5k4's ply 17).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import BinaryIO

import numpy as np

from ttt_solver.engine.shuffle import IMAGE_BYTES, RANK, Groups, write_images
from ttt_solver.game.variant import Variant
from ttt_solver.solver import MAX_CHUNK
from ttt_solver.solver.passes import images, new_tier, solve_chunk, spread
from ttt_solver.solver.tiers import Tiers, tiers

Writer = Callable[[Tiers, int, object, Sequence[int], BinaryIO], Groups]


def sorted_images(found: Tiers, ply: int, solved: object, bounds: Sequence[int], file: BinaryIO) -> Groups:
    """The baseline: every image of the chunk in one array, sorted by its range (stable)."""
    ranks, results = [], []
    for rank, result in images(found, ply, solved):  # type: ignore[arg-type]
        ranks.append(rank)
        results.append(result)
    rank, result = np.concatenate(ranks), np.concatenate(results)
    count = len(bounds) - 1
    group = (rank // max(1, bounds[1])).astype(np.min_scalar_type(count))
    order = np.argsort(group, kind="stable")
    first = [0, *np.cumsum(np.bincount(group, minlength=count)).tolist()]
    rank, result = rank[order], result[order]
    base = file.tell()
    for index in range(count):
        start, stop = first[index], first[index + 1]
        (rank[start:stop] - bounds[index]).astype(RANK).tofile(file)
        result[start:stop].tofile(file)
    return Groups([base + index * IMAGE_BYTES for index in first], [])  # (no CRC-32s: not read back)


def solved_chunk(found: Tiers, ply: int) -> object:
    """The first chunk of tier ``ply`` as a build's task solves it (at most MAX_CHUNK boards),
    every tier above it solved whole first."""
    below = None
    for above in range(found.variant.cells, ply, -1):
        solved = solve_chunk(found, above, 0, found.size(above), below)
        below = new_tier(found, above)
        spread(found, above, solved, below)
    return solve_chunk(found, ply, 0, min(found.size(ply), MAX_CHUNK), below)


def cpu_per_million(writer: Writer, found: Tiers, ply: int, solved: object, bounds: list[int], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        with tempfile.TemporaryFile() as file:
            began = time.process_time()
            starts = writer(found, ply, solved, bounds, file).starts
            times.append(time.process_time() - began)
        count = (starts[-1] - starts[0]) // IMAGE_BYTES
    return statistics.median(times) / count * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="4x5k4")
    parser.add_argument("--ply", type=int, default=17)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    found = tiers(Variant.parse(args.variant))
    solved = solved_chunk(found, args.ply)
    size = found.size(args.ply)
    print(f"{args.variant}, tier {args.ply}: {size:,} boards; its first chunk: {len(solved):,} positions")  # type: ignore[arg-type]
    print("ranges  split (s per million images)  one sort  ratio")
    for count in (1, 2, 4, 8, 16, 32):
        width = -(-size // count)
        bounds = [min(size, index * width) for index in range(count + 1)]
        new = cpu_per_million(write_images, found, args.ply, solved, bounds, args.repeat)  # type: ignore[arg-type]
        old = cpu_per_million(sorted_images, found, args.ply, solved, bounds, args.repeat)
        print(f"{count:6d}  {new:29.4f}  {old:8.4f}  {new / old:5.2f}")


if __name__ == "__main__":
    main()
