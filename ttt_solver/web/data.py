"""The web app's only door into the data layer: opening the databases and answering lookups.

Every call the HTTP API makes into ttt-solver's oracle, store and statistics goes through this
module, so a change of the data layer is adapted here and nowhere else in ``ttt_solver.web``.

Values are +1 win, 0 draw, -1 loss for the side to move (see :mod:`ttt_solver.game.rules`).
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import DatabaseError, InvalidBoardError, InvalidVariantError
from ..game import rules
from ..game.variant import STANDARD, Variant
from ..lookup.analysis import analyze, checked_boards
from ..lookup.oracle import Oracle
from ..lookup.rows import DatabaseRows
from ..lookup.stats import stats_of
from ..store import Target, number_in, paths
from ..store.reader import Reader, held_variant

_TO_NUMBER = np.zeros(256, dtype=np.int8)
_TO_NUMBER[ord("X")] = 1
_TO_NUMBER[ord("O")] = -1
_DROP_NORMAL = str.maketrans("", "", "XO.")
_NORMAL_CHARS = np.array([ord(char) for char in "XO."], dtype=np.uint32)


class BatchTimeout(Exception):
    """A batch took longer than the time allowed for one request."""


_SERIALS = itertools.count(1)
# meta values that stay text; every other value that is a whole number is served as a number
_TEXT_META = frozenset({"generator", "generator_version", "variant", "digest", "built_at"})


@dataclass(eq=False)
class Served:
    """One variant the server answers for, as one database held it when it was opened.

    ``lookups`` answers single positions from the file, each answer proved against the rows
    one ply below it (the command line's path); ``batch`` holds the dense tables built from the
    digest-checked packed arrays and the whole-table proof (its connection closed). ``stamp``
    is what the file looked like before it was opened (see :func:`stamp`); ``serial`` names
    this opening, so that nothing kept from an older one is taken for it."""

    variant: Variant
    database: str
    lookups: Oracle
    batch: Oracle
    stats: dict[str, Any]
    stamp: object
    serial: int = field(default_factory=lambda: next(_SERIALS))
    etag: str = field(init=False)

    def __post_init__(self) -> None:
        # The answer for a board never changes for a given content: its digest names it.
        self.etag = f'"{self.meta.get("digest", "")[:32]}"'

    @property
    def meta(self) -> dict[str, str]:
        return self.lookups.meta

    @property
    def name(self) -> str:
        return self.variant.name

    @property
    def cells(self) -> int:
        return self.variant.cells

    def describe(self) -> dict[str, Any]:
        """The entry of ``GET /api/v1/variants``: its meta table with numbers as numbers."""
        meta: dict[str, str | int] = {
            key: int(value) if key not in _TEXT_META and value.isascii() and value.isdigit() else value
            for key, value in self.meta.items()
        }
        return {**geometry(self.variant), "meta": meta, "stats": self.stats}

    def close(self) -> None:
        self.lookups.close()


def geometry(variant: Variant) -> dict[str, Any]:
    """A variant's name and shape, as ``GET /api/v1/variants`` gives them."""
    v = variant
    return {"name": v.name, "rows": v.rows, "cols": v.cols, "k": v.k, "misere": v.misere, "cells": v.cells}


def stamp(database: str, variant: Variant) -> object:
    """What a database looks like now, cheaply: a file's identity, size and time of change (a
    rebuild renames a new file over it; damage in place changes its time), or a server
    database's content digest; None for a file that is gone, the error for a server that fails."""
    target = Target.parse(database)
    if target.file is not None:
        try:
            found = os.stat(target.file)
        except OSError:
            return None
        return (found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns)
    try:
        with Reader(target, variant.name) as reader:
            return reader.meta.get("digest")
    except DatabaseError as error:
        return str(error)


def variant_held_by(database: str | Path) -> Variant:
    """The variant a database holds, by its meta table (which opening it checks)."""
    return Variant.parse(held_variant(database))


def open_variant(
    database: str | Path,
    variant: Variant | None = None,
    progress: Callable[[str], None] | None = None,
    reuse: Served | None = None,
) -> Served:
    """Open one database (its variant read from its meta table unless given), and count it.

    Single lookups read the file and are proved one ply down, as on the command line. The batch
    tables are built now (which checks the packed arrays' digest and proves the whole table),
    unless ``reuse`` (an earlier opening) holds them for the same content digest. ``progress``
    hears of the slow part before it starts."""

    name = str(database)
    variant = variant or variant_held_by(name)
    before = stamp(name, variant)  # first: a change from here on is seen at the next check
    lookups = Oracle.load(name, variant, eager=False)
    try:
        digest = lookups.meta.get("digest")
        if reuse is not None and reuse.variant == variant and reuse.meta.get("digest") == digest:
            batch, stats = reuse.batch, reuse.stats
        else:
            if progress is not None:
                stated = lookups.meta.get("positions", "?")
                number = number_in(stated)
                count = stated if number is None else f"{number:,}"
                progress(f"loading {variant.name} from {name}: proving its {count} positions for batch lookups")
            batch = Oracle.load(name, variant, eager=False)
            try:
                batch.batch_tables()
                assert isinstance(batch.source, DatabaseRows)
                stats = stats_of(batch.source).to_dict()
            finally:
                batch.close()  # the tables are in memory: its file is not read again
            if batch.meta.get("digest") != digest:
                raise DatabaseError(
                    f"database {name!r} was replaced while it was being opened; it is opened again shortly"
                )
    except BaseException:
        lookups.close()
        raise
    return Served(variant, name, lookups, batch, stats, before)


def databases_of(databases: Iterable[str], variants: Iterable[Variant]) -> dict[Variant, str]:
    """The database of each variant to serve: the given databases (their variants read from
    them) and the default databases of the given variants, each checked to hold its variant
    (a DatabaseError naming the build command if it is missing); opened later, when asked for."""
    pairs: list[tuple[str, Variant]] = [(str(db), variant_held_by(db)) for db in databases]
    for wanted in variants:
        path = paths.database_file(wanted)
        with Reader(Target.parse(path), wanted.name):  # its meta table says it holds the variant
            pairs.append((path, wanted))
    found: dict[Variant, str] = {}
    for database, variant in pairs:
        if variant in found:
            raise DatabaseError(f"two databases for variant {variant.name!r}: {found[variant]!r} and {database!r}")
        found[variant] = database
    return found


def folder_name() -> str:
    """The data folder, as messages name it."""
    return paths.data_folder()


def folder_database(variant: Variant) -> str | None:
    """The variant's default database, if there is one in the data folder."""
    path = paths.database_file(variant)
    return path if os.path.isfile(path) else None


def folder_databases() -> list[tuple[Variant, str]]:
    """Every default database in the data folder, 3x3 first, then by name (a file whose name
    is no variant is not one)."""
    try:
        names = sorted(os.listdir(paths.data_folder()))
    except OSError:
        return []
    found = []
    for name in names:
        stem, dot, kind = name.rpartition(".")
        try:
            variant = STANDARD if stem == "ttt" else Variant.parse(stem)
        except InvalidVariantError:
            continue
        path = os.path.join(paths.data_folder(), name)
        if dot and kind == "sqlite" and paths.database_file(variant) == path and os.path.isfile(path):
            found.append((variant, path))
    return sorted(found, key=lambda pair: (pair[0] != STANDARD, pair[0].name))


def question(served: Served, board: str | None, moves: str | None) -> rules.Board:
    """The board a request asks about, given as text or as the cells played: parsed here, once
    a request (the response cache in front parses it, and hands it on: see
    :func:`~.response_cache.parsed_board`)."""
    return rules.board_from_input(board, moves, served.variant)


def position(served: Served, board: rules.Board) -> dict[str, Any]:
    """The ``analyze --json`` answer for a parsed board (see :func:`question`), read from the
    file and proved one ply down."""
    return analyze(served.lookups, board)


def batch(served: Served, boards: list[str], deadline: float, each: bool = False) -> dict[str, Any]:
    """Value, remoteness and one best move (-1 on a finished board) per board text, in order,
    as numpy arrays beside the normalised texts: the whole array at once through the oracle's
    batch lookups.

    Raise InvalidBoardError naming the first bad board; or, ``each``, answer the others and
    give each bad board's message under ``errors`` (index -> message; its row is left out of the
    arrays). BatchTimeout after ``deadline`` (a ``time.monotonic()`` instant)."""
    errors: dict[int, str] = {}
    try:
        texts = _normalize_all(served.variant, boards)
        array = _to_array(texts, served.cells)
        values = served.batch.value_batch(array)
    except InvalidBoardError:
        if not each:
            raise _first_bad(served.variant, boards) from None
        texts, errors = _good_and_bad(served, boards)
        array = _to_array(texts, served.cells)
        values = served.batch.value_batch(array)
    best = served.batch.best_move_batch(array)
    remoteness = served.batch.remoteness_batch(array)
    if time.monotonic() > deadline:
        raise BatchTimeout(f"the batch took longer than allowed; send fewer boards of {served.name} per request")
    return {"boards": texts, "values": values, "remoteness": remoteness, "best_moves": best, "errors": errors}


def _first_bad(variant: Variant, boards: list[str]) -> InvalidBoardError:
    """The error of the first bad board, named by its place: the words of a single lookup."""
    index, error = next(
        (index, found) for index, found in enumerate(checked_boards(boards, variant)) if not isinstance(found, str)
    )
    return InvalidBoardError(f"boards[{index}]: {error}")


def _good_and_bad(served: Served, boards: list[str]) -> tuple[list[str], dict[int, str]]:
    """The normalised legal boards, in order, and each bad board's message by its index. The
    good ones are found as a batch of good boards finds them, in numpy passes over the whole
    batch; only the others are read one by one (the bad ones for their messages, in the words
    of a single lookup)."""
    variant = served.variant
    texts, ok = _spelled(variant, boards)
    legal = served.batch.batch_tables().legal(_to_array(texts, served.cells))
    ok[np.flatnonzero(ok)[~legal]] = False
    bad = np.flatnonzero(~ok).tolist()
    errors = {
        index: str(error) if isinstance(error, InvalidBoardError) else f"illegal board {error!r}: not a legal position"
        for index, error in zip(bad, checked_boards([boards[index] for index in bad], variant), strict=True)
    }
    return list(itertools.compress(texts, legal.tolist())), errors


def _spelled(variant: Variant, boards: list[str]) -> tuple[list[str], np.ndarray]:
    """The boards that have a normalised spelling, normalised, and which boards they are (a
    bool per board): those spelled so already found in one pass, the others normalised one by one."""
    cells = variant.cells
    sized = np.fromiter(map(len, boards), dtype=np.int64, count=len(boards)) == cells
    chars = np.array(list(itertools.compress(boards, sized.tolist())), dtype=f"<U{cells}")
    ok = np.zeros(len(boards), dtype=bool)
    ok[sized] = np.isin(chars.view(np.uint32).reshape(-1, cells), _NORMAL_CHARS).all(axis=1)
    spelled = list(boards)
    for index in np.flatnonzero(~ok).tolist():
        try:
            spelled[index] = rules.normalize(boards[index], variant)
        except InvalidBoardError:
            continue
        ok[index] = True
    return list(itertools.compress(spelled, ok.tolist())), ok


def _normalize_all(variant: Variant, boards: list[str]) -> list[str]:
    """The boards in normalised spelling; checked in one pass when they already are."""
    if set(map(len, boards)) <= {variant.cells} and not "".join(boards).translate(_DROP_NORMAL):
        return boards
    return [rules.normalize(text, variant) for text in boards]


def _to_array(texts: list[str], cells: int) -> Any:
    """Normalised board texts -> an (N, cells) int8 array of +1/-1/0, with no loop per board."""
    raw = np.frombuffer("".join(texts).encode("ascii"), dtype=np.uint8)
    return _TO_NUMBER[raw].reshape(len(texts), cells)
