"""Build benchmark: ``python build_db.py`` against ``python -c "import sqlalchemy, numpy"``.

Both commands run alternately in the same session; the script prints their median wall
times, the ratio (goal <= 1.6: the build itself costs less than those imports) and the
build's peak memory (goal < 100 MB).

    python benchmarks/bench_build.py [--runs 15]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def wall(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # no progress lines
    return time.perf_counter() - started


def peak_memory_mb(script_and_args: list[str]) -> float:
    """Peak RSS of running a script, measured inside its own process."""
    probe = (
        "import resource, runpy, sys\n"
        f"sys.argv = {script_and_args!r}\n"
        "try:\n    runpy.run_path(sys.argv[0], run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True)
    return int(done.stderr.strip().splitlines()[-1]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        build = [sys.executable, str(ROOT / "build_db.py"), "--db", f"{tmp}/ttt.sqlite"]
        imports = [sys.executable, "-c", "import sqlalchemy, numpy"]
        wall(build), wall(imports)  # warm the file cache
        times: dict[str, list[float]] = {"build": [], "imports": []}
        for _ in range(runs):
            times["build"].append(wall(build))
            times["imports"].append(wall(imports))
        peak = peak_memory_mb(build[1:])
    build_s, imports_s = statistics.median(times["build"]), statistics.median(times["imports"])
    print(f"python build_db.py                   median {build_s * 1000:7.1f} ms over {runs} runs")
    print(f"python -c 'import sqlalchemy, numpy' median {imports_s * 1000:7.1f} ms")
    print(f"ratio build / imports: {build_s / imports_s:.2f}  (goal <= 1.6)")
    print(f"peak memory of a build: {peak:.1f} MB  (goal < 100 MB)")


if __name__ == "__main__":
    main()
