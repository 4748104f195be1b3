"""The whole-table proof: a vectorised retrograde check of a solved database.

:func:`prove_arrays` checks the solution itself: codes strictly ascending, canonical and legal;
the empty board present and every move of every unfinished row leading to a row (so the table
holds exactly the reachable canonical positions); every finished row's value from the rules;
every other row's value, remoteness, best moves and move counts equal to what its children's
rows imply (:func:`ttt_solver.values.back_up`); orbits as the symmetries make them.
:func:`verify_source` adds what a database stores besides: the meta counts and digest, the
``positions`` table equal to the packed arrays column by column, the readable columns
(``board``, ``ply``, ``to_move``, ``best_moves``, ``winner``) equal to what the code implies, and
the ``moves`` table (where stored) equal to the children's rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from . import codec
from .errors import DatabaseError
from .values import back_up

if TYPE_CHECKING:
    from .lookup.arrays import Arrays
    from .lookup.rows import DatabaseRows

SHOWN = 10  # contradictions a report lists in full


@dataclass
class Report:
    """What a proof checked and the contradictions it found."""

    variant: str
    location: str
    hint: str
    checks: list[str] = field(default_factory=list)
    contradictions: list[str] = field(default_factory=list)
    found: int = 0  # contradictions in all (only the first SHOWN are listed)
    bad: set[int] = field(default_factory=set)  # codes of the rows found wrong
    kinds: int = 0  # failed checks (only the first SHOWN are listed)
    progress: Callable[[str], None] | None = field(default=None, repr=False)  # told each stage, as it starts

    @property
    def ok(self) -> bool:
        return self.found == 0

    def stage(self, what: str) -> None:
        if self.progress is not None:
            self.progress(f"{self.variant}: {what}")

    def passed(self, check: str) -> None:
        self.checks.append(check)

    def failed(self, what: str, boards: list[str] | None = None, count: int = 1) -> None:
        self.found += count
        self.kinds += 1
        if len(self.contradictions) < SHOWN:
            shown = f" (e.g. {', '.join(repr(b) for b in boards[:3])})" if boards else ""
            self.contradictions.append(f"{what}{shown}" if count == 1 else f"{count:,} rows: {what}{shown}")

    @property
    def summary(self) -> str:
        """``1 contradiction`` / ``12 contradictions``."""
        return f"{self.found:,} contradiction{'' if self.found == 1 else 's'}"

    def check(self, passed: bool | np.bool_, what: str) -> bool:
        if passed:
            self.passed(what)
        else:
            self.failed(what)
        return bool(passed)

    def rows(self, bad: np.ndarray, codes: np.ndarray, variant: Any, what: str, passed: str) -> None:
        """Record ``what`` for every row where ``bad`` holds, else ``passed``."""
        count = int(np.count_nonzero(bad))
        if count:
            self.bad.update(codes[bad].tolist())
            self.failed(what, codec.decode_texts(codes[bad][:3], variant), count)
        else:
            self.passed(passed)

    def raise_for_contradictions(self) -> None:
        if not self.ok:
            raise DatabaseError(
                f"database {self.location!r} fails verification: {self.contradictions[0]}"
                f"{f' (and {self.found - 1:,} more)' if self.found > 1 else ''}; {self.hint}"
            )

    def to_dict(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "database": self.location,
            "ok": self.ok,
            "checks": self.checks,
            "contradictions": self.found,
            "first_contradictions": self.contradictions,
        }

    def text(self) -> str:
        lines = [f"checks of {self.location} ({self.variant}):"]
        lines += [f"  ok    {check}" for check in self.checks]
        lines += [f"  FAIL  {what}" for what in self.contradictions]
        more = self.kinds - len(self.contradictions)
        if more:
            lines.append(f"  ... and {more:,} more failed check{'' if more == 1 else 's'}")
        lines.append("the table is proved" if self.ok else f"{self.summary}; {self.hint}")
        return "\n".join(lines)


@dataclass(frozen=True)
class Proof:
    """A whole-table proof and what it computed on the way."""

    report: Report
    preferred: np.ndarray  # uint16 per row: moves that keep the value and the remoteness


def prove_arrays(arrays: Arrays, report: Report) -> Proof:
    """Check the solution in ``arrays`` against the rules (see the module docstring)."""
    variant, codes = arrays.variant, arrays.code
    n = len(codes)
    report.stage(f"proving {n:,} rows against the rules and their children's rows")
    preferred = np.zeros(n, dtype=np.uint16)
    if not report.check(n > 0 and bool(np.all(codes[1:] > codes[:-1])), f"{n:,} codes strictly ascending"):
        return Proof(report, preferred)
    report.rows(codec.canonical_codes(codes, variant) != codes, codes, variant, "not canonical", "every code canonical")
    report.rows(~codec.legal(codes, variant), codes, variant, "not a legal position", "every code a legal position")
    empty = codec.offset(variant.cells)
    report.check(bool(codec.search(codes, np.array([empty]))[1][0]), "the empty board present")
    report.rows(
        arrays.orbit != codec.orbits(codes, variant),
        codes,
        variant,
        "wrong orbit",
        "every orbit as the symmetries make it",
    )
    terminal = codec.terminal_values(codes, variant)
    done = terminal != codec.PLAYING
    wrong_end = done & (
        (arrays.value != terminal) | (arrays.remoteness != 0) | (arrays.best != 0)
        | (arrays.wins != 0) | (arrays.draws != 0) | (arrays.losses != 0)
    )  # fmt: skip
    report.rows(
        wrong_end,
        codes,
        variant,
        "finished, but not valued by the rules",
        f"{int(done.sum()):,} finished rows valued by the rules",
    )
    live = np.flatnonzero(~done)
    rows, cells, children = codec.children(codes[live], variant)
    index = codec.dense_index(codes, variant)[children]
    missing = index < 0
    if missing.any():
        report.failed(
            "a move leads to a position with no row",
            codec.decode_texts(children[missing][:3], variant),
            int(missing.sum()),
        )
        return Proof(report, preferred)
    report.passed(f"every move of {len(live):,} unfinished rows leads to a row ({len(children):,} moves)")
    starts = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=len(live)))[:-1]]).astype(np.int64)
    backed = back_up(arrays.value[index], arrays.remoteness[index], starts, cells)
    stored = (arrays.value, arrays.remoteness, arrays.best, arrays.wins, arrays.draws, arrays.losses)
    implied = (backed.value, backed.remoteness, backed.best, backed.wins, backed.draws, backed.losses)
    names = ("value", "remoteness", "best moves", "winning moves", "drawing moves", "losing moves")
    for name, column, wanted in zip(names, stored, implied):
        bad = np.zeros(n, dtype=bool)
        bad[live] = column[live] != wanted
        report.rows(
            bad, codes, variant, f"{name} not what the children imply", f"{name} of every row from its children"
        )
    preferred[live] = backed.preferred
    return Proof(report, preferred)


def verify_source(source: DatabaseRows, progress: Callable[[str], None] | None = None) -> Report:
    """Prove a database whole (``ttt-lookup verify``): the ``positions`` table as the lookups
    read it, then the packed arrays and the digest that in-memory loads trust, all read from
    one state of the database (a rebuild that commits meanwhile is not mixed in). ``progress``
    is told each stage as it starts (seconds each on 4x4)."""
    with source.reader.snapshot():
        return _verify_tables(
            source, Report(source.variant.name, source.location, source.rebuild_hint(), progress=progress)
        )


def _verify_tables(source: DatabaseRows, report: Report) -> Report:
    from .lookup.arrays import Arrays, unpack
    from .store.content import best_labels

    variant = source.variant
    meta = source.meta
    report.stage("reading the positions table")
    try:
        columns = source.reader.position_columns()
    except ValueError as why:
        report.failed(f"the positions table {why}")
        return report
    count = len(columns["code"])
    report.check(str(count) == meta.get("positions"), f"{count:,} rows in positions as meta says")
    try:
        best = _masks(columns["best_moves"], count, variant.cells)
    except ValueError:
        report.failed("the positions table holds a best_moves that is no list of cells")
        return report
    arrays = Arrays(
        variant, columns["code"], columns["value"].astype(np.int8), columns["remoteness"].astype(np.int8),
        best, columns["orbit"].astype(np.int8), columns["wins"].astype(np.uint8),
        columns["draws"].astype(np.uint8), columns["losses"].astype(np.uint8),
    )  # fmt: skip
    prove_arrays(arrays, report)
    legal = int(arrays.orbit.sum(dtype=np.int64))
    report.check(str(legal) == meta.get("legal_positions"), f"orbits sum to {legal:,} legal positions as meta says")
    report.stage("checking the readable columns, then the packed arrays and their digest")
    _compare_readable(columns, arrays, report, best_labels)
    try:
        packed = unpack(source.reader.packed(), variant, meta)
    except ValueError as why:
        report.failed(f"packed arrays: {why}")
    else:
        report.passed(f"content digest {meta.get('digest', '')[:12]}... matches the packed arrays")
        same = len(packed) == len(arrays) and all(
            np.array_equal(getattr(packed, name), getattr(arrays, name))
            for name in ("code", "value", "remoteness", "best", "orbit", "wins", "draws", "losses")
        )
        report.check(same, "the packed arrays equal the positions table")
    _compare_moves(source, arrays, report)
    return report


def _masks(joined: str, count: int, cells: int) -> np.ndarray:
    """The best_moves column (its ``count`` texts joined by ``;``, each ``""`` or cells such as
    ``"0,4,8"``) -> uint16 bit masks of those cells, parsed whole in numpy; ValueError for a
    text that is no list of distinct cells on the board. (A cell written unusually, ``"04"``,
    parses: the comparison of the whole column with its canonical text reports it.)"""
    if count == 0:
        if joined:
            raise ValueError("text without a row")
        return np.zeros(0, dtype=np.uint16)
    try:
        chars = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
    except UnicodeEncodeError:
        raise ValueError("not ASCII") from None
    semicolon, comma = chars == ord(";"), chars == ord(",")
    digit = (chars >= ord("0")) & (chars <= ord("9"))
    if not (semicolon | comma | digit).all() or np.count_nonzero(semicolon) != count - 1:
        raise ValueError("not digits, commas and one semicolon between rows")
    before = np.concatenate([[False], digit[:-1]])  # a digit right before this character
    after = np.concatenate([digit[1:], [False]])  # a digit right after it
    if (comma & ~(before & after)).any() or (digit & before & np.concatenate([[False], before[:-1]])).any():
        raise ValueError("an empty cell number, or one of three digits or more")
    first = np.flatnonzero(digit & ~before)  # where each cell number starts: one or two digits
    value = chars[first].astype(np.int64) - ord("0")
    two = after[first]
    value[two] = value[two] * 10 + chars[first[two] + 1] - ord("0")
    if len(value) and value.max() >= cells:
        raise ValueError("a cell off the board")
    row = np.cumsum(semicolon)[first]
    # Summed, a cell named twice carries into another bit: fewer bits than cell numbers.
    masks = np.bincount(row, weights=np.left_shift(1, value), minlength=count).astype(np.int64)
    named = np.bincount(row, minlength=count)
    bits = np.unpackbits(masks.astype("<u2").view(np.uint8).reshape(-1, 2), axis=1).sum(axis=1)
    if (bits != named).any():
        raise ValueError("a cell named twice")
    return masks.astype(np.uint16)


def _compare_readable(columns: dict[str, Any], arrays: Arrays, report: Report, labels: Any) -> None:
    """The readable columns of ``positions`` against what the codes and the numbers imply:
    each text column compared whole, and row by row only where it differs."""
    from . import board as rules

    variant = arrays.variant
    digits = codec.digits(arrays.code, variant)
    ply = (digits != codec.EMPTY_DIGIT).sum(axis=1)
    report.rows(
        columns["ply"] != ply,
        arrays.code,
        variant,
        "positions.ply differs from the code",
        "positions.ply as the code implies",
    )
    parity = ply % 2
    finished_won = (arrays.remoteness == 0) & (arrays.value != 0)
    winner_index = np.where(finished_won, np.where(arrays.value > 0, parity, 1 - parity) + 1, 0)
    boards = np.frombuffer(b"O.X", dtype=np.uint8)[digits]
    expected = {
        "board": _joined(np.concatenate([boards, np.full((len(boards), 1), ord(";"), np.uint8)], axis=1)),
        "to_move": _joined(
            np.stack([np.frombuffer(b"XO", np.uint8)[parity], np.full(len(parity), ord(";"), np.uint8)], axis=1)
        ),
        "best_moves": ";".join(labels(arrays.best)),
        "winner": ";".join(np.array(["", rules.X, rules.O], dtype=object)[winner_index].tolist()),
    }
    for name, wanted in expected.items():
        if columns[name] == wanted:
            report.passed(f"positions.{name} as the code implies")
            continue
        stored, rows = columns[name].split(";"), wanted.split(";")
        bad = np.array([a != b for a, b in zip(stored, rows)] + [True] * abs(len(stored) - len(rows)), dtype=bool)
        bad = bad[: len(arrays.code)] if len(bad) >= len(arrays.code) else np.ones(len(arrays.code), dtype=bool)
        report.rows(
            bad,
            arrays.code,
            variant,
            f"positions.{name} differs from the code",
            f"positions.{name} as the code implies",
        )


def _joined(rows: np.ndarray) -> str:
    """(N, width) ASCII bytes, each row ending in ';' -> one string without the last ';'."""
    return rows.tobytes().decode("ascii")[:-1]


def _compare_moves(source: DatabaseRows, arrays: Arrays, report: Report) -> None:
    """The ``moves`` table (where stored) against the children's rows."""
    if source.meta.get("moves_stored") != "1":
        report.passed("no moves table (moves are derived from the children)")
        return
    report.stage("checking the moves table")
    stored = source.reader.moves()
    report.check(str(len(stored)) == source.meta.get("moves"), f"{len(stored):,} rows in moves as meta says")
    compare_moves(stored, arrays, report)


