"""The web app's only door into the data layer: opening the databases and answering lookups.

Every call the HTTP API makes into ttt-solver's oracle, store and statistics goes through this
module, so a change of the data layer is adapted here and nowhere else in ``ttt_solver.web``.

Values are +1 win, 0 draw, -1 loss for the side to move (see :mod:`ttt_solver.board`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .. import board as rules
from ..analysis import analyze
from ..errors import DatabaseError, InvalidBoardError, InvalidVariantError
from ..oracle import Oracle
from ..variant import STANDARD, Variant

_TO_NUMBER = np.zeros(256, dtype=np.int8)
_TO_NUMBER[ord("X")] = 1
_TO_NUMBER[ord("O")] = -1
_DROP_NORMAL = str.maketrans("", "", "XO.")


class BatchTimeout(Exception):
    """A batch took longer than the time allowed for one request."""


@dataclass
class Served:
    """One variant the server answers for: its oracle (opened once), meta and statistics."""

    variant: Variant
    database: str
    oracle: Oracle
    meta: dict[str, str]
    stats: dict[str, Any]
    etag: str = field(init=False)

    def __post_init__(self) -> None:
        # The answer for a board never changes for a given database: its content digest names it.
        self.etag = f'"{self.meta.get("digest", "")[:32]}"'

    @property
    def name(self) -> str:
        return self.variant.name

    @property
    def cells(self) -> int:
        return self.variant.cells

    def describe(self) -> dict[str, Any]:
        """The entry of ``GET /api/v1/variants``."""
        v = self.variant
        return {
            "name": v.name,
            "rows": v.rows,
            "cols": v.cols,
            "k": v.k,
            "misere": v.misere,
            "cells": v.cells,
            "meta": dict(self.meta),
            "stats": self.stats,
        }


def open_variant(database: str | Path, variant: Variant | None = None) -> Served:
    """Open one database (its variant read from its meta table unless given), and count it.

    Single lookups go through the oracle's proven per-lookup path (each answer checked against
    the rows one ply below, as on the command line); the batch tables are built now, which
    checks the packed arrays' digest and proves the whole table once."""
    from ..stats import compute
    from ..store.reader import held_variant

    if variant is None:
        variant = Variant.parse(held_variant(database))
    oracle = Oracle.load(str(database), variant, eager=False)
    oracle.batch_tables()
    stats = compute(oracle.arrays()).to_dict()
    return Served(variant, str(database), oracle, oracle.meta, stats)


def default_databases() -> list[tuple[Path, Variant]]:
    """Every database in the default data directory, 3x3 first (built now if it is missing)."""
    from ..paths import data_directory, default_database

    standard = default_database(STANDARD)
    if not standard.exists():
        from ..build import build

        build(standard, STANDARD)
    found = [(standard, STANDARD)]
    for path in sorted(data_directory().glob("*.sqlite")):
        try:
            variant = Variant.parse(path.stem)
        except InvalidVariantError:
            continue
        if variant != STANDARD and default_database(variant) == path:
            found.append((path, variant))
    return found


def open_all(databases: list[str] | None = None, variants: list[Variant] | None = None) -> dict[str, Served]:
    """The served variants by name: the given databases and the default databases of the given
    variants (3x3 built if missing), or, when neither is given, every default database."""
    from ..paths import default_database

    served: dict[str, Served] = {}
    pairs: list[tuple[str | Path, Variant | None]] = [(db, None) for db in databases or ()]
    for wanted in variants or ():
        path = default_database(wanted)
        if wanted == STANDARD and not path.exists():
            from ..build import build

            build(path, STANDARD)
        pairs.append((path, wanted))
    if not pairs:
        pairs = list(default_databases())
    for database, variant in pairs:
        one = open_variant(database, variant)
        if one.name in served:
            raise DatabaseError(
                f"two databases for variant {one.name!r}: {served[one.name].database!r} and {database!r}"
            )
        served[one.name] = one
    return served


def position(served: Served, board: str | None, moves: str | None) -> dict[str, Any]:
    """The ``analyze --json`` answer for a board given as text or as the cells played."""
    if board is not None and moves is not None:
        raise InvalidBoardError("give either board or moves, not both")
    if board is None and moves is None:
        raise InvalidBoardError("no board given: pass board (e.g. X...O....) or moves (e.g. 4,0,8)")
    if moves is not None:
        text = rules.parse_moves(moves, served.variant)
    else:
        assert board is not None
        text = rules.parse(board, served.variant)
    return analyze(served.oracle, text)


def batch(served: Served, boards: list[str], deadline: float) -> dict[str, Any]:
    """Value, remoteness and one best move (-1 on a finished board) per board text, in order,
    as numpy arrays beside the normalised texts: the whole array at once through the oracle's
    batch lookups.

    Raise InvalidBoardError naming the first bad board, BatchTimeout after ``deadline``
    (a ``time.monotonic()`` instant)."""
    texts = _normalize_all(served.variant, boards)
    array = _to_array(texts, served.cells)
    try:
        values = served.oracle.value_batch(array)
    except InvalidBoardError:
        # The oracle names the row; name the board and say why in the same words as a single lookup.
        for i, text in enumerate(texts):
            reason = rules.legality_error(text, served.variant)
            if reason is not None:
                raise InvalidBoardError(f"boards[{i}]: illegal board {text!r}: {reason}") from None
        raise
    best = served.oracle.best_move_batch(array)
    remoteness = served.oracle.remoteness_batch(array)
    if time.monotonic() > deadline:
        raise BatchTimeout(f"the batch took longer than allowed; send fewer boards of {served.name} per request")
    return {"boards": texts, "values": values, "remoteness": remoteness, "best_moves": best}


def _normalize_all(variant: Variant, boards: list[str]) -> list[str]:
    """The boards in normalised spelling; checked in one pass when they already are."""
    if set(map(len, boards)) <= {variant.cells} and not "".join(boards).translate(_DROP_NORMAL):
        return boards
    texts = []
    for index, text in enumerate(boards):
        try:
            texts.append(rules.normalize(text, variant))
        except InvalidBoardError as error:
            raise InvalidBoardError(f"boards[{index}]: {error}") from None
    return texts


def _to_array(texts: list[str], cells: int) -> Any:
    """Normalised board texts -> an (N, cells) int8 array of +1/-1/0, with no loop per board."""
    raw = np.frombuffer("".join(texts).encode("ascii"), dtype=np.uint8)
    return _TO_NUMBER[raw].reshape(len(texts), cells)
