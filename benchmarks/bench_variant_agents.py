"""Agents on other variants, each number beside its 3x3 counterpart measured in the same run.

- exact compare perfect vs random on 3x3-misere and 3x4k3 (goal: under 10-20 s; 4x4 is refused
  as infeasible), ratio to the 3x3 compare;
- a sampled 1,000-game duel think1 vs random on 4x4, ratio to the same duel on 3x3;
- ``perfect.choose`` on 4x4 per new position, from the compact arrays (``Oracle.load``) and from
  per-lookup SQL (``eager=False``), ratio to 3x3;
- a sampled 4x4 tournament: the ten default agents, 10 games a pair, accuracy on 1,000 positions.

Uses the default databases (``data/<variant>.sqlite``), building any that is missing first.

    python benchmarks/bench_variant_agents.py
"""

from __future__ import annotations

import time

import numpy as np

from ttt_solver.builder.first_use import default_database
from ttt_solver.game import board as rules
from ttt_solver.game.variant import Variant
from ttt_solver.lookup.oracle import Oracle
from ttt_solver.players.agents import make_agent
from ttt_solver.players.arena import compare_exact, compare_sampled
from ttt_solver.players.tournament import DEFAULT_AGENTS, run


def timed(work) -> tuple[float, object]:
    started = time.perf_counter()
    result = work()
    return time.perf_counter() - started, result


def exact_compare(name: str) -> float:
    """Seconds for compare_exact(perfect, random), oracle load included (what the command does)."""
    variant = Variant.parse(name)

    def work():
        oracle = Oracle.load(variant=variant, eager=False)
        return compare_exact(make_agent("perfect", oracle, variant), make_agent("random", variant=variant))

    return timed(work)[0]


def duel(name: str) -> float:
    variant = Variant.parse(name)
    a, b = make_agent("think1", variant=variant), make_agent("random", variant=variant)
    return timed(lambda: compare_sampled(a, b, 1000, seed=1))[0]


def perfect_move(oracle: Oracle, boards: list[str]) -> float:
    """Seconds per ``choose`` of a fresh perfect agent on each board (no memo hits)."""
    agent = make_agent("perfect", oracle, oracle.variant)
    rng = np.random.default_rng(0)
    seconds = timed(lambda: [agent.choose(board, rng) for board in boards])[0]
    return seconds / len(boards)


def positions(name: str, count: int) -> list[str]:
    """Unfinished positions from random games, every ply."""
    variant = Variant.parse(name)
    rng = np.random.default_rng(2)
    found = []
    while len(found) < count:
        board = rules.EMPTY * variant.cells
        while rules.terminal_value(board, variant) is None and len(found) < count:
            found.append(board)
            moves = rules.legal_moves(board, variant)
            board = rules.play(board, moves[int(rng.integers(len(moves)))], variant)
    return found


def main() -> None:
    for name in ("3x3", "3x3-misere", "3x4k3", "4x4"):  # build any that is missing first (not timed)
        default_database(Variant.parse(name))
    base = exact_compare("3x3")
    for name in ("3x3-misere", "3x4k3"):
        seconds = exact_compare(name)
        print(
            f"exact compare perfect vs random on {name}: {seconds:.2f} s (3x3 {base:.2f} s, ratio {seconds / base:.1f})"
        )

    base = duel("3x3")
    seconds = duel("4x4")
    print(
        f"sampled 1,000-game duel think1 vs random on 4x4: {seconds:.2f} s (3x3 {base:.2f} s, ratio {seconds / base:.1f})"
    )

    small = perfect_move(Oracle.load(), positions("3x3", 2000))
    load, arrays = timed(lambda: Oracle.load(variant="4x4"))
    boards = positions("4x4", 2000)
    eager = perfect_move(arrays, boards)
    lazy = perfect_move(Oracle.load(variant="4x4", eager=False), boards[:300])
    print(
        f"perfect move on a new 4x4 position: {eager * 1e6:.0f} us from the arrays (loaded in {load:.2f} s),"
        f" {lazy * 1e6:.0f} us by SQL; 3x3 {small * 1e6:.0f} us (ratios {eager / small:.1f} and {lazy / small:.1f})"
    )

    variant = Variant.parse("4x4")
    agents = [make_agent(spec, arrays, variant) for spec in DEFAULT_AGENTS]
    seconds = timed(lambda: run(agents, arrays, games=10, seed=1))[0]
    print(
        f"4x4 tournament of the ten default agents, 10 games a pair, accuracy on 1,000 sampled positions: {seconds:.1f} s"
    )


if __name__ == "__main__":
    main()
