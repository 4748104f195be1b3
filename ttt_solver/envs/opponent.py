"""The environments' adversary: an agent of the project, and its moves for many games at once.

The single environment asks the agent itself, ``agent.choose(board, env.np_random)`` (or,
against ``perfect``, replays it from :mod:`.replies`). The vectorised environment must make the
same moves with the same random draws, with no Python call per game where it can help it, so
it replays each agent's sampling rule in numpy, giving the board after each move (a gather in
``observation.children`` for the agents that pick cells):

- ``perfect`` / ``perfect:P`` (:class:`PerfectMoves`): :meth:`PerfectAgent.choose`'s rule over
  the oracle's batch tables: with ``P < 1`` one draw ``u`` picks a uniformly random move when
  ``u >= P``; then, if more than one cell is left to choose from, one draw ``v`` takes
  ``cells[int(v * len(cells))]``. With ``P = 1``, :meth:`PerfectMoves.by_row` serves every
  game at once by its row (board and learner's side), no draw and no move where the learner is
  to move or the game is over.
- any other enumerable agent using :meth:`PolicyAgent.choose` (``random``, ``think1..3``,
  ``heuristic``, ``onestep``, ``nstep:D``, ``minimax:D``) (:class:`CellMoves` of :class:`PolicyCells`): that rule
  over tables of the agent's own samplers (:meth:`PolicyAgent.sampler`), filled the first time a board
  is met.
- anything else (``mc:N``, a custom agent) (:class:`CellMoves` of :class:`LoopCells`): ``agent.choose`` per game.

``tests/players/test_agent_replays.py`` checks that each replay makes ``agent.choose``'s move with the same
draws, on every unfinished position of 3x3 and 3x4k3 (one board of each symmetry class on 3x4k3).

:class:`Draws` gives each game its own ``numpy.random.Generator`` and reads it in blocks;
``Generator.random(k)`` returns exactly the next ``k`` values of ``Generator.random()``, so
bulk reading does not change what each game sees.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ..builder.first_use import shared_oracle
from ..game import array_rules
from ..game.variant import Variant
from ..lookup.tables import bit_tables
from ..players.agents import Agent, PolicyAgent, make_agent
from ..players.agents.perfect import PerfectAgent
from .observation import ILLEGAL, PLAYING, BoardTables, children, x_to_move

if TYPE_CHECKING:
    from ..lookup.oracle import Oracle


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


class Draws:
    """Uniform draws in [0, 1) for each game from its own generator, read ``block`` at a time.

    Game ``g``'s draws sit in row ``g`` of a buffer; ``_next[g]`` is the flat position of its
    next unread one. When fewer than ``most`` are left, ``prepare`` moves them just before
    column ``head`` and refills the columns from ``head`` on with one generator call (into a
    view made once): most of the cost of a refill is that call, hence long rows. The default
    block keeps the buffer near 16 MB (512 draws a game up to 4,096 games).
    """

    def __init__(self, generators: list[np.random.Generator], buffered: bool = True, block: int | None = None) -> None:
        self.generators = generators
        self.buffered = buffered
        self.block = block = block if block is not None else max(32, min(512, (1 << 21) // max(1, len(generators))))
        if buffered:
            self.head = min(8, block // 2)  # room for the unread draws a refill keeps
            self._buffer = np.empty((len(generators), block))
            self._flat = self._buffer.reshape(-1)  # the same memory, for one-dimensional gathers
            self._starts = np.arange(len(generators), dtype=np.intp) * block
            self._ends = self._starts + block
            self._tails = list(self._buffer[:, self.head :])
            for generator, row in zip(generators, self._buffer):
                generator.random(out=row)
            self._next = self._starts.copy()
            self._most, self._limits = 0, self._ends  # refill below ``_limits``, set for ``most``

    def prepare(self, most: int) -> None:
        """Make sure every game has ``most`` unread draws, keeping each game's order."""
        if not self.buffered:
            return
        if most != self._most:
            self._most, self._limits = most, self._ends - most
        games = np.flatnonzero(self._next > self._limits)
        if not len(games):
            return
        generators, found = self.generators, self._next[games]
        left = self._ends[games] - found  # fewer than ``most``
        if not most - 1 <= self.head <= self.block - most:  # a short block: one game at a time
            for game, kept in zip(games.tolist(), left.tolist()):
                row = self._buffer[game]
                row[:kept] = row[self.block - kept :]
                generators[game].random(out=row[kept:])
            self._next[games] = self._starts[games]
            return
        moved = self._starts[games] + self.head - left
        for k in range(int(left.max())):
            keep = left > k
            self._flat[moved[keep] + k] = self._flat[found[keep] + k]
        tails = self._tails
        for game in games.tolist():
            generators[game].random(out=tails[game])
        self._next[games] = moved

    def take(self, active: np.ndarray) -> np.ndarray:
        """The next draw of every game where ``active`` (a bool array over all games) is set;
        what the others get means nothing (a draw in [0, 1)), and they draw nothing."""
        if not self.buffered:
            drawn = np.zeros(len(active))
            drawn[active] = [self.generators[game].random() for game in np.flatnonzero(active).tolist()]
            return drawn
        found: np.ndarray = self._flat[self._next]
        self._next += active
        return found

    def take_games(self, games: np.ndarray) -> np.ndarray:
        """The next draw of each of ``games`` (distinct game numbers), in that order."""
        if not self.buffered:
            return np.array([self.generators[game].random() for game in games.tolist()], dtype=np.float64)
        found = self._next[games]
        self._next[games] = found + 1
        drawn: np.ndarray = self._flat[found]
        return drawn


