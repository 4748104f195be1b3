"""ttt-solver: an exhaustively solved game database for tic-tac-toe and its family.

Values are +1 win, 0 draw, -1 loss, always for the side to move (see :mod:`ttt_solver.game.rules`).
Heavy modules are imported lazily, so ``import ttt_solver`` stays cheap: the names below
resolve on first use, and type checkers see them through the explicit re-exports.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .version import __version__ as __version__

# public name -> the module that defines it
_LAZY = {
    "Board": "game.rules",
    "Variant": "game.variant",
    "STANDARD": "game.variant",
    "Oracle": "lookup.oracle",
    "TTTError": "errors",
    "InvalidBoardError": "errors",
    "InvalidVariantError": "errors",
    "GameOverError": "errors",
    "InvalidTargetError": "errors",
    "DatabaseError": "errors",
    "BuildError": "errors",
    "NotEnoughMemoryError": "errors",
}

__all__ = [
    "STANDARD",
    "Board",
    "BuildError",
    "DatabaseError",
    "GameOverError",
    "InvalidBoardError",
    "InvalidTargetError",
    "InvalidVariantError",
    "NotEnoughMemoryError",
    "Oracle",
    "TTTError",
    "Variant",
    "__version__",
]

if TYPE_CHECKING:
    from .errors import BuildError as BuildError
    from .errors import DatabaseError as DatabaseError
    from .errors import GameOverError as GameOverError
    from .errors import InvalidBoardError as InvalidBoardError
    from .errors import InvalidTargetError as InvalidTargetError
    from .errors import InvalidVariantError as InvalidVariantError
    from .errors import NotEnoughMemoryError as NotEnoughMemoryError
    from .errors import TTTError as TTTError
    from .game.rules import Board as Board
    from .game.variant import STANDARD as STANDARD
    from .game.variant import Variant as Variant
    from .lookup.oracle import Oracle as Oracle


if not TYPE_CHECKING:  # hidden from type checkers, or any misspelt import would pass as Any

    def __getattr__(name: str) -> Any:
        module = _LAZY.get(name)
        if module is None:
            raise AttributeError(f"module 'ttt_solver' has no attribute {name!r}")
        return getattr(import_module(f".{module}", __name__), name)


def __dir__() -> list[str]:
    """The public names and the module's dunders; not the helpers (``Any``, ``_LAZY``, ...)."""
    return sorted({*__all__, *(name for name in globals() if name.startswith("__"))})
