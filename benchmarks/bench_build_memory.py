"""Peak memory of a streamed build against its ``--memory`` budget.

For each budget, ``ttt-lookup build --variant V --db TMP --quiet --memory M`` runs in its own
process, and this script reads that process's ``/proc/PID/status`` a few times a second:
resident memory in all (``VmRSS``), in anonymous pages (``RssAnon``: numpy arrays, SQLite's
page cache, Python) and in pages mapped from files (``RssFile``: the scratch folder's memory
maps, the shared libraries), each with the phase the scratch folder shows (solving, merging,
writing). It prints, per budget, the peak RSS the kernel kept (``ru_maxrss``), its ratio to
the budget, what the peak holds beyond the budget, and the peaks seen per phase. The budget
"holds" when the peak stays within the budget plus the fixed overhead README states.

``--resume`` measures a resumed build instead: the build is killed once its file holds
:data:`KILL_BYTES`, then run again without ``--force``; the second run is sampled, its proof of
the file before installing it as the phase "proving" (while verify's temporary folder exists).
``--baseline DIR`` measures the ``ttt_solver`` of another checkout first, in the same run, and
prints this checkout's peak as a ratio of it.

    python benchmarks/bench_build_memory.py --variant 3x6k4 --memory 64MB 256MB 1GB
    python benchmarks/bench_build_memory.py --variant 4x5k4 --memory 256MB
    python benchmarks/bench_build_memory.py --variant 3x6k4 --memory 64MB 256MB --resume --baseline /work/main
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, TextIO

from ttt_solver.cli.bounded_params import parse_size
from ttt_solver.solver.solve import default_memory

MB = 1 << 20
DEFAULT = "default"  # a --memory of this script: the build without one (its budget: default_memory())
FIELDS = ("VmRSS", "RssAnon", "RssFile")
SAMPLE = 0.1  # seconds between samples
KILL_BYTES = 64 * MB  # of the file written when --resume kills the first build
HERE = str(Path(__file__).resolve().parent.parent)  # this checkout


def status(pid: int) -> dict[str, int]:
    """The memory fields of ``/proc/PID/status``, in bytes ({} once the process is gone)."""
    try:
        with open(f"/proc/{pid}/status") as file:
            lines = file.read().splitlines()
    except OSError:
        return {}
    found = {}
    for line in lines:
        name, _, value = line.partition(":")
        if name in FIELDS:
            found[name] = int(value.split()[0]) * 1024
    return found


def phase_of(folder: Path) -> tuple[str, int | None]:
    """What a build's scratch folder shows (and the temporary folder beside it): the phase,
    and while solving the ply being solved."""
    try:
        names = sorted(p.name for p in folder.iterdir())
    except FileNotFoundError:
        return "outside", None  # starting, or done
    if any(p.name.startswith("ttt-verify-") for p in (folder.parent / "tmp").iterdir()):
        return "proving", None
    if "database.sqlite" in names:
        return "writing", None
    if "merged" in names:
        return "merging", None
    solving = [int(name[5:7]) for name in names if name.startswith("tier-") and name.endswith(".part")]
    return "solving", (solving[0] if solving else None)


def measure(
    variant: str, memory: str, where: Path, trace: TextIO | None, code: str, resume: bool
) -> tuple[int, dict[str, dict[str, int]]]:
    """The build's peak RSS (``ru_maxrss``) and, per phase, the peak of each field sampled
    (``code``: the checkout whose ttt_solver builds; ``resume``: of a build killed first)."""
    target = where / f"{variant}.sqlite"
    target.unlink(missing_ok=True)
    (where / "tmp").mkdir(exist_ok=True)
    environment = {**os.environ, "PYTHONPATH": code, "TMPDIR": str(where / "tmp")}
    command = [sys.executable, "-m", "ttt_solver", "build", "--variant", variant, "--db", str(target)]
    command += ["--quiet"] + ([] if memory == DEFAULT else ["--memory", memory])
    folder = where / f".{target.name}.solving"
    if resume:  # cwd: python -m imports from the working folder first
        _killed(subprocess.Popen([*command, "--force"], env=environment, cwd=code), folder / "database.sqlite")
    process = subprocess.Popen(command if resume else [*command, "--force"], env=environment, cwd=code)
    peaks: dict[str, dict[str, int]] = {}
    try:
        code, usage = _follow(process, folder, peaks, trace)
    finally:
        if process.poll() is None:
            process.kill()
    if code:
        raise SystemExit(f"the build of {variant} with --memory {memory} failed ({code})")
    return usage.ru_maxrss * 1024, peaks


def _killed(process: subprocess.Popen[bytes], file: Path) -> None:
    """Kill ``process`` once ``file`` holds :data:`KILL_BYTES`."""
    while process.poll() is None:
        if file.exists() and file.stat().st_size >= KILL_BYTES:
            process.kill()
            process.wait()
            return
        time.sleep(SAMPLE / 2)
    raise SystemExit(f"the build ended ({process.returncode}) before {file} held {KILL_BYTES // MB} MB")


def _follow(
    process: subprocess.Popen[bytes], folder: Path, peaks: dict[str, dict[str, int]], trace: TextIO | None
) -> tuple[int, Any]:
    """Sample ``process`` into ``peaks`` (and each sample into ``trace``) until it ends; its
    exit code and resource usage."""
    started = time.perf_counter()
    proved = False
    while True:
        finished, code, usage = os.wait4(process.pid, os.WNOHANG)
        if finished:
            break
        now = status(process.pid)
        phase, ply = phase_of(folder)
        proved = proved or phase == "proving"
        if proved and phase != "proving":
            phase = "installing"  # the file renamed, the scratch folder removed
        if now:
            kept = peaks.setdefault(phase, {**dict.fromkeys(FIELDS, 0), "at": -1})
            if now["VmRSS"] >= kept["VmRSS"] and ply is not None:
                kept["at"] = ply
            for name in FIELDS:
                kept[name] = max(kept[name], now.get(name, 0))
            if trace:
                sampled = " ".join(f"{name} {now.get(name, 0) // MB}" for name in FIELDS)
                print(f"{time.perf_counter() - started:7.1f} s {phase} {ply} {sampled}", file=trace, flush=True)
        time.sleep(SAMPLE)
    process.returncode = os.waitstatus_to_exitcode(code)
    return process.returncode, usage


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="3x6k4")
    parser.add_argument(
        "--memory",
        nargs="+",
        default=["64MB", "256MB", "1GB"],
        help=f"budgets; {DEFAULT!r}: no --memory (the build's own)",
    )
    parser.add_argument("--trace", type=argparse.FileType("w"), help="write every sample (MB) to this file")
    parser.add_argument("--resume", action="store_true", help="measure a build killed while writing, run again")
    parser.add_argument("--baseline", help="a checkout whose ttt_solver is measured first, in the same run")
    args = parser.parse_args()
    what = "resumed build" if args.resume else "build"
    with tempfile.TemporaryDirectory(prefix="ttt-memory-") as where:
        for memory in args.memory:
            budget = default_memory() if memory == DEFAULT else parse_size(memory)
            if budget is None:
                raise SystemExit(f"not a size: {memory!r}")
            before = None
            for code in ([args.baseline] if args.baseline else []) + [HERE]:
                started = time.perf_counter()
                peak, peaks = measure(args.variant, memory, Path(where), args.trace, code, args.resume)
                ratio = f", {peak / before:.2f} x the baseline's" if before else ""
                print(
                    f"{args.variant} {what} --memory {memory} ({code}): peak RSS {peak / MB:,.0f} MB,"
                    f" {peak / budget:.2f} x the budget, {(peak - budget) / MB:+,.0f} MB beyond it{ratio}"
                    f" ({time.perf_counter() - started:.0f} s)",
                    flush=True,
                )
                for phase, kept in peaks.items():
                    ply = f" (VmRSS peak while solving ply {kept['at']})" if kept["at"] >= 0 else ""
                    sampled = ", ".join(f"{name} {kept[name] / MB:,.0f} MB" for name in FIELDS)
                    print(f"  {phase:<16} sampled peaks: {sampled}{ply}", flush=True)
                before = peak


if __name__ == "__main__":
    main()
