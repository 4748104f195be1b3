"""A random campaign against resumable builds: kill a build at a random moment, damage its
scratch folder at random, build again, and count what the rerun did.

Each run starts ``ttt-lookup build`` with a small ``--memory`` (so that the tiers, the merge
and the rows go through the scratch folder), sends it SIGKILL, SIGTERM or SIGINT after a
random delay (or lets it finish), then damages up to two files or folders of the scratch
folder (cut to a random length, bits flipped, removed, emptied), and runs the same command
again. The rerun is

- a **correct install**: exit 0, and the database holds the clean build's digest and its
  position rows (their count and sums of their codes and data: any row changed shows), so
  that verify passes it as it passes the clean build;
- a **clear refusal**: exit 1 or 2 with one ``Error:`` line naming the scratch folder, after
  which ``--force`` installs the clean build (counted apart if it does not);
- a **wrong install** (exit 0 and anything else in the file) or a **traceback**: both must be 0.

With ``--cover`` the runs cycle through every pair of phase (solving, merging, writing) and
kind of damage (cut, bits flipped, emptied, file removed, folder removed) instead: each build
is stopped at a random point of that phase, as the scratch folder shows it (finished tiers,
merged rows, the database's size against the clean one's), and one file (or folder) is
damaged, the part that phase is making and another in turn. The phase is the one the folder shows after the
stop; each run aims at the pair met least so far, and the pairs met are printed at the end.

With ``--no-damage`` nothing is damaged: each build is killed (always, at a random moment, or
with ``--cover`` at a random point of each phase in turn) and simply run again. The kills are
counted by signal and by the phase the scratch folder shows after them.

Usage::

    python benchmarks/damage_campaign.py --variant 3x4k3 --memory 1MB --runs 200 --seed 1
    python benchmarks/damage_campaign.py --variant 3x6k4 --memory 64MB --runs 30 --seed 1 --cover
    python benchmarks/damage_campaign.py --variant 3x6k4 --memory 64MB --runs 18 --seed 1 --cover --no-damage
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path
from typing import Any

COMMAND = [sys.executable, "-m", "ttt_solver", "build"]
SIGNALS = (signal.SIGKILL, signal.SIGTERM, signal.SIGINT)
PHASES = ("solving", "merging", "writing")
KINDS = ("truncate", "flip", "empty", "remove", "remove folder")
POLL = 0.02  # seconds between looks at the scratch folder


def run_build(target: Path, variant: str, memory: str, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*COMMAND, "--variant", variant, "--db", str(target), "--memory", memory, "--quiet", *extra],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


# Sums over every position row, made by SQLite (seconds, where fetching 3x6k4's 21 million
# rows into Python took a minute and 2.7 GB): any one row changed, lost or added changes them.
FINGERPRINT = (
    "SELECT count(*), sum(code % 1000003), sum(data % 999983), sum((code % 65521) * (data % 65519) % 1000003)"
    " FROM positions"
)


def contents(db: Path) -> tuple[str, tuple[int, ...]] | None:
    """The digest meta states and a fingerprint of the position rows (their count and sums
    of their codes and data), or None if SQLite cannot read them."""
    try:
        with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
            digest = conn.execute("SELECT value FROM meta WHERE key = 'digest'").fetchone()[0]
            return digest, tuple(conn.execute(FINGERPRINT).fetchone())
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
        damage_path(path, kind, rng)
        done.append(f"{kind} {path.relative_to(folder)}")
    return done


def damage_path(path: Path, kind: str, rng: random.Random) -> None:
    """``path`` removed (a folder too), emptied, cut to a random length or with bits flipped."""
    if kind.startswith("remove"):
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


def phase_of(folder: Path) -> str | None:
    """The phase a build's scratch folder shows: writing once it holds the database, merging
    once it holds ``merged/``, solving once it holds a finished tier."""
    if (folder / "database.sqlite").exists():
        return "writing"
    if (folder / "merged").exists():
        return "merging"
    try:
        return "solving" if any(p.name.startswith("tier-") and "." not in p.name for p in folder.iterdir()) else None
    except FileNotFoundError:
        return None


def progress(folder: Path, tiers: int, rows: int, size: int) -> float:
    """How far a build has gone, as its scratch folder shows: the phase's index (solving 0,
    merging 1, writing 2) plus the part of it done (finished tiers of ``tiers``, merged rows
    of ``rows``, bytes of the database of ``size``)."""
    phase = phase_of(folder)
    try:
        if phase == "writing":
            return 2 + (folder / "database.sqlite").stat().st_size / size
        if phase == "merging":
            return 1 + int(json.loads((folder / "merged" / "rows.json").read_text())["rows"]) / rows
        return sum(1 for p in folder.iterdir() if p.name.startswith("tier-") and "." not in p.name) / tiers
    except (OSError, ValueError, KeyError):  # not there yet, or being replaced
        return PHASES.index(phase) if phase else 0.0


def stop_in(
    process: subprocess.Popen[str], folder: Path, phase: str, rng: random.Random, **sizes: int
) -> signal.Signals | None:
    """Signal ``process`` once it has gone a random part of the way through ``phase``; the
    signal sent (None if the build finished first)."""
    at = PHASES.index(phase) + rng.uniform(0.02, 0.95)
    while process.poll() is None and progress(folder, **sizes) < at:
        time.sleep(POLL)
    return send_random(process, rng)


def send_random(process: subprocess.Popen[str], rng: random.Random) -> signal.Signals | None:
    """A random one of SIGNALS sent to ``process`` if it still runs; the one sent, or None."""
    if process.poll() is not None:
        return None
    sent = rng.choice(SIGNALS)
    process.send_signal(sent)
    return sent


def damage_in(folder: Path, phase: str | None, kind: str, own: bool, rng: random.Random) -> list[str]:
    """One file (or, for "remove folder", one folder) of ``folder`` damaged: of the part
    ``phase`` makes if ``own`` (and there is one), else of another; what was done."""
    if phase is None:  # the build finished before the stop: no folder left
        return []
    part = {"solving": "tier-", "merging": "merged", "writing": "database.sqlite"}[phase]
    if kind == "remove folder":
        paths = [p for p in folder.iterdir() if p.is_dir()]
    else:
        paths = [p for p in folder.rglob("*") if p.is_file() and p.name != "lock"]
    if not paths:
        return []
    mine = [p for p in paths if p.relative_to(folder).parts[0].startswith(part)]
    others = [p for p in paths if p not in mine]
    path = rng.choice(mine if mine and (own or not others) else others)
    damage_path(path, kind, rng)
    return [f"{kind} {path.relative_to(folder)}"]


def campaign(
    variant: str,
    memory: str,
    runs: int,
    seed: int,
    where: Path,
    cover: bool,
    phases: tuple[str, ...] = PHASES,
    no_damage: bool = False,
) -> dict[str, Any]:
    rng = random.Random(seed)
    clean_db = where / "clean.sqlite"
    subprocess.run([*COMMAND, "--variant", variant, "--db", str(clean_db), "--quiet"], check=True)
    clean = contents(clean_db)
    target = where / "t.sqlite"
    folder = where / ".t.sqlite.solving"
    rows_, columns_ = (int(n) for n in re.findall(r"[0-9]+", variant)[:2])
    with closing(sqlite3.connect(clean_db)) as conn:
        sizes = {"tiers": rows_ * columns_ + 1, "rows": conn.execute("SELECT count(*) FROM positions").fetchone()[0]}
    sizes["size"] = clean_db.stat().st_size
    length = 0.0
    if not cover:  # how long a streamed build takes here: the kills fall anywhere in it
        started = time.perf_counter()
        run_build(target, variant, memory).communicate()
        length = time.perf_counter() - started
    counts: dict[str, Any] = dict.fromkeys(
        ["runs", "correct installs", "clear refusals", "wrong installs", "tracebacks"], 0
    )
    counts["refusals that --force did not clear"] = 0
    met: dict[tuple[str | None, str], int] = {}
    kinds = ("none",) if no_damage else KINDS
    pairs = [(phase, kind) for phase in PHASES for kind in kinds]
    kills: dict[str, int] = {}
    for run in range(runs):
        process = run_build(target, variant, memory)
        if cover:
            # The pair met least so far (the stop can fall in the next phase); its own part
            # and the others in turn.
            wanted, kind = min((p for p in pairs if p[0] in phases), key=lambda pair: met.get(pair, 0))
            sent = stop_in(process, folder, wanted, rng, **sizes)
        elif no_damage or rng.random() < 0.9:
            time.sleep(rng.uniform(0, length))
            sent = send_random(process, rng)
        else:
            sent = None
        stderr = process.communicate()[1]
        stopped = phase_of(folder) if sent else None
        if sent:
            for key in (sent.name, f"in {stopped or 'solving, before a tier was finished'}"):
                kills[key] = kills.get(key, 0) + 1
        else:
            kills["none, the build finished first"] = kills.get("none, the build finished first", 0) + 1
        if "Traceback" in stderr:
            counts["tracebacks"] += 1
            print(f"run {run}: the stopped build printed a traceback:\n{stderr}", file=sys.stderr)
        if no_damage:
            done = []
            met[stopped, "none"] = met.get((stopped, "none"), 0) + 1
            print(f"run {run}: {sent.name if sent else 'no kill'} in {stopped or '-'}", file=sys.stderr, flush=True)
        elif cover:
            phase = phase_of(folder)
            done = damage_in(folder, phase, kind, met.get((phase, kind), 0) % 2 == 0, rng)
            met[phase, kind] = met.get((phase, kind), 0) + 1
            print(f"run {run}: stopped {phase or 'finished'} (wanted {wanted}), {done}", file=sys.stderr, flush=True)
        else:
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
        if cover or (run + 1) % 10 == 0:
            print(f"{run + 1} runs: {counts}", file=sys.stderr, flush=True)
    for key, count in sorted(kills.items()):
        counts[f"kills: {key}"] = count
    if cover and not no_damage:  # without damage, the kills by phase say it
        aimed = [p for p in pairs if p[0] in phases]
        counts["(phase, kind) pairs met"] = f"{sum(1 for p in aimed if p in met)} of {len(aimed)}"
        for (phase, kind), count in sorted(met.items(), key=lambda item: str(item[0])):
            counts[f"  {phase or 'finished'} / {kind}"] = count
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="3x4k3")
    parser.add_argument("--memory", default="1MB", help="the builds' budget: small, so the scratch folder is used")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cover", action="store_true", help="cycle through every (phase, kind of damage) pair")
    parser.add_argument("--phases", nargs="+", choices=PHASES, default=PHASES, help="with --cover: only these")
    parser.add_argument("--no-damage", action="store_true", help="kill and rerun only: damage nothing")
    args = parser.parse_args()
    # A shell that starts this in the background (``&``, nohup) ignores SIGINT for it, and its
    # builds would inherit that and shrug the SIGINT kills off: handled here, it is reset in them.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    with tempfile.TemporaryDirectory(prefix="ttt-damage-") as where:
        started = time.perf_counter()
        counts = campaign(
            args.variant, args.memory, args.runs, args.seed, Path(where), args.cover, tuple(args.phases), args.no_damage
        )
    cover = " --cover" if args.cover else ""
    cover += f" --phases {' '.join(args.phases)}" if args.cover and tuple(args.phases) != PHASES else ""
    cover += " --no-damage" if args.no_damage else ""
    print(f"{args.variant} --memory {args.memory}, seed {args.seed}{cover}: {time.perf_counter() - started:.0f} s")
    for name, count in counts.items():
        print(f"  {name}: {count}")


if __name__ == "__main__":
    main()
