"""The environments' adversary: an agent of the project, and its moves for many games at once.

The single environment asks the agent itself, ``agent.choose(board, env.np_random)``. The
vectorised environment must make the same moves with the same random draws, with no Python
call per game where it can help it, so it replays each agent's sampling rule in numpy:

- ``perfect`` / ``perfect:P`` (:class:`PerfectMoves`): :meth:`PerfectAgent.choose`'s rule over
  the oracle's batch tables: with ``P < 1`` one draw ``u`` picks a uniformly random move when
  ``u >= P``; then, if more than one cell is left to choose from, one draw ``v`` takes
  ``cells[int(v * len(cells))]``.
- any other enumerable agent using :meth:`Agent.choose` (``random``, ``think1..3``,
  ``heuristic``, ``onestep``, ``nstep:D``, ``minimax:D``) (:class:`PolicyMoves`): that rule
  over tables of the agent's policy, filled the first time a board is met.
- anything else (``mc:N``, a custom agent) (:class:`LoopMoves`): ``agent.choose`` per game.

:class:`Draws` gives each game its own ``numpy.random.Generator`` and reads it in blocks;
``Generator.random(k)`` returns exactly the next ``k`` values of ``Generator.random()``, so
bulk reading does not change what each game sees.
"""

from __future__ import annotations

from functools import cache
from itertools import accumulate
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ..agents import Agent, make_agent
from ..agents.perfect import PerfectAgent
from ..lookup.tables import bit_tables
from ..variant import Variant
from .observation import BoardTables

if TYPE_CHECKING:
    from ..oracle import Oracle


def resolve_opponent(opponent: str | Agent, oracle: Oracle | None, variant: Variant) -> Agent:
    """An agent from a spec (``"perfect"``, ``"perfect:0.8"``, ``"heuristic"``, ...) or as given."""
    if isinstance(opponent, str):
        if oracle is None and opponent.strip().lower().startswith("perfect"):
            oracle = shared_oracle(variant)
        return make_agent(opponent, oracle=oracle, variant=variant)
    if not callable(getattr(opponent, "choose", None)):
        raise TypeError(f"invalid opponent {opponent!r}: expected an agent spec such as 'perfect' or an Agent")
    if getattr(opponent, "variant", variant) != variant:
        raise ValueError(f"the opponent {opponent!r} plays {opponent.variant}, the environment {variant}")
    return opponent


@cache
def shared_oracle(variant: Variant) -> Oracle:
    """``Oracle.load`` once per process and variant, shared by every environment that needs it."""
    from ..oracle import Oracle

    return Oracle.load(variant=variant)


class Draws:
    """Uniform draws in [0, 1) for each game from its own generator, read ``block`` at a time."""

    def __init__(self, generators: list[np.random.Generator], buffered: bool = True, block: int = 128) -> None:
        self.generators = generators
        self.buffered = buffered
        self.block = block
        if buffered:
            self._buffer = np.empty((len(generators), block))
            self._flat = self._buffer.reshape(-1)  # the same memory, for one-dimensional gathers
            self._starts = np.arange(len(generators), dtype=np.intp) * block
            for generator, row in zip(generators, self._buffer):
                generator.random(out=row)
            self._used = np.zeros(len(generators), dtype=np.intp)

    def prepare(self, most: int) -> None:
        """Make sure every game has ``most`` unread draws, keeping each game's order."""
        if not self.buffered:
            return
        for game in np.flatnonzero(self._used > self.block - most).tolist():
            used = int(self._used[game])
            row = self._buffer[game]
            row[: self.block - used] = row[used:]
            self.generators[game].random(out=row[self.block - used :])
            self._used[game] = 0

    def take(self, active: np.ndarray) -> np.ndarray:
        """The next draw of every game where ``active`` (a bool array over all games) is set;
        what the others get means nothing, and they draw nothing."""
        if not self.buffered:
            drawn = np.zeros(len(active))
            drawn[active] = [self.generators[game].random() for game in np.flatnonzero(active).tolist()]
            return drawn
        found: np.ndarray = self._flat[self._starts + self._used]
        self._used += active
        return found

    def take_games(self, games: np.ndarray) -> np.ndarray:
        """The next draw of each of ``games`` (distinct game numbers), in that order."""
        if not self.buffered:
            return np.array([self.generators[game].random() for game in games.tolist()], dtype=np.float64)
        used = self._used[games]
        self._used[games] = used + 1
        found: np.ndarray = self._flat[self._starts[games] + used]
        return found


class BatchMoves(Protocol):
    buffered: bool

    def __call__(self, index: np.ndarray, active: np.ndarray, draws: Draws) -> np.ndarray:
        """The opponent's cell on board ``index[g]`` of every game ``g`` where ``active`` is set
        (its board is unfinished); any cell number elsewhere."""


