"""Agents and comparisons: the exact round robin, a sampled duel, one Monte-Carlo move.

Goals: an exact round robin among every enumerable agent (including nstep:3, minimax:3 and
perfect:0.5) in under 10 s; a sampled 1,000-game duel of two cheap agents in under 1 s; one
mc:1000 move in under 50 ms. Each is printed with its ratio to a naive baseline measured in the
same run, the way the seeds do it:

- exact: the same recursion over the game tree with no memo, neither on boards nor on the
  agents' policies (one pair, think2 vs think1, for both);
- duel: the book's own loop (seed 001): ``test_a_game`` with ``AI_think1`` against
  ``random_player`` on its environment, copied with ``deepcopy`` for every trial move;
- Monte-Carlo: the seed's own ``mc_move`` (seed 002, draws fixed as in our agent), a Python
  loop of playouts on a list-of-lists board.

Last, ``perfect.choose`` per call in a hot loop, beside ``oracle.best_move``.

    python benchmarks/bench_agents.py
"""

from __future__ import annotations

import random
import time
from copy import deepcopy

import numpy as np

from ttt_solver.game import rules
from ttt_solver.lookup.oracle import Oracle
from ttt_solver.players.agents import make_agent
from ttt_solver.players.arena import compare_exact, compare_sampled
from ttt_solver.players.tournament import round_robin, unfinished_boards
from ttt_solver.solver.reference import solve

ENUMERABLE = [
    "random",
    "think1",
    "think2",
    "think3",
    "heuristic",
    "onestep",
    "nstep:3",
    "minimax:3",
    "perfect:0.5",
    "perfect",
]


def timed(work) -> tuple[float, object]:
    started = time.perf_counter()
    result = work()
    return time.perf_counter() - started, result


# -- baseline 1: exact recursion without memo ------------------------------------------------
def naive_exact(agent_x, agent_o, board: str = "." * 9) -> tuple[float, float, float]:
    if rules.terminal_value(board) is not None:
        won = rules.winner(board)
        return (1.0, 0.0, 0.0) if won == "X" else (0.0, 0.0, 1.0) if won == "O" else (0.0, 1.0, 0.0)
    agent = agent_x if rules.to_move(board) == "X" else agent_o
    total = [0.0, 0.0, 0.0]
    for cell, p in agent._policy(board).items():  # recomputed on every visit: no memo
        for i, v in enumerate(naive_exact(agent_x, agent_o, rules.play(board, cell))):
            total[i] += p * v
    return total[0], total[1], total[2]


# -- baseline 2: the book's duel loop (seed 001) ----------------------------------------------
class BookEnv:
    LINES = [(1, 2, 3), (4, 5, 6), (7, 8, 9), (1, 4, 7), (2, 5, 8), (3, 6, 9), (1, 5, 9), (3, 5, 7)]

    def reset(self):
        self.turn, self.rounds = "X", 1
        self.validinputs = list(range(1, 10))
        self.occupied = {"X": [], "O": []}
        self.state = np.array([0] * 9)
        self.done, self.reward = False, 0
        return self.state

    def step(self, inp):
        self.occupied[self.turn].append(inp)
        self.state[int(inp) - 1] = 2 * (self.turn == "X") - 1
        self.validinputs.remove(inp)
        if any(all(c in self.occupied[self.turn] for c in line) for line in self.LINES):
            self.done, self.reward, self.validinputs = True, 2 * (self.turn == "X") - 1, []
        elif self.rounds == 9:
            self.done, self.reward, self.validinputs = True, 0, []
        self.rounds += 1
        self.turn = "O" if self.turn == "X" else "X"
        return self.state, self.reward, self.done, ""


def book_duel(games: int) -> list[int]:
    env = BookEnv()

    def AI_think1():
        for m in env.validinputs:
            env_copy = deepcopy(env)
            _, reward, done, _ = env_copy.step(m)
            if done and abs(reward) == 1:
                return m
        return None

    def random_player():
        return random.choice(env.validinputs)

    def test_a_game(player1, player2):
        env.reset()
        while True:
            for player in (player1, player2):
                move = player()
                if move is None:
                    move = random.choice(env.validinputs)
                _, reward, done, _ = env.step(move)
                if done:
                    return reward

    random.seed(0)
    return [
        test_a_game(AI_think1, random_player) if i % 2 == 0 else -test_a_game(random_player, AI_think1)
        for i in range(games)
    ]


