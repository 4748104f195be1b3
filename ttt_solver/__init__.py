"""ttt-solver: an exhaustively solved game database for tic-tac-toe and its family.

Values are +1 win, 0 draw, -1 loss, always for the side to move (see :mod:`ttt_solver.board`).
Heavy modules are imported lazily, so ``import ttt_solver`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_LAZY = {
    "Board": "board",
    "Variant": "variant",
    "STANDARD": "variant",
    "Oracle": "oracle",
    "TTTError": "errors",
    "InvalidBoardError": "errors",
    "InvalidVariantError": "errors",
    "GameOverError": "errors",
    "InvalidTargetError": "errors",
    "DatabaseError": "errors",
    "BuildError": "errors",
}

__all__ = ["__version__", *_LAZY]

if TYPE_CHECKING:
    from .board import Board
    from .errors import BuildError, DatabaseError, GameOverError, InvalidBoardError, InvalidTargetError, InvalidVariantError, TTTError
    from .oracle import Oracle
    from .variant import STANDARD, Variant


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ttt_solver' has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f".{module}", __name__), name)
