"""A command killed at a moment a test waits for."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable, Sequence


def killed_when(command: Sequence[str], ready: Callable[[], bool], poll: float = 0.01) -> int:
    """Run ``command`` (its output thrown away), send it SIGKILL as soon as ``ready()`` holds or
    it has ended, and return its exit status (``-signal.SIGKILL`` if the kill came first)."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while not ready() and process.poll() is None:
            time.sleep(poll)
        process.send_signal(signal.SIGKILL)
    finally:
        process.wait(60)
    return process.returncode


class Stop(Exception):
    """Stands for a build stopped (killed, interrupted) at a moment a test chose."""


def stop_at(start: str) -> Callable[[str], None]:
    """A build's ``progress``: raises :class:`Stop` at the first line that starts with ``start``
    (``"3x4k3: ply 9:"``: once tier 9 is recorded)."""

    def heard(line: str) -> None:
        if line.startswith(start):
            raise Stop

    return heard
