"""What a build that stops or fails leaves: its scratch folder (``.NAME.solving/`` beside the
target, :mod:`ttt_solver.engine.scratch`), what it says of it, and the stopped builds found
where ``ttt-lookup cache`` looks (the data folder and the cache folder), to list or remove.

A scratch folder holds gigabytes for a big variant and its name starts with a dot: so a build
that stops names it, with its size and the ways on (the same command resumes from it,
``--force`` starts over, or remove it). A folder whose lock a running build holds is never
removed. Light on purpose: ``ttt-lookup cache`` imports it, and no numpy.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass

from ..store import paths
from ..store.cache_folder import cache_folder
from ..system.memory import size_text

SUFFIX = ".solving"  # a scratch folder's name: "." + the target's file name + SUFFIX
LOCK = "lock"  # the file a running build holds locked (ttt_solver.system.files.locked)


@dataclass(frozen=True)
class StoppedBuild:
    """A scratch folder a build left: its variant (from its manifest; None if unreadable),
    the bytes of its files, and whether a build is running in it now."""

    folder: str
    variant: str | None
    size: int
    running: bool


def kept(folder: str, remedy: str) -> str:
    """What a failed build leaves: the scratch folder, if it holds anything, to resume from."""
    size = folder_size(folder)
    if not size:
        return "nothing was kept"
    return (
        f"the scratch folder {folder!r} ({size_text(size)}) is kept for a resume: {remedy} and run the same"
        " command again, or delete the folder"
    )


def stop_lines(folder: str, variant: str) -> list[str]:
    """What a build stopped by the user says: the folder it kept, its size, and the ways on."""
    size = folder_size(folder)
    if not size:
        return [f"{variant}: stopped; nothing was kept"]
    listed = os.path.dirname(os.path.abspath(folder)) in _places()
    remove = (
        f"ttt-lookup cache --remove-stopped, or rm -r {shlex.quote(folder)}"
        if listed
        else f"rm -r {shlex.quote(folder)}"
    )
    return [
        f"{variant}: stopped; the work done so far is kept in {folder} ({size_text(size)}):",
        "  run the same command again to resume from it, or add --force to start over;",
        f"  to remove it: {remove}",
    ]


def stopped_builds() -> list[StoppedBuild]:
    """The scratch folders in the data folder and the cache folder, by path."""
    found = []
    for place in _places():
        with suppress(OSError), os.scandir(place) as entries:
            for entry in entries:
                if entry.name.startswith(".") and entry.name.endswith(SUFFIX) and entry.is_dir(follow_symlinks=False):
                    found.append(_stopped(entry.path))
    return sorted(found, key=lambda build: build.folder)


def remove_stopped_builds(builds: list[StoppedBuild]) -> list[StoppedBuild]:
    """Remove each folder no build is running in (holding its lock meanwhile, so that a build
    that starts then waits, and then makes a new one); the ones removed (not a running build's,
    nor one the file system refused)."""
    removed = []
    for build in builds:
        with _unless_running(build.folder) as free:
            if free:
                with suppress(FileNotFoundError):  # a removal stopped half-way is never resumed from
                    os.remove(os.path.join(build.folder, "manifest.json"))
                shutil.rmtree(build.folder, ignore_errors=True)
        if not os.path.lexists(build.folder):
            removed.append(build)
    return removed


def folder_size(folder: str) -> int:
    """Bytes in the files under ``folder`` (0 if there is none)."""
    return sum(file_sizes(folder))


def _places() -> list[str]:
    return list(dict.fromkeys(os.path.abspath(place) for place in (paths.data_folder(), cache_folder())))


def _stopped(folder: str) -> StoppedBuild:
    try:
        with open(os.path.join(folder, "manifest.json")) as file:
            variant = json.load(file).get("variant")
    except (OSError, ValueError, AttributeError):
        variant = None
    with _unless_running(folder) as free:
        return StoppedBuild(folder, variant if isinstance(variant, str) else None, folder_size(folder), not free)


@contextmanager
def _unless_running(folder: str) -> Iterator[bool]:
    """Hold the folder's lock if no build holds it; yields whether it could."""
    try:
        handle = os.open(os.path.join(folder, LOCK), os.O_RDWR)
    except FileNotFoundError:  # no lock file: no build holds it
        yield True
        return
    try:
        try:
            # Imported here, not at the top: fcntl exists on POSIX only (as in system/files.py).
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: no lock
            yield True
            return
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            yield False
            return
        yield True
    finally:
        os.close(handle)


def file_sizes(folder: str) -> list[int]:
    """The size of each file under ``folder``. A file removed meanwhile is left out: a task that
    a stopped build left running on a cluster may still be writing there (its SQLite journal
    comes and goes)."""
    found: list[int] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    found += file_sizes(entry.path)
                elif entry.is_file(follow_symlinks=False):
                    with suppress(FileNotFoundError):
                        found.append(entry.stat().st_size)
    except OSError:
        pass
    return found
