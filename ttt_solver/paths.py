"""Where the default database lives.

In a source checkout (``build_db.py`` beside the package) it is ``data/ttt.sqlite`` (and
``data/<variant>.sqlite`` for other variants); after a normal install it goes to the user's
data directory, never inside the installed package.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from .variant import STANDARD, Variant

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

# Spelled with os.path, not pathlib: a command-line lookup finds its database without importing it.
_CHECKOUT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


def data_folder() -> str:
    """Where default databases go, as a string (see :func:`data_directory`)."""
    if all(os.path.isfile(os.path.join(_CHECKOUT, name)) for name in ("build_db.py", "pyproject.toml")):
        return os.path.join(_CHECKOUT, "data")
    base = os.environ.get("XDG_DATA_HOME", "")
    # The XDG spec: a relative path in XDG_DATA_HOME is invalid and must be ignored.
    root = base if os.path.isabs(base) else os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(root, "ttt-solver")


def database_file(variant: Variant = STANDARD) -> str:
    """The variant's default database, as a string (see :func:`default_database`)."""
    return os.path.join(data_folder(), f"{'ttt' if variant == STANDARD else variant.name}.sqlite")


def data_directory() -> Path:
    from pathlib import Path

    return Path(data_folder())


def default_database(variant: Variant = STANDARD) -> Path:
    from pathlib import Path

    return Path(database_file(variant))


def ensure_database(variant: Variant = STANDARD, announce: Callable[[str], None] | None = None) -> Path:
    """The variant's default database, built first if it is missing (the one place that does).

    ``announce`` is told one line before a build starts: a command that only wanted an answer
    gets that line, not the build's progress (``ttt-lookup build`` shows that)."""
    path = default_database(variant)
    if not path.exists():
        from .build import build

        if announce:
            announce(f"ttt-lookup: building the {variant.name} database at {path} (first use; a moment)")
        build(path, variant)
    return path
