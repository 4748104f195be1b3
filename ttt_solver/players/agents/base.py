"""The agent protocol and the small rules every seed player shares.

An agent plays one side of a position: :meth:`Agent.choose` picks one move with an injected
``numpy.random.Generator``; a :class:`PolicyAgent` also gives its move distribution
``{cell: probability}``, :meth:`PolicyAgent.policy`. Boards are normalised text of an unfinished
legal position (see :mod:`ttt_solver.game.rules`). Policies are deterministic functions of the
board, so they are worked out once per board and memoised.

A PolicyAgent's ``choose`` samples the memoised policy, as :meth:`PolicyAgent.sampler` gives it (its cells in the
policy's order, with their cumulative shares), with at most one draw ``u = rng.random()``: a
single move takes no draw; equally likely cells give ``cells[int(u * n)]``; otherwise the first
cell whose cumulative share exceeds ``u * total``. The vectorised environment replays this rule
in numpy over the same samplers (:mod:`ttt_solver.envs.opponent`); ``tests/players/test_agent_replays.py``
ties the two together on every unfinished position of 3x3 and 3x4k3, so keep them in step.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from functools import lru_cache
from itertools import accumulate
from typing import TYPE_CHECKING, Any, TypeVar

from ...errors import GameOverError, InvalidAgentError, InvalidBoardError
from ...game import rules
from ...game.variant import Variant, position_bound

if TYPE_CHECKING:
    from numpy.random import Generator

T = TypeVar("T")
Cell = int
Policy = dict[Cell, float]
Sampler = tuple[tuple[Cell, ...], tuple[float, ...] | None]
"""A policy as :meth:`PolicyAgent.choose` draws from it: its cells, and their cumulative shares (None
when the cells are equally likely)."""

MEMO_LIMIT = 1 << 18  # entries an agent's memo keeps: a long run on a big board (4x4) meets millions of boards
SEARCH_LIMIT = 200_000
"""Most positions one move's search may visit (a few seconds in Python; see
:func:`ttt_solver.game.variant.position_bound`): 3x3 and 3x4k3 searched to the end (6,046 and 143,365),
4x4 to depth 5 (56,537); 4x4 to depth 6 (216,697) is refused, as is 1x16 to depth 99."""


class Agent(ABC):
    """A player: ``choose(board, rng)``. An agent whose move distribution can be written out
    is a :class:`PolicyAgent` (``enumerable``), which adds ``policy`` and ``sampler``; one that
    only samples (``mc:N``) is an Agent alone, with neither."""

    enumerable: bool = False

    def __init__(self, name: str, variant: Variant) -> None:
        self.name = name
        self.variant = variant

    @abstractmethod
    def choose(self, board: str, rng: Generator) -> Cell:
        """One move on ``board``, drawn with ``rng``."""

    def __repr__(self) -> str:
        extra = "" if self.variant.name == "3x3" else f", variant=Variant.parse({self.variant.name!r})"
        return f"make_agent({self.name!r}{extra})"


class PolicyAgent(Agent):
    """An agent with a move distribution, ``policy(board)``, that ``choose`` samples (see the
    module docstring)."""

    enumerable = True

    def __init__(self, name: str, variant: Variant) -> None:
        super().__init__(name, variant)
        self._policies: dict[str, Policy] = {}
        self._samplers: dict[str, Sampler] = {}

    def policy(self, board: str) -> Policy:
        """The move distribution on ``board``."""
        return dict(self._policy_of(board))

    def choose(self, board: str, rng: Generator) -> Cell:
        """One move on ``board``, drawn from the policy with ``rng`` (see the module docstring)."""
        known = self._samplers.get(board) if board.__class__ is str else None  # a hot loop's path: one lookup
        cells, cumulative = known or self.sampler(board)
        if len(cells) == 1:
            return cells[0]
        if cumulative is None:
            return cells[int(rng.random() * len(cells))]
        u = rng.random() * cumulative[-1]
        for cell, edge in zip(cells, cumulative):
            if u < edge:
                return cell
        return cells[-1]

    def sampler(self, board: str) -> Sampler:
        """The policy on ``board`` as :meth:`choose` draws from it (and the vectorised environment
        replays it)."""
        return recall(self._samplers, board, self._new_sampler)

    def _new_sampler(self, board: str) -> Sampler:
        policy = self._policy_of(board)
        cells, shares = tuple(policy), tuple(policy.values())
        if all(share == shares[0] for share in shares):
            return cells, None
        return cells, tuple(accumulate(shares))

    def _policy_of(self, board: str) -> Policy:
        known = self._policies.get(board) if board.__class__ is str else None  # a hot loop's path: one lookup
        return known or recall(self._policies, board, self._new_policy)

    def _new_policy(self, board: str) -> Policy:
        return self._policy(check_board(board, self.variant))

    @abstractmethod
    def _policy(self, board: str) -> Policy:
        """The policy on a checked, normalised, unfinished board."""


class SearchAgent(PolicyAgent):
    """A depth-limited search player: uniform over the cells with the best ``scores``."""

    kind = "search"

    def __init__(self, depth: int, variant: Variant) -> None:
        if not isinstance(depth, int) or depth < 1:
            raise InvalidAgentError(f"{self.kind} depth must be a positive integer, got {depth!r}")
        if position_bound(variant.cells, depth) > SEARCH_LIMIT:  # refuse up front what would never finish
            deepest = max(d for d in range(1, variant.cells + 1) if position_bound(variant.cells, d) <= SEARCH_LIMIT)
            raise InvalidAgentError(
                f"{self.kind} depth {depth} on {variant.name} could search {position_bound(variant.cells, depth):,}"
                f" positions a move, more than the {SEARCH_LIMIT:,} allowed: use a depth of at most {deepest}"
            )
        super().__init__(f"{self.kind}:{depth}", variant)
        self.depth = depth

    def _policy(self, board: str) -> Policy:
        scores = self.scores(board)
        best = max(scores.values())
        return uniform([cell for cell, score in scores.items() if score == best])

    @abstractmethod
    def scores(self, board: str) -> dict[Cell, int]:
        """Each empty cell's score for the side to move."""


