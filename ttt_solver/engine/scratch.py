"""The scratch folder of a build: each solved tier in files, so that a build that is stopped
or killed resumes from the last finished tier when the same command runs again.

The folder sits beside the target (``.NAME.solving/``) and holds::

    manifest.json        what is being solved (variant, versions): another build's folder is never reused
    lock                 held by the running build (a second build of the same target waits)
    tier-PP/             a finished tier: one raw little-endian file per column of its canonical
                         positions (code order); results.bin, the result byte of every board of
                         the tier by rank, while the tier above it needs it; and rows.json, its
                         record: the row count, each file's length and checksum, and what it is
                         (variant, ply, build): a tier folder in another tier's place is solved again
    tier-PP.part/        a tier being solved: removed and solved again after a kill
    merged/              every tier's positions merged into code order, one file per column, and
                         rows.json, the rows merged so far and the files' lengths and checksums
    database.sqlite      the database being written (see :mod:`ttt_solver.store.writer`)

Nothing is reused that does not match its record (:mod:`.checksums`): a damaged or missing
tier is solved again, a damaged ``results.bin`` made again from its tier's rows, a damaged
merge merged again. Nothing in the folder is a database until the builder renames
``database.sqlite`` over the target, and the folder is removed once the build is done.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable
from typing import Any, BinaryIO, TypeVar

import numpy as np

from ..errors import shown
from ..game.variant import Variant
from ..solver import STORED_COLUMNS, Note, Solved, StoredRows, checksums
from ..system.files import read_record, remove_file, sync, write_json

# 2: each finished tier and merge records its files' lengths and checksums; 3: a tier its variant,
# ply and build; 4: the checksums are CRC-32, not BLAKE2b; 5: the rows have no preferred column
# (:data:`ttt_solver.solver.STORED_COLUMNS`) (a folder of an older format starts over)
FORMAT = 5
Rows = TypeVar("Rows", Solved, StoredRows)


class Scratch:
    """One build's scratch folder, opened (and locked) by :func:`open_scratch`. ``note`` hears
    one line for each tier or merge found damaged or missing (and so made again)."""

    def __init__(self, path: str, variant: Variant, identity: dict[str, Any], note: Note | None = None) -> None:
        self.path = path
        self.variant = variant
        self.identity = identity
        self.note = note
        self.resumed = False  # whether finished work of an earlier run is reused
        self._records: dict[int, dict[str, Any]] | None = None  # the finished tiers, once checked

    def say(self, line: str) -> None:
        if self.note:
            self.note(f"{self.variant}: {line}")

    # -- tiers ----------------------------------------------------------------------------
    def finished(self, ply: int) -> bool:
        """Whether tier ``ply`` is finished, its files as recorded (checked once, by
        :meth:`check_tiers`)."""
        return ply in self.check_tiers()

    def check_tiers(self) -> dict[int, dict[str, Any]]:
        """The records of the finished tiers whose column files match them. A tier that does
        not is removed, and said, to be solved again."""
        if self._records is None:
            self._records = {}
            damaged = {}
            for ply in range(self.variant.cells + 1):
                if os.path.isdir(self._tier(ply)):
                    record, damaged[ply] = self._tier_record(ply)
                    if record is not None:
                        self._records[ply] = record
            for ply in range(self.variant.cells + 1):  # a tier is solved after every tier above it
                if ply not in self._records and (damaged.get(ply) or any(p < ply for p in self._records)):
                    self.say(f"tier-{ply:02d} in {self.path} {damaged.get(ply) or 'is missing'}: solving it again")
                    shutil.rmtree(self._tier(ply), ignore_errors=True)
        return self._records

    def _tier_record(self, ply: int) -> tuple[dict[str, Any] | None, str]:
        folder = self._tier(ply)
        record = read_record(os.path.join(folder, "rows.json"))
        if record is None:
            return None, "has no readable rows.json"
        other = other_tier(record, self._tier_identity(ply))
        if other is not None:
            return None, f"holds {other}, not this tier"
        for name, dtype in STORED_COLUMNS:
            entry = record["files"].get(f"{name}.bin")
            if isinstance(entry, list) and entry and entry[0] != record["rows"] * np.dtype(dtype).itemsize:
                return None, f"has a rows.json whose {name}.bin is not {record['rows']:,} rows"
            why = checksums.problem(os.path.join(folder, f"{name}.bin"), entry)
            if why is not None:
                return None, f"has a damaged {name}.bin ({why})"
        return record, ""

    def rows(self, ply: int) -> StoredRows:
        """The canonical positions of a finished tier, memory-mapped."""
        return tier_rows(*self.tier_files(ply))

    def tier_files(self, ply: int) -> tuple[str, int]:
        """The folder of a finished tier's files and its rows (:func:`tier_rows` opens them)."""
        return self._tier(ply), self.check_tiers()[ply]["rows"]

    def unfinished(self, ply: int) -> str:
        """A new, empty ``tier-PP.part/`` folder for the unfinished tier ``ply`` (whatever a
        stopped run left there is removed)."""
        unfinished = self._tier(ply) + ".part"
        shutil.rmtree(unfinished, ignore_errors=True)
        os.makedirs(unfinished)
        return unfinished

    def finish(self, ply: int, sink: TierSink, results: checksums.Entry) -> None:
        """Make ``tier-PP.part/`` a finished tier: its columns (written through ``sink``, closed
        here) and ``results.bin`` (whose entry is ``results``) recorded, then renamed."""
        sink.close()
        unfinished = self._tier(ply) + ".part"
        record = {"rows": sink.rows, "files": {**sink.entries(), "results.bin": results}, **self._tier_identity(ply)}
        write_json(os.path.join(unfinished, "rows.json"), record)
        os.replace(unfinished, self._tier(ply))
        sync(self.path)
        self.check_tiers()[ply] = record
        if ply + 1 <= self.variant.cells:  # the tier above is no longer needed to go on
            remove_file(os.path.join(self._tier(ply + 1), "results.bin"))

    def results_file(self, ply: int) -> str | None:
        """The path of a finished tier's result bytes, checked against its record a block at a
        time (never read whole); None if it is missing or not as recorded (then said)."""
        path = os.path.join(self._tier(ply), "results.bin")
        why = checksums.problem(path, self.check_tiers()[ply]["files"].get("results.bin"))
        if why is None:
            return path
        self.say(
            f"tier-{ply:02d}/results.bin in {self.path} is damaged or missing ({why}): made again from the tier's rows"
        )
        return None

    def _tier_identity(self, ply: int) -> dict[str, Any]:
        """What a finished tier's record says it is: its variant, its ply and its build."""
        return {"variant": self.variant.name, "ply": ply, "build": self.identity}

    def _tier(self, ply: int) -> str:
        return os.path.join(self.path, f"tier-{ply:02d}")

    def file(self, name: str) -> str:
        return os.path.join(self.path, name)

    def remove(self) -> None:
        """The manifest first, synced: a removal stopped half-way leaves a folder that no build
        resumes from (the next one clears it), never a manifest over missing tiers."""
        remove_file(os.path.join(self.path, "manifest.json"))
        sync(self.path)
        shutil.rmtree(self.path, ignore_errors=True)


