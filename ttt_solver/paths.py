"""Where the default database lives.

In a source checkout (``build_db.py`` beside the package) it is ``data/ttt.sqlite`` (and
``data/<variant>.sqlite`` for other variants); after a normal install it goes to the user's
data directory, never inside the installed package.
"""

from __future__ import annotations

import os
from pathlib import Path

from .variant import STANDARD, Variant

_CHECKOUT = Path(__file__).resolve().parent.parent


def data_directory() -> Path:
    if (_CHECKOUT / "build_db.py").is_file() and (_CHECKOUT / "pyproject.toml").is_file():
        return _CHECKOUT / "data"
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "ttt-solver"


def default_database(variant: Variant = STANDARD) -> Path:
    name = "ttt" if variant == STANDARD else variant.name
    return data_directory() / f"{name}.sqlite"
