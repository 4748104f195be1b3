"""``random``: a uniformly random legal move (the seeds' ``random_player`` and ``random_ai``)."""

from __future__ import annotations

from ...game.variant import STANDARD, Variant
from .base import Policy, PolicyAgent, empty_cells, uniform


class RandomAgent(PolicyAgent):
    def __init__(self, variant: Variant = STANDARD) -> None:
        super().__init__("random", variant)

    def _policy(self, board: str) -> Policy:
        return uniform(empty_cells(board))
