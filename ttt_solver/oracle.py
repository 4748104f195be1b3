"""The solved database as a fast perfect opponent.

``Oracle.load()`` reads the database once into memory; every lookup after that is a
dictionary access (boards given as normalised text hit the cache directly). Moves found on
the canonical row are mapped back to the real board through the symmetry.

Values are +1/0/-1 for the side to move. Ties among equally good moves: ``rng=None`` gives
the lowest-numbered cell (deterministic); pass a ``random.Random`` or a
``numpy.random.Generator`` to break them uniformly.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, TypeVar, Union

from . import board as rules
from .errors import DatabaseError, GameOverError, InvalidBoardError
from .solver import Solution, rank
from .symmetry import canonical
from .variant import STANDARD, Variant

BoardLike = Union[str, rules.Board, Iterable[int]]
T = TypeVar("T")


class Move(NamedTuple):
    cell: int  # in the real board's numbering
    value: int  # for the player making the move
    remoteness: int  # plies from the position to the end after this move


@dataclass(frozen=True)
class Position:
    """Everything the database knows about one real board."""

    board: str
    value: int
    remoteness: int
    moves: tuple[Move, ...]  # best first: value, then fastest win / slowest loss, then cell
    best_moves: tuple[int, ...]  # ascending cells whose move keeps the value
    preferred: tuple[int, ...]  # ascending cells that keep the value with the best remoteness

    @property
    def to_move(self) -> str:
        return rules.to_move(self.board)

    @property
    def is_over(self) -> bool:
        return not self.moves


class _Row(NamedTuple):
    value: int
    remoteness: int
    moves: tuple[tuple[int, int, int], ...]  # (canonical cell, value, remoteness)


class Oracle:
    """Exact answers for every legal position of one variant."""

    def __init__(self, variant: Variant, rows: Mapping[str, _Row], source: str = "<memory>") -> None:
        self.variant = variant
        self.source = source
        self._rows = rows
        self._positions: dict[str, Position] = {}
        self._batch: Any = None

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def load(
        cls, db: str | Path | None = None, variant: Variant | str = STANDARD, *, eager: bool = True, verify: bool = True
    ) -> Oracle:
        """Read a database (default: the variant's default file, built first if missing)."""
        from .paths import default_database
        from .store import Target
        from .store.reader import read

        variant = Variant.parse(variant) if isinstance(variant, str) else variant
        if db is None:
            db = default_database(variant)
            if not Path(db).exists():
                from .build import build

                print(f"ttt-solver: building the {variant.name} database at {db} (first use)", file=sys.stderr)
                build(db, variant)
        target = Target.parse(db)
        contents = read(target, variant.name, verify=verify)
        moves: dict[str, list[tuple[int, int, int]]] = {}
        for board, cell, value, remoteness in contents.moves:
            moves.setdefault(board, []).append((cell, value, remoteness))
        rows = {
            board: _Row(value, remoteness, tuple(sorted(moves.get(board, ()))))
            for board, _ply, _to_move, value, remoteness, *_ in contents.positions
        }
        oracle = cls(variant, rows, str(target))
        return oracle.warm() if eager else oracle

    @classmethod
    def from_solutions(cls, solutions: Mapping[str, Solution], variant: Variant = STANDARD) -> Oracle:
        """An oracle straight from :func:`ttt_solver.solver.solve`, with no database."""
        rows = {
            board: _Row(s.value, s.remoteness, tuple((m.cell, m.value, m.remoteness) for m in s.moves))
            for board, s in solutions.items()
        }
        return cls(variant, rows).warm()

    def warm(self) -> Oracle:
        """Resolve every legal board now, so that later lookups are plain dictionary hits."""
        from .symmetry import images

        for board in self._rows:
            for image in images(board, self.variant):
                if image not in self._positions:
                    self._positions[image] = self._resolve_text(image)
        return self

    # -- lookups --------------------------------------------------------------------------
    def probe(self, board: BoardLike) -> Position:
        """The full answer for a board; raise InvalidBoardError if it is not legal."""
        if board.__class__ is str:
            found = self._positions.get(board)  # type: ignore[call-overload]
            if found is not None:
                return found
        return self._probe_slow(board)

    def value(self, board: BoardLike) -> int:
        return self.probe(board).value

    def remoteness(self, board: BoardLike) -> int:
        return self.probe(board).remoteness

    def best_moves(self, board: BoardLike) -> list[int]:
        return list(self.probe(board).best_moves)

    def moves(self, board: BoardLike) -> list[Move]:
        return list(self.probe(board).moves)

    def best_move(self, board: BoardLike, rng: Any = None) -> int:
        """One perfect move: keeps the value, wins fastest or loses slowest; ties by ``rng``."""
        found = self._positions.get(board) if board.__class__ is str else None  # type: ignore[call-overload]
        choices = (found or self._probe_slow(board)).preferred
        if len(choices) == 1:
            return choices[0]
        if not choices:
            raise GameOverError(f"no move on {str(board)!r}: the game is over")
        if rng is None:
            return choices[0]
        if hasattr(rng, "integers"):
            return choices[int(rng.integers(len(choices)))]
        return choices[rng.randrange(len(choices))]

    def line(self, board: BoardLike, rng: Any = None) -> list[int]:
        """A principal variation: the cells of perfect play from ``board`` to the end."""
        position = self.probe(board)
        cells = []
        while position.preferred:
            cell = self.best_move(position.board, rng)
            cells.append(cell)
            position = self.probe(rules.play(position.board, cell, self.variant))
        return cells

    # -- non-raising forms ----------------------------------------------------------------
    def get_value(self, board: BoardLike, default: T = None) -> int | T:  # type: ignore[assignment]
        return self._get(self.value, board, default)

    def get_remoteness(self, board: BoardLike, default: T = None) -> int | T:  # type: ignore[assignment]
        return self._get(self.remoteness, board, default)

    def get_best_moves(self, board: BoardLike, default: T = None) -> list[int] | T:  # type: ignore[assignment]
        return self._get(self.best_moves, board, default)

    def get_best_move(self, board: BoardLike, rng: Any = None, default: T = None) -> int | T:  # type: ignore[assignment]
        """Like :meth:`best_move`, but ``default`` for an illegal or finished board."""
        return self._get(lambda b: self.best_move(b, rng), board, default)

    @staticmethod
    def _get(lookup: Any, board: BoardLike, default: Any) -> Any:
        try:
            return lookup(board)
        except (InvalidBoardError, GameOverError):
            return default

    # -- batch ----------------------------------------------------------------------------
    def value_batch(self, boards: Any) -> Any:
        """Values of an (N, cells) array of +1/-1/0 boards, as int8, with no Python loop per board."""
        from .batch import BatchTables

        if self._batch is None:
            self._batch = BatchTables.from_oracle(self)
        return self._batch.values(boards)

    def best_move_batch(self, boards: Any, rng: Any = None) -> Any:
        """One perfect move per row of an (N, cells) array (-1 for a finished board)."""
        from .batch import BatchTables

        if self._batch is None:
            self._batch = BatchTables.from_oracle(self)
        return self._batch.best_moves(boards, rng)

    def all_positions(self) -> dict[str, Position]:
        """Every legal board and its answer (resolving them all first)."""
        return dict(self.warm()._positions)

    # -- internals ------------------------------------------------------------------------
    def _probe_slow(self, board: BoardLike) -> Position:
        if isinstance(board, str):
            text = rules.parse(board, self.variant)
        elif isinstance(board, rules.Board):
            if board.variant != self.variant:
                raise InvalidBoardError(f"board {board!r} is a {board.variant} board, this oracle solves {self.variant}")
            text = board.text
        else:
            text = rules.from_array(board, self.variant)
        found = self._positions.get(text)
        if found is None:
            found = self._positions[text] = self._resolve_text(text)
        return found

    def _resolve_text(self, text: str) -> Position:
        form = canonical(text, self.variant)
        row = self._rows.get(form.text)
        if row is None:
            raise DatabaseError(f"database {self.source!r} has no row for {form.text!r}: it is incomplete; rebuild it")
        moves = sorted(
            (Move(form.to_real(cell), value, remoteness) for cell, value, remoteness in row.moves),
            key=lambda m: (*rank(m.value, m.remoteness), m.cell),
        )
        best = tuple(sorted(m.cell for m in moves if m.value == row.value))
        preferred = tuple(sorted(m.cell for m in moves if (m.value, m.remoteness) == (row.value, row.remoteness)))
        return Position(text, row.value, row.remoteness, tuple(moves), best, preferred)

    def __repr__(self) -> str:
        return f"Oracle(variant={self.variant.name!r}, source={self.source!r})"
