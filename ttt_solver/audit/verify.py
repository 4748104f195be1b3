"""``ttt-lookup verify``: a database proved whole, in streaming passes within a memory budget.

1. SQLite's own integrity check of the file; the meta table (every key present and well
   formed); the schema (the generated columns of ``positions`` must be the ones this version
   makes); and whatever tables exist, whatever ``meta`` says of them.
2. ``positions`` is read in code order, a block at a time (:func:`read_rows`: a sixteenth of the
   budget): every ``data`` must unpack to numbers in range; each row goes to its tier (held
   in memory, or in a temporary folder when the budget is small: :mod:`.held_tiers`).
3. The tiers are proved from the last ply to the first, each chunk a task of an engine
   (:mod:`.proof_tasks`, this process by default).
4. The packed arrays are read in code order, a piece of every column at a time: their digest
   against ``meta``, their rows against each tier's stored rows (:mod:`.packed_check`).
5. The ``moves`` table, where there is one, against the children's rows (:mod:`.moves_check`).

Every contradiction is reported (the first ones with example boards), never a traceback.
:func:`check_stored` is all of that but the proof of big tables: what a named query checks
before it answers.
"""

from __future__ import annotations

import errno
import functools
import hashlib
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np
from sqlalchemy import MetaData, create_engine

from ..engine import Engine, InProcess
from ..errors import VerifyError, shown
from ..solver import ROW_BYTES, Steps, default_memory
from ..store import META_KEYS, SHARDS_KEY, SMALL_ROWS, number_in
from ..store.cache_folder import cached, content_folder
from ..store.row_data import data_limit, unpack_rows, well_formed
from ..store.schema import add_generated, define
from ..system.memory import size_text
from . import Audited
from .held_tiers import HeldTiers
from .moves_check import check_moves
from .packed_check import check_packed
from .proof_tasks import prove_tier_files
from .report import Report
from .retrograde import plies, report_outside

if TYPE_CHECKING:
    from ..game.variant import Variant

# Of the budget per positions row read at a time: a block peaks at about 260 bytes a row, and
# the heap it grows stays with the process (glibc's malloc returns only the top of its heap), so
# it adds to the proof's peak that follows: a sixteenth of the budget, not a quarter (4x5k4 at
# 256MB: blocks of 262,144 rows left 77 MB behind and the proof peaked at 445 MB).
READ_ROW_BYTES = 4096
READ_ROWS = 1 << 18  # most positions rows read at a time (3x6k4 reads no faster a million at a time)
MIN_READ_ROWS = 1 << 12
WHOLE_CHECK_ROWS = 100_000  # most positions rows SQLite's own check covers (3x4k3's 28,275: 0.15 s)
FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)  # a temporary file's write refused: a disk or quota full, ulimit -f


