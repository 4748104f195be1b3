"""Replacing a database: the files SQLite keeps beside it, a concurrent build, the order of
writes that makes a crash leave the old file or the new one, and what a refusal says."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from ttt_solver.audit.verify import verify_source
from ttt_solver.builder.build import build
from ttt_solver.errors import BuildError
from ttt_solver.game.variant import STANDARD
from ttt_solver.lookup.rows import DatabaseRows
from ttt_solver.store import Target
from ttt_solver.store.reader import Reader

# A writer that stops without closing (killed, or a crash), in the middle of its work:
CRASHED = {
    # WAL mode, a committed change still in the log: "-wal" holds pages, "-shm" its index.
    "wal": "conn.execute('PRAGMA journal_mode=WAL')\nconn.execute('UPDATE positions SET data = data + 4')\n"
    "conn.commit()",
    # rollback mode, a transaction half-way: changed pages in the file, the old ones in "-journal".
    "journal": "conn.isolation_level = None\nconn.execute('PRAGMA cache_size = 1')\nconn.execute('BEGIN')\n"
    "conn.execute('UPDATE positions SET data = data + 4')\nconn.execute('UPDATE moves SET value = -value')",
}


def crash_a_writer(path: Path, how: str) -> None:
    before = path.read_bytes()
    code = f"import os, sqlite3, sys\nconn = sqlite3.connect(sys.argv[1])\n{CRASHED[how]}\nos._exit(0)"
    subprocess.run([sys.executable, "-c", code, str(path)], check=True)
    if how == "journal":
        assert path.read_bytes() != before  # the cache spilled: the journal is hot


@pytest.mark.parametrize("how", ["wal", "journal"])
def test_a_rebuild_removes_what_a_crashed_writer_left_beside_the_old_file(db_path, tmp_path, how):
    """SQLite finds a log or journal by the file's name: left beside the new file, the old
    file's changes would be read into it (a journal rolled back into it), a database that no
    rebuild could mend."""
    path = tmp_path / "ttt.sqlite"
    path.write_bytes(db_path.read_bytes())
    crash_a_writer(path, how)
    left = {"wal": ["ttt.sqlite-shm", "ttt.sqlite-wal"], "journal": ["ttt.sqlite-journal"]}[how]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ttt.sqlite", *left]
    build(path, force=True)
    assert [p.name for p in tmp_path.iterdir()] == ["ttt.sqlite"]
    with Reader(Target.parse(path), "3x3") as reader:
        assert verify_source(DatabaseRows(reader, STANDARD)).ok
    with sqlite3.connect(path) as conn:  # a writer's open would roll a journal back into the file
        assert conn.execute("SELECT value FROM meta WHERE key = 'generator'").fetchone() == ("ttt-solver",)
    conn.close()
    with Reader(Target.parse(path), "3x3") as reader:
        assert verify_source(DatabaseRows(reader, STANDARD)).ok


def test_a_file_no_read_can_open_is_refused_saying_why(db_path, tmp_path):
    path = tmp_path / "ttt.sqlite"
    path.write_bytes(db_path.read_bytes())
    crash_a_writer(path, "journal")  # a read-only open cannot roll the journal back
    with pytest.raises(BuildError) as caught:
        build(path)
    assert str(caught.value) == (
        f"refusing to overwrite {str(path)!r}: SQLite cannot read it (attempt to write a readonly database),"
        " so it is not known to be a ttt-solver database (use --force to replace it)"
    )


def test_the_content_is_on_disk_before_it_takes_the_name(tmp_path, monkeypatch):
    """fsync, then rename: after a crash (power, kernel) the name holds the old file or the
    whole new one; a file whose rename reached the disk before its pages did would be empty."""
    done: list[str] = []
    fsync, replace = os.fsync, os.replace

    def synced(handle: int) -> None:
        done.append(f"fsync {os.readlink(f'/proc/self/fd/{handle}')}")
        fsync(handle)

    def renamed(source: str, target: object) -> None:
        done.append(f"replace {source}")
        replace(source, target)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "fsync", synced)
    monkeypatch.setattr(os, "replace", renamed)
    build(tmp_path / "t.sqlite")
    built = str(tmp_path / ".t.sqlite.solving" / "database.sqlite")
    last = done.index(f"replace {built}")  # then only the scratch folder's removal
    assert done[last - 1] == f"fsync {built}" and all(str(tmp_path / ".t.sqlite.solving") in d for d in done[last:])
