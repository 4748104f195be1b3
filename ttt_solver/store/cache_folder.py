"""The cache folder: what is made once per database content and kept to save time.

``$XDG_CACHE_HOME/ttt-solver/`` (else ``~/.cache/ttt-solver/``) holds a folder per database
content (named for the variant and the content digest, so a rebuilt database never meets an old
cache): memory-mapped arrays and batch tables of big variants, counts, passed checks. Whatever
is there can be removed at any time; it is made again when next needed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from contextlib import suppress
from typing import Any


def cache_folder() -> str:
    base = os.environ.get("XDG_CACHE_HOME", "")
    root = base if os.path.isabs(base) else os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(root, "ttt-solver")


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
