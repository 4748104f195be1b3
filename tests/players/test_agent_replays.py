"""Each agent's two forms make the same moves: the vectorised environment's numpy replay of an
agent (``envs.opponent.batch_moves``: ``CellMoves`` of ``PolicyCells`` over the agent's samplers, ``PerfectMoves``
over the oracle's batch tables) and ``agent.choose(board, rng)``, fed the same random draws.

Every enumerable agent, on every unfinished legal board of 3x3 (4,520) and on every unfinished
position of 3x4k3, one board of each symmetry class (20,088 of its 79,563 boards: the agents'
own Python, which both forms call once per board, takes about 20 s of CPU for all of them, and
the replay of a board does not depend on where its class sits on the grid). Each replay path
is checked: a whole batch, a few games (``on``) and, for ``perfect``, by the learner's row; and
an agent of unequal shares takes the weighted draw, which ours never need.
"""

from __future__ import annotations

import numpy as np
import pytest
from support.extra_markers import need

pytestmark = pytest.mark.rl
need("rl", "gymnasium")

from ttt_solver import Oracle
from ttt_solver.envs.observation import PLAYING, BoardTables, board_tables, x_to_move
from ttt_solver.envs.opponent import CellMoves, Draws, PerfectMoves, PolicyCells, batch_moves
from ttt_solver.game import array_rules
from ttt_solver.game.variant import Variant
from ttt_solver.players.agents import Agent, Policy, PolicyAgent, make_agent
from ttt_solver.players.agents.base import empty_cells
from ttt_solver.players.tournament import DEFAULT_AGENTS

# Every enumerable agent family: random, think1-3, heuristic, onestep, nstep:3, minimax:3,
# perfect:0.5 and perfect (mc:N only samples: the replay calls its choose).
SPECS = DEFAULT_AGENTS
COUNTS = {"3x3": 4520, "3x4k3": 20088}


class Weighted(PolicyAgent):
    """Unequal shares (cell c weighs c + 1), the one path of the replay no agent of ours takes."""

    def _policy(self, board: str) -> Policy:
        cells = empty_cells(board)
        return {cell: (cell + 1) / sum(c + 1 for c in cells) for cell in cells}


def unfinished(tables: BoardTables, canonical: bool) -> np.ndarray:
    """The table index of every unfinished legal board (of the canonical ones only, if asked)."""
    boards = np.flatnonzero(tables.final == PLAYING)
    if canonical:
        codes = array_rules.encode_texts([tables.texts[b] for b in boards.tolist()], tables.variant)
        boards = boards[array_rules.canonical_codes(codes, tables.variant) == codes]
    return boards


@pytest.mark.parametrize(("name", "canonical"), [("3x3", False), ("3x4k3", True)])
@pytest.mark.long
def test_the_vectorised_replay_of_every_agent_moves_as_the_agent_chooses(variant_db, name, canonical):
    variant = Variant.parse(name)
    tables = board_tables(variant)
    assert isinstance(tables, BoardTables)
    boards = unfinished(tables, canonical)
    assert len(boards) == COUNTS[name]
    oracle = Oracle.load(variant_db(name), name)
    games = np.arange(len(boards))  # game g plays board boards[g]
    draws = Draws([np.random.default_rng([5, g]) for g in games.tolist()])  # the replay's draws
    streams = [np.random.default_rng([5, g]) for g in games.tolist()]  # the same draws, for choose
    texts = [tables.texts[b] for b in boards.tolist()]
    x_moves = x_to_move(tables)[boards]
    mover = np.where(x_moves, 1, -1)
    powers = np.array(tables.powers)
    rows = boards + len(tables.final) * x_moves  # by_row: the learner plays the side not to move
    for spec in (*SPECS, "weighted"):
        if spec == "weighted":
            agent: Agent = Weighted("weighted", variant)
        else:
            agent = make_agent(spec, oracle if spec.startswith("perfect") else None, variant)
        moves = batch_moves(agent, tables)
        assert isinstance(moves, PerfectMoves) == spec.startswith("perfect"), spec
        if not isinstance(moves, PerfectMoves):
            assert isinstance(moves, CellMoves) and isinstance(moves.picker, PolicyCells), spec
        paths = ["batch", "on"] + (["by_row"] if isinstance(moves, PerfectMoves) and moves.probability == 1 else [])
        for path in paths:
            draws.prepare(2)
            if path == "batch":
                replied = moves(boards, np.ones(len(boards), dtype=bool), draws)
            elif path == "on":
                replied = moves.on(boards, games, draws)
            else:
                replied = moves.by_row(rows, draws)  # type: ignore[attr-defined]
            chosen = np.array([agent.choose(text, stream) for text, stream in zip(texts, streams)])
            wrong = np.flatnonzero(replied != boards + mover * powers[chosen])
            assert not len(wrong), f"{spec} ({path}) on {texts[wrong[0]]!r}: not cell {chosen[wrong[0]]}"
            # Both forms took as many draws (none, one or two) on every board: the next is the same.
            assert draws.take_games(games).tolist() == [stream.random() for stream in streams], f"{spec} ({path})"
