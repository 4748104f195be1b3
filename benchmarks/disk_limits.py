"""Builds that meet a full disk or a file-size limit, as a user meets them, then resume.

Each case runs ``ttt-lookup build --variant V --db DB --force --memory M`` over an intact
database of the same variant (a small ``--memory``, so the tiers, the merge and the rows go
through the scratch folder):

- **disk full**: DB on a tmpfs of its own (``mount -t tmpfs``, so this needs root), where a
  filler file takes all the free space but ``--slack`` once the build has gone a given part of
  the way (its scratch folder shows how far: finished tiers, merged rows, the new file's size);
  and once on a tmpfs too small from the start, which the build must refuse before it starts;
- **file-size limit**: ``ulimit -f`` (RLIMIT_FSIZE on the build's process) at a few sizes.

Each case prints one line: the exit code, what the error line says (disk full / file-size
limit / not enough space before the start), the phase the scratch folder shows, whether the
folder was kept and its size (against the size the message states), whether the old database
is byte for byte as it was, and what else is left beside it. Then the filler is removed (the
tmpfs made big enough, the limit lifted) and the same command runs again: it must resume and
install the clean build's digest and rows.

Usage::

    sudo python benchmarks/disk_limits.py [--variant 3x5k4] [--memory 2MB]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

from damage_campaign import contents, phase_of, progress

from ttt_solver.builder.disk import estimate
from ttt_solver.builder.kept import folder_size
from ttt_solver.game.variant import Variant
from ttt_solver.system.memory import size_text

COMMAND = [sys.executable, "-m", "ttt_solver", "build"]
MIB = 1 << 20
FILL_AT = {"solving, early": 0.2, "solving, late": 0.6, "merging": 1.5, "writing": 2.5}


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def mount(folder: Path, size: int, remount: bool = False) -> None:
    options = f"remount,size={size}" if remount else f"size={size}"
    subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], check=True, capture_output=True)


def fill_once_at(
    process: subprocess.Popen[str], folder: Path, at: float, filler: Path, slack: int, **sizes: int
) -> str:
    """Once the build has gone ``at`` of the way (0-3, see damage_campaign.progress), a filler
    file takes the disk's free space but ``slack`` bytes; what was filled, and where."""
    while process.poll() is None and progress(folder, **sizes) < at:
        time.sleep(0.01)
    if process.poll() is not None:
        return "the build ended before the filler was written"
    with filler.open("wb") as handle:
        for _ in range(100):  # the build writes meanwhile: what was free may be gone
            free = shutil.disk_usage(filler.parent).free
            try:
                os.posix_fallocate(handle.fileno(), 0, max(1, free - slack))
                break
            except OSError:
                continue
    return f"filled {size_text(free - slack)} at {phase_of(folder)} ({progress(folder, **sizes):.2f})"


def judge(done: subprocess.CompletedProcess[str] | subprocess.Popen[str], stderr: str, db: Path, old: str) -> str:
    """One line on a stopped build: exit, which error, phase, scratch kept and size, old database."""
    folder = db.parent / f".{db.name}.solving"
    lines = stderr.strip().splitlines()
    said = (
        "disk full"
        if "the disk is full" in stderr
        else "file-size limit"
        if "file-size limit" in stderr
        else "not enough space before the start"
        if "not enough disk space" in stderr
        else "OTHER"
    )
    shape = "one Error: line" if len(lines) == 1 and lines[0].startswith("Error:") else f"{len(lines)} LINES"
    stated = re.search(r"\(([0-9.]+ ?[KMG]?B)\) is kept", stderr)
    kept = (
        f"scratch kept, {size_text(folder_size(str(folder)))} (message: {stated[1] if stated else 'none stated'})"
        if folder.exists()
        else "no scratch folder" + (" (message says kept!)" if stated else "")
    )
    beside = sorted(
        p.name for p in db.parent.iterdir() if p.name not in {db.name, folder.name, "filler", "intact.sqlite"}
    )
    untouched = "old database untouched" if sha(db) == old else "OLD DATABASE CHANGED"
    phase = phase_of(folder) or "-"
    return f"exit {done.returncode}, {said}, {shape}, phase {phase}, {kept}, {untouched}, also beside it: {beside}"


