"""Games between agents: sampled, or exact by recursion over the game tree.

A comparison of A and B plays A as X in half of the games and as O in the other half, as the
seeds do (game i has A as X when i is even). Sampled comparisons count outcomes and are
reproducible from ``seed``; exact ones give the probability of each outcome, walking every
position both agents can reach with their move distributions (memoised on the board, so
each position is visited once per seating).

Exact play is feasible only on small boards: it walks up to every legal position, in Python.
The walk from a board with ``e`` empty cells visits at most :func:`position_bound` ``(e)``
positions (the boards of ``e`` cells with legal piece counts: 6,046 for 3x3, 143,365 for 12
cells, 10,165,779 for 4x4), and exact runs go up to :data:`EXACT_LIMIT` of them: every board of
up to 12 cells (3x4k3, whose 111,973 legal positions take a few seconds a pair), none of 13 or
more. Beyond that, sample.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Union

import numpy as np

from ..errors import NotEnumerableError, NotFeasibleError
from ..game import rules
from ..game.variant import Variant, position_bound
from .agents import PolicyAgent
from .record import Record

if TYPE_CHECKING:
    from numpy.random import Generator, SeedSequence

    from .agents import Agent

Number = int | float
Seed = Union[int, "SeedSequence", None]

EXACT_LIMIT = 200_000  # positions an exact walk may have to visit (see the module docstring)


def exact_feasible(variant: Variant, board: str | None = None) -> bool:
    """Whether an exact walk from ``board`` (default: the empty board) stays within :data:`EXACT_LIMIT`."""
    empty = variant.cells if board is None else board.count(rules.EMPTY)
    return position_bound(empty) <= EXACT_LIMIT


def check_exact(variant: Variant, board: str | None = None) -> None:
    """Raise NotFeasibleError if an exact walk from ``board`` could visit too many positions."""
    if not exact_feasible(variant, board):
        empty = variant.cells if board is None else board.count(rules.EMPTY)
        where = variant.name if board is None else f"{board!r} ({variant.name})"
        raise NotFeasibleError(
            f"exact play on {where} is not feasible: up to {position_bound(empty):,} positions to walk,"
            f" the limit is {EXACT_LIMIT:,}; sample games instead"
        )


@dataclass(frozen=True)
class Outcomes(Record):
    """How games with fixed seats ended: counts when sampled, probabilities when exact."""

    x_wins: Number
    draws: Number
    o_wins: Number


@dataclass(frozen=True)
class Totals(Record):
    """A comparison over both seats, from A's side."""

    a_wins: Number
    draws: Number
    b_wins: Number


@dataclass(frozen=True)
class Comparison(Record):
    a: str
    b: str
    exact: bool
    games: int | None  # None when exact
    a_as_x: Outcomes
    a_as_o: Outcomes

    @property
    def total(self) -> Totals:
        """Counts summed over both seats, or (exact) probabilities averaged over them."""
        x, o = self.a_as_x, self.a_as_o
        a_wins, draws, b_wins = x.x_wins + o.o_wins, x.draws + o.draws, x.o_wins + o.x_wins
        if self.exact:
            return Totals(a_wins / 2, draws / 2, b_wins / 2)
        return Totals(a_wins, draws, b_wins)

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "total": self.total.to_dict()}


def play_game(agent_x: Agent, agent_o: Agent, rng: Generator) -> str | None:
    """Play one game from the empty board; the winner ``'X'``/``'O'``, or None for a draw."""
    variant = _same_variant(agent_x, agent_o)
    board = rules.EMPTY * variant.cells
    mover, waiting = agent_x, agent_o
    while True:
        board, over, winner = _after(board, mover.choose(board, rng), variant)  # raises on an illegal move
        if over:
            return winner
        mover, waiting = waiting, mover


@lru_cache(maxsize=1 << 18)
def _after(board: str, cell: int, variant: Variant) -> tuple[str, bool, str | None]:
    """The board after a move, whether the game is over, and who won: worked out once per
    (board, move), since sampled games meet the same positions again and again."""
    child = rules.play(board, cell, variant)
    over = rules.terminal_value(child, variant) is not None
    return child, over, rules.winner(child, variant) if over else None


