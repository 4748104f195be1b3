"""A fault campaign against the distributed build: ``ttt-lookup build --engine dask`` on a local
cluster of 2 workers, hurt in each way the engine must survive, then run again.

The cases (each on small variants, 3x4k3 and 3x5k4, in turn):

- **driver**: the command killed (SIGKILL, SIGTERM) once some tiers are recorded, then rerun;
- **worker**: one worker process of the local cluster (found in the driver's process tree: the
  ``multiprocessing`` children its nannies spawn) killed at start (as soon as it exists),
  mid-tier (once some tiers are recorded), or at shut-down (once the driver says it writes the
  rows: the cluster's last stretch, before the build closes it);
- **scratch**: the driver killed after some tiers, then a finished tier's file cut short or
  with bytes flipped, or two finished tier folders swapped; then rerun;
- **storage**: the same with ``--storage`` a folder of its own, one of the tasks' files there cut
  short, flipped or removed (while the build runs, and after a kill); then rerun;
- **address**: ``--address`` an HTTP server on a loopback port, a port nothing listens on, a TCP
  server that accepts and never answers, ``tls://`` and ``ucx://`` (build and verify).

Each run records its exit code, whether its stderr holds a Python traceback, its refusal time
(a run that ends non-zero by itself: seconds from the fault, or from the start where the fault is
the command line), whether a database it installed has the one-process digest (computed once at
the start), and, where the fault run did not install that digest, whether running the same
command again does. A run whose fault did not land (the command ended first, no worker or file
was there to hurt) counts against the campaign as well: it proved nothing. Every command runs under a timeout (``--timeout``) in a session of its own,
ended whole afterwards; the runs' folders are removed at the end.

Usage::

    python benchmarks/fault_campaign.py                  # every case: 48 runs
    python benchmarks/fault_campaign.py --quick          # one run of each kind of case: 17 runs
    python benchmarks/fault_campaign.py --runs 10 --json runs.jsonl
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

import psutil

TRACEBACK = "Traceback (most recent call last)"
VARIANTS = ("3x4k3", "3x5k4")
# A worker's budget: several chunks a tier, so that a tier is under way for a while.
MEMORY = {"3x4k3": "1M", "3x5k4": "4M"}
POLL = 0.02


@dataclass
class Run:
    case: str
    variant: str
    exit: int | None = None  # None: still running at the timeout
    traceback: bool = False
    refusal_seconds: float | None = None  # a run that ended non-zero by itself
    installed: bool | None = None  # a database installed: whether it has the one-process digest
    rerun: bool | None = None  # the same command again: whether it ended in that digest
    said: str = ""  # the last line of stderr
    landed: bool = True  # whether the fault was done (a process killed, a file hurt); else a note says why
    notes: list[str] = field(default_factory=list)


@dataclass
class Ended:
    exit: int | None
    stderr: str
    seconds: float


class Command:
    """A ``ttt-lookup`` command started in a session of its own (so that it and every process
    it starts end together), its stderr in a file."""

    def __init__(self, args: list[str], log: Path) -> None:
        self.log = log
        self.start = time.monotonic()
        with open(log, "w") as err:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "ttt_solver", *args], stdout=subprocess.DEVNULL, stderr=err,
                start_new_session=True,
            )  # fmt: skip

    def stderr(self) -> str:
        return self.log.read_text(errors="replace")

    def running(self) -> bool:
        return self.process.poll() is None

    def wait_until(self, ready: Callable[[], bool], timeout: float) -> bool:
        """Poll ``ready()`` while the command runs; whether it came first."""
        deadline = time.monotonic() + timeout
        while self.running() and time.monotonic() < deadline:
            if ready():
                return True
            time.sleep(POLL)
        return False

    def kill_worker(self) -> bool:
        """One of the local cluster's workers killed; whether there was one to kill."""
        for worker in self.workers():
            try:
                worker.kill()
                return True
            except psutil.NoSuchProcess:
                continue
        return False

    def workers(self) -> list[psutil.Process]:
        """The local cluster's worker processes: the driver's children spawned by multiprocessing."""
        try:
            children = psutil.Process(self.process.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            return []
        found = []
        for child in children:
            try:
                if "spawn_main" in " ".join(child.cmdline()):
                    found.append(child)
            except psutil.Error:
                continue
        return found

    def end(self, timeout: float) -> Ended:
        """Wait for the command (at most ``timeout`` seconds), then end its session whole."""
        try:
            self.process.wait(max(0.0, timeout - (time.monotonic() - self.start)))
        except subprocess.TimeoutExpired:
            pass
        exit_code = self.process.poll()
        try:
            os.killpg(self.process.pid, signal.SIGKILL)  # the session this command leads: what it left running
        except ProcessLookupError:
            pass
        self.process.wait()
        return Ended(exit_code, self.stderr(), time.monotonic() - self.start)


def raised(stderr: str) -> list[str]:
    """What each traceback in ``stderr`` ends with: its exception's line."""
    found = []
    lines = stderr.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(TRACEBACK):
            after = [
                later for later in lines[i + 1 :] if later and not later.startswith((" ", "\t", "During", "The above"))
            ]
            found.append(f"traceback: {after[0][:160]}" if after else "traceback")
    return sorted(set(found))


def digest(db: Path) -> str | None:
    if not db.exists():
        return None
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
            row = con.execute("SELECT value FROM meta WHERE key = 'digest'").fetchone()
    except sqlite3.Error:
        return "unreadable"
    return None if row is None else str(row[0])


def reference_digests(folder: Path) -> dict[str, str]:
    """Each variant's digest from a one-process build."""
    found = {}
    for variant in VARIANTS:
        out = subprocess.run(
            [sys.executable, "-m", "ttt_solver", "build", "--variant", variant, "--db", str(folder / f"{variant}.sqlite"),
             "--quiet", "--json"], capture_output=True, text=True, check=True, timeout=600,
        )  # fmt: skip
        found[variant] = json.loads(out.stdout)["digest"]
    return found


class Campaign:
    def __init__(self, root: Path, timeout: float, expected: dict[str, str]) -> None:
        self.root = root
        self.timeout = timeout
        self.expected = expected
        self.count = 0

    def folder(self) -> Path:
        self.count += 1
        folder = self.root / f"run-{self.count:03d}"
        folder.mkdir()
        return folder

    def build_args(self, folder: Path, variant: str, *extra: str) -> list[str]:
        return ["build", "--variant", variant, "--db", str(folder / "t.sqlite"), "--memory", MEMORY[variant],
                "--engine", "dask", *extra]  # fmt: skip

    def finish(self, run: Run, folder: Path, ended: Ended, args: list[str], fault_at: float | None) -> Run:
        """Record how the fault run ``ended``; run ``args`` again where it did not install the digest."""
        run.exit = ended.exit
        run.traceback |= TRACEBACK in ended.stderr
        run.notes += raised(ended.stderr)
        run.said = (ended.stderr.strip().splitlines() or [""])[-1][:200]
        if ended.exit not in (0, None) and ended.exit > 0 and fault_at is not None:
            run.refusal_seconds = round(ended.seconds - fault_at, 2)
        got = digest(folder / "t.sqlite")
        if got is not None:
            run.installed = got == self.expected[run.variant]
        if run.installed is not True and args:
            again = Command(args, folder / "rerun.err").end(self.timeout)
            run.traceback |= TRACEBACK in again.stderr
            run.notes += raised(again.stderr)
            if again.exit != 0:
                run.notes.append(f"rerun exit {again.exit}: {(again.stderr.strip().splitlines() or [''])[-1][:200]}")
            run.rerun = digest(folder / "t.sqlite") == self.expected[run.variant]
        return run

    # -- the cases ----------------------------------------------------------------------------
    def driver_killed(self, variant: str, sig: signal.Signals, tiers: int) -> Run:
        folder = self.folder()
        args = self.build_args(folder, variant, "--workers", "2")
        run = Run(f"driver {sig.name} after {tiers} tiers", variant)
        command = Command(args, folder / "run.err")
        command.wait_until(lambda: finished_tiers(folder) >= tiers, self.timeout)
        fault_at = time.monotonic() - command.start
        if command.running():
            command.process.send_signal(sig)
        else:
            missed(run, "ended before the kill")
        return self.finish(run, folder, command.end(self.timeout), args, fault_at if sig != signal.SIGKILL else None)

    def worker_killed(self, variant: str, when: str) -> Run:
        folder = self.folder()
        args = self.build_args(folder, variant, "--workers", "2")
        run = Run(f"worker killed {when}", variant)
        command = Command(args, folder / "run.err")
        ready = {
            "at start": lambda: bool(command.workers()),
            "mid-tier": lambda: finished_tiers(folder) >= 3 and len(command.workers()) == 2,
            # The driver's last line before it closes the cluster: "3x4k3: writing 28,275 positions to ...".
            "at shut-down": lambda: " positions to " in command.stderr(),
        }[when]
        fault_at = None
        if command.wait_until(ready, self.timeout) and command.kill_worker():
            fault_at = time.monotonic() - command.start
        else:
            missed(run, "no worker to kill")
        return self.finish(run, folder, command.end(self.timeout), args, fault_at)

    def scratch_damaged(self, variant: str, damage: str) -> Run:
        folder = self.folder()
        args = self.build_args(folder, variant, "--workers", "2")
        run = Run(f"scratch: {damage}", variant)
        command = Command(args, folder / "run.err")
        command.wait_until(lambda: finished_tiers(folder) >= 4, self.timeout)
        if not command.running():
            missed(run, "ended before the kill")
        command.process.kill()
        first = command.end(self.timeout)
        tiers = sorted(scratch(folder).glob("tier-[0-9][0-9]"))
        if len(tiers) < 2:
            missed(run, f"{len(tiers)} tiers finished before the kill")
        elif damage == "swap two tier folders":
            swap(tiers[0], tiers[1])
        elif not hurt(tiers[len(tiers) // 2] / "value.bin", damage):
            missed(run, "no tier file to damage")
        run.traceback = TRACEBACK in first.stderr
        run.notes += raised(first.stderr)
        again = Command(args, folder / "again.err")
        return self.finish(run, folder, again.end(self.timeout), args, 0.0)

    def storage_damaged(self, variant: str, damage: str, live: bool) -> Run:
        folder = self.folder()
        store = folder / "storage"
        store.mkdir()
        args = self.build_args(folder, variant, "--workers", "2", "--storage", str(store))
        run = Run(f"storage: {damage}, {'while running' if live else 'after a kill'}", variant)
        command = Command(args, folder / "run.err")
        command.wait_until(lambda: bool(task_files(store)) and finished_tiers(folder) >= 2, self.timeout)
        if not command.running():
            missed(run, "ended before the fault")
        if not live:
            command.process.kill()
            command.end(self.timeout)
        files = task_files(store)
        fault_at = time.monotonic() - command.start
        if not any(hurt(file, damage) for file in reversed(files)):  # the newest first; one that is still there
            missed(run, "no task file to damage")
        if live:
            return self.finish(run, folder, command.end(self.timeout), args, fault_at)
        return self.finish(run, folder, Command(args, folder / "again.err").end(self.timeout), args, 0.0)

    def wrong_address(self, command_name: str, what: str, address: str) -> Run:
        folder = self.folder()
        variant = "3x4k3"
        target = folder / "t.sqlite"
        if command_name == "verify":
            shutil.copy(self.root / f"{variant}.sqlite", target)
        args = [command_name, "--variant", variant, "--db", str(target), "--engine", "dask", "--address", address]
        run = Run(f"{command_name} --address {what}", variant)
        ended = Command(args, folder / "run.err").end(min(self.timeout, 60))
        run = self.finish(run, folder, ended, [], 0.0)
        if ended.exit is None:
            run.refusal_seconds = round(ended.seconds, 2)
            run.notes.append("still running at the timeout")
        if command_name == "verify":
            run.installed = None  # the database was there before: nothing installed
        return run


def scratch(folder: Path) -> Path:
    return folder / ".t.sqlite.solving"


def finished_tiers(folder: Path) -> int:
    return len(list(scratch(folder).glob("tier-[0-9][0-9]")))


def task_files(store: Path) -> list[Path]:
    """The tasks' files in ``store``; os.walk passes over a folder removed while it looks (a
    tier's files released as the build goes on), where Path.rglob raises."""
    return sorted(Path(folder, name) for folder, _, names in os.walk(store) if ".part" in folder for name in names)


def missed(run: Run, why: str) -> None:
    """``run``'s fault did not land: counted against the campaign, ``why`` in its notes."""
    run.landed = False
    run.notes.append(why)


def hurt(path: Path, damage: str) -> bool:
    """Cut ``path`` to half its length, flip a byte in its middle, or remove it; whether it was
    there to hurt (a task's file may be passed on and removed meanwhile)."""
    try:
        if damage == "remove":
            path.unlink()
            return True
        size = path.stat().st_size
        if size == 0:
            return False
        if damage == "truncate":
            os.truncate(path, size // 2)
        elif damage == "flip":
            data = bytearray(path.read_bytes())
            data[len(data) // 2] ^= 0xFF
            path.write_bytes(bytes(data))
        return True
    except FileNotFoundError:
        return False


def swap(a: Path, b: Path) -> None:
    spare = a.with_name(a.name + ".swap")
    a.rename(spare)
    b.rename(a)
    spare.rename(b)


# -- servers at the wrong addresses -----------------------------------------------------------
class Answering(http.server.BaseHTTPRequestHandler):
    """An HTTP server's page (what a dashboard's port answers), its log kept off the table."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"not a scheduler")

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def wrong_servers() -> Iterator[dict[str, str]]:
    """An HTTP server and a TCP server that never answers, on loopback ports, and a port nothing
    listens on: the addresses to give ``--address``."""
    http_server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Answering)
    silent = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        silent.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(silent.accept()[0])  # kept open, never answered
            except TimeoutError:
                continue

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    threads = [
        threading.Thread(target=http_server.serve_forever, daemon=True),
        threading.Thread(target=accept, daemon=True),
    ]
    for thread in threads:
        thread.start()
    try:
        yield {
            "an HTTP server": f"tcp://127.0.0.1:{http_server.server_address[1]}",
            "a port nothing listens on": f"tcp://127.0.0.1:{free}",
            "a TCP server that never answers": f"tcp://127.0.0.1:{silent.getsockname()[1]}",
            "tls://": f"tls://127.0.0.1:{free}",
            "ucx://": f"ucx://127.0.0.1:{free}",
        }
    finally:
        stop.set()
        http_server.shutdown()
        http_server.server_close()
        for thread in threads:
            thread.join(5)
        for connection in held:
            connection.close()
        silent.close()


def cases(campaign: Campaign, addresses: dict[str, str]) -> list[Callable[[], Run]]:
    """Every run of the campaign, the kinds interleaved (so that --runs N covers many kinds)."""
    kinds: list[list[Callable[[], Run]]] = []
    for variant in VARIANTS:
        v = variant
        kinds.append([
            lambda v=v: campaign.driver_killed(v, signal.SIGKILL, 2),
            lambda v=v: campaign.worker_killed(v, "at start"),
            lambda v=v: campaign.scratch_damaged(v, "swap two tier folders"),
            lambda v=v: campaign.storage_damaged(v, "flip", live=False),
            lambda v=v: campaign.worker_killed(v, "mid-tier"),
            lambda v=v: campaign.driver_killed(v, signal.SIGTERM, 3),
            lambda v=v: campaign.scratch_damaged(v, "truncate"),
            lambda v=v: campaign.worker_killed(v, "at shut-down"),
            lambda v=v: campaign.storage_damaged(v, "truncate", live=True),
            lambda v=v: campaign.driver_killed(v, signal.SIGKILL, 6),
            lambda v=v: campaign.scratch_damaged(v, "flip"),
            lambda v=v: campaign.storage_damaged(v, "remove", live=True),
            lambda v=v: campaign.worker_killed(v, "mid-tier"),
            lambda v=v: campaign.storage_damaged(v, "remove", live=False),
            lambda v=v: campaign.worker_killed(v, "at start"),
            lambda v=v: campaign.driver_killed(v, signal.SIGTERM, 5),
            lambda v=v: campaign.worker_killed(v, "at shut-down"),
            lambda v=v: campaign.scratch_damaged(v, "swap two tier folders"),
            lambda v=v: campaign.storage_damaged(v, "flip", live=True),
        ])  # fmt: skip
    kinds.append([
        lambda c=c, w=w, a=a: campaign.wrong_address(c, w, a)
        for w, a in addresses.items() for c in ("build", "verify")
    ])  # fmt: skip
    interleaved: list[Callable[[], Run]] = []
    for i in range(max(len(kind) for kind in kinds)):
        interleaved += [kind[i] for kind in kinds if i < len(kind)]
    return interleaved


def quick(campaign: Campaign, addresses: dict[str, str]) -> list[Callable[[], Run]]:
    """One run of each kind of case (3x4k3 for the builds)."""
    v = VARIANTS[0]
    return [
        lambda: campaign.driver_killed(v, signal.SIGKILL, 2),
        lambda: campaign.driver_killed(v, signal.SIGTERM, 3),
        lambda: campaign.worker_killed(v, "at start"),
        lambda: campaign.worker_killed(v, "mid-tier"),
        lambda: campaign.worker_killed(v, "at shut-down"),
        lambda: campaign.scratch_damaged(v, "truncate"),
        lambda: campaign.scratch_damaged(v, "swap two tier folders"),
        lambda: campaign.storage_damaged(v, "flip", live=False),
        lambda: campaign.storage_damaged(v, "flip", live=True),
        lambda: campaign.storage_damaged(v, "remove", live=True),
        *[lambda w=w, a=a: campaign.wrong_address("build", w, a) for w, a in addresses.items()],
        lambda: campaign.wrong_address("verify", "tls://", addresses["tls://"]),
        lambda: campaign.wrong_address("verify", "an HTTP server", addresses["an HTTP server"]),
    ]


def table(runs: list[Run]) -> str:
    counts = {
        "runs": len(runs),
        "wrong installs": sum(run.installed is False for run in runs),
        "tracebacks": sum(run.traceback for run in runs),
        "refusals later than 10 s": sum(run.refusal_seconds is not None and run.refusal_seconds > 10 for run in runs),
        "reruns not ending in the digest": sum(run.rerun is False for run in runs),
        "faults that did not land": sum(not run.landed for run in runs),
    }
    width = max(len(name) for name in counts)
    lines = [f"{name:<{width}}  {count:>4}" for name, count in counts.items()]
    for run in runs:  # which runs fall short, and how
        short = [
            *(["wrong install"] if run.installed is False else []),
            *(["traceback"] if run.traceback else []),
            *([f"refused after {run.refusal_seconds} s"] if (run.refusal_seconds or 0) > 10 else []),
            *(["rerun not in the digest"] if run.rerun is False else []),
            *(["fault did not land"] if not run.landed else []),
        ]
        if short:
            lines.append(f"  {run.case} ({run.variant}): {', '.join(short)}; {run.said[:120]} {run.notes}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, help="only the first RUNS runs (the kinds interleaved)")
    parser.add_argument("--quick", action="store_true", help="one run of each kind of case")
    parser.add_argument("--timeout", type=float, default=180, help="seconds a command may take (default 180)")
    parser.add_argument("--json", type=Path, help="write each run as a JSON line here")
    options = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="ttt-fault-campaign-"))
    try:
        expected = reference_digests(root)
        campaign = Campaign(root, options.timeout, expected)
        runs: list[Run] = []
        with wrong_servers() as addresses:
            chosen = quick(campaign, addresses) if options.quick else cases(campaign, addresses)
            for case in chosen[: options.runs]:
                run = case()
                runs.append(run)
                print(json.dumps(asdict(run)), flush=True)
                if options.json:
                    with open(options.json, "a") as out:
                        out.write(json.dumps(asdict(run)) + "\n")
                shutil.rmtree(root / f"run-{campaign.count:03d}", ignore_errors=True)
        print(table(runs))
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
