"""The solved database as a fast perfect opponent.

``Oracle.load()`` reads the database once into memory; every lookup after that is a
dictionary access (boards given as normalised text hit the cache directly). Moves found on
the canonical row are mapped back to the real board through the symmetry.

Big variants (4x4: 1.2 million canonical rows, no ``moves`` table) are never read into a
dictionary: ``eager=False`` answers each lookup with one indexed query for the position and
its children (what the command line does), ``eager=True`` loads compact numpy arrays of
every position's code, value and remoteness once. Either way a move's value and remoteness
come from its child: ``-child value`` and ``child remoteness + 1``.

Values are +1/0/-1 for the side to move. Ties among equally good moves: ``rng=None`` gives
the lowest-numbered cell (deterministic); pass a ``random.Random`` or a
``numpy.random.Generator`` to break them uniformly.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, Protocol, TypeVar

from . import board as rules
from .errors import DatabaseError, GameOverError, InvalidBoardError, InvalidVariantError
from .solver import Solution, rank
from .symmetry import canonical
from .variant import STANDARD, Variant

BoardLike = str | rules.Board | Iterable[int]
T = TypeVar("T")
R = TypeVar("R")


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


_IN_MEMORY_LIMIT = 100_000  # canonical rows read into a dictionary; bigger variants use arrays or queries
_CACHE_LIMIT = 1 << 17  # resolved boards kept for a big variant (a small one keeps them all)


class _RowSource(Protocol):
    def get(self, text: str) -> _Row | None: ...


class _LazyRows:
    """The rows of a big variant, fetched per lookup: the position and its canonical children
    in one ``WHERE board IN (...)`` query, the moves derived from the children."""

    def __init__(self, lookup: Any, variant: Variant) -> None:
        self.lookup = lookup  # a ttt_solver.store.reader.PositionLookup
        self.variant = variant

    def get(self, text: str) -> _Row | None:
        from .symmetry import canonical_text

        mark = rules.to_move(text)
        children = (
            []
            if rules.terminal_value(text, self.variant) is not None
            else [
                (cell, canonical_text(text[:cell] + mark + text[cell + 1 :], self.variant))
                for cell, here in enumerate(text)
                if here == rules.EMPTY
            ]
        )
        found = self.lookup.values([text, *{child for _, child in children}])
        if text not in found:
            return None
        moves = []
        for cell, child in children:
            if child not in found:
                raise DatabaseError(
                    f"database {str(self.lookup.target)!r} has no row for {child!r}: it is incomplete; rebuild it"
                )
            value, remoteness = found[child]
            moves.append((cell, -value, remoteness + 1))
        value, remoteness = found[text]
        return _Row(value, remoteness, tuple(moves))


class Oracle:
    """Exact answers for every legal position of one variant."""

    def __init__(self, variant: Variant, rows: Mapping[str, _Row] | _RowSource, source: str = "<memory>") -> None:
        self.variant = variant
        self.source = source
        self._rows = rows
        self._positions: dict[str, Position] = {}
        self._batch: Any = None

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def load(
        cls,
        db: str | Path | None = None,
        variant: Variant | str = STANDARD,
        *,
        eager: bool = True,
        verify: bool | None = None,
    ) -> Oracle:
        """Read a database (default: the variant's default file, built first if missing).

        ``eager``: resolve everything now (small variants) or load compact arrays (big ones);
        otherwise big variants are queried per lookup. ``verify``: check the content digest;
        by default small variants are checked and big ones (millions of rows) are not.
        """
        from .paths import default_database
        from .store import Target
        from .store.reader import read, read_meta

        variant = Variant.parse(variant) if isinstance(variant, str) else variant
        if db is None:
            db = default_database(variant)
            if not Path(db).exists():
                from .build import build

                print(f"ttt-solver: building the {variant.name} database at {db} (first use)", file=sys.stderr)
                build(db, variant)
        target = Target.parse(db)
        meta = read_meta(target, variant.name)
        rows_count = meta.get("positions", "")
        if meta.get("moves_stored", "1") == "0" or (rows_count.isdigit() and int(rows_count) > _IN_MEMORY_LIMIT):
            return cls._load_big(target, variant, meta, eager, bool(verify))
        contents = read(target, variant.name, verify=verify is not False)
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
    def _load_big(cls, target: Any, variant: Variant, meta: dict[str, str], eager: bool, verify: bool) -> Oracle:
        """A big variant (no moves table, or too many rows for a dictionary): compact arrays
        (eager) or per-lookup queries; the digest is checked only when asked for."""
        from .store import rebuild_hint
        from .store.reader import PositionLookup, read, read_values

        contents = read(target, variant.name, verify=True) if verify else None
        if not eager:
            return cls(variant, _LazyRows(PositionLookup(target), variant), str(target))
        from .batch import ArrayRows

        if contents is not None:
            rows = ArrayRows.from_rows(variant, ((row[0], row[3], row[4]) for row in contents.positions), str(target))
        else:
            rows = ArrayRows.from_columns(variant, *read_values(target), source=str(target))
        if str(len(rows.codes)) != meta.get("positions"):
            raise DatabaseError(
                f"database {str(target)!r} is corrupt ({len(rows.codes)} positions, meta says {meta.get('positions')});"
                f" {rebuild_hint(str(target), variant.name)}"
            )
        return cls(variant, rows, str(target))

    @classmethod
    def from_solutions(cls, solutions: Mapping[str, Solution], variant: Variant = STANDARD) -> Oracle:
        """An oracle straight from :func:`ttt_solver.solver.solve`, with no database."""
        rows = {
            board: _Row(s.value, s.remoteness, tuple((m.cell, m.value, m.remoteness) for m in s.moves))
            for board, s in solutions.items()
        }
        return cls(variant, rows).warm()

    @property
    def exhaustive(self) -> bool:
        """Whether every row is in memory, so :meth:`warm` and :meth:`all_positions` are affordable
        (small variants; big ones answer each lookup from arrays or queries)."""
        return isinstance(self._rows, Mapping)

    def warm(self) -> Oracle:
        """Resolve every legal board now, so that later lookups are plain dictionary hits
        (a no-op for a big variant: millions of boards)."""
        from .symmetry import images

        if not isinstance(self._rows, Mapping):
            return self
        for board in self._rows:
            for image in images(board, self.variant):
                if image not in self._positions:
                    self._positions[image] = self._resolve_text(image)
        return self

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
        return list(self.probe(board).best_moves)

    def moves(self, board: BoardLike) -> list[Move]:
        return list(self.probe(board).moves)

    def best_move(self, board: BoardLike, rng: Any = None) -> int:
        """One perfect move: keeps the value, wins fastest or loses slowest; ties by ``rng``."""
        found = self._positions.get(board) if board.__class__ is str else None
        choices = (found or self._probe_slow(board)).preferred
        if len(choices) == 1:
            return choices[0]
        if not choices:
            raise GameOverError(f"no move on {str(board)!r}: the game is over")
        if rng is None:
            return choices[0]
        if hasattr(rng, "integers"):
            return choices[int(rng.integers(len(choices)))]
        pick: int = rng.randrange(len(choices))
        return choices[pick]

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
    def _get(lookup: Callable[[BoardLike], R], board: BoardLike, default: T) -> R | T:
        try:
            return lookup(board)
        except (InvalidBoardError, GameOverError):
            return default

    # -- batch ----------------------------------------------------------------------------
    def value_batch(self, boards: Any) -> Any:
        """Values of an (N, cells) array of +1/-1/0 boards, as int8, with no Python loop per board."""
        return self._batcher().values(boards)

    def best_move_batch(self, boards: Any, rng: Any = None) -> Any:
        """One perfect move per row of an (N, cells) array (-1 for a finished board)."""
        return self._batcher().best_moves(boards, rng)

    def batch_tables(self) -> Any:
        """The dense :class:`ttt_solver.batch.BatchTables` behind the batch lookups (built on first use)."""
        from .batch import BatchTables

        batch = self._batcher()
        if not isinstance(batch, BatchTables):
            raise InvalidVariantError(
                f"no dense batch tables for {self.variant.name}: 3**{self.variant.cells} boards are too many;"
                " use value_batch and best_move_batch"
            )
        return batch

    def _batcher(self) -> Any:
        """Dense tables over every possible board where they are small (up to 12 cells, as
        3x3), else one byte per canonical code, found through the board's canonical form."""
        from .batch import DENSE_MAX_CELLS, ArrayRows, BatchTables, CanonicalTables

        if self._batch is None:
            if self.exhaustive and self.variant.cells <= DENSE_MAX_CELLS:
                self._batch = BatchTables.from_oracle(self)
            elif isinstance(self._rows, ArrayRows):
                self._batch = CanonicalTables(self._rows)
            elif isinstance(self._rows, _LazyRows):
                from .store.reader import read_values

                columns = read_values(self._rows.lookup.target)
                arrays = ArrayRows.from_columns(self.variant, *columns, source=self.source)
                self._batch = CanonicalTables(arrays)
            elif isinstance(self._rows, Mapping):
                rows = ((board, row.value, row.remoteness) for board, row in self._rows.items())
                self._batch = CanonicalTables(ArrayRows.from_rows(self.variant, rows, self.source))
            else:
                raise TypeError(f"no batch lookups for rows of type {type(self._rows).__name__}")
        return self._batch

    def all_positions(self) -> dict[str, Position]:
        """Every legal board and its answer (resolving them all first); small variants only."""
        if not self.exhaustive:
            raise InvalidVariantError(
                f"all_positions() would resolve every board of {self.variant.name}, millions of them;"
                " use probe() or the batch lookups"
            )
        return dict(self.warm()._positions)

    # -- internals ------------------------------------------------------------------------
    def _probe_slow(self, board: BoardLike) -> Position:
        if isinstance(board, str):
            text = rules.parse(board, self.variant)
        elif isinstance(board, rules.Board):
            if board.variant != self.variant:
                raise InvalidBoardError(
                    f"board {board!r} is a {board.variant} board, this oracle solves {self.variant}"
                )
            text = board.text
        else:
            text = rules.from_array(board, self.variant)
        found = self._positions.get(text)
        if found is None:
            if not self.exhaustive and len(self._positions) >= _CACHE_LIMIT:
                self._positions.clear()
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
