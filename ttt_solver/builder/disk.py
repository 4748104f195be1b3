"""The disk a build needs, and what a build that runs out of it says.

Before a build starts, :func:`check_room` compares an estimate of what it will write
(its scratch folder and the database file, :func:`estimate`: the cost model's) with the free space; a full disk
or a file-size limit met mid-build becomes one line saying which, and what was kept
(:func:`failure`): the scratch folder, with its size, for the same command to resume from.
"""

from __future__ import annotations

import errno
import os
import resource
import shutil

from ..errors import BuildError
from ..game.variant import Variant
from ..system.cost_model import disk_bytes, rough_rows, tier_sizes
from ..system.memory import size_text
from ..system.os_errors import described
from .kept import file_sizes, folder_size, kept


def estimate(variant: Variant) -> int:
    """Bytes a build of ``variant`` writes at its peak (:func:`ttt_solver.system.cost_model.disk_bytes`),
    its canonical rows counted roughly: microseconds, nothing sampled."""
    return disk_bytes(rough_rows(variant), max(tier_sizes(variant)))


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
        why = described(cause) if isinstance(cause, OSError) else text
        remedy = "put that right"
    return f"{why}; {kept(folder, remedy)}"


def _at_size_limit(folder: str) -> bool:
    limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    if limit == resource.RLIM_INFINITY:
        return False
    largest = max(file_sizes(folder), default=0)
    return largest + (1 << 20) >= limit
