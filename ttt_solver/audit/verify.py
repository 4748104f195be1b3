"""``ttt-lookup verify``: a database proved whole, in streaming passes within a memory budget.

1. SQLite's own integrity check of the file; the meta table (every key present and well
   formed); the schema (the generated columns of ``positions`` must be the ones this version
   makes); and whatever tables exist, whatever ``meta`` says of them.
2. ``positions`` is read in code order, a block at a time (:func:`read_rows`: a sixteenth of the
   budget): every ``data`` must unpack to numbers in range; each row goes to its tier (held
   in memory, or in a temporary folder when the budget is small).
3. The tiers are proved from the last ply to the first (:func:`.retrograde.prove_tiers`).
4. The packed arrays are read in code order, a piece of every column at a time: their digest
   against ``meta``, their rows against each tier's stored rows (read a piece at a time).
5. The ``moves`` table, where there is one, against the children's rows.

Every contradiction is reported (the first ones with example boards), never a traceback.
:func:`check_stored` is all of that but the proof of big tables: what a named query checks
before it answers.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import tempfile
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from sqlalchemy import MetaData, create_engine

from ..errors import shown
from ..game import array_rules
from ..solver.passes import COLUMNS, Solved
from ..solver.scratch import read_range
from ..solver.solve import Steps, default_memory
from ..store import META_KEYS, number_in
from ..store.cache_folder import cached, content_folder
from ..store.content import PACKED, Hashes, unpack_pieces
from ..store.row_data import BEST_SHIFT, DATA_FIELDS, data_limit
from ..store.schema import add_generated, define
from . import SMALL_ROWS
from .proof_tasks import column_file, prove_tier_files, tier_rows
from .report import Report
from .retrograde import plies, prove_tiers, report_outside

if TYPE_CHECKING:
    from ..game.variant import Variant
    from ..solver.solve import Engine
    from ..store.reader import Reader


class Audited(Protocol):
    """What an audit reads: a database's reader, the variant it holds, and how to rebuild it
    (a lookup's row source, :class:`ttt_solver.lookup.rows.DatabaseRows`, is one)."""

    variant: Variant
    location: str
    reader: Reader

    @property
    def meta(self) -> dict[str, str]: ...

    def rebuild_hint(self) -> str: ...


# Of the budget per positions row read at a time: a block peaks at about 260 bytes a row, and
# the heap it grows stays with the process (glibc's malloc returns only the top of its heap), so
# it adds to the proof's peak that follows: a sixteenth of the budget, not a quarter (4x5k4 at
# 256MB: blocks of 262,144 rows left 77 MB behind and the proof peaked at 445 MB).
READ_ROW_BYTES = 4096
READ_ROWS = 1 << 18  # most positions rows read at a time (3x6k4 reads no faster a million at a time)
MIN_READ_ROWS = 1 << 12
HELD_ROWS = 1 << 22  # most rows held at once to check a moves table against
WHOLE_CHECK_ROWS = 100_000  # most positions rows SQLite's own check covers (3x4k3's 28,275: 0.15 s)


def read_rows(memory: int) -> int:
    """Rows read at a time under a budget of ``memory`` bytes, a sixteenth of it: a block of
    ``positions`` (its text and its unpacked columns), or a piece of the packed arrays."""
    return max(MIN_READ_ROWS, min(READ_ROWS, memory // READ_ROW_BYTES))


def verify_source(
    source: Audited,
    memory: int | None = None,
    steps: Steps | None = None,
    progress: Callable[[str], None] | None = None,
    engine: Engine | None = None,
) -> Report:
    """Prove a database whole (``ttt-lookup verify``), all read from one state of it (a
    rebuild that commits meanwhile is not mixed in). ``steps(phase, done, total)`` hears of the
    work as it goes (a progress bar), ``progress`` of each stage as it starts. ``engine``:
    the proof's chunks are its tasks (:mod:`.proof_tasks`; ``memory`` is then a worker's
    budget), the report the same."""
    report = Report(source.variant.name, source.location, source.rebuild_hint(), progress=progress)
    with source.reader.snapshot():
        return _verify(source, memory or default_memory(), steps, report, prove=True, engine=engine)


def check_stored(source: Audited) -> Report:
    """What a named query checks before it answers: everything :func:`verify_source` checks
    but the proof against the rules, which is made only where an in-memory load makes it too
    (up to :data:`~ttt_solver.audit.SMALL_ROWS` rows: 3x3 in milliseconds). So a query
    answers only from tables equal to the digest-checked packed arrays that ``Oracle.load()``
    accepts. A bigger SQLite file (4x4: 2 s; 20 cells: minutes) is checked once per state of
    the file (its inode, size and change times: any write changes them), the passed check
    remembered in the cache folder (:mod:`ttt_solver.store.cache_folder`). Call it inside
    ``source.reader.snapshot()``, with the query, so that both read the same state of a server
    database."""

    report = Report(source.variant.name, source.location, source.rebuild_hint())
    count = number_in(source.meta.get("positions")) or 0
    file = source.reader.target.file
    if file is None or count <= SMALL_ROWS:
        return _verify(source, default_memory(), None, report, prove=count <= SMALL_ROWS)
    state = os.stat(file)
    name = f"checked-{state.st_dev}-{state.st_ino}-{state.st_size}-{state.st_mtime_ns}-{state.st_ctime_ns}.json"
    folder = content_folder(source.variant.name, source.meta.get("digest", ""))
    if cached(folder, name, lambda: {"ok": _verify(source, default_memory(), None, report, prove=False).ok})["ok"]:
        return report  # passed now, or before on this very file
    if not report.found:  # failed before: say what fails now
        _verify(source, default_memory(), None, report, prove=False)
    return report


def _verify(
    source: Audited, memory: int, steps: Steps | None, report: Report, *, prove: bool, engine: Engine | None = None
) -> Report:
    variant = source.variant
    meta = source.meta
    reader = source.reader
    report.stage("checking the file, its meta table and its tables")
    # SQLite's check of a big positions table would cost more than the proof: its rows are read
    # whole, in code order, below, and every lookup's proof checks the rows it finds by key.
    count = number_in(meta.get("positions")) or 0
    whole = count <= WHOLE_CHECK_ROWS
    problem = reader.integrity_problem(whole)
    report.check(
        problem is None, f"SQLite's integrity check{'' if whole else ' of all but positions'}: {problem or 'ok'}"
    )
    _check_meta(meta, report)
    tables = reader.tables()
    for name in ("positions", "packed"):
        if name not in tables:
            report.failed(f"there is no {name} table")
    if "positions" not in tables:
        return report
    # Every row goes to its tier: in memory when the rows fit a quarter of the budget and no
    # engine's tasks read them (they read files).
    held = engine is None and count * 32 <= memory // 4
    folder = None if held else tempfile.mkdtemp(prefix="ttt-verify-")
    try:
        tiers = _Tiers(variant, folder)
        report.stage(f"reading the positions table{'' if folder is None else ' into ' + folder}")
        read = _read_positions(reader, variant, report, tiers, (count, read_rows(memory)), steps)
        report.check(str(read.rows) == meta.get("positions"), f"{read.rows:,} rows in positions as meta says")
        legal = int(read.orbits)
        report.check(
            str(legal) == meta.get("legal_positions"), f"the orbits sum to {legal:,} legal positions as meta says"
        )
        if prove:
            report.stage(f"proving {read.rows:,} rows against the rules and their children's rows")
            if engine is None:
                prove_tiers(variant, tiers.rows, report, memory, steps)
            else:
                assert folder is not None
                tiers.close()
                prove_tier_files(variant, folder, tiers.counts, report, engine, memory, steps)
        report.stage("checking the generated columns, then the packed arrays and their digest")
        _check_schema(reader, variant, report)
        if "packed" in tables:
            _check_packed(source, tiers, report, read_rows(memory), steps)
        _check_moves(source, variant, tiers, report, "moves" in tables, read_rows(memory))
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
    return report


class _Tiers:
    """The stored rows of each tier, in code order: lists of arrays, or files in ``folder``."""

    def __init__(self, variant: Variant, folder: str | None) -> None:
        self.variant = variant
        self.folder = folder
        self.parts: dict[int, list[Solved]] = {}
        self.files: dict[int, list[Any]] = {}
        self.counts = [0] * (variant.cells + 1)

    def append(self, ply: int, rows: Solved) -> None:
        self.counts[ply] += len(rows)
        if self.folder is None:
            self.parts.setdefault(ply, []).append(rows)
            return
        if ply not in self.files:
            self.files[ply] = [open(column_file(self.folder, ply, name), "wb") for name, _dtype in COLUMNS]  # noqa: SIM115
        for handle, column, (_name, dtype) in zip(self.files[ply], rows, COLUMNS):
            handle.write(np.ascontiguousarray(column, dtype=dtype).tobytes())

    def rows(self, ply: int) -> Solved:
        """The rows of tier ``ply`` (read as often as needed; memory-mapped from their files
        when they are in a folder)."""
        if self.folder is None:
            parts = self.parts.get(ply, [])
            if len(parts) != 1:  # joined once: a part's check reads a tier for every piece
                self.parts[ply] = parts = [Solved.concatenate(parts)]
            return parts[0]
        for handle in self.files.pop(ply, []):
            handle.close()
        return tier_rows(self.folder, ply, self.counts[ply])

    def read(self, ply: int, start: int, stop: int) -> Solved:
        """Rows ``start`` to ``stop`` of tier ``ply``, in memory (from their files, if there: no
        page of a file stays mapped once read)."""
        return read_range(self.rows(ply), start, stop)

    def close(self) -> None:
        """Every tier's files complete on disk (for an engine's tasks to read)."""
        for ply in list(self.files):
            for handle in self.files.pop(ply):
                handle.close()

    def everything(self) -> Solved | None:
        """Every row in code order, when there are few enough to hold at once (a table of up to
        :data:`ttt_solver.builder.build.MOVES_STORED_LIMIT` moves belongs to one)."""
        if sum(self.counts) > HELD_ROWS:
            return None
        rows = Solved.concatenate([self.rows(ply) for ply in range(self.variant.cells + 1)])
        return rows.take(np.argsort(rows.code, kind="stable"))


class _Read:
    rows = 0
    orbits = 0


def _read_positions(
    reader: Any, variant: Variant, report: Report, tiers: _Tiers, sizes: tuple[int, int], steps: Steps | None
) -> _Read:
    """Every row of ``positions`` into its tier (``sizes``: the rows meta states, for progress,
    and the rows read at a time)."""
    total, block = sizes
    read = _Read()
    previous = -1
    bad: list[np.ndarray] = []
    try:
        for code, data in reader.position_blocks(block, data_limit(variant.cells)):
            read.rows += len(code)
            if steps:
                steps("reading positions", len(code), max(total, read.rows))
            if (np.diff(code) <= 0).any() or code[0] <= previous:
                report.failed("the codes are not strictly ascending")
            previous = int(code[-1])
            fine = (data >= 0) & ((data & 3) != 3)
            if not fine.all():
                bad.append(code[~fine])
            rows = _unpack(code[fine], data[fine])
            read.orbits += int(rows.orbit.sum(dtype=np.int64))
            ply = plies(rows.code, variant)
            report_outside(rows.code[ply < 0], variant, report)
            order = np.argsort(ply, kind="stable")
            counts = np.bincount(ply[ply >= 0], minlength=variant.cells + 1)
            start = int(np.count_nonzero(ply < 0))
            for p, count in enumerate(counts.tolist()):
                if count:
                    tiers.append(p, rows.take(order[start : start + count]))
                    start += count
    except ValueError as why:
        report.failed(f"the positions table {why}")
    if bad:
        codes = np.concatenate(bad)
        report.bad.update(codes[:1000].tolist())
        listed = ", ".join(f"code {c}: {shown(d)}" for c, d in sorted(reader.stored_data(codes[:3].tolist()).items()))
        report.failed(f"a data value that is no packing of a row's numbers ({listed})", count=len(codes))
    else:
        report.passed("every row's data unpacks to numbers in range")
    return read


_VERSION = re.compile(r"[0-9A-Za-z][0-9A-Za-z.+!_-]*")


def _check_meta(meta: dict[str, str], report: Report) -> None:
    """Every key the builder writes, and no other, each well formed (the counts and the digest
    are compared with the tables where those are read)."""

    found = report.found
    for key in META_KEYS:
        if key not in meta:
            report.failed(f"meta has no {key!r}")
    for key in meta:
        if key not in META_KEYS:
            report.failed(f"meta holds {shown(key)}, a key ttt-solver never writes")
    for key in ("positions", "legal_positions", "moves"):
        if key in meta and not (meta[key].isascii() and meta[key].isdigit()):
            report.failed(f"meta.{key} is {shown(meta[key])}, not a count")
    if meta.get("moves_stored", "0") not in ("0", "1"):
        report.failed(f"meta.moves_stored is {shown(meta['moves_stored'])}, not 0 or 1")
    for key in ("generator_version", "solver_version"):
        if key in meta and not _VERSION.fullmatch(meta[key]):
            report.failed(f"meta.{key} is {shown(meta[key])}, not a version")
    try:
        built = datetime.fromisoformat(meta.get("built_at", ""))
    except ValueError:
        built = None
    if "built_at" in meta and (built is None or built.tzinfo is None):
        report.failed(f"meta.built_at is {shown(meta['built_at'])}, not a time with its zone")
    if report.found == found:
        report.passed(f"meta holds its {len(META_KEYS)} keys, each well formed")


def _unpack(code: np.ndarray, data: np.ndarray) -> Solved:
    fields = {name: ((data >> shift) & ((1 << bits) - 1)) - added for name, (shift, bits, added) in DATA_FIELDS.items()}
    return Solved(
        code, fields["value"].astype(np.int8), fields["remoteness"].astype(np.int8),
        (data >> BEST_SHIFT).astype(np.uint32), np.zeros(len(code), dtype=np.uint32), fields["orbit"].astype(np.int8),
        fields["wins"].astype(np.uint8), fields["draws"].astype(np.uint8), fields["losses"].astype(np.uint8),
    )  # fmt: skip


def _check_schema(reader: Any, variant: Variant, report: Report) -> None:
    """The readable columns of ``positions`` are generated from the code and ``data``: on
    SQLite the table must be exactly the one this version makes (then every ``board``,
    ``best_moves``, ... is right by construction)."""
    found = reader.schema_sql()
    if found is None:
        report.passed("positions' generated columns are the server's to compute")
        return
    report.check(
        found == _schema_sql(variant.cells), "the positions table and its generated columns are this version's"
    )


@functools.cache
def _schema_sql(cells: int) -> str:
    """The SQL of the ``positions`` table this version makes on SQLite for ``cells`` cells
    (made once a process: 6 ms, a third of a 3x3 check)."""
    engine = create_engine("sqlite://")
    with engine.begin() as conn:
        tables = define(MetaData(), cells, generated=False)
        tables.positions.create(conn)
        add_generated(conn, cells)
        wanted: str = conn.exec_driver_sql("SELECT sql FROM sqlite_master WHERE name = 'positions'").scalar_one()
    engine.dispose()
    return wanted


def _check_packed(source: Audited, tiers: _Tiers, report: Report, rows: int, steps: Steps | None) -> None:
    """The packed arrays in one pass, ``rows`` rows of every column at a time: their rows
    against each tier's stored rows, and their digest."""
    reader, variant = source.reader, source.variant
    try:
        index = reader.packed_index()
        if sorted(index) != sorted(name for name, _ in PACKED) or any(index[n][0] != d for n, d in PACKED):
            raise ValueError(f"{sorted(index)!r}, not the {len(PACKED)} columns this version writes")
        parts = {index[name][1] for name, _dtype in PACKED}
        if len(parts) != 1:
            raise ValueError("the arrays have different numbers of parts")
        hashes = Hashes(variant.name)
        same = _packed_equal_table(_packed_pieces(reader, parts.pop(), rows, hashes), variant, tiers, steps)
        report.check(same, "the packed arrays equal the positions table")
        found = hashes.hexdigest()
    except (zlib.error, ValueError) as why:
        report.failed(f"packed arrays: {why}")
        return
    said = source.meta.get("digest", "")
    if found == said:
        report.passed(f"the content digest {found[:12]}... matches the packed arrays")
    else:
        report.failed(f"packed arrays: the content digest is {found[:12]}..., meta says {shown(said[:12])}")


def _packed_equal_table(
    pieces: Iterator[dict[str, np.ndarray]], variant: Variant, tiers: _Tiers, steps: Steps | None
) -> bool:
    """Whether the packed arrays (``pieces``, in code order) hold exactly the rows of every
    tier: each piece's rows are matched with the next rows of their tiers. Every piece is
    read, so that all of it is hashed."""
    taken = [0] * (variant.cells + 1)
    same = True
    total = sum(tiers.counts)
    for piece in pieces:
        same = same and _piece_equal(piece, variant, tiers, taken)
        if steps:
            steps("checking the packed arrays", len(piece["code"]), total)
    return same and taken == tiers.counts


def _piece_equal(piece: dict[str, np.ndarray], variant: Variant, tiers: _Tiers, taken: list[int]) -> bool:
    """Whether a piece of the packed arrays holds the next rows of their tiers (``taken``: the
    rows of each tier matched so far, moved on)."""
    ply = plies(piece["code"], variant)
    if (ply < 0).any():
        return False
    for p in np.unique(ply).tolist():
        here = np.flatnonzero(ply == p)
        first = taken[p]
        if first + len(here) > tiers.counts[p]:
            return False
        stored = tiers.read(p, first, first + len(here))
        taken[p] += len(here)
        for name, dtype in PACKED:
            if not np.array_equal(getattr(stored, name).astype(dtype), piece[name][here]):
                return False
    return True


def _packed_pieces(reader: Any, parts: int, rows: int, hashes: Hashes) -> Iterator[dict[str, np.ndarray]]:
    """The packed arrays' rows in code order, ``rows`` rows of every column at a time,
    each column's bytes hashed into ``hashes`` as they are read (ValueError or zlib.error if a
    part is damaged or the columns' lengths differ)."""
    columns = {name: _ColumnRows(_column_bytes(reader, name, (parts, rows), hashes), dtype) for name, dtype in PACKED}
    while True:
        piece = {name: column.take(rows) for name, column in columns.items()}
        sizes = {len(taken) for taken in piece.values()}
        if len(sizes) != 1:
            raise ValueError("the arrays have different numbers of rows")
        if sizes == {0}:
            return
        yield piece


def _column_bytes(reader: Any, name: str, sizes: tuple[int, int], hashes: Hashes) -> Iterator[bytes]:
    """One packed column's bytes (``sizes``: its parts, and the most rows a piece)."""
    parts, rows = sizes
    for part in range(parts):
        for raw in unpack_pieces(name, reader.packed_part(name, part), rows):
            hashes.update(name, raw)
            yield raw


class _ColumnRows:
    """One packed column's rows, from its unpacked pieces of bytes, taken a number at a time."""

    def __init__(self, pieces: Iterator[bytes], dtype: str) -> None:
        self.pieces = pieces
        self.dtype = dtype
        self.held = np.zeros(0, dtype=dtype)

    def take(self, count: int) -> np.ndarray:
        found = [self.held]
        have = len(self.held)
        while have < count:
            raw = next(self.pieces, None)
            if raw is None:
                break
            found.append(np.frombuffer(raw, dtype=self.dtype))
            have += len(found[-1])
        rows = np.concatenate(found)
        self.held = rows[count:]
        return rows[:count]


def _check_moves(source: Audited, variant: Variant, tiers: _Tiers, report: Report, table: bool, rows: int) -> None:
    """The ``moves`` table (``table``: there is one), ``rows`` at a time, against the
    children's rows, whatever ``meta`` says of it; and ``meta`` against what is there."""
    said, count = source.meta.get("moves_stored"), source.meta.get("moves")
    if table and (said == "1" or source.reader.has_moves()):
        report.stage("checking the moves table")
    stored = source.reader.move_count() if table else 0
    report.check(str(stored) == count, f"{stored:,} rows in moves as meta says")
    if said == "1" and not table:
        report.failed("meta says the moves are stored, but there is no moves table")
    elif said == "0" and stored:
        report.failed(f"meta says no moves are stored, but the moves table has {stored:,} rows")
    if not stored and said != "1":
        report.passed("no moves stored (moves are derived from the children)")
        return
    everything = tiers.everything()
    if everything is None:
        report.failed("a moves table in a database too big to hold one")
        return
    compare_moves(source.reader.move_blocks(rows) if table else [], everything, variant, report)


def compare_moves(blocks: Iterable[Sequence[tuple[Any, ...]]], rows: Solved, variant: Variant, report: Report) -> None:
    """Rows of ``moves`` (code, cell, value, remoteness, by code then cell), a block at a time,
    against what the children's rows imply."""
    live = np.flatnonzero(rows.remoteness > 0)
    parent, cells, children = array_rules.children(rows.code[live], variant)
    index, found = array_rules.search(rows.code, children)
    index[~found] = 0  # a missing child is reported by the proof of the positions
    expected = np.stack(
        [rows.code[live][parent], cells, -rows.value[index].astype(np.int64), rows.remoteness[index] + 1], axis=1
    ).astype(np.int64)
    seen = wrong = 0
    codes: list[int] = []  # the first three wrong rows'
    for block in blocks:
        got = _move_numbers(block, report)
        if got is None:
            return
        mine = expected[seen : seen + len(got)]
        seen += len(got)
        if len(mine) == len(got):
            differ = (got != mine).any(axis=1)
            wrong += int(differ.sum())
            codes += got[differ][: 3 - len(codes), 0].tolist()
    if seen != len(expected):
        report.failed(f"the moves table has {seen:,} rows, the children imply {len(expected):,}")
        return
    if wrong:
        listed = np.array(codes, dtype=np.int64)
        outside = (listed < 0) | (listed >= 3**variant.cells)  # a damaged code: no board to show
        shown_codes = listed.astype(str).tolist() if outside.any() else array_rules.decode_texts(listed, variant)
        report.failed("moves rows differ from the children's rows", shown_codes, wrong)
    else:
        report.passed("every moves row equals its child's row")


def _move_numbers(block: Sequence[tuple[Any, ...]], report: Report) -> np.ndarray | None:
    """A block of ``moves`` rows as an array of int64 (None, and said, if a number is not an
    integer or out of range)."""
    # Exactly integers: numpy would read a real 0.5 as 0, and a text "1" as 1.
    if any(number.__class__ is not int for row in block for number in row):
        report.failed("the moves table holds a value that is not an integer")
        return None
    try:
        return np.array(block, dtype=np.int64).reshape(len(block), 4)
    except (ValueError, OverflowError):
        report.failed("the moves table holds an integer out of range")
        return None
