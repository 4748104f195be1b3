"""Where the default database lives, and the user's folders of each platform.

In a source checkout (``build_db.py`` beside the package) it is ``data/ttt.sqlite`` (and
``data/<variant>.sqlite`` for other variants); after a normal install it goes to the user's
data folder, never inside the installed package. The user's folders are platformdirs' (what pip
uses): the data folder (:func:`data_folder`) and the cache folder
(:func:`~.cache_folder.cache_folder`) are

- Linux and other Unix: ``$XDG_DATA_HOME/ttt-solver`` (else ``~/.local/share/ttt-solver``) and
  ``$XDG_CACHE_HOME/ttt-solver`` (else ``~/.cache/ttt-solver``); a relative ``XDG_*`` path is
  ignored, as the XDG spec says;
- macOS: ``~/Library/Application Support/ttt-solver`` and ``~/Library/Caches/ttt-solver``;
- Windows: ``%LOCALAPPDATA%\\ttt-solver`` and ``%LOCALAPPDATA%\\ttt-solver\\Cache``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..errors import InvalidTargetError
from ..game.variant import STANDARD, Variant

if TYPE_CHECKING:
    from platformdirs import PlatformDirs

APP_NAME = "ttt-solver"  # the name of the user's folders

# Spelled with os.path, not pathlib: a command-line lookup finds its database without importing it.
# This file is ttt_solver/store/paths.py: the checkout is three folders up.
_CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))


def file_name(path: object, what: str = "path") -> str:
    """``path`` (text or a path object) as text the file system can name; else an
    InvalidTargetError naming what is wrong: not text, a NUL character, or a character the
    file system's encoding cannot write (a lone surrogate that did not come from its bytes)."""

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
    """Where default databases go."""
    if all(os.path.isfile(os.path.join(_CHECKOUT, name)) for name in ("build_db.py", "pyproject.toml")):
        return os.path.join(_CHECKOUT, "data")
    return user_folders().user_data_dir


def user_folders() -> PlatformDirs:
    """The platform's folders for the user's files of ttt-solver, read from the environment
    (``XDG_*`` on Linux) each time."""
    # Imported here: platformdirs brings pathlib and tempfile, a third of what a lookup may add to
    # importing click, and a lookup that names its database (or finds it in a checkout) needs none.
    import platformdirs

    return platformdirs.PlatformDirs(APP_NAME, appauthor=False)


def database_file(variant: Variant = STANDARD) -> str:
    """The variant's default database."""
    return os.path.join(data_folder(), f"{'ttt' if variant == STANDARD else variant.name}.sqlite")


def existing_default(variant: Variant) -> str:
    """The variant's default database, or a DatabaseMissingError if it is not built."""
    path = database_file(variant)
    if not os.path.exists(path):
        # Imported here: the error says what a build takes, from the cost model (2% of importing
        # click), which a read that finds its database never needs.
        from .missing_database import missing_default

        raise missing_default(variant, path)
    return path
