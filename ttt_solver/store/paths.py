"""Where the default database lives.

In a source checkout (``build_db.py`` beside the package) it is ``data/ttt.sqlite`` (and
``data/<variant>.sqlite`` for other variants); after a normal install it goes to the user's
data directory, never inside the installed package.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..game.variant import STANDARD, Variant

if TYPE_CHECKING:
    from pathlib import Path

# Spelled with os.path, not pathlib: a command-line lookup finds its database without importing it.
# This file is ttt_solver/store/paths.py: the checkout is three folders up.
_CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))


def file_name(path: object, what: str = "path") -> str:
    """``path`` (text or a path object) as text the file system can name; else an
    InvalidTargetError naming what is wrong: not text, a NUL character, or a character the
    file system's encoding cannot write (a lone surrogate that did not come from its bytes)."""
    from ..errors import InvalidTargetError

    text = os.fspath(path) if isinstance(path, os.PathLike) else path
    if not isinstance(text, str):
        raise InvalidTargetError(f"invalid {what} {text!r}: give a file path as text")
    if "\0" in text:
        raise InvalidTargetError(f"invalid {what} {text!r}: a path cannot hold a NUL character")
    try:
        os.fsencode(text)
    except UnicodeEncodeError as error:
        raise InvalidTargetError(
            f"invalid {what} {text!r}: the file system cannot name its character {text[error.start]!r}"
        ) from None
    return text


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