class BatchMoves(Protocol):
    buffered: bool

    def __call__(self, index: np.ndarray, active: np.ndarray, draws: Draws) -> np.ndarray:
        """The board after the opponent's move on board ``index[g]`` of every game ``g`` where
        ``active`` is set (its board is unfinished); any number elsewhere."""

    def on(self, index: np.ndarray, games: np.ndarray, draws: Draws) -> np.ndarray:
        """The same for ``games`` alone (distinct game numbers), on their boards ``index``."""


def batch_moves(agent: Agent, tables: BoardTables) -> BatchMoves:
    """The fastest numpy replay of ``agent.choose`` for ``agent`` (see the module docstring)."""
    if type(agent) is PerfectAgent:
        return PerfectMoves(agent, tables)
    if isinstance(agent, PolicyAgent) and type(agent).choose is PolicyAgent.choose:
        return CellMoves(PolicyCells(agent, tables), tables)
    return CellMoves(LoopCells(agent, tables), tables)


def _preferred_by_code(agent: PerfectAgent, tables: BoardTables) -> np.ndarray:
    """uint16 preferred-move mask of every table index (0 where no legal board is, or the game is over)."""
    legal = np.flatnonzero(tables.final != ILLEGAL)
    boards = (array_rules.digits(legal, tables.variant).astype(np.int8) - 1).astype(np.int8)
    preferred = np.zeros(len(tables.final), dtype=np.uint16)
    preferred[legal] = agent.oracle.batch_tables().preferred_masks(boards)
    return preferred


class PerfectMoves:
    """:meth:`PerfectAgent.choose` over every game at once. Each table is flat, indexed by
    ``board * cells + k``, and holds the board after the ``k``-th candidate move: a game's
    reply is one gather once its ``k`` is known, with no row of candidates copied per game."""

    buffered = True

    def __init__(self, agent: PerfectAgent, tables: BoardTables) -> None:
        self.probability = agent.probability
        self._cells = n = tables.variant.cells
        after = children(tables).reshape(-1, n)
        # The preferred cells of every board (the vector environment's boards are small), by code.
        preferred = _preferred_by_code(agent, tables)
        _lowest, count, kth = bit_tables()
        self._preferred = _replies(after, kth[:, :n][preferred])
        self._preferred_counts = count.astype(np.intp)[preferred]
        if self.probability < 1.0:  # the uniformly random moves, tables as big as the preferred ones
            self._empties = _replies(after, tables.empties)
            self._empty_counts = (tables.empties >= 0).sum(axis=1)
        else:  # by_row: a game's row is its board plus 0 (the learner plays X) or size (O)
            size = len(tables.final)
            boards = np.arange(size)
            unfinished = tables.final == PLAYING
            x_moves = x_to_move(tables)
            opponent = np.concatenate([unfinished & ~x_moves, unfinished & x_moves])  # moves on the row
            self._row_counts = np.where(opponent, np.tile(self._preferred_counts, 2), 0)
            self._row_starts = np.where(opponent, np.tile(boards * n, 2), size * n + np.tile(boards, 2))
            self._row_replies = np.concatenate([self._preferred, boards])  # then each board itself

    def by_row(self, rows: np.ndarray, draws: Draws) -> np.ndarray:
        """``perfect`` (probability 1) on every game at once, by its row: the board after the
        opponent's reply where the opponent is to move on an unfinished board, else the board."""
        counts = self._row_counts[rows]
        pick = (draws.take(counts > 1) * counts).astype(np.intp)
        pick += self._row_starts[rows]
        found: np.ndarray = self._row_replies[pick]
        return found

    def __call__(self, index: np.ndarray, active: np.ndarray, draws: Draws) -> np.ndarray:
        live = np.count_nonzero(active)
        if 4 * live < len(active):  # a few games (openings): work on those alone
            games = np.flatnonzero(active)
            replied = np.zeros(len(active), dtype=np.intp)
            if live:
                replied[games] = self.on(index[games], games, draws)
            return replied
        counts = self._preferred_counts[index]
        if self.probability >= 1.0:
            pick = (draws.take(active & (counts > 1)) * counts).astype(np.intp)
            pick += index * self._cells
            preferred: np.ndarray = self._preferred[pick]
            return preferred
        wild = active & (draws.take(active) >= self.probability)  # a uniformly random move instead
        counts = np.where(wild, self._empty_counts[index], counts)
        pick = (draws.take(active & (counts > 1)) * counts).astype(np.intp)
        pick += index * self._cells
        chosen: np.ndarray = np.where(wild, self._empties[pick], self._preferred[pick])
        return chosen

    def on(self, index: np.ndarray, games: np.ndarray, draws: Draws) -> np.ndarray:
        counts = self._preferred_counts[index]
        wild = None
        if self.probability < 1.0:
            wild = draws.take_games(games) >= self.probability
            counts = np.where(wild, self._empty_counts[index], counts)
        several = counts > 1
        drawn = np.zeros(len(games))  # 0 where nothing is drawn
        drawn[several] = draws.take_games(games[several])
        pick = (drawn * counts).astype(np.intp) + index * self._cells
        if wild is None:
            preferred: np.ndarray = self._preferred[pick]
            return preferred
        chosen: np.ndarray = np.where(wild, self._empties[pick], self._preferred[pick])
        return chosen


