"""``TicTacToeEnv``: one game against an agent of the project, as a Gymnasium environment.

The learner plays one side (``"X"``, ``"O"`` or ``"random"`` per episode) against
``opponent`` (default ``"perfect"``; ``"perfect:P"`` and the seed players give a curriculum).
One ``step`` is the learner's move followed by the opponent's reply.

- Observation: int8 ``(rows, cols, 2)`` (``(3, 3, 2)`` on 3x3), plane 0 the learner's marks,
  plane 1 the opponent's, cells row-major (see :mod:`.observation`); with
  ``observation="flat"`` the same values as one vector ``(2 * cells,)`` (``(18,)``), which
  Stable-Baselines3's policies take without warnings. Actions: ``Discrete(cells)``
  (``Discrete(9)``), the cell to mark.
- ``variant``: any board of the database (``"3x3-misere"``, ``"3x4k3"``, ``"4x4"``, ...), with
  its rules: in misère the learner who completes a line loses (-1). The opponent must play it
  (see :mod:`ttt_solver.players.agents`); the perfect one loads that variant's database.
- ``info["action_mask"]``: int8, 1 on the legal cells (all 0 once the game is over), ready for
  ``action_space.sample(mask=...)``; :meth:`TicTacToeEnv.action_masks` gives it as bool for
  sb3-contrib's MaskablePPO.
- Reward at the end only: +1 win, 0 draw, -1 loss (for the learner). A cell that is taken
  (``illegal="lose"``, the default) ends the episode with ``illegal_reward`` (-1);
  ``illegal="penalize"`` gives ``illegal_reward`` and lets the learner move again;
  ``illegal="raise"`` raises InvalidBoardError. An action outside the board always raises. With
  ``"penalize"`` an episode can last forever: ``gymnasium.make(..., max_episode_steps=20)``.
- Every random choice (the side, the opponent's moves) is drawn from ``self.np_random``, the
  generator that ``reset(seed=...)`` seeds, in this order: at reset one draw for the side
  (``random() < 0.5`` -> X) when it is random, then the opponent's opening move if it plays
  X; at each step the opponent's reply. The opponent draws as ``agent.choose(board, rng)``;
  against ``perfect`` a move played before is replayed from a table shared by the environments
  on the same oracle (:mod:`.replies`), with the same draws, instead of calling the agent.
- ``reset(options={"board": "X...O...."})`` starts from that position with the learner on
  the move; ``options={"side": "O"}`` fixes the side for one episode.
- ``render_mode``: ``"ansi"`` (text), ``"human"`` (text printed at every step) or
  ``"rgb_array"`` (a uint8 image drawn with numpy, see :mod:`.render`: what Stable-Baselines3
  and video recorders ask for).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import GameOverError, InvalidBoardError
from ..game.variant import STANDARD, Variant, as_variant
from ..lookup.oracle import Oracle
from ..players.agents import Agent
from ..players.agents.perfect import PerfectAgent
from ._gym import gym, spaces
from .observation import PLAYING, board_tables, observation_shape, perspective
from .opponent import resolve_opponent
from .replies import Node, ReplyTree, reply_tree

SIDES = {"x": 1, "o": -1, "random": 0}
ILLEGAL_MODES = ("lose", "penalize", "raise")


def parse_side(side: str) -> int:
    """``"X"`` -> +1, ``"O"`` -> -1, ``"random"`` -> 0 (drawn per episode)."""
    found = SIDES.get(side.lower()) if isinstance(side, str) else None
    if found is None:
        raise ValueError(f"invalid side {side!r}: expected 'X', 'O' or 'random'")
    return found


def check_illegal(illegal: str) -> str:
    if illegal not in ILLEGAL_MODES:
        raise ValueError(f"invalid illegal {illegal!r}: expected one of {', '.join(ILLEGAL_MODES)}")
    return illegal


class TicTacToeEnv(gym.Env[np.ndarray, np.int64]):
    """The learner against one agent; see the module docstring."""

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 4}  # noqa: RUF012 (gymnasium declares it as a plain attribute)

    def __init__(
        self,
        opponent: str | Agent = "perfect",
        side: str = "random",
        *,
        oracle: Oracle | None = None,
        variant: Variant | str = STANDARD,
        illegal: str = "lose",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        observation: str = "planes",
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"invalid render_mode {render_mode!r}: expected 'ansi', 'human', 'rgb_array' or None")
        self.variant = as_variant(variant)
        self._side_choice = parse_side(side)
        self.illegal = check_illegal(illegal)
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        # The fast path of ``step`` (see .replies): the node of the position, blocked when none.
        self._blocked: Node = [None] * (2 * self.variant.cells)
        self._node = self._blocked
        self._nodes: dict[int, Node] = {}
        self._tree: ReplyTree | None = None
        self.opponent = resolve_opponent(opponent, oracle, self.variant)
        self._tables = board_tables(self.variant)
        self.observation_space = spaces.Box(0, 1, observation_shape(self.variant, observation), np.int8)
        # An observation is a copy of the planes' row, flattened for "flat" (one call either way: hot path).
        self._copy: Callable[[Any], np.ndarray] = np.ndarray.copy if observation == "planes" else np.ndarray.flatten
        self.action_space = spaces.Discrete(self.variant.cells)
        self._index = self._tables.empty_index
        self._side = 1
        self._over = True  # until reset
        self._last_reward = 0.0

    @property
    def opponent(self) -> Agent:
        """The agent the learner plays; it may be replaced between steps."""
        return self._opponent

    @opponent.setter
    def opponent(self, agent: Agent) -> None:
        self._opponent = agent
        self._tree = None
        self._node = self._blocked

    # -- the Gymnasium API --------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random  # the property: creates an unseeded generator on first use
        tables = self._tables
        options = options or {}
        if "board" in options:
            self._index, self._side = self._start_from(options["board"])
        else:
            side = parse_side(options["side"]) if "side" in options else self._side_choice
            if side == 0:
                side = 1 if rng.random() < 0.5 else -1
            self._side, self._index = side, tables.empty_index
            if side < 0:
                self._index += tables.powers[self.opponent.choose(tables.texts[self._index], rng)]
        self._over = False
        self._last_reward = 0.0
        self._follow()
        if self.render_mode == "human":
            print(self._text())
        return self._observation(), {"action_mask": tables.mask_rows[self._index].copy()}  # type: ignore[union-attr]

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._node is not self._blocked:  # against perfect, a game in progress: see .replies
            cell = action if action.__class__ is int else _cell(action)
            try:
                outcomes = self._node[cell]
            except IndexError:  # not a cell: the checked path below says so
                outcomes = None
            if outcomes is not None and self._opponent.probability == 1.0:  # type: ignore[attr-defined]
                if len(outcomes) == 1:
                    index, reward, over, obs, mask = outcomes[0]
                else:  # PerfectAgent.choose's draw
                    index, reward, over, obs, mask = outcomes[int(self._np_random.random() * len(outcomes))]  # type: ignore[union-attr]
                self._index, self._over, self._last_reward = index, over, reward
                self._node = self._blocked if over else self._nodes.get(index) or self._follow()
                if self.render_mode == "human":
                    print(self._text())
                return self._copy(obs), reward, over, False, {"action_mask": mask.copy()}
        # The checked path: any opponent, any move.
        if self._over:
            raise GameOverError("no game in progress (never started, or over): call reset() before step()")
        tables = self._tables
        cell = action if action.__class__ is int else _cell(action)
        index = self._index
        if not 0 <= cell < len(tables.powers):
            raise InvalidBoardError(f"invalid action {action!r}: cells are 0 to {len(tables.powers) - 1}")
        if tables.texts[index][cell] != ".":
            return self._illegal_step(cell)
        if self._node is not self._blocked and self._tree is not None and self._node[cell] is None:
            self._tree.learn(perspective(self._side), index, cell)  # for the fast path next time
        side = self._side
        index += side * tables.powers[cell]
        result = tables.final_list[index]
        if result == PLAYING:
            index -= side * tables.powers[self._opponent.choose(tables.texts[index], self._np_random)]  # type: ignore[arg-type]
            result = tables.final_list[index]
            outcome = 0 if result == PLAYING else result
        else:
            outcome = -result
        self._index = index
        self._over = over = result != PLAYING
        self._last_reward = reward = float(outcome)
        if self._node is not self._blocked:  # (a change of opponent to perfect takes it at reset)
            self._follow()
        if self.render_mode == "human":
            print(self._text())
        obs = self._copy(tables.plane_rows[0 if side > 0 else 1][index])
        return obs, reward, over, False, {"action_mask": tables.mask_rows[index].copy()}  # type: ignore[union-attr]

    def render(self) -> str | np.ndarray | None:
        if self.render_mode == "ansi":
            return self._text()
        if self.render_mode == "rgb_array":
            from .render import draw

            return draw(self.board, self.variant.rows, self.variant.cols)
        if self.render_mode == "human":
            print(self._text())
        return None

    # -- extras ---------------------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """The legal cells as a bool array (what sb3-contrib's MaskablePPO asks the env for)."""
        mask: np.ndarray = self._tables.masks[self._index].astype(bool)
        return mask

    @property
    def board(self) -> str:
        """The current position as text (``X``, ``O``, ``.``, row-major)."""
        return self._tables.texts[self._index]

    @property
    def side(self) -> str:
        """The learner's mark this episode."""
        return "X" if self._side > 0 else "O"

    # -- internals ------------------------------------------------------------------------------
    def _follow(self) -> Node:
        """Point the fast path of ``step`` at the position (blocked when the game is over or the
        opponent is not ``perfect``); the node."""
        agent = self._opponent
        if self._over or not _fast(agent):
            self._node = self._blocked
            return self._node
        assert isinstance(agent, PerfectAgent)
        if self._tree is None or self._tree.oracle is not agent.oracle:
            self._tree = reply_tree(agent.oracle)
        self._nodes = self._tree.nodes[perspective(self._side)]
        self._node = self._tree.node(perspective(self._side), self._index)
        return self._node

    def _observation(self) -> np.ndarray:
        return self._copy(self._tables.plane_rows[perspective(self._side)][self._index])

    def _illegal_step(self, cell: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self.illegal == "raise":
            raise InvalidBoardError(f"illegal action {cell}: cell {cell} of {self.board!r} is taken")
        self._over = self.illegal == "lose"
        self._last_reward = self.illegal_reward
        self._follow()
        mask = self._tables.masks[self._index] * (not self._over)
        return self._observation(), self.illegal_reward, self._over, False, {"action_mask": mask}

    def _start_from(self, board: str) -> tuple[int, int]:
        from ..game import board as rules

        text = rules.parse(board, self.variant)
        if rules.terminal_value(text, self.variant) is not None:
            raise GameOverError(f"cannot start from {board!r}: the game is over")
        return self._tables.index_of(text), 1 if rules.to_move(text) == rules.X else -1

    def _text(self) -> str:
        from ..game import board as rules

        status = "to move"
        if self._over:
            status = {1.0: "won", 0.0: "drawn", -1.0: "lost"}.get(self._last_reward, f"over ({self._last_reward:+g})")
        return f"{rules.pretty(self.board, self.variant)}\nlearner: {self.side}, {status}\n"


def _fast(agent: Agent) -> bool:
    """Whether ``step`` may replay ``agent`` from a reply tree: ``perfect`` with probability 1."""
    return type(agent) is PerfectAgent and agent.probability == 1.0


def _cell(action: Any) -> int:
    """An action as a Python int (numpy integers and 0-d arrays too); reject non-integers."""
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer, np.ndarray)):
        raise InvalidBoardError(f"invalid action {action!r}: expected a cell number")
    if isinstance(action, np.ndarray) and (action.shape not in ((), (1,)) or action.dtype.kind not in "iu"):
        raise InvalidBoardError(f"invalid action {action!r}: expected a cell number")
    return int(action.item() if isinstance(action, np.ndarray) else action)