def compare_sampled(
    a: Agent, b: Agent, games: int = 1000, seed: Seed = None, progress: Callable[[int], Any] | None = None
) -> Comparison:
    """Play ``games`` games, A as X in the even-numbered ones; ``progress(n)`` after every n games."""

    if not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be a positive integer, got {games!r}")
    _same_variant(a, b)
    rng = np.random.default_rng(seed)
    tallies = {True: {"X": 0, None: 0, "O": 0}, False: {"X": 0, None: 0, "O": 0}}  # a_is_x -> winner -> count
    step = max(1, games // 200)
    for game in range(games):
        a_is_x = game % 2 == 0
        winner = play_game(a, b, rng) if a_is_x else play_game(b, a, rng)
        tallies[a_is_x][winner] += 1
        if progress is not None and (game + 1) % step == 0:
            progress(step)
    if progress is not None and games % step:
        progress(games % step)
    return Comparison(a.name, b.name, False, games, _outcomes(tallies[True]), _outcomes(tallies[False]))


def compare_exact(a: Agent, b: Agent, progress: Callable[[int], Any] | None = None) -> Comparison:
    """The exact outcome probabilities of A against B; raise NotEnumerableError for a sampled-only agent.
    ``progress(n)``: n more of the ``2 * position_bound(cells)`` positions the two walks may visit
    are done (see :func:`outcome_probabilities`)."""
    if not isinstance(a, PolicyAgent) or not isinstance(b, PolicyAgent):
        sampled = b if isinstance(a, PolicyAgent) else a
        raise NotEnumerableError(
            f"agent {sampled.name!r} cannot be enumerated (it only samples moves), so there is no exact result;"
            " compare it by sampling"
        )
    check_exact(_same_variant(a, b))
    a_as_x, a_as_o = outcome_probabilities(a, b, None, progress), outcome_probabilities(b, a, None, progress)
    return Comparison(a.name, b.name, True, None, a_as_x, a_as_o)


_PROGRESS_STEP = 256  # positions walked between two progress reports


def outcome_probabilities(
    agent_x: PolicyAgent, agent_o: PolicyAgent, board: str | None = None, progress: Callable[[int], Any] | None = None
) -> Outcomes:
    """Exact probabilities of X win / draw / O win when these agents play on from ``board``;
    raise NotFeasibleError if the walk could visit more than :data:`EXACT_LIMIT` positions.
    ``progress(n)`` as the walk visits n more positions, then the rest of :func:`position_bound`
    when it ends (it visits fewer), so the reports add up to the bound."""
    variant = _same_variant(agent_x, agent_o)
    start = rules.EMPTY * variant.cells if board is None else rules.parse(board, variant)
    check_exact(variant, None if board is None else start)
    memo: dict[str, tuple[float, float, float]] = {}
    policy_x, policy_o = agent_x.policy, agent_o.policy

    def visit(text: str) -> tuple[float, float, float]:
        found = memo.get(text)
        if found is not None:
            return found
        found = _finished(text, variant)
        if found is None:
            mark = rules.to_move(text)
            x = d = o = 0.0
            for cell, p in (policy_x if mark == rules.X else policy_o)(text).items():
                cx, cd, co = visit(text[:cell] + mark + text[cell + 1 :])
                x, d, o = x + p * cx, d + p * cd, o + p * co
            found = (x, d, o)
        memo[text] = found
        if progress is not None and len(memo) % _PROGRESS_STEP == 0:
            progress(_PROGRESS_STEP)
        return found

    outcomes = Outcomes(*visit(start))
    if progress is not None:
        progress(position_bound(start.count(rules.EMPTY)) - len(memo) // _PROGRESS_STEP * _PROGRESS_STEP)
    return outcomes


@lru_cache(maxsize=1 << 20)
def _finished(board: str, variant: Any) -> tuple[float, float, float] | None:
    """(X win, draw, O win) of a finished board as certainties, or None while play goes on."""
    if rules.terminal_value(board, variant) is None:
        return None
    winner = rules.winner(board, variant)
    return (1.0, 0.0, 0.0) if winner == rules.X else (0.0, 0.0, 1.0) if winner == rules.O else (0.0, 1.0, 0.0)


def _outcomes(tally: dict[str | None, int]) -> Outcomes:
    return Outcomes(tally["X"], tally[None], tally["O"])


def _same_variant(a: Agent, b: Agent) -> Any:
    if a.variant != b.variant:
        raise ValueError(f"agents play different variants: {a.name!r} {a.variant}, {b.name!r} {b.variant}")
    return a.variant
