"""``mc:N``: the Monte-Carlo player of seed 002 (``mc_move``) with N random playouts.

Each playout finishes the game with uniformly random moves for both sides, starting with the
agent. A won playout adds ``MCMATCH`` to every square the agent holds at its end and takes
``MCOTHER`` from every square the opponent holds; a lost playout does the opposite. The agent
plays the empty square with the highest total, ties to the first in row-major order (the seed
sorts ``(score, row, col)`` stably by score and pops the first empty one). The distribution
is not enumerable: the agent only samples.

Misère: the playout is lost by whoever completes the first line, so its result is the
opposite of the normal game's; the scoring of squares is unchanged.

Deviation from the seed's code (its text is followed): the text says a drawn playout changes
no score, but the code's ``else`` branch scores a draw like a loss. Here draws count 0.

The playouts run as numpy arrays, not a Python loop per move: a playout is a uniformly random
order of the empty cells (the same distribution as the seed's ``random.choice`` each turn),
cut where the first line is completed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...game import rules
from ...game.variant import STANDARD, Variant
from .base import Agent, Cell, check_board

if TYPE_CHECKING:
    from numpy.random import Generator

MCMATCH = 1
MCOTHER = 2
_CHUNK = 1 << 16  # playouts per numpy batch, to bound memory for huge N


MAX_TRIALS = 100_000  # playouts a move may take: about 40 ms a move at the most


class MonteCarloAgent(Agent):
    """``mc:N``: samples moves (it has no policy to write out)."""

    def __init__(self, trials: int, variant: Variant = STANDARD) -> None:
        if not isinstance(trials, int) or not 1 <= trials <= MAX_TRIALS:
            raise ValueError(f"mc trials must be an integer from 1 to {MAX_TRIALS:,}, got {trials!r}")
        super().__init__(f"mc:{trials}", variant)
        self.trials = trials
        self._lines: Any = None

    def choose(self, board: str, rng: Generator) -> Cell:
        scores, empties = self._scores(check_board(board, self.variant), rng)
        return int(empties[int(scores[empties].argmax())])

    def scores(self, board: str, rng: Generator) -> Any:
        """The seed's score grid after N playouts, flattened row-major (an int numpy array)."""
        return self._scores(check_board(board, self.variant), rng)[0]

    def _scores(self, board: str, rng: Generator) -> tuple[Any, Any]:
        if self._lines is None:
            self._lines = np.array(self.variant.lines, dtype=np.intp)
        me = rules.to_move(board)
        marks = np.array([1 if c == me else -1 if c != rules.EMPTY else 0 for c in board], dtype=np.int8)
        empties = np.flatnonzero(marks == 0)
        scores = np.zeros(len(board), dtype=np.int64)
        done = 0
        while done < self.trials:
            batch = min(_CHUNK, self.trials - done)
            scores += _playouts(marks, empties, self._lines, batch, rng, self.variant.misere)
            done += batch
        return scores, empties


def _playouts(marks: Any, empties: Any, lines: Any, trials: int, rng: Generator, misere: bool = False) -> Any:
    """Summed score grid of ``trials`` playouts; ``marks`` is +1 agent / -1 opponent / 0 empty."""

    played_at = rng.random((trials, len(empties))).argsort(axis=1).argsort(axis=1)  # ply of each empty cell
    time = np.full((trials, len(marks)), -1, dtype=np.int16)
    time[:, empties] = played_at
    owner = np.repeat(marks[None, :], trials, axis=0)
    owner[:, empties] = 1 - 2 * (played_at & 1)  # the agent moves first: even plies are its own
    line_owner = owner[:, lines].sum(axis=2)
    k = lines.shape[1]
    never = np.int16(len(marks) + 1)
    completed_at = np.where(np.abs(line_owner) == k, time[:, lines].max(axis=2), never)
    first = completed_at.argmin(axis=1)
    end = completed_at[np.arange(trials), first]
    maker = np.sign(line_owner[np.arange(trials), first])  # who completed the first line
    result = np.where(end < never, -maker if misere else maker, 0)  # +1 won, -1 lost, 0 draw
    on_board = time <= end[:, None]
    weight = np.where(owner > 0, MCMATCH, -MCOTHER)
    return (on_board * weight * result[:, None]).sum(axis=0)