def rerun(command: list[str], db: Path, clean: object) -> str:
    """The same command again, without --force (which starts over) and --quiet (which hides
    the "resuming" line)."""
    command = [c for c in command if c not in {"--force", "--quiet"}]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    resumed = "resuming" if "resuming" in done.stderr.lower() else "NO 'resuming' LINE"
    right = "clean digest and rows" if contents(db) == clean else "NOT THE CLEAN BUILD"
    tail = "" if done.returncode == 0 else f": {done.stderr.strip()}"
    said = [line for line in done.stderr.splitlines() if "resuming" in line.lower()]
    tail += f" ({'; '.join(said)})" if said else ""
    return f"rerun with room: exit {done.returncode}, {resumed}, {right}{tail}"


def case(name: str, line: str, then: str, results: list[str]) -> None:
    results.append(f"{name}: {line}\n    {then}")
    print(results[-1], flush=True)


def disk_cases(
    args: argparse.Namespace, intact: Path, clean: object, sizes: dict[str, int], results: list[str]
) -> None:
    disk = Path(tempfile.mkdtemp(prefix="ttt-disk-"))
    roomy = intact.stat().st_size + estimate(Variant.parse(args.variant)) + 8 * MIB
    try:
        try:
            mount(disk, roomy)
        except subprocess.CalledProcessError as error:
            print(f"disk cases skipped: cannot mount a tmpfs ({error.stderr.strip()})")
            return
        db, filler = disk / "ttt.sqlite", disk / "filler"
        command = [*COMMAND, "--variant", args.variant, "--db", str(db), "--force", "--memory", args.memory, "--quiet"]
        for name, at in FILL_AT.items():
            shutil.copyfile(intact, db)
            old = sha(db)
            process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            filled = fill_once_at(process, db.parent / f".{db.name}.solving", at, filler, args.slack, **sizes)
            stderr = process.communicate()[1]
            line = f"{filled}; {judge(process, stderr, db, old)}"
            filler.unlink(missing_ok=True)
            case(f"disk full, {name}", line, rerun(command, db, clean), results)
            shutil.rmtree(disk / f".{db.name}.solving", ignore_errors=True)
        # Too small from the start: the old file and a fifth of what the build writes.
        shutil.copyfile(intact, db)
        old = sha(db)
        mount(disk, intact.stat().st_size + estimate(Variant.parse(args.variant)) // 5, remount=True)
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        line = judge(done, done.stderr, db, old) + f"; said: {done.stderr.strip()}"
        mount(disk, roomy, remount=True)
        case("disk too small from the start", line, rerun(command, db, clean), results)
    finally:
        subprocess.run(["umount", str(disk)], check=False)
        shutil.rmtree(disk, ignore_errors=True)


def limit_cases(args: argparse.Namespace, intact: Path, clean: object, where: Path, results: list[str]) -> None:
    db = where / "ttt.sqlite"
    command = [*COMMAND, "--variant", args.variant, "--db", str(db), "--force", "--memory", args.memory, "--quiet"]
    for limit in args.limits:
        shutil.copyfile(intact, db)
        old = sha(db)
        done = subprocess.run(command, capture_output=True, text=True, check=False, preexec_fn=capped(limit))
        line = judge(done, done.stderr, db, old)
        case(f"ulimit -f {limit // 1024}", line, rerun(command, db, clean), results)
        shutil.rmtree(where / f".{db.name}.solving", ignore_errors=True)


def capped(limit: int) -> Callable[[], None]:
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return cap


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="3x5k4")
    parser.add_argument("--memory", default="2MB", help="the builds' budget: small, so the scratch folder is used")
    parser.add_argument("--slack", type=int, default=256 * 1024, help="bytes the filler leaves free")
    parser.add_argument(
        "--limits", type=int, nargs="+", default=[256 << 10, 4 << 20, 12 << 20], help="ulimit -f sizes, in bytes"
    )
    args = parser.parse_args()
    started = time.perf_counter()
    results: list[str] = []
    with tempfile.TemporaryDirectory(prefix="ttt-limits-") as where:
        intact = Path(where) / "intact.sqlite"
        subprocess.run([*COMMAND, "--variant", args.variant, "--db", str(intact), "--quiet"], check=True)
        clean = contents(intact)
        rows_, columns_ = (int(n) for n in re.findall(r"[0-9]+", args.variant)[:2])
        with closing(sqlite3.connect(intact)) as conn:
            rows = conn.execute("SELECT count(*) FROM positions").fetchone()[0]
        sizes = {"tiers": rows_ * columns_ + 1, "rows": rows, "size": intact.stat().st_size}
        disk_cases(args, intact, clean, sizes, results)
        limit_cases(args, intact, clean, Path(where), results)
    print(f"{args.variant} --memory {args.memory}: {len(results)} cases, {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
