"""How a build scales from 9 to 20 cells: CPU time, peak memory, scratch folder and file size
per canonical position, for a series of variants, each built in its own process.

    python benchmarks/bench_scaling.py --folder /big/disk [--variants 3x3,3x4,3x5k4,4x4,3x6k4,4x5k4]

Prints a Markdown table (README.md, "Twenty cells", holds one such run).
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_twenty import GIB, run

DEFAULT = "3x3,3x4,3x5k4,4x4,3x6k4,4x5k4"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", required=True)
    parser.add_argument("--variants", default=DEFAULT)
    args = parser.parse_args()
    folder = Path(args.folder)
    folder.mkdir(parents=True, exist_ok=True)
    print("| variant | cells | canonical positions | build CPU | peak RSS | peak scratch | file | bytes per position |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in args.variants.split(","):
        target = folder / f"scaling-{name}.sqlite"
        target.unlink(missing_ok=True)
        scratch = folder / f".{target.name}.solving"
        shutil.rmtree(scratch, ignore_errors=True)
        done = run(
            [sys.executable, "-m", "ttt_solver.cli", "build", "--variant", name, "--db", str(target), "-q"], scratch
        )
        assert done["status"] == 0, done["stderr"]
        with sqlite3.connect(target) as conn:
            rows = int(conn.execute("SELECT value FROM meta WHERE key = 'positions'").fetchone()[0])
        from ttt_solver.game.variant import Variant

        size = target.stat().st_size
        print(
            f"| {name} | {Variant.parse(name).cells} | {rows:,} | {done['cpu']:.1f} s | {done['rss'] / GIB * 1024:.0f} MB"
            f" | {done['scratch'] / GIB * 1024:.0f} MB | {size / GIB * 1024:.1f} MB | {size / rows:.1f} |",
            flush=True,
        )
        target.unlink()


if __name__ == "__main__":
    main()
