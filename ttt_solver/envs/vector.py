"""``VectorTicTacToe``: N games against one agent, stepped together in numpy.

It follows Gymnasium's vector API (``gymnasium.vector.VectorEnv``): batched observations
``(N, rows, cols, 2)`` (``(N, 3, 3, 2)`` on 3x3; ``(N, 2 * cells)`` with ``observation="flat"``),
actions ``(N,)``, rewards, terminations and truncations ``(N,)``, and ``infos["action_mask"]``
``(N, cells)`` int8. The rules, observations,
rewards and illegal-move handling are those of :class:`~ttt_solver.envs.single.TicTacToeEnv`.
It steps the games through dense tables over every board, so it covers variants of up to 12
cells (3x3, 3x3-misere, 3x4k3, 4x3k3, ...); on 4x4 it raises InvalidVariantError, and
``gymnasium.vector.SyncVectorEnv`` over :class:`TicTacToeEnv` is the way to batch games.

Autoreset is Gymnasium's default, next-step (``metadata["autoreset_mode"]``): the step that
ends a game returns its final observation; the next ``step`` ignores that game's action and
starts a new game, returning reward 0 and ``terminated=False``. Because any action is fine
there, a finished game's ``action_mask`` is all ones (the single environment's is all zeros),
so masked samplers never see an empty mask.

Seeds: ``reset(seed=s)`` gives game ``i`` the generator of a single environment reset with
``seed=s + i`` (a list gives one seed per game), and game ``i`` draws from it exactly what
that single environment draws, in the same order. So game ``i`` agrees move for move with
``TicTacToeEnv(...).reset(seed=s + i)`` fed the same actions, with ``reset()`` (no seed)
where the vector environment autoresets. The opponent's moves are replayed in numpy from the
oracle's batch tables or the agent's policy tables (see :mod:`.opponent`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..errors import GameOverError, InvalidBoardError, InvalidVariantError
from ..game.variant import STANDARD, Variant, as_variant
from ..lookup.oracle import Oracle
from ..players.agents import Agent
from ._gym import spaces
from .observation import DENSE_CELLS, PLAYING, BoardTables, board_tables, children, observation_shape, x_to_move
from .opponent import Draws, PerfectMoves, batch_moves, resolve_opponent
from .single import check_illegal, parse_side

_MOST_DRAWS = 3  # per game and step: side, then the opponent's mixing draw and pick


class VectorTicTacToe(VectorEnv):
    """``num_envs`` games of the learner against ``opponent``; see the module docstring."""

    metadata = {"render_modes": ["ansi", "rgb_array"], "autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012 (gymnasium declares it as a plain attribute)

    def __init__(
        self,
        num_envs: int = 1,
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
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"invalid num_envs {num_envs!r}: expected a positive integer")
        if render_mode not in (None, "ansi", "rgb_array"):
            raise ValueError(f"invalid render_mode {render_mode!r}: expected 'ansi', 'rgb_array' or None")
        self.variant = as_variant(variant)
        tables = board_tables(self.variant)
        if not isinstance(tables, BoardTables):
            raise InvalidVariantError(
                f"VectorTicTacToe covers boards of up to {DENSE_CELLS} cells, not {self.variant.name}"
                f" ({self.variant.cells} cells); batch TicTacToeEnv with gymnasium.vector.SyncVectorEnv instead"
            )
        self.num_envs = num_envs
        self._side_choice = parse_side(side)
        self.illegal = check_illegal(illegal)
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.opponent = resolve_opponent(opponent, oracle, self.variant)
        self._tables = tables
        self._moves = moves = batch_moves(self.opponent, tables)
        self._by_row = moves.by_row if isinstance(moves, PerfectMoves) and moves.probability >= 1.0 else None
        shape = observation_shape(self.variant, observation)
        self.single_observation_space = spaces.Box(0, 1, shape, np.int8)
        self.single_action_space = spaces.Discrete(self.variant.cells)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._cells = tables.variant.cells
        self._size = len(tables.final)
        self._children = children(tables)  # by index * cells + cell; -1 when the cell is taken
        self._final = tables.final
        self._mask_rows, planes, self._values = _batch_rows(tables)
        self._planes = planes.reshape(len(planes), *shape)  # a view: "flat" copies nothing
        self._index = np.full(num_envs, tables.empty_index, dtype=np.intp)
        self._view = np.full(num_envs, self._size if self._side_choice < 0 else 0, dtype=np.intp)  # X: 0, O: size
        self._done = np.zeros(num_envs, dtype=bool)
        self._lost_illegally = False  # some game is done on an unfinished board (an illegal move)
        self._draws: Draws | None = None

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        if options:
            raise ValueError(f"invalid options {options!r}: the vector environment takes none")
        if seed is not None or self._draws is None:
            seeds = self._seeds(seed)
            generators = [seeding.np_random(s)[0] for s in seeds]
            self._draws = Draws(generators, buffered=self._moves.buffered)
            self._np_random, self._np_random_seed = seeding.np_random(seeds[0])
        self._draws.prepare(_MOST_DRAWS)
        self._start(np.ones(self.num_envs, dtype=bool))
        self._done = np.zeros(self.num_envs, dtype=bool)
        self._lost_illegally = False
        return self._observations(), self._infos()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        # Every game is stepped in whole-batch arrays, masked, never compacted to the games
        # concerned: a masked pass over all of them costs less than gathering a subset. The
        # games that restart (next-step autoreset) draw their side first, then join the games
        # the opponent answers, their opening made in the same pass as the replies.
        if self._draws is None:
            raise GameOverError("the games have not started: call reset() before step()")
        cells = self._check(actions)
        draws = self._draws
        draws.prepare(_MOST_DRAWS)
        index, done = self._index, self._done
        cells += index * self._cells
        moved = self._children[cells]  # -1 where the cell is taken; the empty board where done
        if self._lost_illegally:  # done on an unfinished board: start those games too
            moved = np.where(done, self._tables.empty_index, moved)
        bad = moved < 0
        if bad.any():
            if self.illegal == "raise":
                game = int(np.argmax(bad))
                cell = int(cells[game] - index[game] * self._cells)
                raise InvalidBoardError(f"illegal action {cell} in game {game}: the cell is taken")
            moved = np.where(bad, index, moved)
        if self._by_row is not None:  # perfect: tables by row know where the opponent moves
            if done.any():
                self._restart(done, draws)
            moved = self._by_row(moved + self._view, draws)
        else:
            going = ~(done | bad) & (self._final[moved] == PLAYING)  # the opponent replies
            if done.any():
                going |= self._restart(done, draws)
            if going.any():
                moved = np.where(going, self._moves(moved, going, draws), moved)
        rows = moved + self._view
        rewards: np.ndarray = self._values[rows]  # the learner's result on a finished board, else 0
        terminated = self._final[moved] != PLAYING
        masks = np.take(self._mask_rows, rows, axis=0)  # all ones on a finished board
        self._lost_illegally = False
        if bad.any():
            rewards[bad] = self.illegal_reward
            if self.illegal == "lose":
                terminated |= bad
                masks[bad] = 1
                self._lost_illegally = True
        self._index, self._done = moved, terminated
        return (
            np.take(self._planes, rows, axis=0),
            rewards,
            terminated,
            np.zeros(self.num_envs, dtype=bool),
            {"action_mask": masks, "_action_mask": np.ones(self.num_envs, dtype=bool)},
        )

    def _restart(self, done: np.ndarray, draws: Draws) -> np.ndarray:
        """Draw the side of the games that restart (``done``); those where the opponent opens."""
        if self._side_choice > 0:
            return np.zeros(self.num_envs, dtype=bool)
        if self._side_choice < 0:
            return done
        second: np.ndarray = done & (draws.take(done) >= 0.5)  # X below 0.5, as the single env
        self._view = np.where(done, second * self._size, self._view)
        return second

    def render(self) -> tuple[str, ...] | tuple[np.ndarray, ...] | None:
        """One frame per game, as SyncVectorEnv gives: text (``ansi``) or an image (``rgb_array``)."""
        texts = [self._tables.texts[i] for i in self._index.tolist()]
        if self.render_mode == "rgb_array":
            from .render import draw

            return tuple(draw(text, self.variant.rows, self.variant.cols) for text in texts)
        if self.render_mode != "ansi":
            return None
        from ..game import board as rules

        return tuple(rules.pretty(text, self.variant) for text in texts)

    def action_masks(self) -> np.ndarray:
        """``infos["action_mask"]`` of the current observations, as bool ``(N, cells)``."""
        masks: np.ndarray = self._infos()["action_mask"].astype(bool)
        return masks

    # -- internals ------------------------------------------------------------------------------
    def _seeds(self, seed: int | list[int | None] | None) -> list[int | None]:
        if seed is None:
            return [None] * self.num_envs
        if isinstance(seed, int):
            return [seed + i for i in range(self.num_envs)]
        seeds = list(seed)
        if len(seeds) != self.num_envs:
            raise ValueError(f"invalid seed: expected {self.num_envs} seeds, got {len(seeds)}")
        return seeds

    def _check(self, actions: Any) -> np.ndarray:
        """The actions as a fresh intp array (``step`` reuses it), checked."""
        cells = np.asarray(actions)
        if cells.shape != (self.num_envs,) or cells.dtype.kind not in "iu":
            raise InvalidBoardError(
                f"invalid actions: expected {self.num_envs} cell numbers, got shape {cells.shape} of {cells.dtype}"
            )
        found = cells.astype(np.intp)
        if found.view(np.uintp).max() >= self._cells:  # negative numbers too, seen unsigned
            game = int(np.argmax((cells < 0) | (cells >= self._cells)))
            raise InvalidBoardError(
                f"invalid action {int(cells[game])} in game {game}: cells are 0 to {self._cells - 1}"
            )
        return found

    def _start(self, restart: np.ndarray) -> None:
        """New games where ``restart`` (bool, over all games) is set: the side (one draw when
        random), then the opponent's opening if it is X. A few games restart at a time: these
        work on those games alone."""
        assert self._draws is not None
        games = np.flatnonzero(restart)
        if self._side_choice:
            second = np.full(len(games), self._side_choice < 0)
        else:
            second = self._draws.take_games(games) >= 0.5  # X below 0.5, as the single environment
        boards = np.full(len(games), self._tables.empty_index, dtype=np.intp)
        if second.any():
            boards[second] = self._moves.on(boards[second], games[second], self._draws)
        self._index[games] = boards
        self._view[games] = second * self._size

    # np.take along axis 0 copies whole rows: a few times faster than fancy indexing them.
    def _observations(self) -> np.ndarray:
        return np.take(self._planes, self._index + self._view, axis=0)

    def _infos(self) -> dict[str, Any]:
        # A finished game's row of the mask table is all ones (any action restarts it).
        masks = np.take(self._mask_rows, self._index + self._view, axis=0)
        masks[self._done] = 1  # a finished game's row of the mask table is all ones, or it lost on an illegal move
        return {"action_mask": masks, "_action_mask": np.ones(self.num_envs, dtype=bool)}


@lru_cache(maxsize=4)
def _batch_rows(tables: BoardTables) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tables over a game's row, its index plus 0 (the learner plays X) or ``size`` (O): the
    action masks (all ones on a finished board: any action starts a new game), the
    observations, and the learner's reward (the result of a finished board, 0 elsewhere)."""
    final = tables.final.astype(np.int64)
    over = final != PLAYING  # ``final`` is the result for the side to move
    masks = np.where(over[:, None], np.int8(1), tables.masks)
    masks = np.concatenate([masks, masks])
    planes = np.concatenate([tables.planes[:, 0], tables.planes[:, 1]])
    as_x = np.where(over, np.where(x_to_move(tables), final, -final), 0)
    values = np.concatenate([as_x, -as_x]).astype(np.float64)
    for table in (masks, planes, values):
        table.flags.writeable = False
    return masks, planes, values