def _replies(after: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """``after`` (boards by board and cell) at ``cells`` (candidate cells by board, -1 padded), flat."""
    found = np.take_along_axis(after, np.maximum(cells, 0).astype(np.intp), axis=1)
    table: np.ndarray = np.where(cells >= 0, found, -1).ravel()
    return table


class CellPicker(Protocol):
    """What a replay that picks cells asks: each game's cell on its board."""

    buffered: bool  # whether the picks read the games' draws in blocks (see Draws)

    def cells(self, index: np.ndarray, games: np.ndarray, draws: Draws) -> np.ndarray:
        """The cell picked on board ``index[g]`` for game ``games[g]``."""


class CellMoves:
    """A replay whose ``picker`` picks each game's cell; the boards after those cells."""

    def __init__(self, picker: CellPicker, tables: BoardTables) -> None:
        self.picker = picker
        self.buffered = picker.buffered
        self._after = children(tables)
        self._n = tables.variant.cells

    def __call__(self, index: np.ndarray, active: np.ndarray, draws: Draws) -> np.ndarray:
        replied = np.zeros(len(index), dtype=np.intp)
        games = np.flatnonzero(active)
        replied[games] = self.on(index[games], games, draws)
        return replied

    def on(self, index: np.ndarray, games: np.ndarray, draws: Draws) -> np.ndarray:
        found: np.ndarray = self._after[index * self._n + self.picker.cells(index, games, draws)]
        return found


class PolicyCells:
    """:meth:`PolicyAgent.choose`'s picks, from tables of the agent's samplers filled as boards are met."""

    buffered = True

    def __init__(self, agent: PolicyAgent, tables: BoardTables) -> None:
        self.agent = agent
        self.tables = tables
        size, n = tables.masks.shape
        self._cells = np.full((size, n), -1, dtype=np.int8)
        self._cumulative = np.full((size, n), np.inf)
        self._counts = np.zeros(size, dtype=np.intp)  # 0: not filled yet
        self._uniform = np.zeros(size, dtype=bool)

    def cells(self, index: np.ndarray, games: np.ndarray, draws: Draws) -> np.ndarray:
        counts = self._counts[index]
        if not counts.all():
            for board in np.unique(index[counts == 0]).tolist():
                self._fill(board)
            counts = self._counts[index]
        several = counts > 1
        u = np.zeros(len(games))  # 0 where nothing is drawn
        u[several] = draws.take_games(games[several])
        pick = (u * counts).astype(np.intp)  # equally likely cells: cells[int(u * n)]
        weighted = np.flatnonzero(~self._uniform[index])  # else the first cell whose cumulative share exceeds u * total
        if len(weighted):
            cumulative, n = self._cumulative[index[weighted]], counts[weighted]
            passed = (cumulative <= (u[weighted] * cumulative[np.arange(len(weighted)), n - 1])[:, None]).sum(axis=1)
            pick[weighted] = np.minimum(passed, n - 1)
        found: np.ndarray = self._cells[index, pick].astype(np.intp)
        return found

    def _fill(self, index: int) -> None:
        cells, cumulative = self.agent.sampler(self.tables.texts[index])
        self._cells[index, : len(cells)] = cells
        if cumulative is not None:
            self._cumulative[index, : len(cells)] = cumulative
        self._uniform[index] = cumulative is None
        self._counts[index] = len(cells)


class LoopCells:
    """``agent.choose``'s picks, one call per game."""

    buffered = False

    def __init__(self, agent: Agent, tables: BoardTables) -> None:
        self.agent = agent
        self.texts = tables.texts

    def cells(self, index: np.ndarray, games: np.ndarray, draws: Draws) -> np.ndarray:
        choose: Any = self.agent.choose
        return np.array(
            [choose(self.texts[board], draws.generators[game]) for board, game in zip(index.tolist(), games.tolist())],
            dtype=np.intp,
        )
