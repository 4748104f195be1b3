"""Reads during rebuilds: readers look positions up in a loop while the same database is
rebuilt in place (``ttt-lookup build --variant V --db SAME --force``), ``--rebuilds`` times.

Each reader is its own process, reading random legal boards (random games from the empty
board, their answers taken from an intact copy first):

- ``--fresh N`` readers open an ``Oracle`` (``eager=False``: read from the file and proved one
  ply down, as the command line does) for each read and close it;
- ``--kept N`` readers keep one ``Oracle`` open over 200 reads (distinct boards, so no read is
  answered from its cache), then open it again, as a long-lived program does;
- ``--cli N`` readers run ``ttt-lookup analyze BOARD --db DB --json`` and compare its JSON.

Every read must give the intact answer, or refuse in one line (a ``TTTError``; on the command
line exit 1 or 2 with one ``Error:`` line). Prints the reads by kind of reader, the wrong
answers (must be 0), the errors by kind (a traceback or an unclear failure counts apart), the
rebuilds' exit codes and times, and whether the database holds the intact digest at the end.

Usage::

    python benchmarks/reads_during_rebuilds.py --variant 4x4 --rebuilds 6 [--fresh 1] [--kept 1] [--cli 1] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from contextlib import closing
from pathlib import Path
from typing import Any

from ttt_solver.errors import TTTError
from ttt_solver.game import rules
from ttt_solver.game.variant import Variant
from ttt_solver.lookup.oracle import Oracle

BUILD = [sys.executable, "-m", "ttt_solver", "build", "--quiet"]
ANALYZE = [sys.executable, "-m", "ttt_solver", "analyze"]
KEPT_READS = 200  # reads of one kept oracle before it is opened again

Answer = tuple[int, int, tuple[int, ...], tuple[int, ...], tuple[tuple[int, int, int], ...]]


def random_boards(variant: Variant, count: int, rng: random.Random) -> list[str]:
    """``count`` distinct legal boards: random games stopped at a random ply."""
    boards: set[str] = set()
    while len(boards) < count:
        board = "." * variant.cells
        for _ in range(rng.randrange(variant.cells)):
            moves = rules.legal_moves(board, variant)
            if not moves:
                break
            board = rules.play(board, rng.choice(moves), variant)
        boards.add(board)
    return sorted(boards)


def answer_of(position: Any) -> Answer:
    """What is compared of an answer: value, remoteness, best and preferred moves, every move."""
    moves = tuple((m.cell, m.value, m.remoteness) for m in position.moves)
    return position.value, position.remoteness, tuple(position.best_moves), tuple(position.preferred_moves), moves


def answer_of_json(text: str) -> Answer:
    data = json.loads(text)
    moves = tuple((m["cell"], m["value"], m["remoteness"]) for m in data["moves"])
    return data["value"], data["remoteness"], tuple(data["best_moves"]), tuple(data["preferred_moves"]), moves


def kind_of(message: str, db: Path) -> str:
    """An error's first line with the paths and numbers that differ run to run taken out."""
    line = message.strip().splitlines()[0] if message.strip() else "(no message)"
    return re.sub(r"[0-9]+", "N", line.replace(str(db.parent), "DIR"))[:160]


def read_loop(kind: str, db: str, variant: str, clean: dict[str, Answer], seed: int, stop: Any, out: Any) -> None:
    """One reader: read until ``stop`` is set, then put its counts on ``out``."""
    rng = random.Random(seed)
    boards = list(clean)
    counts: Counter[str] = Counter()
    oracle: Oracle | None = None
    while not stop.is_set():
        rng.shuffle(boards)
        for start in range(0, len(boards), KEPT_READS):
            if stop.is_set():
                break
            try:
                if kind == "kept":
                    oracle = Oracle.load(db, variant, eager=False)
                for board in boards[start : start + KEPT_READS]:
                    if stop.is_set():
                        break
                    if kind == "cli":
                        counts.update(read_cli(board, db, variant, clean[board]))
                    else:
                        counts.update(read_oracle(oracle, board, db, variant, clean[board]))
            except TTTError as error:  # opening the kept oracle
                counts["reads"] += 1
                counts[f"refused: {type(error).__name__}: {kind_of(str(error), Path(db))}"] += 1
            finally:
                if oracle is not None:
                    oracle.close()
                    oracle = None
    out.put((kind, dict(counts)))


