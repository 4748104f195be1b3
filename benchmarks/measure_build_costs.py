"""Measure what a build costs, every process counted, and print the cost model's prediction
against it (plan / measured): the numbers :mod:`ttt_solver.system.cost_model` is set from.

Each run is a child process: ``build()`` of the variant into a fresh temporary folder (the
command line's code path, the tier pipeline into a scratch folder, then merge, SQLite file and
digest) on this process or, with ``--engine dask``, on a local cluster of ``--workers``
workers; then, in one process, ``ttt-lookup verify`` of the file. The CPU is the child's
``os.wait4`` usage: its own and that of every process it started and waited for (Dask's nannies
and their workers, reaped as the cluster closes); with Dask the workers' own count
(``Client.run``) is printed beside it. The disk is the temporary folder's peak, sampled every
50 ms; the memory the largest process's peak RSS.

``--tiers N`` solves only the last N tiers instead (what ``benchmarks/solve_last_tiers.py``
runs; no file, no verify): ``5x5k4 --tiers 5`` is plies 25 to 21, and ``--plan-only`` prints
the plan's numbers for it without running anything. Printed per variant: the CPU, disk and
memory, plan against measured, as ratios; then the constants the run measures (solving per
legal position, from the child's CPU as the solve ends; the rest per row; verify per row; the
disk per row).

    python benchmarks/measure_build_costs.py 4x4 3x5k4
    python benchmarks/measure_build_costs.py 3x6k4 --engine dask --workers 2
    python benchmarks/measure_build_costs.py 5x5k4 --tiers 5 --engine dask --workers 2 --plan-only
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from ttt_solver.builder.kept import folder_size
from ttt_solver.builder.plan import Plan, make_plan
from ttt_solver.game.variant import Variant
from ttt_solver.system import cost_model


def cpu() -> float:
    """CPU seconds of this process and of the children it has waited for."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def child(
    variant: Variant, folder: str, engine_name: str, workers: int, tiers: int | None, memory: int | None
) -> dict[str, Any]:
    """The measured run, in the child: a build (or the last ``tiers`` tiers solved)."""
    from ttt_solver.builder.build import build
    from ttt_solver.engine import InProcess, open_scratch, solve_tiers
    from ttt_solver.solver import default_memory
    from ttt_solver.solver import tiers as tiers_of

    found: dict[str, Any] = {"started": cpu()}  # after the imports
    tiers_of(variant)  # cached: the build finds them built
    found["tables"] = cpu() - found["started"]

    def steps(phase: str, _done: int, _total: int) -> None:
        if phase != "solving" and "solved" not in found:
            found["solved"] = cpu()

    context: AbstractContextManager[Any] = nullcontext(InProcess())
    if engine_name == "dask":
        from ttt_solver.engine.engine_dask import DaskEngine  # the extra, only when asked for

        context = DaskEngine(workers=workers)
    with context as engine:
        client = getattr(engine, "client", None)
        before = client.run(time.process_time) if client else {}
        if tiers is None:
            report = build(os.path.join(folder, "db.sqlite"), variant, engine=engine, steps=steps, memory=memory)
            found["rows"] = report.canonical_positions
        else:
            scratch = open_scratch(os.path.join(folder, "scratch"), variant, {"measure": tiers})
            solve_tiers(engine, scratch, memory or default_memory(), lowest=variant.cells + 1 - tiers)
        if client:
            after = client.run(time.process_time)
            found["workers"] = sum(after[w] - before.get(w, 0.0) for w in after)
    found.setdefault("solved", cpu())
    return found


def measured(command: list[str], folder: str) -> tuple[float, int, int, str]:
    """Run ``command``: its CPU seconds (children counted), the folder's peak bytes, the largest
    process's peak RSS, and what it printed."""
    with tempfile.TemporaryFile("w+") as out:
        process = subprocess.Popen(command, stdout=out, env={**os.environ, "TTT_DB": ""})
        peak = 0
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            peak = max(peak, folder_size(folder))
            time.sleep(0.05)
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read()
    if process.returncode:
        raise SystemExit(f"{command} failed ({process.returncode}):\n{text}")
    return usage.ru_utime + usage.ru_stime, peak, usage.ru_maxrss * 1024, text


