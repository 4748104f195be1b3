"""The full answer for one position as plain data: what ``ttt-lookup analyze --json`` prints
and what the HTTP API returns, so both stay the same contract.

Values are +1 win, 0 draw, -1 loss for the side to move (see :mod:`ttt_solver.game.rules`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import InvalidBoardError
from ..game import rules

if TYPE_CHECKING:
    from ..game.variant import Variant
    from ..lookup.oracle import BoardLike, Oracle, Position

OUTCOMES = {1: "win", 0: "draw", -1: "loss"}


def analysis(position: Position, line: list[int], variant: Variant) -> dict[str, Any]:
    """The JSON form of a position and its principal variation ``line``."""
    data: dict[str, Any] = {
        "board": position.board,
        "to_move": position.to_move,
        "value": position.value,
        "outcome": OUTCOMES[position.value],
        "remoteness": position.remoteness,
        "best_moves": list(position.best_moves),
        "preferred_moves": list(position.preferred_moves),
        "moves": [{"cell": m.cell, "value": m.value, "remoteness": m.remoteness} for m in position.moves],
        "line": line,
    }
    if position.is_over:
        data["winner"] = rules.winner(position.board, variant)
    return data


def analyze(oracle: Oracle, board: BoardLike) -> dict[str, Any]:
    """Probe ``board`` (text, parsed once here, or a Board as it is) and its perfect line, as
    :func:`analysis` data."""
    position = oracle.probe(board)
    return analysis(position, oracle.line(position.board), oracle.variant)


def checked_boards(texts: list[str], variant: Variant) -> list[str | InvalidBoardError]:
    """Each board text of a batch as normalised legal text, or the error that a lookup of it
    alone raises (in the same words), in order: a batch whose caller wants an answer for every
    board it can answer, as python-chess's ``get_*`` answers a default where ``probe_*`` raises."""
    found: list[str | InvalidBoardError] = []
    for text in texts:
        try:
            found.append(rules.parse(text, variant))
        except InvalidBoardError as error:
            found.append(error)
    return found
