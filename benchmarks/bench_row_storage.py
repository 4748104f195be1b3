"""How a big variant's rows could be stored: one SQLite file written by one process, against
``--shards`` files of consecutive code ranges written side by side by as many processes (the
layout a distributed build could write without a serial step), each through the builder's own
writer (:class:`ttt_solver.store.writer.FileWriter`); then those shards joined into one file,
as a build could finish (``INSERT INTO positions SELECT * FROM`` each attached shard: SQLite
copies the records whole, without decoding them). Then point lookups of random stored codes
in each layout (a shard found by its first code). Prints the walls, the CPU and the ratios,
measured in the same run.

    ttt-lookup build --variant 3x6k4 --db /tmp/3x6k4.sqlite
    python benchmarks/bench_row_storage.py /tmp/3x6k4.sqlite 3x6k4 --shards 2

The rows written are the positions rows alone (no packed arrays, no meta): what the two layouts
do differently.
"""

from __future__ import annotations

import argparse
import bisect
import os
import random
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import closing

import numpy as np

from ttt_solver.game.variant import Variant
from ttt_solver.store.reader import Reader
from ttt_solver.store.target import Target
from ttt_solver.store.writer import FileWriter

BLOCK = 1 << 18  # rows a commit, as the builder writes them


def read_rows(db: str, variant: str) -> tuple[np.ndarray, np.ndarray]:
    codes, data = [], []
    with Reader(Target.parse(db), variant) as reader:
        for block_codes, block_data in reader.position_blocks(BLOCK, 1 << 62):
            codes.append(block_codes)
            data.append(block_data)
    return np.concatenate(codes), np.concatenate(data)


def blocks(codes: np.ndarray, data: np.ndarray) -> Iterator[np.ndarray]:
    for start in range(0, len(codes), BLOCK):
        yield np.column_stack([codes[start : start + BLOCK], data[start : start + BLOCK]])


def write(path: str, variant: str, arrays: str, start: int, stop: int) -> float:
    """Write rows ``start`` to ``stop`` of the arrays saved in ``arrays`` into a new file;
    this process's CPU time."""
    began = time.process_time()
    codes = np.load(os.path.join(arrays, "codes.npy"), mmap_mode="r")[start:stop]
    data = np.load(os.path.join(arrays, "data.npy"), mmap_mode="r")[start:stop]
    writer = FileWriter(path, Variant.parse(variant))
    try:
        writer.positions(blocks(np.asarray(codes), np.asarray(data)))
    finally:
        writer.close()
    return time.process_time() - began


def join(shards: list[str], path: str) -> float:
    """The shards' rows, in order, copied into a new file with the same table; this process's
    CPU time."""
    began = time.process_time()
    with closing(sqlite3.connect(shards[0])) as first:
        table = first.execute("SELECT sql FROM sqlite_master WHERE name = 'positions'").fetchone()[0]
    joined = sqlite3.connect(path)
    joined.execute(table)
    for shard in shards:
        joined.execute("ATTACH DATABASE ? AS shard", (shard,))
        joined.execute("INSERT INTO main.positions SELECT * FROM shard.positions")
        joined.commit()
        joined.execute("DETACH DATABASE shard")
    joined.close()
    return time.process_time() - began


def lookups(paths: list[str], firsts: list[int], codes: list[int]) -> float:
    """Median microseconds a lookup of one code, its shard found by bisecting ``firsts``."""
    connections = [sqlite3.connect(f"file:{path}?mode=ro", uri=True) for path in paths]
    times = []
    for _round in range(5):
        began = time.perf_counter()
        for code in codes:
            shard = bisect.bisect_right(firsts, code) - 1
            found = connections[shard].execute("SELECT data FROM positions WHERE code = ?", (code,)).fetchone()
            assert found is not None, code
        times.append((time.perf_counter() - began) / len(codes) * 1e6)
    for connection in connections:
        connection.close()
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", help="a built database of the variant")
    parser.add_argument("variant")
    parser.add_argument("--shards", type=int, default=2)
    parser.add_argument("--lookups", type=int, default=20_000)
    args = parser.parse_args()
    codes, data = read_rows(args.db, args.variant)
    total = len(codes)
    print(f"{args.variant}: {total:,} rows; load average {os.getloadavg()[0]:.1f}", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-row-storage-") as folder:
        np.save(os.path.join(folder, "codes.npy"), codes)
        np.save(os.path.join(folder, "data.npy"), data)
        one = os.path.join(folder, "one.sqlite")
        began = time.perf_counter()
        one_cpu = write(one, args.variant, folder, 0, total)
        one_wall = time.perf_counter() - began
        print(f"one file, one writer: {one_wall:.1f} s wall, {one_cpu:.1f} s CPU", flush=True)

        cuts = [total * i // args.shards for i in range(args.shards + 1)]
        shards = [os.path.join(folder, f"shard-{i}.sqlite") for i in range(args.shards)]
        began = time.perf_counter()
        with ProcessPoolExecutor(args.shards) as pool:
            cpus = list(pool.map(write, shards, [args.variant] * args.shards, [folder] * args.shards,
                                 cuts[:-1], cuts[1:]))  # fmt: skip
        shard_wall = time.perf_counter() - began
        print(
            f"{args.shards} shards, {args.shards} writers side by side: {shard_wall:.1f} s wall,"
            f" {sum(cpus):.1f} s CPU in the writers ({', '.join(f'{cpu:.1f}' for cpu in cpus)})",
            flush=True,
        )
        sizes = os.path.getsize(one), sum(os.path.getsize(path) for path in shards)
        print(f"bytes: one file {sizes[0] / 1e6:,.1f} MB, the shards {sizes[1] / 1e6:,.1f} MB")

        joined = os.path.join(folder, "joined.sqlite")
        began = time.perf_counter()
        join_cpu = join(shards, joined)
        join_wall = time.perf_counter() - began
        with closing(sqlite3.connect(joined)) as check:
            count, first, last = check.execute("SELECT count(*), min(code), max(code) FROM positions").fetchone()
        assert (count, first, last) == (total, int(codes[0]), int(codes[-1])), (count, first, last)
        print(
            f"the shards joined into one file: {join_wall:.1f} s wall, {join_cpu:.1f} s CPU;"
            f" written and joined {shard_wall + join_wall:.1f} s",
            flush=True,
        )
        os.remove(joined)

        sample = random.Random(1).sample(codes.tolist(), min(args.lookups, total))
        firsts = [int(codes[cut]) for cut in cuts[:-1]]
        one_us = lookups([one], [int(codes[0])], sample)
        shard_us = lookups(shards, firsts, sample)
        print(f"a lookup (median of 5 rounds of {len(sample):,}): one file {one_us:.1f} us, shards {shard_us:.1f} us")
        print(f"ratios, shards / one file: write wall {shard_wall / one_wall:.2f}, lookup {shard_us / one_us:.2f}")
        print(f"ratio, shards written and joined / one file: write wall {(shard_wall + join_wall) / one_wall:.2f}")


if __name__ == "__main__":
    main()
