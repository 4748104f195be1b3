"""A PostgreSQL build against a SQLite build of the same variant, in the same run (goal: 4x4
on PostgreSQL within 2x the SQLite build).

    python benchmarks/bench_postgres.py [--variant 4x4] [--runs 3]

Starts a throwaway PostgreSQL cluster with the server's default settings (fsync on; the SQLite
build writes its temporary file without a journal and then renames it), builds the variant in
a fresh ``ttt-lookup build`` process to a SQLite file and to the server, alternately, and
prints the medians: wall time, the builder's CPU, and for PostgreSQL the server's CPU too (the
backends' time, which the postmaster collects as it reaps them). Needs the server binaries
(``apt-get install postgresql``) and the ``[postgres]`` extra.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_data_layer import child_cpu
from support.pg_cluster import Cluster, unavailable


def server_cpu(cluster: Cluster) -> float:
    """CPU seconds of the postmaster and the backends it has reaped so far."""
    pid = int((cluster.data / "postmaster.pid").read_text().split()[0])
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    ticks = sum(int(fields[i]) for i in (11, 12, 13, 14))  # utime, stime, cutime, cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="4x4")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    why = unavailable()
    if why:
        raise SystemExit(f"cannot start PostgreSQL: {why}")
    build = [sys.executable, "-m", "ttt_solver", "build", "--variant", args.variant, "--force", "--quiet"]
    sqlite: list[tuple[float, float]] = []
    server: list[tuple[float, float, float]] = []
    with tempfile.TemporaryDirectory() as folder, Cluster(durable=True) as cluster:
        url = cluster.database("bench")
        path = str(Path(folder, "bench.sqlite"))
        for _ in range(args.runs):
            wall, cpu, _rss = child_cpu([*build, "--db", path])
            sqlite.append((wall, cpu))
            before = server_cpu(cluster)
            wall, cpu, _rss = child_cpu([*build, "--db", url])
            server.append((wall, cpu, server_cpu(cluster) - before))
    s_wall, s_cpu = (statistics.median(run[i] for run in sqlite) for i in range(2))
    p_wall, p_cpu, p_server = (statistics.median(run[i] for run in server) for i in range(3))
    print(f"{args.variant} build, medians of {args.runs} runs (wall s, builder CPU s, server CPU s):")
    print(f"  SQLite      {s_wall:6.2f}  {s_cpu:6.2f}")
    print(f"  PostgreSQL  {p_wall:6.2f}  {p_cpu:6.2f}  {p_server:6.2f}")
    print(
        f"  ratio PostgreSQL / SQLite: wall {p_wall / s_wall:.2f}, CPU (builder + server) {(p_cpu + p_server) / s_cpu:.2f}"
    )
    print("  goal: within 2x")


if __name__ == "__main__":
    main()