class TierSink:
    """Appends chunks of solved positions to a tier's column files."""

    def __init__(self, folder: str) -> None:
        self.rows = 0
        self._files = [open(os.path.join(folder, f"{name}.bin"), "wb") for name, _dtype in STORED_COLUMNS]  # noqa: SIM115
        self._sums = [checksums.Running() for _ in STORED_COLUMNS]

    def append(self, rows: int, pieces: Iterable[memoryview]) -> list[int]:
        """Append ``rows`` rows whose bytes ``pieces`` give column after column (as a chunk
        file holds them), each piece written as it comes; each column's CRC-32, taken once (the
        column file's running one follows from it: :meth:`.checksums.Running.extend`)."""
        source, rest, crcs = iter(pieces), memoryview(b""), []
        for file, running, (_name, dtype) in zip(self._files, self._sums, STORED_COLUMNS):
            crc, left = 0, rows * np.dtype(dtype).itemsize
            while left:
                if not rest:
                    rest = next(source)
                part, rest = rest[:left], rest[left:]
                file.write(part)
                crc = checksums.crc32(part, crc)
                left -= len(part)
            running.extend(crc, rows * np.dtype(dtype).itemsize)
            crcs.append(crc)
        if rest or next(source, None) is not None:
            raise ValueError(f"more bytes than {rows:,} rows")
        self.rows += rows
        return crcs

    def entries(self) -> dict[str, checksums.Entry]:
        """Each column file's entry (its length and checksum)."""
        return {f"{name}.bin": running.entry() for (name, _dtype), running in zip(STORED_COLUMNS, self._sums)}

    def close(self) -> None:
        for file in self._files:
            if not file.closed:
                file.flush()
                os.fsync(file.fileno())
                file.close()


def append_column(file: BinaryIO, running: checksums.Running, column: np.ndarray, dtype: str) -> None:
    """Append ``column``'s values as ``dtype`` to ``file`` and to its running checksum, from
    the array's own memory where it already is of that type (no copy of its bytes)."""
    data = np.ascontiguousarray(column.astype(dtype, copy=False)).data.cast("B")
    file.write(data)
    running.update(data)


def read_slice(column: np.ndarray, start: int, stop: int) -> np.ndarray:
    """``column[start:stop]`` as an array in memory; a memory-mapped column's slice is read
    from its file, so that its pages do not stay mapped (counted against the process) once used."""
    stop = min(stop, len(column))
    if isinstance(column, np.memmap) and column.filename is not None:
        if stop <= start:
            return np.zeros(0, dtype=column.dtype)
        offset = column.offset + start * column.itemsize
        return np.fromfile(column.filename, dtype=column.dtype, count=stop - start, offset=offset)
    return np.asarray(column[start:stop])


