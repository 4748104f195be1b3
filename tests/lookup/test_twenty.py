"""The 20-cell databases against facts found without the solver (``pytest -m twenty``).

Not part of the default run (``-m "not twenty"`` in pyproject.toml): building one of these
databases takes more than ten minutes. The tests read ``$TTT_TWENTY_DIR/<variant>.sqlite`` and
skip, naming the file and the command that builds it, when it is missing::

    TTT_TWENTY_DIR=/work/big python -m pytest -m twenty -q -s    # -s shows the OpenSpiel tables

What each database is checked against:

- its counts (meta ``positions`` and ``legal_positions``) against ``tests/support/counting.py``, which
  counts from the rules alone (pinned below; a separate test recounts);
- the value and remoteness of the empty board against what can be shown without it (see
  :data:`EMPTY`), OpenSpiel replaying the database's own perfect line as a referee;
- the value and remoteness of positions sampled at late plies against OpenSpiel's own ``mnk``
  game searched to the end by ``open_spiel.python.algorithms.minimax.alpha_beta_search``.
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path
from typing import Any

import pytest
from support.counting import count_positions
from support.extra_markers import need

from ttt_solver import Oracle
from ttt_solver.game.variant import Variant

pytestmark = pytest.mark.twenty

VARIANTS = ("4x5k4", "5x4k4", "4x5k3", "5x4k3", "4x5k4-misere")

# (legal, canonical) as `python benchmarks/count_positions.py 4x5k4 5x4k4 4x5k3 5x4k3
# 4x5k4-misere` printed them (about 12-32 s each); test_the_counter_reproduces_the_pinned_counts
# counts them again.
COUNTS = {
    "4x5k4": (674_794_169, 168_720_724),
    "5x4k4": (674_794_169, 168_720_724),
    "4x5k3": (321_254_413, 80_325_928),
    "5x4k3": (321_254_413, 80_325_928),
    "4x5k4-misere": (674_794_169, 168_720_724),
}

# OpenSpiel's game for each variant: mnk(m, n, k) has n rows of m columns (the mapping is
# ttt_solver.players.openspiel_bot's, checked by variant_of_game below); misere(...) negates the returns.
GAMES = {
    "4x5k4": "mnk(m=5,n=4,k=4)",
    "5x4k4": "mnk(m=4,n=5,k=4)",
    "4x5k3": "mnk(m=5,n=4,k=3)",
    "5x4k3": "mnk(m=4,n=5,k=3)",
    "4x5k4-misere": "misere(game=mnk(m=5,n=4,k=4))",
}


def database(name: str) -> Path:
    folder = os.environ.get("TTT_TWENTY_DIR")
    if not folder:
        pytest.skip("set TTT_TWENTY_DIR to the folder of the 20-cell databases (<variant>.sqlite)")
    path = Path(folder) / f"{name}.sqlite"
    if not path.is_file():
        pytest.skip(f"no {path}: build it with `ttt-lookup build --variant {name} --db {path}`")
    return path


@pytest.fixture(scope="module")
def oracles() -> Any:
    """``oracles(name)``: the database of ``name``, opened once (lazily: 20 cells)."""
    opened: dict[str, Oracle] = {}

    def get(name: str) -> Oracle:
        if name not in opened:
            opened[name] = Oracle.load(database(name), name)
        return opened[name]

    yield get
    for oracle in opened.values():
        oracle.close()


# -- (a) counts ----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", VARIANTS)
def test_the_counter_reproduces_the_pinned_counts(name):
    counts = count_positions(name)
    assert (counts.legal, counts.canonical) == COUNTS[name]


@pytest.mark.parametrize("name", VARIANTS)
def test_the_database_holds_every_position_counted(name, oracles):
    meta = oracles(name).meta
    legal, canonical = COUNTS[name]
    assert (meta["variant"], meta["legal_positions"], meta["positions"]) == (name, str(legal), str(canonical))


# -- (b) the empty board ------------------------------------------------------------------------
# (value, remoteness) of the empty board, and why, without the solver:
# - 4x5k4, 5x4k4: a draw. Strategy stealing gives >= 0 (an extra mark never hurts the first
#   player); the m,n,k literature (Uiterwijk & van den Herik, "The advantage of the initiative",
#   2000) has (5,4,4) as a draw. A draw ends on a full board: remoteness 20.
# - 4x5k3, 5x4k3: X wins at ply 5, its third mark: a search 5 plies deep (alpha-beta, 0 at the
#   horizon) finds the win (test_the_k3_win_is_found_by_a_shallow_search), and no 3 in a row
#   can come sooner.
# - 4x5k4-misere: at most a draw for X: the board has no centre cell, so O can answer every move
#   with its image under the half turn, and an O line would be the image of an X line already
#   made. Whether X holds the draw is the database's own answer (its line replays below).
EMPTY = {"4x5k4": (0, 20), "5x4k4": (0, 20), "4x5k3": (1, 5), "5x4k3": (1, 5)}


@pytest.mark.parametrize("name", VARIANTS)
def test_the_empty_board(name, oracles):
    oracle = oracles(name)
    empty = "." * 20
    value, remoteness = oracle.value(empty), oracle.remoteness(empty)
    if name in EMPTY:
        assert (value, remoteness) == EMPTY[name]
    else:
        assert value <= 0
        if value == 0:
            assert remoteness == 20
    # The database's own perfect line, replayed by OpenSpiel, ends as and when it says.
    game = load_game(name)
    state = game.new_initial_state()
    for cell in oracle.line(empty):
        state.apply_action(cell)
    assert state.is_terminal() and len(state.history()) == remoteness
    assert state.returns()[0] == value  # X's return: X moves on the empty board


@pytest.mark.parametrize("name", ["4x5k3", "5x4k3"])
def test_the_k3_win_is_found_by_a_shallow_search(name):
    game = load_game(name)  # skips without OpenSpiel
    from open_spiel.python.algorithms.minimax import alpha_beta_search

    assert alpha_beta_search(game, maximum_depth=5, value_function=lambda state: 0.0)[0] == 1.0


# -- (c) sampled positions against OpenSpiel ------------------------------------------------
# Plies at which OpenSpiel answers a sampled position in well under a second here (the whole
# search below, every depth: mean and max per ply are in the table -s prints). Measured with
# random games: a plain search to the end took up to 0.1 s at ply 11 on 4x5k4 and up to 1.2 s
# at ply 10; the k = 3 games, searched depth by depth, up to 0.07 s at ply 6 but 36 s at ply 4
# (5x4k3); 5x4k4 needed up to 0.9 s at ply 11, misère 4x5k4 0.09 s.
PLIES = {
    "4x5k4": range(12, 20),
    "5x4k4": range(12, 20),
    "4x5k3": range(5, 20),
    "5x4k3": range(5, 20),
    "4x5k4-misere": range(11, 20),
}
PER_PLY = 20
SEED = 17


def load_game(name: str) -> Any:
    pyspiel = need("openspiel", "pyspiel")
    from ttt_solver.players.openspiel_bot import variant_of_game

    game = pyspiel.load_game(GAMES[name])
    assert variant_of_game(game) == Variant.parse(name)
    return game


def sample(game: Any, ply: int, count: int, rng: random.Random) -> list[Any]:
    """``count`` distinct unfinished states with ``ply`` marks, from uniformly random games."""
    found: dict[str, Any] = {}
    while len(found) < count:
        state = game.new_initial_state()
        while len(state.history()) < ply and not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        if not state.is_terminal():
            found.setdefault(str(state), state)
    return list(found.values())


def searched(game: Any, state: Any) -> tuple[int, int]:
    """(value, remoteness) for the player to move, by alpha-beta alone: the first depth at
    which a search with 0 at its horizon is won or lost is the remoteness (the winner hurries,
    the loser stalls); a position still 0 when searched to the end is a draw, which only a
    full board ends."""
    from open_spiel.python.algorithms.minimax import alpha_beta_search

    empty = game.num_distinct_actions() - len(state.history())
    for depth in range(1, empty + 1):
        value, _ = alpha_beta_search(game, state, lambda _: 0.0, depth, state.current_player())
        if value != 0:
            return int(value), depth
    return 0, empty


@pytest.mark.parametrize("name", VARIANTS)
def test_sampled_positions_agree_with_openspiel(name, oracles):
    oracle = oracles(name)
    game = load_game(name)  # skips without OpenSpiel
    from ttt_solver.players.openspiel_bot import board_of

    rng = random.Random(SEED)
    print(f"\n{name} against {GAMES[name]}: ply, positions, wins/draws/losses, OpenSpiel mean and max s")
    for ply in PLIES[name]:
        results, seconds = [], []
        for state in sample(game, ply, PER_PLY, rng):
            started = time.perf_counter()
            expected = searched(game, state)
            seconds.append(time.perf_counter() - started)
            board = board_of(state, oracle.variant)
            assert (oracle.value(board), oracle.remoteness(board)) == expected, board
            results.append(expected[0])
        tally = "/".join(str(results.count(v)) for v in (1, 0, -1))
        print(f"  {ply:2} {len(results):3} {tally:>8} {sum(seconds) / len(seconds):7.3f} {max(seconds):6.3f}")