def read_rows(memory: int) -> int:
    """Rows read at a time under a budget of ``memory`` bytes, a sixteenth of it: a block of
    ``positions`` (its text and its unpacked columns), or a piece of the packed arrays."""
    return max(MIN_READ_ROWS, min(READ_ROWS, memory // READ_ROW_BYTES))


def temporary_bytes(rows: int) -> int:
    """The bytes a verify of ``rows`` rows writes into its temporary folder: every row, in its
    tier's files (the proof's tasks read them there)."""
    return rows * ROW_BYTES


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
    what runs the proof's chunks as tasks (:mod:`.proof_tasks`; by default this process;
    ``memory`` is a task's budget), the report the same whatever runs them."""
    report = Report(source.variant.name, source.location, source.rebuild_hint(), progress=progress)
    with source.reader.snapshot():
        return _verify(source, memory or default_memory(), steps, report, prove=True, engine=engine or InProcess())


def check_stored(source: Audited) -> Report:
    """What a named query checks before it answers: everything :func:`verify_source` checks
    but the proof against the rules, which is made only where an in-memory load makes it too
    (up to :data:`~ttt_solver.store.SMALL_ROWS` rows: 3x3 in milliseconds, 3x4k3 in half a
    second). So a query answers only from tables equal to the digest-checked packed arrays that
    ``Oracle.load()`` accepts. A SQLite file (4x4: 2 s; 20 cells: minutes) is checked once per
    state of the file (its inode, size and change times: any write changes them), the passed
    check remembered in the cache folder (:mod:`ttt_solver.store.cache_folder`); a server
    database at every query. A failed check is remembered too, with what it found, so that each
    query on a damaged file says so at once. Call it inside ``source.reader.snapshot()``, with
    the query, so that both read the same state of a server database."""

    report = Report(source.variant.name, source.location, source.rebuild_hint())
    prove = (number_in(source.meta.get("positions")) or 0) <= SMALL_ROWS
    file = source.reader.target.file

    def check() -> Report:
        return _verify(source, default_memory(), None, report, prove=prove, engine=InProcess())

    def checked() -> dict[str, Any]:
        check()
        return {"ok": report.ok, "found": report.found, "kinds": report.kinds, "contradictions": report.contradictions}

    if file is None:
        return check()
    states = [os.stat(path) for path in source.reader.files]  # the file, then its shards
    name = "checked-" + "-".join(
        f"{state.st_dev}-{state.st_ino}-{state.st_size}-{state.st_mtime_ns}-{state.st_ctime_ns}" for state in states
    )
    if len(name) > 200:  # a database of shards: a name the file system takes
        name = "checked-" + hashlib.sha256(name.encode()).hexdigest()
    name += ".json"
    folder = content_folder(source.variant.name, source.meta.get("digest", ""))
    remembered = cached(folder, name, checked)
    if remembered.get("ok") or report.found:
        return report  # passed now, or before on this very file; or failed now
    try:  # failed before on this very file: what it found then
        report.found, report.kinds = int(remembered["found"]), int(remembered["kinds"])
        report.contradictions = [str(line) for line in remembered["contradictions"]]
    except (KeyError, TypeError, ValueError):  # not what this version remembers: check again
        report.found = report.kinds = 0
        report.contradictions = []
        check()
    return report


def _verify(
    source: Audited, memory: int, steps: Steps | None, report: Report, *, prove: bool, engine: Engine
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
    if reader.shards:
        problems = reader.shard_problems()
        for problem in problems:
            report.failed(problem)
        if not problems:
            report.passed(f"each of the {len(reader.shards)} shards holds the rows of its code range")
    tables = reader.tables()
    for name in ("positions", "packed"):
        if name not in tables:
            report.failed(f"there is no {name} table")
    if "positions" not in tables:
        return report
    # Every row goes to its tier, in the files of a temporary folder that the proof's tasks read.
    folder = _temporary_folder(count)
    try:
        tiers = HeldTiers(variant, folder)
        report.stage("reading the positions table")  # into the folder every verify has: not news
        read = _read_positions(reader, variant, report, tiers, (count, read_rows(memory)), steps)
        report.check(str(read.rows) == meta.get("positions"), f"{read.rows:,} rows in positions as meta says")
        legal = int(read.orbits)
        report.check(
            str(legal) == meta.get("legal_positions"), f"the orbits sum to {legal:,} legal positions as meta says"
        )
        if prove:
            report.stage(f"proving {read.rows:,} rows against the rules and their children's rows")
            tiers.close()
            prove_tier_files(variant, folder, tiers.counts, report, engine, memory, steps)
        report.stage("checking the generated columns, then the packed arrays and their digest")
        _check_schema(reader, variant, report)
        if "packed" in tables:
            check_packed(source, tiers, report, read_rows(memory), steps)
        check_moves(source, variant, tiers, report, "moves" in tables, read_rows(memory))
    except OSError as error:
        if not (error.errno in FULL or str(error.filename or "").startswith(folder)):
            raise
        raise _cannot_write(folder, count, error) from None
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return report


def _temporary_folder(rows: int) -> str:
    """A new folder in ``TMPDIR`` for the tiers' files of ``rows`` rows."""
    try:
        return tempfile.mkdtemp(prefix="ttt-verify-")
    except OSError as error:
        raise _cannot_write(tempfile.gettempdir(), rows, error) from None


def _cannot_write(folder: str, rows: int, error: OSError) -> VerifyError:
    """The one line for a temporary folder that cannot be written: the database is not at fault."""
    return VerifyError(
        f"cannot verify: the temporary folder {folder!r} cannot be written ({error.strerror or error}): free some"
        f" space there, or set TMPDIR to a folder with room for {size_text(rows * ROW_BYTES)} ({rows:,} rows of"
        f" {ROW_BYTES} bytes)"
    )


class _Read:
    rows = 0
    orbits = 0


def _read_positions(
    reader: Any, variant: Variant, report: Report, tiers: HeldTiers, sizes: tuple[int, int], steps: Steps | None
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
            fine = well_formed(data)
            if not fine.all():
                bad.append(code[~fine])
            rows = unpack_rows(code[fine], data[fine])
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
        if key not in META_KEYS and key != SHARDS_KEY:
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
