"""The disk a build needs, and what a build that runs out of it says.

Before a streamed build starts, :func:`check_room` compares an estimate of what it will write
(its scratch folder and the database file, :func:`estimate`) with the free space; a full disk
or a file-size limit met mid-build becomes one line saying which, and what was kept
(:func:`failure`): the scratch folder, with its size, for the same command to resume from.
"""

from __future__ import annotations

import errno
import os
import resource
import shutil
from contextlib import suppress

from ..errors import BuildError
from ..game.variant import Variant
from ..solver import ROW_BYTES
from ..store.build_cost import tier_sizes
from ..system.memory import size_text

FILE_ROW_BYTES = 18  # a row of the SQLite file (3x6k4: 358,641,664 bytes for 20,800,974 rows)


def estimate(variant: Variant) -> int:
    """Bytes a streamed build of ``variant`` writes at its peak: the tiers' column files, the
    merged copy of them, two tiers' result bytes and the database file. Canonical rows are
    about the boards over the symmetries (3x6k4: 20.8 million of 86.6 / 4)."""
    sizes = tier_sizes(variant)
    return peak_bytes(sum(sizes) // len(variant.symmetries), max(sizes))


def peak_bytes(rows: int, widest: int) -> int:
    """Bytes a streamed build writes at its peak, for ``rows`` canonical rows and a widest
    tier of ``widest`` boards."""
    return rows * (2 * ROW_BYTES + FILE_ROW_BYTES) + 2 * widest


def check_room(folder: str, variant: Variant, target: str) -> None:
    """BuildError unless the disk under ``folder`` has room for what the build has still to
    write (what the folder holds already counts as written)."""
    need = max(0, estimate(variant) - folder_size(folder))
    free = shutil.disk_usage(folder).free
    if free < need:
        raise BuildError(
            f"not enough disk space to build {variant} at {target!r}: about {size_text(need)} needed"
            f" (scratch folder and database), {size_text(free)} free in {os.path.dirname(folder)!r}"
        )


def failure(error: BaseException, folder: str) -> str:
    """What a write error was, in words: a full disk, a file-size limit, or its own message;
    then what was kept."""
    cause = getattr(error, "orig", None) or error
    number = cause.errno if isinstance(cause, OSError) else None
    text = str(cause).splitlines()[0] if str(cause) else type(cause).__name__
    if number == errno.ENOSPC or "disk is full" in text:
        why, remedy = "the disk is full", "free some space"
    elif number == errno.EFBIG or (("disk I/O error" in text or "too large" in text) and _at_size_limit(folder)):
        limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
        why, remedy = f"a file reached this process's file-size limit ({size_text(limit)}, ulimit -f)", "raise it"
    else:
        why = cause.strerror if isinstance(cause, OSError) and cause.strerror else text
        remedy = "put that right"
    return f"{why}; {kept(folder, remedy)}"


def kept(folder: str, remedy: str) -> str:
    """What a failed build leaves: the scratch folder, if it holds anything, to resume from."""
    size = folder_size(folder)
    if not size:
        return "nothing was kept"
    return (
        f"the scratch folder {folder!r} ({size_text(size)}) is kept for a resume: {remedy} and run the same"
        " command again, or delete the folder"
    )


def _at_size_limit(folder: str) -> bool:
    limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    if limit == resource.RLIM_INFINITY:
        return False
    largest = max(_sizes(folder), default=0)
    return largest + (1 << 20) >= limit


def folder_size(folder: str) -> int:
    """Bytes in the files under ``folder`` (0 if there is none)."""
    return sum(_sizes(folder))


def _sizes(folder: str) -> list[int]:
    """The size of each file under ``folder``. A file removed meanwhile is left out: a task that
    a stopped build left running on a cluster may still be writing there (its SQLite journal
    comes and goes)."""
    found: list[int] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    found += _sizes(entry.path)
                elif entry.is_file(follow_symlinks=False):
                    with suppress(FileNotFoundError):
                        found.append(entry.stat().st_size)
    except OSError:
        pass
    return found
