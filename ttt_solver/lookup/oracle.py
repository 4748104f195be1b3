"""The solved database as a fast perfect opponent: a thin facade over one source of rows.

``Oracle.load()`` opens a database and chooses its source once (:mod:`.source`): with
``eager=True`` (the default) the digest-checked arrays in memory (:mod:`.in_memory`; a small
variant's table, as 3x3's, also proved whole), with ``eager=False`` each answer read from the
file and proved one ply down (:mod:`.proved`, the command line's path); a big variant's
answers come from the file either way, its whole-table work from memory-mapped arrays
(:mod:`.whole_table`). Loading only reads: a missing database is a
:class:`~ttt_solver.errors.DatabaseMissingError` naming the command that builds it
(:mod:`ttt_solver.builder.first_use` builds a small one on first use).

Values are +1/0/-1 for the side to move. Ties among equally good moves: ``rng=None`` gives
the lowest-numbered cell (deterministic); pass a ``random.Random`` or a
``numpy.random.Generator`` to break them uniformly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from ..errors import GameOverError, InvalidArgumentError, InvalidBoardError, InvalidVariantError
from ..game import codec, rules
from ..game.variant import STANDARD, Variant, as_variant
from ..store import SMALL_ROWS, Target
from ..store.paths import existing_default
from ..store.reader import Reader
from ..system.memory import AUDIT_ROOM, memory_is_an_error, reserve
from .position import Move, Position
from .proved import ProvedFromFile
from .rows import DatabaseRows

if TYPE_CHECKING:
    from os import PathLike

    from ..solver import Tables
    from ..solver.reference import Solution
    from ..store.arrays import Arrays
    from .source import RowSource
    from .tables import BatchTables

__all__ = ["SMALL_ROWS", "Move", "Oracle", "Position"]

BoardLike = str | rules.Board | Iterable[int]
T = TypeVar("T")
R = TypeVar("R")

_CACHE_LIMIT = 1 << 17  # answers an oracle keeps before it starts again


class Oracle:
    """Exact answers for every legal position of one variant.

    Each lookup takes a board as text (parsed once, at the call), a
    :class:`~ttt_solver.game.rules.Board` (parsed already: taken as it is) or +1/-1/0 cells."""

    def __init__(self, rows: RowSource) -> None:
        self.variant = rows.variant
        self.rows = rows
        self._answers: dict[str, Position] = {}  # boards asked for, by normalised text
        self._complete = False  # every real board is in _answers

    # -- construction ---------------------------------------------------------------------
    @classmethod
    @memory_is_an_error("load the database")
    def load(
        cls,
        db: str | PathLike[str] | None = None,
        variant: Variant | str | None = None,
        *,
        eager: bool = True,
        verify: bool = False,
    ) -> Oracle:
        """Open a database: ``db`` (a path or URL), else the variant's default database.

        ``variant``: the variant the database must hold (default: whichever ``db`` holds;
        3x3 for the default database). Loading never builds: a missing default database is a
        DatabaseMissingError naming the command that builds it and what that build takes.
        ``eager``: load the arrays now (see the module docstring); otherwise each lookup
        queries and proves its rows. ``verify``: prove the whole table first, as
        ``ttt-lookup verify`` does (seconds on 4x4).
        """

        given = None if variant is None else as_variant(variant)
        target = Target.parse(db if db is not None else existing_default(given or STANDARD))
        reader = Reader(target, None if given is None else given.name)
        if given is None and not _names_a_variant(reader.variant_name):
            reader.close()  # a damaged meta table: opened as 3x3, the reader says what it holds instead
            reader = Reader(target, STANDARD.name)
        return cls._over(reader, given, eager, verify)

    @classmethod
    @memory_is_an_error("load the database")
    def from_reader(cls, reader: Reader, *, eager: bool = True, verify: bool = False) -> Oracle:
        """An oracle over a database already open (the command line opens it once to learn its
        variant), of the variant it holds; the oracle owns the reader from then on. ``eager``,
        ``verify``: as :meth:`load`."""
        return cls._over(reader, None, eager, verify)

    @classmethod
    def _over(cls, reader: Reader, given: Variant | None, eager: bool, verify: bool) -> Oracle:
        """An oracle over ``reader`` (closed here if that fails), of ``given`` or the variant it holds."""
        try:
            database = DatabaseRows(reader, given or Variant.parse(reader.variant_name))
            if verify:
                # Imported here, not at the top: numpy (arrays, sources in memory, the audit) stays off the command-line lookup path.
                reserve(AUDIT_ROOM, "the audit")
                from ..audit.verify import verify_source

                verify_source(database).raise_for_contradictions()
            return cls(_source(database, eager))
        except BaseException:
            reader.close()
            raise

    @classmethod
    def from_tables(cls, tables: Tables) -> Oracle:
        """An oracle straight from :func:`ttt_solver.solver.solve.solve_tables`, with no database."""
        from ..store.arrays import Arrays
        from .in_memory import InMemory

        return cls(InMemory(Arrays.from_tables(tables)))

    @classmethod
    def from_solutions(cls, solutions: Mapping[str, Solution], variant: Variant = STANDARD) -> Oracle:
        """An oracle straight from the recursive solver :func:`ttt_solver.solver.reference.solve`."""
        import numpy as np

        from ..store.arrays import Arrays
        from .in_memory import InMemory

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
        return cls(InMemory(arrays))

    def close(self) -> None:
        """Close the database connection (an oracle in memory keeps answering)."""
        self.rows.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    @property
    def location(self) -> str:
        return self.rows.location

    @property
    def source(self) -> DatabaseRows | None:
        """The database's rows, for whole-table work (``stats``, ``verify``); None for an oracle
        made in memory."""
        return self.rows.database

    @property
    def meta(self) -> dict[str, str]:
        """The database's meta table (empty for an oracle made in memory)."""
        return {} if self.rows.database is None else dict(self.rows.database.meta)

    @property
    def exhaustive(self) -> bool:
        """Whether every real board is resolved in memory (after :meth:`all_positions`)."""
        return self._complete

    # -- lookups --------------------------------------------------------------------------
    def probe(self, board: BoardLike) -> Position:
        """The full answer for a board; raise InvalidBoardError if it is not legal."""
        if board.__class__ is str:
            found = self._answers.get(board)
            if found is not None:
                return found
        text = self._text(board)
        found = self._answers.get(text)
        if found is None:
            if len(self._answers) >= _CACHE_LIMIT:
                self._answers.clear()
            found = self._answers[text] = self.rows.position(text)
        return found

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
        return list(self.probe(board).preferred_moves)

    def moves(self, board: BoardLike) -> list[Move]:
        return list(self.probe(board).moves)

    def best_move(self, board: BoardLike, rng: Any = None) -> int:
        """One preferred move (see :meth:`preferred_moves`): keeps the value, then wins fastest
        or loses slowest; ties by ``rng``."""
        return _choose(self.probe(board).preferred_moves, board, rng)

    def line(self, board: BoardLike, rng: Any = None) -> list[int]:
        """A principal variation: the cells of perfect play from ``board`` to the end."""
        position = self.probe(board)  # the first position proved with its children's rows
        text, preferred = position.board, position.preferred_moves
        cells = []
        while preferred:
            cell = _choose(preferred, text, rng)
            cells.append(cell)
            text = rules.play(text, cell, self.variant)
            found = self._answers.get(text)
            # Each step needs only its preferred moves, its row proved against its children's.
            preferred = found.preferred_moves if found is not None else self.rows.preferred(text)
        return cells

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
        """The dense tables behind the batch lookups, made (and the whole table proved) on first use."""
        return self.rows.batch_tables()

    def arrays(self) -> Arrays:
        """Every canonical row as compact arrays (loaded or mapped once, digest checked)."""
        return self.rows.arrays()

    def all_positions(self) -> dict[str, Position]:
        """Every legal board and its answer; small variants only."""
        if not self._complete:
            from .in_memory import every_position

            arrays = self.arrays()
            if len(arrays) > SMALL_ROWS:
                raise InvalidVariantError(
                    f"all_positions() would resolve every board of {self.variant.name}, millions of them;"
                    " use probe() or the batch lookups"
                )
            self.batch_tables()  # proves the whole table
            self._answers = every_position(arrays, self.location, self.rows.rebuild_hint())
            self._complete = True
        return dict(self._answers)

    # -- internals ------------------------------------------------------------------------
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


def _names_a_variant(name: str) -> bool:
    try:
        Variant.parse(name)
    except InvalidVariantError:
        return False
    return True


def _source(database: DatabaseRows, eager: bool) -> RowSource:
    """The one source an oracle of ``database`` reads, chosen once (see the module docstring)."""
    if eager and not database.big:
        from .in_memory import InMemory  # numpy: eager loads only, never the command line's single lookups

        return InMemory.from_database(database)
    return ProvedFromFile(database)


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

    raise InvalidArgumentError(f"rng must be a random.Random or a numpy.random.Generator, got {type(rng).__name__}")