def batch_moves(agent: Agent, tables: BoardTables) -> BatchMoves:
    """The fastest numpy replay of ``agent.choose`` for ``agent`` (see the module docstring)."""
    if type(agent) is PerfectAgent:
        return PerfectMoves(agent, tables)
    if getattr(agent, "enumerable", False) and type(agent).choose is Agent.choose:
        return PolicyMoves(agent, tables)
    return LoopMoves(agent, tables)


class PerfectMoves:
    """:meth:`PerfectAgent.choose` over every game at once. Each table is flat, indexed by
    ``board * cells + k``: a game's cell is one gather once its ``k`` is known, with no row
    of candidates copied per game."""

    buffered = True

    def __init__(self, agent: PerfectAgent, tables: BoardTables) -> None:
        self.probability = agent.probability
        self._cells = n = tables.variant.cells
        # The preferred cells of every board (the vector environment's boards are small), by code.
        preferred = agent.oracle.batch_tables().preferred
        _lowest, count, kth = bit_tables()
        self._preferred = kth[:, :n][preferred].astype(np.intp).ravel()
        self._preferred_counts = count.astype(np.intp)[preferred]
        self._empties = tables.empties.astype(np.intp).ravel()
        self._empty_counts = (tables.empties >= 0).sum(axis=1)

    def __call__(self, index: np.ndarray, active: np.ndarray, draws: Draws) -> np.ndarray:
        games = np.flatnonzero(active)
        if 4 * len(games) < len(active):  # a few games (openings): work on those alone
            picked = np.zeros(len(active), dtype=np.intp)
            picked[games] = self._choose(index[games], draws, games=games)
            return picked
        return self._choose(index, draws, active=active)

    def _choose(
        self, index: np.ndarray, draws: Draws, active: np.ndarray | None = None, games: np.ndarray | None = None
    ) -> np.ndarray:
        """The cells on ``index``: of the games where ``active`` is set (``index`` covers every
        game), or of ``games`` (``index`` covers those alone)."""

        def take(where: np.ndarray) -> np.ndarray:  # a draw per game where ``where``, 0 elsewhere
            if games is None:
                found: np.ndarray = draws.take(where) * where
                return found
            drawn = np.zeros(len(where))
            drawn[where] = draws.take_games(games[where])
            return drawn

        live = np.ones(len(index), dtype=bool) if active is None else active
        counts = self._preferred_counts[index]
        wild = None  # the games that move at random instead (perfect:P with P < 1)
        if self.probability < 1.0:
            wild = live & (take(live) >= self.probability)
            counts = np.where(wild, self._empty_counts[index], counts)
        pick = (take(live & (counts > 1)) * counts).astype(np.intp) + index * self._cells
        if wild is None:
            preferred: np.ndarray = self._preferred[pick]
            return preferred
        chosen: np.ndarray = np.where(wild, self._empties[pick], self._preferred[pick])
        return chosen


class PolicyMoves:
    buffered = True

    def __init__(self, agent: Agent, tables: BoardTables) -> None:
        self.agent = agent
        self.tables = tables
        size, n = tables.masks.shape
        self._cells = np.full((size, n), -1, dtype=np.int8)
        self._cumulative = np.full((size, n), np.inf)
        self._counts = np.zeros(size, dtype=np.intp)  # 0: not filled yet
        self._uniform = np.zeros(size, dtype=bool)

    def __call__(self, index: np.ndarray, active: np.ndarray, draws: Draws) -> np.ndarray:
        picked = np.zeros(len(index), dtype=np.intp)
        games = np.flatnonzero(active)
        index = index[games]
        counts = self._counts[index]
        if not counts.all():
            for board in np.unique(index[counts == 0]).tolist():
                self._fill(board)
            counts = self._counts[index]
        several = counts > 1
        u = np.zeros(len(games))  # 0 where nothing is drawn
        u[several] = draws.take_games(games[several])
        uniform = (u * counts).astype(np.intp)
        cumulative = self._cumulative[index]
        weighted = (cumulative <= (u * cumulative[np.arange(len(index)), counts - 1])[:, None]).sum(axis=1)
        pick = np.where(self._uniform[index], uniform, np.minimum(weighted, counts - 1))
        picked[games] = self._cells[index, pick]
        return picked

    def _fill(self, index: int) -> None:
        policy = self.agent.policy(self.tables.texts[index])
        cells, shares = list(policy), list(policy.values())
        self._cells[index, : len(cells)] = cells
        self._cumulative[index, : len(cells)] = list(accumulate(shares))
        self._uniform[index] = all(share == shares[0] for share in shares)
        self._counts[index] = len(cells)


class LoopMoves:
    buffered = False

    def __init__(self, agent: Agent, tables: BoardTables) -> None:
        self.agent = agent
        self.texts = tables.texts

    def __call__(self, index: np.ndarray, active: np.ndarray, draws: Draws) -> np.ndarray:
        choose: Any = self.agent.choose
        picked = np.zeros(len(index), dtype=np.intp)
        games = np.flatnonzero(active)
        picked[games] = [
            choose(self.texts[board], draws.generators[game])
            for board, game in zip(index[games].tolist(), games.tolist())
        ]
        return picked
