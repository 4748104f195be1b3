"""The database as an OpenSpiel bot (the ``[openspiel]`` extra: ``pip install open-spiel``).

:class:`PerfectBot` is a ``pyspiel.Bot`` for OpenSpiel's ``tic_tac_toe``, for ``mnk`` on the
boards the database holds (up to 25 cells), and for the ``misere`` transform of either::

    import pyspiel
    from ttt_solver.players.openspiel_bot import PerfectBot

    game = pyspiel.load_game("tic_tac_toe")
    bots = [PerfectBot(game, 0), PerfectBot(game, 1, "perfect:0.5", seed=1)]
    pyspiel.evaluate_bots(game.new_initial_state(), bots, 0)  # [1.0, -1.0], [0.0, 0.0], ...

Conventions, OpenSpiel's and ours: player 0 is ``x`` and moves first (our X). ``mnk(m, n, k)``
has ``n`` rows of ``m`` columns (``m`` is the width) and numbers the cells row-major, action
``row * m + column``: our variant ``{n}x{m}k{k}`` with the same cell numbers, so actions and
cells are one and the same. OpenSpiel's ``misere`` negates the returns of the game it wraps,
so completing a line loses: our ``-misere`` variants. The bot reads a state from its action
history, so it needs no ``restart_at``/``inform_action`` bookkeeping (both are accepted).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..builder.first_use import shared_oracle
from ..errors import MissingExtraError, install_hint
from ..game.variant import MAX_CELLS, Variant
from .agents import make_agent

try:
    import pyspiel
except ImportError:
    raise MissingExtraError(
        f"ttt_solver.players.openspiel_bot needs OpenSpiel, the [openspiel] extra: {install_hint('openspiel', 'open-spiel')}"
    ) from None

if TYPE_CHECKING:
    from ..lookup.oracle import Oracle
    from .agents.perfect import PerfectAgent

GAMES = ("tic_tac_toe", "mnk", "misere(game=tic_tac_toe())", "misere(game=mnk(...))")


def variant_of_game(game: Any) -> Variant:
    """The variant an OpenSpiel game plays; ValueError for a game the database does not hold."""
    return _variant(game.get_type().short_name, game.get_parameters(), str(game))


def _variant(name: str, params: dict[str, Any], described: str) -> Variant:
    if name == "tic_tac_toe":
        return Variant.parse("3x3")
    if name == "mnk":
        m, n, k = params.get("m", 15), params.get("n", 15), params.get("k", 5)
        if m * n > MAX_CELLS:
            raise ValueError(
                f"PerfectBot cannot play {described}: the database holds boards of up to {MAX_CELLS} cells, not {m * n}"
            )
        return Variant.parse(f"{n}x{m}k{k}")  # n rows of m columns
    if name == "misere":
        inner = dict(params["game"])
        inner_variant = _variant(inner.pop("name"), inner, described)
        if inner_variant.misere:
            raise ValueError(f"PerfectBot cannot play {described}: misère of misère is the normal game")
        return Variant.parse(inner_variant.name + "-misere")
    raise ValueError(f"PerfectBot cannot play {described}: it plays {', '.join(GAMES)}")


def board_of(state: Any, variant: Variant) -> str:
    """Our text board of an OpenSpiel state, from its history (player 0's actions are X)."""
    cells = ["."] * variant.cells
    for ply, action in enumerate(state.history()):
        cells[action] = "XO"[ply % 2]
    return "".join(cells)


class PerfectBot(pyspiel.Bot):  # type: ignore[misc]  # pyspiel ships no type information
    """Plays ``perfect`` (keep the value, win fastest, lose slowest, ties at random) or ``perfect:P``.

    - ``game``: a game from ``pyspiel.load_game`` (see the module docstring for which).
    - ``player_id``: the seat the bot plays (0 = x, 1 = o).
    - ``spec``: ``"perfect"`` or ``"perfect:P"`` (perfect with probability P, else a uniformly
      random legal move).
    - ``oracle`` or ``db``: the solved database (default: the variant's, built on first use).
    - ``seed``: seeds the bot's random choices (ties, and the random moves of ``perfect:P``).
    """

    def __init__(
        self,
        game: Any,
        player_id: int,
        spec: str = "perfect",
        *,
        oracle: Oracle | None = None,
        db: str | None = None,
        seed: int | None = None,
    ) -> None:
        pyspiel.Bot.__init__(self)

        self.variant = variant_of_game(game)
        if player_id not in (0, 1):
            raise ValueError(f"invalid player_id {player_id!r}: expected 0 (x) or 1 (o)")
        if not isinstance(spec, str) or spec.partition(":")[0] != "perfect":
            raise ValueError(f"invalid spec {spec!r}: expected 'perfect' or 'perfect:P' with P from 0 to 1")
        if oracle is None:
            oracle = shared_oracle(self.variant, db)
        self.player_id = player_id
        self.agent: PerfectAgent = make_agent(spec, oracle, self.variant)  # type: ignore[assignment]
        self._rng = np.random.default_rng(seed)

    def step_with_policy(self, state: Any) -> tuple[list[tuple[int, float]], int]:
        """The move distribution (the optimal actions for ``perfect``) and the action played."""
        board = self._board(state)
        policy = sorted(self.agent.policy(board).items())
        return policy, self.agent.choose(board, self._rng)

    def step(self, state: Any) -> int:
        return self.agent.choose(self._board(state), self._rng)

    def provides_policy(self) -> bool:
        return True

    def restart_at(self, state: Any) -> None:
        """Nothing to do: every step reads the whole state."""

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        """Nothing to do: every step reads the whole state."""

    def _board(self, state: Any) -> str:
        if state.is_terminal():
            raise ValueError(f"no move on {board_of(state, self.variant)!r}: the game is over")
        if state.current_player() != self.player_id:
            raise ValueError(f"player {self.player_id}'s bot asked to move for player {state.current_player()}")
        return board_of(state, self.variant)
