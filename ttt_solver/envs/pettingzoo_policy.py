"""``PerfectPolicy``: the solved game as a player in PettingZoo's ``classic/tictactoe_v3``.

PettingZoo numbers the cells down the columns; ttt-solver numbers them along the rows::

    PettingZoo    ttt-solver
    0 3 6         0 1 2
    1 4 7         3 4 5
    2 5 8         6 7 8

so PettingZoo's action ``a`` is our cell ``(a % 3) * 3 + a // 3`` (:data:`PZ_TO_CELL`; the map
is the board's transpose and its own inverse). Its observation is ``(3, 3, 2)`` int8 with
``observation[a // 3, a % 3]`` the square of action ``a``: plane 0 the marks of the player to
move, plane 1 the other player's. X (``player_1``) moves first, so the player to move is X
exactly when both planes hold as many marks.

Ties among perfect moves go to the lowest cell in ttt-solver's numbering, or are drawn
uniformly with ``rng`` (a ``numpy.random.Generator`` or a seed). Needs numpy and the oracle,
not PettingZoo.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..builder.first_use import shared_oracle
from ..errors import GameOverError, InvalidBoardError, InvalidVariantError
from ..lookup.oracle import Oracle

PZ_TO_CELL = (0, 3, 6, 1, 4, 7, 2, 5, 8)  # PettingZoo action -> our cell; also our cell -> its action
_PERMUTATION = np.array(PZ_TO_CELL, dtype=np.intp)
_MARKS = ".XO"  # array value -> text mark (index -1 is O)


class PerfectPolicy:
    """``policy(observation, action_mask) -> action`` for PettingZoo's tic-tac-toe; never loses."""

    def __init__(self, oracle: Oracle | None = None, rng: np.random.Generator | int | None = None) -> None:
        self.oracle = oracle if oracle is not None else shared_oracle()
        if self.oracle.variant.name != "3x3":
            raise InvalidVariantError(
                f"PettingZoo's tic-tac-toe is 3x3, the oracle solves {self.oracle.variant}; PerfectPolicy plays 3x3 only"
            )
        self.rng = np.random.default_rng(rng) if isinstance(rng, int) else rng

    def __call__(self, observation: Any, action_mask: Any = None) -> int:
        """One perfect action (PettingZoo numbering) for the player to move.

        ``observation`` is the ``(3, 3, 2)`` array, or the whole dict that ``env.last()``
        returns (then ``action_mask`` may be left out).
        """
        planes, mask = _split(observation, action_mask)
        text = _text(planes)
        try:
            cell = self.oracle.best_move(text, self.rng)
        except GameOverError:
            raise GameOverError(f"no action on {text!r}: the game is over") from None
        action = PZ_TO_CELL[cell]
        if mask is not None and not mask.reshape(-1)[action]:
            raise InvalidBoardError(
                f"observation and action_mask disagree: mask {mask.tolist()} forbids action {action}"
            )
        return action

    def batch(self, observations: Any, action_masks: Any = None) -> np.ndarray:
        """Actions for a stack of observations ``(N, 3, 3, 2)``, with no Python loop per board."""
        planes = np.asarray(observations)
        if planes.ndim != 4 or planes.shape[1:] != (3, 3, 2):
            raise InvalidBoardError(f"invalid observations: expected shape (N, 3, 3, 2), got {planes.shape}")
        cells = self.oracle.best_move_batch(_board(planes.reshape(-1, 9, 2)), self.rng).astype(np.intp)
        if (cells < 0).any():
            row = int(np.argmax(cells < 0))
            raise GameOverError(f"no action for observation {row}: the game is over")
        actions: np.ndarray = _PERMUTATION[cells]
        if action_masks is not None:
            masks = np.asarray(action_masks).reshape(len(actions), 9)
            allowed = masks[np.arange(len(actions)), actions]
            if not allowed.all():
                row = int(np.argmin(allowed))
                raise InvalidBoardError(
                    f"observation {row} and its action_mask disagree: mask forbids action {actions[row]}"
                )
        return actions


def board_from_observation(observation: Any) -> str:
    """A PettingZoo observation (array or dict) -> our text board, e.g. to ask any agent for a move."""
    return _text(_split(observation, None)[0])


def _text(planes: np.ndarray) -> str:
    return "".join(_MARKS[v] for v in _board(planes.reshape(1, 9, 2))[0].tolist())


def _split(observation: Any, action_mask: Any) -> tuple[np.ndarray, np.ndarray | None]:
    if isinstance(observation, dict):
        if action_mask is None:
            action_mask = observation.get("action_mask")
        observation = observation["observation"]
    planes = np.asarray(observation)
    if planes.shape != (3, 3, 2):
        raise InvalidBoardError(f"invalid observation: expected shape (3, 3, 2), got {planes.shape}")
    return planes, None if action_mask is None else np.asarray(action_mask)


def _board(planes: np.ndarray) -> np.ndarray:
    """``(N, 9, 2)`` PettingZoo squares -> ``(N, 9)`` int8 boards, +1 X / -1 O, our numbering."""
    mine = planes[:, _PERMUTATION, 0].astype(np.int8)
    theirs = planes[:, _PERMUTATION, 1].astype(np.int8)
    me = np.where(mine.sum(axis=1) == theirs.sum(axis=1), 1, -1).astype(np.int8)[:, None]  # equal counts: X to move
    return (mine - theirs) * me