def read_into(column: np.ndarray, start: int, out: np.ndarray) -> None:
    """``column[start:start + len(out)]`` copied into ``out`` (contiguous, of the column's
    dtype), a memory-mapped column's read from its file as by :func:`read_slice`: memory the
    caller reuses, where each :func:`read_slice` takes new memory (fresh pages to fault in)."""
    if isinstance(column, np.memmap) and column.filename is not None:
        raw = out.data.cast("B")
        with open(column.filename, "rb") as file:
            file.seek(column.offset + start * column.itemsize)
            if file.readinto(raw) != len(raw):
                raise OSError(f"{column.filename} is shorter than its {len(column):,} rows")
    else:
        out[:] = column[start : start + len(out)]


def read_range(rows: Rows, start: int, stop: int) -> Rows:
    """Rows ``start`` to ``stop`` of ``rows`` in memory, each column by :func:`read_slice`."""
    return type(rows)(*(read_slice(column, start, stop) for column in rows))


def first_at_least(code: np.ndarray, value: int) -> int:
    """The first row of an ascending code column with a code of at least ``value``. A
    memory-mapped column is searched in its file, a value read at a time, never through its
    memory map: a search through the map faults in a read-ahead window at every step, and
    repeated for every chunk of a tier it kept a whole 240 MB code column of 4x5k4 resident."""
    if not (isinstance(code, np.memmap) and code.filename is not None):
        return int(np.searchsorted(code, value))
    low, high = 0, len(code)
    with open(code.filename, "rb") as file:
        while high - low > 512:
            middle = (low + high) // 2
            raw = os.pread(file.fileno(), code.itemsize, code.offset + middle * code.itemsize)
            if int(np.frombuffer(raw, dtype=code.dtype)[0]) < value:
                low = middle + 1
            else:
                high = middle
        raw = os.pread(file.fileno(), (high - low) * code.itemsize, code.offset + low * code.itemsize)
    return low + int(np.searchsorted(np.frombuffer(raw, dtype=code.dtype), value))


def tier_rows(folder: str, count: int) -> StoredRows:
    """The ``count`` rows of the finished tier in ``folder``, memory-mapped."""
    return StoredRows(*(_column(os.path.join(folder, f"{name}.bin"), dtype, count) for name, dtype in STORED_COLUMNS))


def _column(path: str, dtype: str, count: int) -> np.ndarray:
    if count == 0:
        return np.zeros(0, dtype=dtype)
    return np.memmap(path, dtype=dtype, mode="r", shape=(count,))


def scratch_path(target_file: str) -> str:
    """The scratch folder of a build of ``target_file``."""
    folder, name = os.path.split(os.path.abspath(target_file))
    return os.path.join(folder, f".{name}.solving")


def open_scratch(
    path: str, variant: Variant, identity: dict[str, Any], note: Note | None = None, fresh: bool = False
) -> Scratch:
    """The scratch folder at ``path`` for solving ``variant``: the one a stopped build left, if
    it was solving the same thing (``identity``: the variant, the solver's version, ...) and
    ``fresh`` is not asked, else a new one (``note`` hears why a folder left behind is not
    reused). The caller holds :func:`locked` around its use."""
    identity = {"format": FORMAT, "variant": variant.name, **identity}
    manifest = os.path.join(path, "manifest.json")
    why = "has no manifest.json"
    try:
        with open(manifest) as file:
            found = json.load(file)
    except FileNotFoundError:
        found = None
    except (OSError, ValueError):
        found, why = None, "has an unreadable manifest.json"
    if found is not None and found != identity:
        why = "holds the build of another variant or version"
    if fresh or found != identity:
        left = [name for name in (os.listdir(path) if os.path.isdir(path) else ()) if name != "lock"]
        if left and note:
            note(f"{variant}: {path} {'was cleared (force)' if fresh else why}: starting over")
        for name in left:
            target = os.path.join(path, name)
            shutil.rmtree(target) if os.path.isdir(target) and not os.path.islink(target) else os.remove(target)
        os.makedirs(path, exist_ok=True)
        write_json(manifest, identity)
    return Scratch(path, variant, identity, note)


def other_tier(record: dict[str, Any], identity: dict[str, Any]) -> str | None:
    """What a tier's ``record`` says it is, in words, where that is not ``identity`` (see
    :meth:`Scratch._tier_identity`); None where it is."""
    if all(record.get(key) == value for key, value in identity.items()):
        return None
    if record.get("variant") != identity["variant"]:
        return f"a tier of {shown(record.get('variant'))}"
    if record.get("ply") != identity["ply"]:
        return f"tier {shown(record.get('ply'))}"
    return "a tier of another build"