def compare_moves(stored: list[tuple[Any, ...]], arrays: Arrays, report: Report) -> None:
    """Rows of ``moves`` (code, cell, value, remoteness, by code then cell) against what the
    children's rows in ``arrays`` imply."""
    variant = arrays.variant
    live = np.flatnonzero(arrays.remoteness > 0)
    rows, cells, children = codec.children(arrays.code[live], variant)
    index, found = codec.search(arrays.code, children)
    index[~found] = 0  # a missing child is reported by the proof of the positions
    expected = np.stack(
        [arrays.code[live][rows], cells, -arrays.value[index].astype(np.int64), arrays.remoteness[index] + 1], axis=1
    ).astype(np.int64)
    if len(stored) != len(expected):
        report.failed(f"the moves table has {len(stored):,} rows, the children imply {len(expected):,}")
        return
    try:
        got = np.array(stored, dtype=np.int64).reshape(len(stored), 4)
    except (TypeError, ValueError, OverflowError):
        report.failed("the moves table holds a value that is not a number")
        return
    bad = (got != expected).any(axis=1)
    if bad.any():
        report.failed(
            "moves rows differ from the children's rows", codec.decode_texts(got[bad][:3, 0], variant), int(bad.sum())
        )
    else:
        report.passed("every moves row equals its child's row")
