"""The solved database as a fast perfect opponent, over one source of rows.

``Oracle.load()`` opens a database. With ``eager=True`` (the default) it loads the packed
arrays once and checks their content digest; a small variant (up to :data:`SMALL_ROWS`
canonical rows, as 3x3) is also proved whole against the rules and resolved for every real
board, so a lookup is a dictionary hit. With ``eager=False`` each lookup fetches the
position, its children and its grandchildren in one indexed query and proves what it shows
against them (:mod:`ttt_solver.lookup.proof`): the command line's path, instant and checked.

Values are +1/0/-1 for the side to move. Ties among equally good moves: ``rng=None`` gives
the lowest-numbered cell (deterministic); pass a ``random.Random`` or a
``numpy.random.Generator`` to break them uniformly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from ..audit import SMALL_ROWS
from ..errors import GameOverError, InvalidBoardError, InvalidVariantError
from ..game import board as rules
from ..game import codec
from ..game.variant import STANDARD, Variant
from ..store.content import Row
from ..system.memory import memory_is_an_error
from .proof import Move, Position, resolve
from .rows import DatabaseRows

if TYPE_CHECKING:
    from pathlib import Path

    from ..solver.reference import Solution
    from ..solver.solve import Tables
    from ..store.arrays import Arrays
    from .rows import RowSource
    from .tables import BatchTables

__all__ = ["SMALL_ROWS", "Move", "Oracle", "Position"]

BoardLike = str | rules.Board | Iterable[int]
T = TypeVar("T")
R = TypeVar("R")

_CACHE_LIMIT = 1 << 17  # resolved boards kept by an oracle that does not resolve them all


class Oracle:
    """Exact answers for every legal position of one variant."""

    def __init__(self, source: RowSource, *, eager: bool = True) -> None:
        self.variant = source.variant
        self.source = source
        self._arrays: Arrays | None = None
        self._positions: dict[str, Position] = {}
        self._complete = False  # every real board is in _positions
        self._batch: BatchTables | None = None
        if eager and not self.big:
            self._arrays = source.arrays()
            if len(self._arrays) <= SMALL_ROWS:
                self.batch_tables()  # proves the whole table against the rules
                self._resolve_all()

    # -- construction ---------------------------------------------------------------------
    @classmethod
    @memory_is_an_error("load the database")
    def load(
        cls,
        db: str | Path | None = None,
        variant: Variant | str = STANDARD,
        *,
        eager: bool = True,
        verify: bool = False,
    ) -> Oracle:
        """Open a database (default: the variant's default file, built first if missing).

        ``eager``: load everything now (see the module docstring); otherwise each lookup
        queries and proves its rows. ``verify``: prove the whole table first, as
        ``ttt-lookup verify`` does (seconds on 4x4).
        """
        from ..store import Target
        from ..store.reader import Reader

        variant = variant if isinstance(variant, Variant) else Variant.parse(variant)
        if db is None:
            from ..builder.build import ensure_database

            db = ensure_database(variant)
        target = Target.parse(db)
        source = DatabaseRows(Reader(target, variant.name), variant)
        try:
            if verify:
                from ..audit.verify import verify_source

                verify_source(source).raise_for_contradictions()
            return cls(source, eager=eager)
        except BaseException:
            source.close()
            raise

    @classmethod
    def from_tables(cls, tables: Tables) -> Oracle:
        """An oracle straight from :func:`ttt_solver.solver.layers.solve_tables`, with no database."""
        from ..store.arrays import Arrays
        from .array_rows import ArrayRows

        return cls(ArrayRows(Arrays.from_tables(tables)))

    @classmethod
    def from_solutions(cls, solutions: Mapping[str, Solution], variant: Variant = STANDARD) -> Oracle:
        """An oracle straight from the recursive solver :func:`ttt_solver.solver.reference.solve`."""
        import numpy as np

        from ..store.arrays import Arrays
        from .array_rows import ArrayRows

        texts = sorted(solutions, key=codec.encode)
        rows = [solutions[text] for text in texts]
        arrays = Arrays(
            variant,
            np.array([codec.encode(text) for text in texts], dtype=np.int64),
            np.array([s.value for s in rows], dtype=np.int8),
            np.array([s.remoteness for s in rows], dtype=np.int8),
            np.array([sum(1 << c for c in s.best_moves) for s in rows], dtype=np.uint32),
            np.array([s.orbit for s in rows], dtype=np.int8),
            *(np.array([sum(1 for m in s.moves if m.value == v) for s in rows], dtype=np.uint8) for v in (1, 0, -1)),
        )
        return cls(ArrayRows(arrays))

    def close(self) -> None:
        """Close the database connection (an eager oracle keeps answering from memory)."""
        self.source.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    @property
    def location(self) -> str:
        return self.source.location

    @property
    def meta(self) -> dict[str, str]:
        """The database's meta table (empty for an oracle made in memory)."""
        return dict(getattr(self.source, "meta", {}))

    @property
    def big(self) -> bool:
        """Whether the database has more canonical rows than an eager load reads into memory
        (:data:`ttt_solver.lookup.mapped.EAGER_ROWS`): then single lookups go through the file
        and whole-table work reads memory-mapped arrays."""
        from .mapped import is_big

        return isinstance(self.source, DatabaseRows) and is_big(self.source)

    @property
    def exhaustive(self) -> bool:
        """Whether every real board is resolved in memory (small variants loaded eagerly)."""
        return self._complete

    # -- lookups --------------------------------------------------------------------------
    def probe(self, board: BoardLike) -> Position:
        """The full answer for a board; raise InvalidBoardError if it is not legal."""
        if board.__class__ is str:
            found = self._positions.get(board)
            if found is not None:
                return found
        return self._probe_slow(board)

    def value(self, board: BoardLike) -> int:
        return self.probe(board).value

    def remoteness(self, board: BoardLike) -> int:
        return self.probe(board).remoteness

    def best_moves(self, board: BoardLike) -> list[int]:
        """Every cell whose move keeps the position's value (win, draw or loss), ascending."""
        return list(self.probe(board).best_moves)

    def preferred_moves(self, board: BoardLike) -> list[int]:
        """The best moves with the best remoteness, ascending: value first, then remoteness
        (win fastest, lose slowest). :meth:`best_move` picks one of these."""
        return list(self.probe(board).preferred)

    def moves(self, board: BoardLike) -> list[Move]:
        return list(self.probe(board).moves)

    def best_move(self, board: BoardLike, rng: Any = None) -> int:
        """One preferred move (see :meth:`preferred_moves`): keeps the value, then wins fastest
        or loses slowest; ties by ``rng``."""
        found = self._positions.get(board) if board.__class__ is str else None
        return _choose((found or self._probe_slow(board)).preferred, board, rng)

    def line(self, board: BoardLike, rng: Any = None) -> list[int]:
        """A principal variation: the cells of perfect play from ``board`` to the end."""
        position = self.probe(board)
        cells = []
        while position.preferred:
            cell = _choose(position.preferred, position.board, rng)
            cells.append(cell)
            position = self._step(rules.play(position.board, cell, self.variant))
        return cells

    def _step(self, text: str) -> Position:
        """A position of a line: from the file, its row proved against its children's rows
        (each row of the line is so proved, the first with its children too, by :meth:`probe`:
        a line of 20 plies reads some hundreds of rows, not thousands)."""
        found = self._positions.get(text)
        if found is not None:
            return found
        if self._arrays is not None:
            return self._probe_slow(text)
        return resolve(text, self.variant, self.source.fetch, self.location, self.source.rebuild_hint, True, False)

    # -- non-raising forms ----------------------------------------------------------------
    def get_value(self, board: BoardLike, default: T = None) -> int | T:  # type: ignore[assignment]
        return self._get(self.value, board, default)

    def get_remoteness(self, board: BoardLike, default: T = None) -> int | T:  # type: ignore[assignment]
        return self._get(self.remoteness, board, default)

    def get_best_moves(self, board: BoardLike, default: T = None) -> list[int] | T:  # type: ignore[assignment]
        return self._get(self.best_moves, board, default)

    def get_preferred_moves(self, board: BoardLike, default: T = None) -> list[int] | T:  # type: ignore[assignment]
        return self._get(self.preferred_moves, board, default)

    def get_best_move(self, board: BoardLike, rng: Any = None, default: T = None) -> int | T:  # type: ignore[assignment]
        """Like :meth:`best_move`, but ``default`` for an illegal or finished board."""
        return self._get(lambda b: self.best_move(b, rng), board, default)

    @staticmethod
    def _get(lookup: Callable[[BoardLike], R], board: BoardLike, default: T) -> R | T:
        try:
            return lookup(board)
        except (InvalidBoardError, GameOverError):
            return default

    # -- batch ----------------------------------------------------------------------------
    def value_batch(self, boards: Any) -> Any:
        """Values of an (N, cells) array of +1/-1/0 boards, as int8, with no Python loop per board."""
        return self.batch_tables().values(boards)

    def remoteness_batch(self, boards: Any) -> Any:
        """Remoteness of each row of an (N, cells) array, as int8."""
        return self.batch_tables().remoteness(boards)

    def best_move_batch(self, boards: Any, rng: Any = None) -> Any:
        """One perfect move per row of an (N, cells) array (-1 for a finished board)."""
        return self.batch_tables().best_moves(boards, rng)

    def batch_tables(self) -> BatchTables:
        """The dense tables behind the batch lookups, built (and the whole table proved) on first use."""
        if self._batch is None:
            if self.big:
                from .mapped import mapped_tables

                self._batch = self._mapped(mapped_tables)
            else:
                from .tables import BatchTables

                self._batch = BatchTables.build(self._load_arrays(), self.source.location, self.source.rebuild_hint())
        return self._batch

    def arrays(self) -> Arrays:
        """Every canonical row as compact arrays (loaded once, digest checked)."""
        return self._load_arrays()

    def all_positions(self) -> dict[str, Position]:
        """Every legal board and its answer; small variants only."""
        if not self._complete:
            if len(self._load_arrays()) > SMALL_ROWS:
                raise InvalidVariantError(
                    f"all_positions() would resolve every board of {self.variant.name}, millions of them;"
                    " use probe() or the batch lookups"
                )
            self.batch_tables()
            self._resolve_all()
        return dict(self._positions)

    # -- internals ------------------------------------------------------------------------
    def _load_arrays(self) -> Arrays:
        if self._arrays is None:
            if self.big:
                from .mapped import mapped_arrays

                return self._mapped(mapped_arrays)
            self._arrays = self.source.arrays()
        return self._arrays

    def _mapped(self, make: Callable[[Any], R]) -> R:
        """``make(source)`` for a database's memory-mapped arrays; a damaged one is a DatabaseError."""
        try:
            return make(self.source)
        except ValueError as why:
            from ..errors import DatabaseError

            raise DatabaseError(
                f"database {self.location!r} is damaged ({why}); {self.source.rebuild_hint()}"
            ) from None

    def _resolve_all(self) -> None:
        from ..game.array_rules import decode_texts
        from ..game.symmetry import images

        arrays = self._load_arrays()
        every = arrays.fetch(arrays.code.tolist())  # one numpy search for all rows, then dict hits

        def fetch(codes: Iterable[int]) -> dict[int, Row]:
            return {code: every[code] for code in codes if code in every}

        hint = self.source.rebuild_hint
        for text in decode_texts(arrays.code, self.variant):
            for image in images(text, self.variant):
                if image not in self._positions:
                    self._positions[image] = resolve(image, self.variant, fetch, self.location, hint, prove=False)
        self._complete = True

    def _probe_slow(self, board: BoardLike) -> Position:
        text = self._text(board)
        found = self._positions.get(text)
        if found is None:
            if len(self._positions) >= _CACHE_LIMIT:
                self._positions.clear()
            # In memory, the arrays were checked at load; from the file, each answer is proved.
            fetch, prove = (self._arrays.fetch, False) if self._arrays is not None else (self.source.fetch, True)
            found = resolve(text, self.variant, fetch, self.location, self.source.rebuild_hint, prove)
            self._positions[text] = found
        return found

    def _text(self, board: BoardLike) -> str:
        if isinstance(board, str):
            return rules.parse(board, self.variant)
        if isinstance(board, rules.Board):
            if board.variant != self.variant:
                raise InvalidBoardError(
                    f"board {board!r} is a {board.variant} board, this oracle solves {self.variant}"
                )
            return board.text
        return rules.from_array(board, self.variant)

    def __repr__(self) -> str:
        return f"Oracle(variant={self.variant.name!r}, source={self.location!r})"


def _choose(choices: tuple[int, ...], board: object, rng: Any) -> int:
    """One of a position's preferred cells: the lowest, or by ``rng``."""
    if len(choices) == 1:
        return choices[0]
    if not choices:
        raise GameOverError(f"no move on {str(board)!r}: the game is over")
    if rng is None:
        return choices[0]
    return choices[_pick(rng, len(choices))]


def _pick(rng: Any, count: int) -> int:
    """A uniform index below ``count`` from a numpy Generator or a random.Random."""
    if hasattr(rng, "integers"):
        return int(rng.integers(count))
    if hasattr(rng, "randrange"):
        return int(rng.randrange(count))
    from ..errors import InvalidArgumentError

    raise InvalidArgumentError(f"rng must be a random.Random or a numpy.random.Generator, got {type(rng).__name__}")
