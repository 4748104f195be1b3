"""How soon ``ttt-lookup serve`` (no flags) answers with big databases in its data folder, and
what it costs (issue 25 item 6). No goals: seconds, RSS and cache bytes.

    python benchmarks/bench_serve_start.py DB [DB ...] [--checkout PATH] [--seconds 300]

It copies nothing: a temporary source checkout's ``data/`` folder (``data_folder()`` of a
checkout is its ``data/``) gets symbolic links to the given databases, named as their variants'
default databases (e.g. ``3x6k4.sqlite``), plus a 3x3 database; the server runs from that
checkout (``--checkout``: the source tree to measure, default this one, copied with
``git archive HEAD``) with an empty ``XDG_CACHE_HOME``. It prints when ``/health`` first
answers, when a 3x3 position first answers, when each linked variant first answers (asked
every 0.2 s; "loading" answers counted), the server's RSS then, and what the cache holds.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from bench_web import free_port

from ttt_solver.game.variant import Variant


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)
    except OSError:
        return 0


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _folder_mb(folder: Path) -> float:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 1e6 if folder.exists() else 0.0


def _until(url: str, started: float, limit: float) -> tuple[float, dict[int, int]]:
    """Seconds from ``started`` until ``url`` answers 200, and the other statuses seen."""
    seen: dict[int, int] = {}
    while time.monotonic() - started < limit:
        status = _status(url)
        if status == 200:
            return time.monotonic() - started, seen
        seen[status] = seen.get(status, 0) + 1
        time.sleep(0.2)
    return float("nan"), seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("databases", nargs="+", help="databases to put in the data folder (named VARIANT.sqlite)")
    parser.add_argument("--checkout", default=str(Path(__file__).resolve().parent.parent))
    parser.add_argument("--seconds", type=float, default=300, help="give up on an answer after this long")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        tree.mkdir()
        archive = subprocess.run(["git", "-C", args.checkout, "archive", "HEAD"], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
        environment = {**os.environ, "PYTHONPATH": str(tree), "XDG_CACHE_HOME": str(Path(tmp) / "cache")}
        subprocess.run(
            [sys.executable, "-m", "ttt_solver.cli", "build", "--quiet"], env=environment, check=True, cwd=tree
        )
        variants = []
        for database in args.databases:
            (tree / "data" / Path(database).name).symlink_to(Path(database).resolve())
            variants.append(Path(database).stem)
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        command = [sys.executable, "-m", "ttt_solver.cli", "serve", "--port", str(port)]
        started = time.monotonic()
        server = subprocess.Popen(command, env=environment, cwd=tree, stdout=subprocess.DEVNULL, stderr=sys.stderr)
        try:
            health, _ = _until(base + "/health", started, args.seconds)
            print(f"/health first answered after {health:.2f} s; RSS {_rss_mb(server.pid):.0f} MB")
            first, seen = _until(base + "/api/v1/3x3?board=X...O....", started, args.seconds)
            print(
                f"a 3x3 position first answered after {first:.2f} s (before that: {seen}); RSS {_rss_mb(server.pid):.0f} MB;"
                f" cache folder {_folder_mb(Path(tmp) / 'cache'):.0f} MB"
            )
            for variant in variants:
                cells = Variant.parse(variant).cells
                done, seen = _until(f"{base}/api/v1/{variant}?board={'.' * cells}", started, args.seconds)
                print(
                    f"a {variant} position first answered after {done:.2f} s (before that: {seen});"
                    f" RSS {_rss_mb(server.pid):.0f} MB"
                )
            print(f"cache folder: {_folder_mb(Path(tmp) / 'cache'):.0f} MB")
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    main()
