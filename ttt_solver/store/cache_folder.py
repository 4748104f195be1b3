"""The cache folder: what is made once per database content and kept to save time.

The user's cache folder (:mod:`.paths` says where on each platform: on Linux
``$XDG_CACHE_HOME/ttt-solver/``, else ``~/.cache/ttt-solver/``) holds a folder per database
content (named for the variant and the content digest, so a rebuilt database never meets an old
cache): memory-mapped arrays and batch tables of big variants, counts, passed checks. Whatever
is there can be removed at any time; it is made again when next needed.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

from ..errors import CacheError
from .paths import user_folders


def cache_folder() -> str:
    """Where everything made once per database content is kept."""
    return user_folders().user_cache_dir


def content_folder(variant_name: str, digest: str) -> str:
    """The cache folder of one database content."""
    return os.path.join(cache_folder(), f"{variant_name}-{digest[:24]}")


def cached(folder: str, name: str, make: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """``make()``, kept as JSON in ``folder`` (made every time where the folder cannot be
    written: it only saves time)."""
    path = os.path.join(folder, name)
    try:
        with open(path) as file:
            found: dict[str, Any] = json.load(file)
            return found
    except (OSError, ValueError):
        pass
    made = make()
    partial = f"{path}.{os.getpid()}.part"
    try:
        os.makedirs(folder, exist_ok=True)
        with open(partial, "w") as file:
            json.dump(made, file)
        os.replace(partial, path)
    except OSError:  # a read-only home, a full disk, XDG_CACHE_HOME naming a file
        with suppress(OSError):
            os.remove(partial)
    return made


@dataclass(frozen=True)
class CacheEntry:
    """One thing in the cache folder (a database content's folder, or a left-over file) and
    the bytes of its files."""

    name: str
    size: int


def cache_entries() -> list[CacheEntry]:
    """What the cache folder holds, by name (none if there is no folder); CacheError if it
    cannot be read."""
    folder = cache_folder()
    if not os.path.lexists(folder):
        return []
    try:
        return [CacheEntry(name, _bytes_in(os.path.join(folder, name))) for name in sorted(os.listdir(folder))]
    except OSError as error:
        raise CacheError(f"cannot read the cache folder {folder!r}: {error.strerror or error}") from None


def clear_cache() -> list[CacheEntry]:
    """Remove the cache folder and everything in it; what it held. Only time is lost: what a
    database needs is made again on its next use. CacheError if it cannot be removed."""
    folder = cache_folder()
    held = cache_entries()
    if not os.path.lexists(folder):
        return held
    try:
        if os.path.isdir(folder) and not os.path.islink(folder):
            shutil.rmtree(folder)
        else:
            os.remove(folder)
    except OSError as error:
        raise CacheError(f"cannot remove the cache folder {folder!r}: {error.strerror or error}") from None
    return held


def _bytes_in(path: str) -> int:
    if not os.path.isdir(path) or os.path.islink(path):
        return os.lstat(path).st_size
    return sum(os.lstat(os.path.join(top, name)).st_size for top, _dirs, names in os.walk(path) for name in names)