def check_board(board: str, variant: Variant) -> str:
    """Normalise a board and check that it is legal and unfinished."""
    if not isinstance(board, str):
        raise InvalidBoardError(f"invalid board {board!r}: agents take text boards such as 'X...O....'")
    return _checked(board, variant)


@lru_cache(maxsize=1 << 20)  # shared by every agent: each board is parsed once per process
def _checked(board: str, variant: Variant) -> str:
    text = rules.parse(board, variant)
    if rules.terminal_value(text, variant) is not None:
        raise GameOverError(f"no move on {board!r}: the game is over")
    return text


def search_depth(board: str, depth: int) -> int:
    """The depth that matters in a memo key: a search at least as deep as the empty cells are
    many reaches the end of every line, so every such depth gives the same score."""
    return min(depth, board.count(rules.EMPTY))


def recall(memo: dict[str, T], board: str, work: Callable[[str], T]) -> T:
    """``memo[board]``, worked out by ``work(board)`` and remembered the first time (a board
    that is not a string goes to ``work``, which says what is wrong with it)."""
    try:
        found = memo.get(board)
    except TypeError:  # unhashable
        found = None
    return remember(memo, board, work(board)) if found is None else found


def remember(memo: dict[Any, T], key: Any, value: T, limit: int = MEMO_LIMIT) -> T:
    """``memo[key] = value``, emptying the memo first when it is full (a crude bound on memory)."""
    if len(memo) >= limit:
        memo.clear()
    memo[key] = value
    return value


def uniform(cells: list[Cell] | tuple[Cell, ...]) -> Policy:
    share = 1.0 / len(cells)
    return {cell: share for cell in cells}


def empty_cells(board: str) -> list[Cell]:
    return [cell for cell, mark in enumerate(board) if mark == rules.EMPTY]


def place(board: str, cell: Cell, mark: str) -> str:
    """``board`` with ``mark`` on ``cell`` (no checks: for searches over checked boards)."""
    return board[:cell] + mark + board[cell + 1 :]


def opponent(mark: str) -> str:
    return rules.O if mark == rules.X else rules.X


def winning_cells(board: str, mark: str, variant: Variant) -> list[Cell]:
    """Ascending empty cells where ``mark`` would complete a line at once."""
    x = mark == rules.X
    found = []
    for cell, here in enumerate(board):
        if here == rules.EMPTY:
            for marks, all_x, all_o in variant.reads_through[cell]:
                if marks(board) == (all_x if x else all_o):
                    found.append(cell)
                    break
    return found
