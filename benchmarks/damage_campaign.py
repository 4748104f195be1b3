"""A random campaign against resumable builds: kill a build at a random moment, damage its
scratch folder at random, build again, and count what the rerun did.

Each run starts ``ttt-lookup build`` with a small ``--memory`` (so that the tiers, the merge
and the rows go through the scratch folder), sends it SIGKILL, SIGTERM or SIGINT after a
random delay (or lets it finish), then damages up to two files or folders of the scratch
folder (cut to a random length, bits flipped, removed, emptied), and runs the same command
again. The rerun is

- a **correct install**: exit 0, and the database holds the clean build's digest and exactly
  its position rows (so verify passes it as it passes the clean build);
- a **clear refusal**: exit 1 or 2 with one ``Error:`` line naming the scratch folder, after
  which ``--force`` installs the clean build (counted apart if it does not);
- a **wrong install** (exit 0 and anything else in the file) or a **traceback**: both must be 0.

Usage::

    python benchmarks/damage_campaign.py --variant 3x4k3 --memory 1MB --runs 200 --seed 1
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path

COMMAND = [sys.executable, "-m", "ttt_solver", "build"]
SIGNALS = (signal.SIGKILL, signal.SIGTERM, signal.SIGINT)


def run_build(target: Path, variant: str, memory: str, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*COMMAND, "--variant", variant, "--db", str(target), "--memory", memory, "--quiet", *extra],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def contents(db: Path) -> tuple[str, list[tuple[int, int]]] | None:
    """The digest meta states and the position rows, or None if SQLite cannot read them."""
    try:
        with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
            digest = conn.execute("SELECT value FROM meta WHERE key = 'digest'").fetchone()[0]
            return digest, conn.execute("SELECT code, data FROM positions ORDER BY code").fetchall()
    except (sqlite3.Error, TypeError):
        return None


def damage(folder: Path, rng: random.Random) -> list[str]:
    """Up to two random files or folders of ``folder`` damaged at random; what was done."""
    if not folder.exists():
        return []
    paths = [p for p in folder.rglob("*") if p.name != "lock"]
    done = []
    for path in rng.sample(paths, min(len(paths), rng.randint(0, 2))):
        if not path.exists():
            continue
        kind = "remove" if path.is_dir() else rng.choice(["truncate", "flip", "remove", "empty"])
        if kind == "remove":
            shutil.rmtree(path) if path.is_dir() else path.unlink()
        elif kind == "empty":
            path.write_bytes(b"")
        elif kind == "truncate":
            os.truncate(path, rng.randrange(max(1, path.stat().st_size)))
        else:
            data = bytearray(path.read_bytes())
            for _ in range(rng.choice([1, 8, 200]) if data else 0):
                at = rng.randrange(len(data) * 8)
                data[at // 8] ^= 1 << (at % 8)
            path.write_bytes(bytes(data))
        done.append(f"{kind} {path.relative_to(folder)}")
    return done


def campaign(variant: str, memory: str, runs: int, seed: int, where: Path) -> dict[str, int]:
    rng = random.Random(seed)
    clean_db = where / "clean.sqlite"
    subprocess.run([*COMMAND, "--variant", variant, "--db", str(clean_db), "--quiet"], check=True)
    clean = contents(clean_db)
    target = where / "t.sqlite"
    folder = where / ".t.sqlite.solving"
    # How long a streamed build takes here: the kills fall anywhere in it.
    started = time.perf_counter()
    run_build(target, variant, memory).communicate()
    length = time.perf_counter() - started
    counts = dict.fromkeys(["runs", "correct installs", "clear refusals", "wrong installs", "tracebacks"], 0)
    counts["refusals that --force did not clear"] = 0
    for run in range(runs):
        process = run_build(target, variant, memory)
        if rng.random() < 0.9:
            time.sleep(rng.uniform(0, length))
            process.send_signal(rng.choice(SIGNALS))
        stderr = process.communicate()[1]
        counts["tracebacks"] += "Traceback" in stderr
        done = damage(folder, rng)
        rerun = run_build(target, variant, memory)
        stderr = rerun.communicate()[1]
        counts["runs"] += 1
        if "Traceback" in stderr:
            counts["tracebacks"] += 1
            print(f"run {run}: traceback after {done}:\n{stderr}", file=sys.stderr)
        elif rerun.returncode == 0:
            right = contents(target) == clean
            counts["correct installs" if right else "wrong installs"] += 1
            if not right:
                print(f"run {run}: WRONG INSTALL after {done}", file=sys.stderr)
        else:
            lines = stderr.strip().splitlines()
            clear = len(lines) == 1 and lines[0].startswith("Error:") and str(folder) in lines[0]
            counts["clear refusals" if clear else "tracebacks"] += 1  # an unclear failure counts against
            print(f"run {run}: refused after {done}: {stderr.strip()}", file=sys.stderr)
            forced = run_build(target, variant, memory, "--force")
            forced.communicate()
            if forced.returncode != 0 or contents(target) != clean:
                counts["refusals that --force did not clear"] += 1
        if (run + 1) % 10 == 0:
            print(f"{run + 1} runs: {counts}", file=sys.stderr, flush=True)
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="3x4k3")
    parser.add_argument("--memory", default="1MB", help="the builds' budget: small, so the scratch folder is used")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ttt-damage-") as where:
        started = time.perf_counter()
        counts = campaign(args.variant, args.memory, args.runs, args.seed, Path(where))
    print(f"{args.variant} --memory {args.memory}, seed {args.seed}: {time.perf_counter() - started:.0f} s")
    for name, count in counts.items():
        print(f"  {name}: {count}")


if __name__ == "__main__":
    main()
