"""The ``perfect`` opponent's replies, kept per board for :class:`~.single.TicTacToeEnv`'s hot path.

Against ``perfect`` (probability 1) a step is: the learner marks a cell, then, unless that ends
the game, :meth:`PerfectAgent.choose` picks uniformly among the oracle's preferred cells,
``preferred[int(rng.random() * len(preferred))]``, with no draw when there is one. A
:class:`ReplyTree` holds, for each board the learner has to move on and each cell it has
played there, the outcomes of those picks in that order; an outcome is what the step hands
out, ``(index, reward, over, observation row, mask row)``, its rows the shared read-only
table rows (the environment returns copies). So the environment replays ``choose`` with the
same draw and never asks the agent.

A node is a list of ``2 * cells`` entries, ``None`` where nothing is known yet, where the cell
is taken and past the last cell, so that any ``int`` from ``-cells`` on indexes it; the
environment's checked path fills an entry the first time a legal move is played. The trees
are shared by every environment on the same oracle (one per oracle, kept while it lives),
and each table of nodes or outcomes is emptied when it reaches :data:`LIMIT` entries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from ..players.agents.base import remember
from .observation import PLAYING, BoardTables, LazyBoardTables, board_tables

if TYPE_CHECKING:
    from ..lookup.oracle import Oracle

Outcome = tuple[int, float, bool, Any, Any]  # index, reward, over, observation row, mask row
Node = list[tuple[Outcome, ...] | None]

LIMIT = 1 << 16  # nodes, and outcomes, a tree keeps per perspective before it starts again

_TREES: WeakKeyDictionary[Oracle, ReplyTree] = WeakKeyDictionary()


def reply_tree(oracle: Oracle) -> ReplyTree:
    """The tree of ``oracle``'s variant, shared while the oracle lives."""
    tree = _TREES.get(oracle)
    if tree is None:
        tree = _TREES[oracle] = ReplyTree(oracle, board_tables(oracle.variant))
    return tree


class ReplyTree:
    def __init__(self, oracle: Oracle, tables: BoardTables | LazyBoardTables) -> None:
        self.oracle = oracle
        self.tables = tables
        self.blocked: Node = [None] * (2 * tables.variant.cells)  # never filled: no move known
        self.nodes: tuple[dict[int, Node], dict[int, Node]] = ({}, {})  # by the learner's perspective
        self._outcomes: tuple[dict[int, Outcome], dict[int, Outcome]] = ({}, {})

    def node(self, perspective: int, index: int) -> Node:
        """The node of board ``index`` with the learner (perspective 0: X, 1: O) to move."""
        nodes = self.nodes[perspective]
        found = nodes.get(index)
        if found is None:
            empty: Node = [None] * len(self.blocked)
            found = remember(nodes, index, empty, LIMIT)
        return found

    def learn(self, perspective: int, index: int, cell: int) -> None:
        """Fill the entry of ``cell``, a legal move of the learner on board ``index``."""
        tables = self.tables
        side = 1 if perspective == 0 else -1
        after = index + side * tables.powers[cell]
        if tables.final_list[after] != PLAYING:  # the learner's move ends the game: no reply
            outcomes: tuple[Outcome, ...] = (self._outcome(perspective, after, -1),)
        else:
            preferred = self.oracle.probe(tables.texts[after]).preferred_moves
            if not preferred:  # a broken oracle: the agent's own choose says so
                return
            replies = [after - side * tables.powers[reply] for reply in preferred]
            outcomes = tuple(self._outcome(perspective, board, 1) for board in replies)
        self.node(perspective, index)[cell] = outcomes

    def _outcome(self, perspective: int, index: int, sign: int) -> Outcome:
        """The step's result on board ``index``; ``sign`` turns the result of a finished board
        (for the side to move) into the learner's: -1 after the learner's move, +1 after a reply."""
        outcomes = self._outcomes[perspective]
        found = outcomes.get(index)
        if found is None:
            tables = self.tables
            result = tables.final_list[index]
            over = result != PLAYING
            reward = float(sign * result) if over else 0.0
            row = (index, reward, over, tables.plane_rows[perspective][index], tables.mask_rows[index])
            found = remember(outcomes, index, row, LIMIT)
        return found
