"""Hosts on one machine: Linux network namespaces joined by a bridge of their own.

``Hosts(names)`` makes a namespace per name, each with one address of ``SUBNET`` (the project's
own test hosts: nothing else is reached) on a veth pair whose other end is on a bridge that lives
in one more namespace, so the machine's own network (its root namespace) is left as it was. A
process started with :meth:`Hosts.start` runs in its host's namespace and, where ``hidden``
folders are given, in a mount namespace of its own in which each of those folders is an empty
memory file system: a worker that read a folder of the driver or of another worker would find
nothing there, as on another machine. :meth:`Hosts.take_away` ends every process of a host;
leaving the block ends every process of every host and removes the namespaces and links.

``unavailable()`` says why no namespace can be made here (not root, no ``ip``), or None.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Self

SUBNET = "10.213.38"  # a /24 on the bridge below; host i is SUBNET.(i + 2)
IP = shutil.which("ip") or "/usr/sbin/ip"


def unavailable() -> str | None:
    """Why network namespaces cannot be made here, or None where they can."""
    if os.geteuid() != 0:
        return "network namespaces need root (ip netns add): not root"
    if not os.path.exists(IP):
        return "network namespaces need iproute2's ip (apt-get install iproute2): not found"
    if shutil.which("unshare") is None:
        return "a worker's private folders need util-linux's unshare: not found"
    probe = f"ttt-probe-{os.getpid()}"
    made = subprocess.run([IP, "netns", "add", probe], check=False, capture_output=True, text=True)
    if made.returncode != 0:
        return f"cannot make a network namespace here: {made.stderr.strip()}"
    subprocess.run([IP, "netns", "del", probe], check=False, capture_output=True)
    with tempfile.TemporaryDirectory() as folder:  # a hidden folder: a memory file system mounted in private
        mount = ["unshare", "--mount", "--propagation", "private", "mount", "-t", "tmpfs", "ttt-probe", folder]
        mounted = subprocess.run(mount, check=False, capture_output=True, text=True)
    if mounted.returncode != 0:
        return f"cannot mount a folder in a mount namespace of its own here: {mounted.stderr.strip()}"
    return None


def _ip(*args: str, namespace: str | None = None) -> None:
    command = [IP, *(("-n", namespace) if namespace else ()), *args]
    subprocess.run(command, check=True, capture_output=True, text=True)


class Hosts:
    """Hosts named ``names`` (see the module's docstring); ``address(name)`` is a host's IPv4 address."""

    def __init__(self, names: Sequence[str]) -> None:
        tag = f"{os.getpid():x}"[-5:]  # unique among this machine's test processes; links' names <= 15 chars
        self.tag = tag
        self.switch = f"ttt-{tag}-switch"
        self.namespaces = {name: f"ttt-{tag}-{name}" for name in names}
        self.addresses = {name: f"{SUBNET}.{i + 2}" for i, name in enumerate(names)}
        self.processes: list[subprocess.Popen[bytes]] = []
        self._logs: list[IO[bytes]] = []

    def address(self, name: str) -> str:
        return self.addresses[name]

    def __enter__(self) -> Self:
        try:
            _ip("netns", "add", self.switch)
            _ip("link", "add", "br0", "type", "bridge", namespace=self.switch)
            _ip("link", "set", "br0", "up", namespace=self.switch)
            for i, (name, namespace) in enumerate(self.namespaces.items()):
                outer, inner = f"tv{self.tag}{i}s", f"tv{self.tag}{i}h"
                _ip("netns", "add", namespace)
                _ip("link", "add", outer, "type", "veth", "peer", "name", inner, namespace=self.switch)
                _ip("link", "set", inner, "netns", namespace, namespace=self.switch)
                _ip("link", "set", outer, "master", "br0", "up", namespace=self.switch)
                _ip("link", "set", "lo", "up", namespace=namespace)
                _ip("addr", "add", f"{self.addresses[name]}/24", "dev", inner, namespace=namespace)
                _ip("link", "set", inner, "up", namespace=namespace)
        except BaseException:
            self.__exit__()
            raise
        return self

    def start(
        self,
        host: str,
        command: Sequence[str],
        log: Path,
        env: Mapping[str, str] | None = None,
        hidden: Sequence[Path] = (),
    ) -> subprocess.Popen[bytes]:
        """Start ``command`` on ``host`` (stdout and stderr into ``log``; ``env`` added to this
        process's environment), the ``hidden`` folders empty for it."""
        prefix = [IP, "netns", "exec", self.namespaces[host]]
        if hidden:  # a mount namespace of its own, each hidden folder an empty tmpfs
            mounts = " && ".join(f"mount -t tmpfs ttt-hidden '{folder}'" for folder in hidden)
            prefix += ["unshare", "--mount", "--propagation", "private", "sh", "-c", f'{mounts} && exec "$@"', "sh"]
        out = open(log, "ab")  # noqa: SIM115 (closed on exit, after the process ended)
        self._logs.append(out)
        process = subprocess.Popen(
            [*prefix, *command], stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})}
        )
        self.processes.append(process)
        return process

    def run(
        self, host: str, command: Sequence[str], env: Mapping[str, str], timeout: float
    ) -> subprocess.CompletedProcess[str]:
        """Run ``command`` on ``host`` to its end; its output captured."""
        return subprocess.run(
            [IP, "netns", "exec", self.namespaces[host], *command],
            check=False, capture_output=True, text=True, env={**os.environ, **env}, timeout=timeout,
        )  # fmt: skip

    def pids(self, host: str) -> list[int]:
        """Every process running on ``host`` (in its network namespace)."""
        command = [IP, "netns", "pids", self.namespaces[host]]
        found = subprocess.run(command, check=False, capture_output=True, text=True)
        return [int(pid) for pid in found.stdout.split()]

    def take_away(self, host: str) -> list[int]:
        """End every process of ``host`` at once (SIGKILL), as a machine that loses its power; their ids."""
        ended = self.pids(host)
        for pid in ended:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return ended

    def __exit__(self, *_exc: object) -> None:
        for host in self.namespaces:
            if self._exists(self.namespaces[host]):
                self.take_away(host)
        for process in self.processes:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)
        for out in self._logs:
            out.close()
        for namespace in [*self.namespaces.values(), self.switch]:
            if self._exists(namespace):
                subprocess.run([IP, "netns", "del", namespace], check=False, capture_output=True)

    def _exists(self, namespace: str) -> bool:
        return os.path.exists(f"/run/netns/{namespace}")


def wait_for(ready: object, what: str, seconds: float, *logs: Path) -> None:
    """Poll ``ready()`` every 50 ms until it holds; after ``seconds``, fail naming ``what``
    (and the end of each of ``logs``)."""
    deadline = time.monotonic() + seconds
    while not ready():  # type: ignore[operator]
        if time.monotonic() > deadline:
            tails = [f"{log.name}:\n{log.read_text(errors='replace')[-2000:]}" for log in logs if log.exists()]
            raise TimeoutError("\n".join([f"{what} not ready after {seconds} s", *tails]))
        time.sleep(0.05)


def listening(pid: int, port: int) -> bool:
    """Whether a TCP socket listens on ``port`` in the network namespace of process ``pid``."""
    try:
        lines = Path(f"/proc/{pid}/net/tcp").read_text().splitlines()[1:]
    except OSError:
        return False
    return any(f":{port:04X}" == line.split()[1][-5:] and line.split()[3] == "0A" for line in lines)