# -- baseline 3: the seed's Monte-Carlo move (seed 002) ---------------------------------------
class TTTBoard:
    """A minimal ``poc_ttt_provided.TTTBoard``: 1 = X, 2 = O, 0 empty; check_win -> 1, 2, 4 (draw) or None."""

    def __init__(self, dim: int = 3) -> None:
        self._dim = dim
        self._board = [[0] * dim for _ in range(dim)]

    def clone(self):
        twin = TTTBoard(self._dim)
        twin._board = [row[:] for row in self._board]
        return twin

    def square(self, row, col):
        return self._board[row][col]

    def get_empty_squares(self):
        return [(r, c) for r in range(self._dim) for c in range(self._dim) if self._board[r][c] == 0]

    def move(self, row, col, player):
        if self._board[row][col] == 0:
            self._board[row][col] = player

    def check_win(self):
        b, n = self._board, self._dim
        lines = [b[r] for r in range(n)] + [[b[r][c] for r in range(n)] for c in range(n)]
        lines += [[b[i][i] for i in range(n)], [b[i][n - 1 - i] for i in range(n)]]
        for line in lines:
            if line[0] != 0 and line.count(line[0]) == n:
                return line[0]
        return 4 if not self.get_empty_squares() else None


def seed_mc_move(board: TTTBoard, player: int, trials: int):
    def switch(p):
        return 3 - p

    def mc_trial(board, player):
        while board.check_win() is None:
            square = random.choice(board.get_empty_squares())
            board.move(square[0], square[1], player)
            player = switch(player)
        return board

    def mc_update_scores(scores, board, player):
        winner = board.check_win()
        if winner == 4:  # a draw changes nothing (the text; the code scored it as a loss)
            return scores
        for row in range(board._dim):
            for column in range(board._dim):
                if board.square(row, column) == player:
                    scores[row][column] += 1.0 if winner == player else -1.0
                elif board.square(row, column) == switch(player):
                    scores[row][column] += -2.0 if winner == player else 2.0
        return scores

    scores = [[0.0] * board._dim for _ in range(board._dim)]
    for _ in range(trials):
        scores = mc_update_scores(scores, mc_trial(board.clone(), player), player)
    ranked = sorted(([scores[r][c], r, c] for r in range(board._dim) for c in range(board._dim)), key=lambda x: -x[0])
    empty = board.get_empty_squares()
    return next(tuple(item[1:]) for item in ranked if tuple(item[1:]) in empty)


def main() -> None:
    oracle = Oracle.from_solutions(solve())
    oracle.probe(".........")

    # exact round robin, cold agents (no memo carried over)
    agents = [make_agent(spec, oracle) for spec in ENUMERABLE]
    seconds, pairs = timed(lambda: round_robin(agents, exact=True))
    print(
        f"exact round robin of {len(agents)} agents ({len(pairs)} pairs, incl. nstep:3, minimax:3, perfect:0.5): "
        f"{seconds:.2f} s (goal < 10 s)"
    )
    pair_fast, _ = timed(lambda: compare_exact(make_agent("think2"), make_agent("think1")))
    pair_naive, _ = timed(
        lambda: (
            naive_exact(make_agent("think2"), make_agent("think1")),
            naive_exact(make_agent("think1"), make_agent("think2")),
        )
    )
    print(
        f"  one exact pair think2 vs think1: {pair_fast * 1e3:.0f} ms; without memo {pair_naive:.2f} s; "
        f"speed-up x{pair_naive / pair_fast:,.0f}"
    )

    # sampled duel of two cheap agents
    duel, _ = timed(lambda: compare_sampled(make_agent("think1"), make_agent("random"), 1000, seed=0))
    book, _ = timed(lambda: book_duel(1000))
    print(
        f"sampled 1,000-game duel think1 vs random: {duel:.3f} s (goal < 1 s); the book's loop {book:.2f} s; "
        f"speed-up x{book / duel:.1f}"
    )

    # one Monte-Carlo move, on the empty board (the longest playouts)
    mc = make_agent("mc:1000")
    rng = np.random.default_rng(0)
    mc.choose(".........", rng)
    runs = 50
    ours, _ = timed(lambda: [mc.choose(".........", rng) for _ in range(runs)])
    random.seed(0)
    seeds, _ = timed(lambda: seed_mc_move(TTTBoard(), 1, 1000))
    print(
        f"one mc:1000 move: {ours / runs * 1e3:.2f} ms (goal < 50 ms); the seed's mc_move {seeds * 1e3:.0f} ms; "
        f"speed-up x{seeds / (ours / runs):,.0f}"
    )

    # perfect.choose in a hot loop (the RL environments call it once per opponent move)
    perfect = make_agent("perfect", oracle)
    boards = list(unfinished_boards(perfect.variant))
    for board in boards:
        perfect.choose(board, rng)
    hot, _ = timed(lambda: [perfect.choose(board, rng) for _ in range(5) for board in boards])
    lookup, _ = timed(lambda: [oracle.best_move(board, rng) for _ in range(5) for board in boards])
    calls = 5 * len(boards)
    print(
        f"perfect.choose: {hot / calls * 1e6:.2f} us per call over {len(boards):,} boards; "
        f"oracle.best_move with the same rng {lookup / calls * 1e6:.2f} us"
    )


if __name__ == "__main__":
    main()