def planned(plan: Plan, tiers: int | None, processes: int) -> tuple[float, int, int, int, int]:
    """The plan's CPU seconds on ``processes`` processes, its disk and memory (one process's
    peak) for the run, with its legal positions and rows."""
    v = plan.variant
    chosen = [t for t in plan.tiers if tiers is None or t.ply > v.cells - tiers]
    legal, rows = sum(t.legal for t in chosen), sum(t.canonical for t in chosen)
    widest = max(t.boards for t in chosen)
    if tiers is None:
        seconds = cost_model.build_seconds(v, legal, rows, processes)
        return seconds, plan.disk_bytes, plan.build_memory, legal, rows
    seconds = cost_model.process_seconds(v, processes) + cost_model.solve_seconds(legal)
    disk = cost_model.disk_bytes(rows, widest, max(t.legal for t in chosen)) - cost_model.file_bytes(rows)
    return seconds, disk, cost_model.worker_memory(v), legal, rows


def ratio(plan: float, measure: float) -> str:
    return f"{plan / measure:.2f}" if measure else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="+")
    parser.add_argument("--engine", choices=("none", "dask"), default="none")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--tiers", type=int, default=None, help="solve only the last N tiers (no file, no verify)")
    parser.add_argument("--memory", type=int, default=None, help="bytes: the build's (or a task's) budget")
    parser.add_argument("--plan-only", action="store_true", help="print the plan's numbers; run nothing")
    parser.add_argument("--child", help=argparse.SUPPRESS)  # the folder of the measured run, in the child
    args = parser.parse_args()
    if args.child:
        found = child(Variant.parse(args.variants[0]), args.child, args.engine, args.workers, args.tiers, args.memory)
        print(json.dumps(found))
        return
    for name in args.variants:
        report(Variant.parse(name), args)


def report(variant: Variant, args: argparse.Namespace) -> None:
    """Measure one variant (or only plan it) and print the ratios and the constants."""
    cells = variant.cells
    with tempfile.TemporaryDirectory() as folder:
        processes = 1 + (args.workers if args.engine == "dask" else 0)
        plan_cpu, plan_disk, plan_memory, legal, rows = planned(make_plan(variant, folder), args.tiers, processes)
        what = f"{variant}" + (f" plies {cells} to {cells + 1 - args.tiers}" if args.tiers else "")
        print(
            f"{what}: about {legal:,} legal positions in {rows:,} rows; plan on {processes} process(es):"
            f" CPU {plan_cpu:.1f} s,"
            f" disk {plan_disk / 1e6:.0f} MB, memory {plan_memory / 1e6:.0f} MB a process",
            flush=True,
        )
        if args.plan_only:
            return
        command = [sys.executable, __file__, variant.name, "--child", folder, "--engine", args.engine]
        command += ["--workers", str(args.workers)] + (["--tiers", str(args.tiers)] if args.tiers else [])
        command += ["--memory", str(args.memory)] if args.memory else []
        seconds, disk, rss, text = measured(command, folder)
        found = json.loads(text.splitlines()[-1])
        workers = f" ({found['workers']:.1f} s in the workers)" if "workers" in found else ""
        print(
            f"  measured: CPU {seconds:.1f} s{workers}, disk {disk / 1e6:.0f} MB, peak RSS {rss / 1e6:.0f} MB;"
            f" plan / measured: CPU {ratio(plan_cpu, seconds)}, disk {ratio(plan_disk, disk)},"
            f" memory {ratio(plan_memory, rss)}",
            flush=True,
        )
        if args.engine == "none":
            solve = found["solved"] - found["started"] - found["tables"]
            print(
                f"  solve: {solve:.1f} s CPU = {solve / legal * 1e9:.0f} ns per legal position, after"
                f" {found['started']:.1f} s of start-up and {found['tables']:.1f} s of tier tables",
                flush=True,
            )
        if args.tiers is None and args.engine == "none":
            constants(variant, folder, found, seconds, disk, rows)


def constants(variant: Variant, folder: str, found: dict[str, Any], seconds: float, disk: int, rows: int) -> None:
    """The per-row constants a whole build measures: the rest of the build, the disk and verify."""
    widest = max(cost_model.tier_sizes(variant))
    rows = found["rows"]
    rest = seconds - found["solved"]
    file = os.path.join(folder, "db.sqlite")
    command = [sys.executable, "-m", "ttt_solver", "verify", "--quiet", "--db", file, "--variant", variant.name]
    proof, _disk, _rss, _text = measured(command, folder)
    plan_proof = cost_model.verify_seconds(rows)
    print(
        f"  rest of the build: {rest:.1f} s CPU = {rest / rows * 1e9:.0f} ns per row; disk"
        f" {(disk - 2 * (widest + 1)) / rows:.1f} bytes per row beside two tiers' result bytes, the file"
        f" {os.path.getsize(file) / rows:.1f}; verify {proof:.1f} s CPU = {proof / rows * 1e9:.0f} ns per row"
        f" (plan / measured {ratio(plan_proof, proof)})",
        flush=True,
    )


if __name__ == "__main__":
    main()
