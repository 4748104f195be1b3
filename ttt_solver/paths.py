"""Where the default database lives.

In a source checkout (``build_db.py`` beside the package) it is ``data/ttt.sqlite`` (and
``data/<variant>.sqlite`` for other variants); after a normal install it goes to the user's
data directory, never inside the installed package.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from .variant import STANDARD, Variant

_CHECKOUT = Path(__file__).resolve().parent.parent


def data_directory() -> Path:
    if (_CHECKOUT / "build_db.py").is_file() and (_CHECKOUT / "pyproject.toml").is_file():
        return _CHECKOUT / "data"
    base = os.environ.get("XDG_DATA_HOME", "")
    # The XDG spec: a relative path in XDG_DATA_HOME is invalid and must be ignored.
    return (Path(base) if os.path.isabs(base) else Path.home() / ".local" / "share") / "ttt-solver"


def default_database(variant: Variant = STANDARD) -> Path:
    name = "ttt" if variant == STANDARD else variant.name
    return data_directory() / f"{name}.sqlite"


def ensure_database(
    variant: Variant = STANDARD,
    progress: Callable[[str], None] | None = None,
    writing: Callable[[int, int], None] | None = None,
) -> Path:
    """The variant's default database, built first if it is missing (the one place that does;
    ``progress`` and ``writing`` as for :func:`ttt_solver.build.build`)."""
    path = default_database(variant)
    if not path.exists():
        from .build import build

        if progress:
            progress(f"ttt-solver: building the {variant.name} database at {path} (first use)")
        build(path, variant, progress=progress, writing=writing)
    return path
