"""``perfect`` and ``perfect:P``: the database as a player.

``perfect`` plays uniformly among the oracle's ``preferred`` moves: those that keep the
game-theoretic value, winning as fast or losing as slowly as possible. ``perfect:P`` plays
like that with probability P and otherwise makes a uniformly random legal move (``perfect:0``
is ``random``). Unless an oracle is given, the process's shared one is used, loaded on first
use (:func:`ttt_solver.builder.first_use.shared_oracle`: every agent of a variant shares one load).

``choose`` is meant for hot loops: after the first visit of a board it is one dictionary
lookup and at most two ``rng.random()`` draws, with no allocation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...builder.first_use import shared_oracle
from ...errors import GameOverError
from ...game.variant import STANDARD, Variant
from .base import Cell, Policy, PolicyAgent, check_board, empty_cells, recall

if TYPE_CHECKING:
    from numpy.random import Generator

    from ...lookup.oracle import Oracle


class PerfectAgent(PolicyAgent):
    def __init__(self, probability: float = 1.0, oracle: Oracle | None = None, variant: Variant = STANDARD) -> None:
        if not 0.0 <= probability <= 1.0:
            raise ValueError(f"perfect probability must be from 0 to 1, got {probability!r}")
        if oracle is not None and oracle.variant != variant:
            raise ValueError(f"the oracle solves {oracle.variant}, the agent plays {variant}")
        super().__init__("perfect" if probability == 1.0 else f"perfect:{probability:g}", variant)
        self.probability = float(probability)
        self._oracle = oracle
        self._choices: dict[str, tuple[tuple[Cell, ...], tuple[Cell, ...]]] = {}  # board -> (preferred, legal)

    @property
    def oracle(self) -> Oracle:
        if self._oracle is None:
            self._oracle = shared_oracle(self.variant)
        return self._oracle

    def choose(self, board: str, rng: Generator) -> Cell:
        known = self._choices.get(board) if board.__class__ is str else None  # a hot loop's path: one lookup
        preferred, legal = known or recall(self._choices, board, self._choices_on)
        if self.probability < 1.0 and rng.random() >= self.probability:
            preferred = legal
        if len(preferred) == 1:
            return preferred[0]
        return preferred[int(rng.random() * len(preferred))]

    def _policy(self, board: str) -> Policy:
        preferred, legal = self._choices_on(board)
        p = self.probability
        policy = dict.fromkeys(legal, (1.0 - p) / len(legal))
        for cell in preferred:
            policy[cell] += p / len(preferred)
        return {cell: share for cell, share in policy.items() if share > 0.0}

    def _choices_on(self, board: str) -> tuple[tuple[Cell, ...], tuple[Cell, ...]]:
        text = check_board(board, self.variant)
        preferred = self.oracle.probe(text).preferred_moves
        if not preferred:  # the board is checked unfinished, so this is a broken oracle
            raise GameOverError(f"no move on {board!r}: the oracle knows none")
        return preferred, tuple(empty_cells(text))