def read_oracle(oracle: Oracle | None, board: str, db: str, variant: str, clean: Answer) -> Counter[str]:
    """One read through ``oracle``, or through an oracle opened for it if None."""
    counts: Counter[str] = Counter(reads=1)
    try:
        if oracle is None:
            with Oracle.load(db, variant, eager=False) as fresh:
                got = answer_of(fresh.probe(board))
        else:
            got = answer_of(oracle.probe(board))
    except TTTError as error:
        counts[f"refused: {type(error).__name__}: {kind_of(str(error), Path(db))}"] += 1
        return counts
    except Exception as error:  # noqa: BLE001 (anything else is what a user would see as a traceback)
        counts[f"TRACEBACK: {type(error).__name__}: {kind_of(str(error), Path(db))}"] += 1
        return counts
    counts["right" if got == clean else "WRONG"] += 1
    return counts


def read_cli(board: str, db: str, variant: str, clean: Answer) -> Counter[str]:
    """One read through ``ttt-lookup analyze``."""
    counts: Counter[str] = Counter(reads=1)
    done = subprocess.run([*ANALYZE, board, "--db", db, "--json"], check=False, capture_output=True, text=True)
    lines = done.stderr.strip().splitlines()
    if done.returncode == 0:
        counts["right" if answer_of_json(done.stdout) == clean else "WRONG"] += 1
    elif done.returncode in (1, 2) and len(lines) == 1 and lines[0].startswith("Error:"):
        counts[f"refused (exit {done.returncode}): {kind_of(lines[0], Path(db))}"] += 1
    else:
        counts[f"TRACEBACK or unclear (exit {done.returncode}): {kind_of(done.stderr, Path(db))}"] += 1
    return counts


def digest(db: Path) -> str | None:
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        row = conn.execute("SELECT value FROM meta WHERE key = 'digest'").fetchone()
    return None if row is None else str(row[0])


def campaign(args: argparse.Namespace, where: Path) -> None:
    variant = Variant.parse(args.variant)
    intact, db = where / "intact.sqlite", where / "ttt.sqlite"
    for path in (intact, db):
        subprocess.run([*BUILD, "--variant", args.variant, "--db", str(path)], check=True)
    boards = random_boards(variant, args.boards, random.Random(args.seed))
    with Oracle.load(intact, args.variant, eager=False) as oracle:
        clean = {board: answer_of(oracle.probe(board)) for board in boards}
    context = multiprocessing.get_context("spawn")
    stop, out = context.Event(), context.Queue()
    kinds = ["fresh"] * args.fresh + ["kept"] * args.kept + ["cli"] * args.cli
    readers = [
        context.Process(target=read_loop, args=(kind, str(db), args.variant, clean, args.seed + i, stop, out))
        for i, kind in enumerate(kinds)
    ]
    for reader in readers:
        reader.start()
    time.sleep(args.pause)
    for rebuild in range(args.rebuilds):
        started = time.perf_counter()
        done = subprocess.run(
            [*BUILD, "--variant", args.variant, "--db", str(db), "--force"], check=False, capture_output=True, text=True
        )
        print(
            f"rebuild {rebuild + 1}: exit {done.returncode}, {time.perf_counter() - started:.1f} s"
            + (f": {done.stderr.strip()}" if done.returncode else ""),
            flush=True,
        )
        time.sleep(args.pause)
    stop.set()
    totals: Counter[str] = Counter()
    for _ in readers:
        kind, counts = out.get()
        totals.update(counts)
        totals[f"reads by {kind} readers"] += counts.get("reads", 0)
    for reader in readers:
        reader.join()
    print(f"{args.variant}, {args.rebuilds} rebuilds, readers {' '.join(kinds)}, {len(boards)} boards:")
    print(f"  reads: {totals.pop('reads', 0):,}")
    print(f"  wrong answers: {totals.pop('WRONG', 0):,}")
    for name in sorted(totals, key=lambda n: (not n.startswith("reads by"), n)):
        print(f"  {name}: {totals[name]:,}")
    print(f"  the database holds the intact digest at the end: {digest(db) == digest(intact)}")
    print(f"  files beside it at the end: {sorted(p.name for p in where.iterdir() if p.name != intact.name)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="4x4")
    parser.add_argument("--rebuilds", type=int, default=6)
    parser.add_argument("--fresh", type=int, default=1, help="readers that open an oracle for each read")
    parser.add_argument("--kept", type=int, default=1, help="readers that keep an oracle open")
    parser.add_argument("--cli", type=int, default=1, help="readers that run ttt-lookup analyze")
    parser.add_argument("--boards", type=int, default=2000, help="distinct random boards read")
    parser.add_argument("--pause", type=float, default=1.0, help="seconds of reading before and after each rebuild")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="ttt-reads-") as where:
        campaign(args, Path(where))
    print(f"  {time.perf_counter() - started:.0f} s, load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
