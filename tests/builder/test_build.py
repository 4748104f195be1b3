"""Building the database: contents, determinism, all-or-nothing writes, refusals, errors."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
import zlib
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from support import extra_markers as extras
from support.terminal import drawn_bars

from ttt_solver.audit.verify import verify_source
from ttt_solver.builder import build as build_module
from ttt_solver.builder.build import build
from ttt_solver.cli import cli, database
from ttt_solver.errors import BuildError, DatabaseError
from ttt_solver.game import array_rules, codec, rules
from ttt_solver.game.variant import STANDARD, Variant
from ttt_solver.lookup.rows import DatabaseRows
from ttt_solver.solver.reference import solve
from ttt_solver.solver.solve import solve_tables
from ttt_solver.store import Target, deflate, writer
from ttt_solver.store.content import (
    PACKED,
    array_hash,
    digest,
    digest_of,
    move_rows,
    packed_arrays,
    packed_parts,
    position_blocks,
    unpack_blob,
)
from ttt_solver.store.reader import Reader
from ttt_solver.store.row_data import pack_data

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def built(db_path) -> Path:
    return db_path


def read(target: Target, variant: str = "3x3") -> DatabaseRows:
    """Open a database and load its checked arrays (what an eager oracle does)."""
    source = DatabaseRows(Reader(target, variant), Variant.parse(variant))
    source.arrays()
    return source


def rows(path: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute(sql).fetchall()


def test_positions_table_has_one_row_per_canonical_position(built):
    assert rows(built, "SELECT count(*), sum(orbit) FROM positions") == [(765, 5478)]
    assert rows(built, "SELECT count(*) FROM positions WHERE best_moves = ''") == [(138,)]
    empty = rows(built, "SELECT * FROM positions WHERE board = '.........'")
    data = 1 | 9 << 2 | 9 << 12 | 1 << 22 | 0b111111111 << 26  # a draw in 9 plies, 9 drawing moves, orbit 1
    assert empty == [(codec.offset(9), data, ".........", 0, "X", 0, 9, "0,1,2,3,4,5,6,7,8", 0, 9, 0, 1, None)]


def test_only_the_code_and_data_are_stored_and_the_rest_is_generated(built):
    columns = rows(built, "PRAGMA table_xinfo(positions)")
    stored = [name for _cid, name, _type, _notnull, _default, _pk, hidden in columns if hidden == 0]
    generated = [name for _cid, name, _type, _notnull, _default, _pk, hidden in columns if hidden == 2]
    assert stored == ["code", "data"]
    assert generated == [
        "board",
        "ply",
        "to_move",
        "value",
        "remoteness",
        "best_moves",
        "wins",
        "draws",
        "losses",
        "orbit",
        "winner",
    ]


def test_rows_are_keyed_by_their_canonical_code_in_key_order(built):
    found = rows(built, "SELECT code, board FROM positions")
    assert [code for code, _ in found] == sorted(code for code, _ in found)
    assert all(code == codec.encode(board) == codec.canonical_code(board, STANDARD) for code, board in found)
    table = rows(built, "SELECT sql FROM sqlite_master WHERE name = 'positions'")[0][0]
    assert "code INTEGER NOT NULL" in table and "PRIMARY KEY (code)" in table  # the rowid itself


def test_move_counts_agree_with_the_moves_table(built):
    counted = rows(
        built,
        "SELECT p.wins, p.draws, p.losses, sum(m.value = 1), sum(m.value = 0), sum(m.value = -1)"
        " FROM positions p JOIN moves m ON m.code = p.code GROUP BY p.code",
    )
    assert len(counted) == 627 and all(row[:3] == row[3:] for row in counted)


def test_finished_rows_by_outcome(built):
    counted = rows(
        built, "SELECT coalesce(winner, 'draw'), sum(orbit) FROM positions WHERE remoteness = 0 GROUP BY 1 ORDER BY 1"
    )
    assert counted == [("O", 316), ("X", 626), ("draw", 16)]


def test_best_moves_column_lists_the_moves_keeping_the_value(built):
    listed = dict(rows(built, "SELECT board, best_moves FROM positions"))
    derived = rows(
        built,
        "SELECT p.board, group_concat(m.cell) FROM positions p JOIN moves m ON m.code = p.code"
        " AND m.value = p.value GROUP BY p.code ORDER BY p.code",
    )
    assert len(derived) == 627
    for board, cells in derived:
        assert listed[board] == ",".join(sorted(cells.split(","), key=int))


def test_game_tree_counts_by_walking_the_moves_table(built):
    children: dict[str, list[str]] = {}
    for board, cell in rows(built, "SELECT p.board, m.cell FROM moves m JOIN positions p ON p.code = m.code"):
        children.setdefault(board, []).append(codec.canonical_text(rules.play(board, cell), STANDARD))

    @cache
    def games(board: str) -> int:
        return sum(games(child) for child in children[board]) if board in children else 1

    @cache
    def nodes(board: str) -> int:
        return 1 + sum(nodes(child) for child in children.get(board, ()))

    assert games(".........") == 255_168
    assert nodes(".........") == 549_946


def test_meta_describes_the_build(built):
    meta = dict(rows(built, "SELECT key, value FROM meta"))
    assert meta["generator"] == "ttt-solver" and meta["schema_version"] == "3" and meta["variant"] == "3x3"
    assert (meta["positions"], meta["moves"], meta["legal_positions"]) == ("765", "2270", "5478")
    assert meta["solver_version"] and meta["built_at"] and len(meta["digest"]) == 64


def test_round_trip_reads_back_what_was_solved(built):
    solutions = solve()
    arrays = read(Target.parse(built)).arrays()
    texts = array_rules.decode_texts(arrays.code, STANDARD)
    assert sorted(texts) == sorted(solutions)
    assert arrays.value.tolist() == [solutions[t].value for t in texts]
    assert arrays.remoteness.tolist() == [solutions[t].remoteness for t in texts]
    assert arrays.orbit.tolist() == [solutions[t].orbit for t in texts]


def test_the_packed_arrays_are_compressed_and_digested_raw(built):
    tables = solve_tables(STANDARD)
    raw = packed_arrays(tables.solved)
    meta = dict(rows(built, "SELECT key, value FROM meta"))
    assert digest("3x3", raw) == meta["digest"]
    stored = rows(built, "SELECT name, part, dtype, data FROM packed ORDER BY name")
    assert [row[:3] for row in stored] == sorted((name, 0, dtype) for name, dtype in PACKED)
    for name, _part, dtype, blob in stored:  # zlib's blobs or ISA-L's (store.deflate): the same arrays
        plain = raw[name].astype(dtype).tobytes()
        assert unpack_blob(name, blob) == plain and len(blob) < len(plain), name


def test_the_digest_is_the_hash_of_each_arrays_hash_however_its_bytes_come():
    raw = packed_arrays(solve_tables(STANDARD).solved)
    sizes = {name: len(raw[name]) * np.dtype(dtype).itemsize for name, dtype in PACKED}
    pieces = {
        name: [raw[name][:100].astype(dtype).tobytes(), raw[name][100:].astype(dtype).tobytes()]
        for name, dtype in PACKED
    }
    hashes = {name: (sizes[name], array_hash(pieces[name])) for name, _dtype in PACKED}
    assert digest_of("3x3", hashes) == digest("3x3", raw)  # as a shard build's tasks make it
    short = {**hashes, "orbit": (sizes["orbit"], array_hash(pieces["orbit"][:1]))}
    with pytest.raises(ValueError, match="the packed array 'orbit' holds 100 bytes, not 765"):
        digest_of("3x3", short)


def test_the_data_column_is_what_the_generated_columns_read(built):
    tables = solve_tables(STANDARD)
    found = rows(built, "SELECT code, data, value, remoteness, wins, draws, losses, orbit FROM positions ORDER BY code")
    assert [row[1] for row in found] == pack_data(tables.solved).tolist()
    expected = zip(tables.value, tables.remoteness, tables.wins, tables.draws, tables.losses, tables.orbit)
    assert [row[2:] for row in found] == [tuple(int(x) for x in row) for row in expected]


def test_digest_is_the_same_on_every_build(tmp_path, built):
    again = build(tmp_path / "again.sqlite")
    meta = dict(rows(built, "SELECT key, value FROM meta"))
    assert again.digest == meta["digest"]
    assert build(tmp_path / "again.sqlite").digest == again.digest  # rebuilding over our own file is allowed


def test_sqlite_url_target(tmp_path):
    report = build(f"sqlite:///{tmp_path}/url.sqlite")
    assert (tmp_path / "url.sqlite").is_file() and report.canonical_positions == 765


def test_transactional_writer_for_non_file_urls(tmp_path):
    # Other SQLAlchemy URLs are written in one transaction; exercise that path on SQLite.
    target = Target("server", None, f"sqlite:///{tmp_path}/server.sqlite")
    tables = solve_tables(STANDARD)
    raw = packed_arrays(tables.solved)
    meta = dict(rows(_built_meta_path(tmp_path), "SELECT key, value FROM meta"))

    def write(force: bool = False) -> None:
        writer.write_server(
            target, STANDARD, position_blocks(tables.solved), move_rows(tables.solved, STANDARD),
            packed_parts(raw), meta, force=force,
        )  # fmt: skip

    write()
    assert len(read(target).arrays()) == 765
    write()  # ours: replaced without --force
    with sqlite3.connect(tmp_path / "server.sqlite") as conn:
        conn.execute("UPDATE meta SET value = 'other' WHERE key = 'generator'")
    with pytest.raises(BuildError, match="holds tables ttt-solver did not make"):
        write()
    write(force=True)
    assert read(target).meta["digest"] == meta["digest"] == digest("3x3", raw)


def _built_meta_path(tmp_path: Path) -> Path:
    path = tmp_path / "meta-source.sqlite"
    build(path)
    return path


def test_an_interrupted_build_leaves_the_old_database_and_resumes(tmp_path, monkeypatch):
    path = tmp_path / "ttt.sqlite"
    first = build(path)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    with monkeypatch.context() as patched:
        patched.setattr(writer.FileWriter, "rest", interrupted)
        with pytest.raises(KeyboardInterrupt):
            build(path, memory=1 << 16)  # a tiny budget: the tiers go to the scratch folder
    # The old database as it was, and the scratch folder of the stopped build (not a database).
    assert sorted(p.name for p in tmp_path.iterdir()) == [".ttt.sqlite.solving", "ttt.sqlite"]
    assert read(Target.parse(path)).meta["digest"] == first.digest
    notes: list[str] = []
    again = build(path, progress=notes.append, memory=1 << 16)
    assert again.digest == first.digest and [p.name for p in tmp_path.iterdir()] == ["ttt.sqlite"]
    assert not any("ply" in note for note in notes)  # every tier was solved already


@pytest.mark.parametrize(("memory", "proof"), [(1 << 16, 1 << 16), (1 << 20, 1 << 19)])
def test_a_resumed_builds_proof_has_the_budget_its_merged_rows_leave(tmp_path, monkeypatch, memory, proof):
    """3x3's 765 rows (55 KB with a block's copies) go through the merge's files under 64 KB, and
    the proof has the whole budget; held in memory under 1 MB (they fit its half), the proof has
    the other half."""
    path = tmp_path / "ttt.sqlite"
    with monkeypatch.context() as patched:
        patched.setattr(writer.FileWriter, "rest", _interrupted)
        with pytest.raises(KeyboardInterrupt):
            build(path, memory=memory)
    budgets: list[int] = []

    def spied(source, budget, steps=None):
        budgets.append(budget)
        return verify_source(source, budget, steps)

    monkeypatch.setattr(build_module, "verify_source", spied)
    build(path, memory=memory)
    assert budgets == [proof]


def _interrupted(*args, **kwargs):
    raise KeyboardInterrupt


def test_a_first_build_that_fails_at_the_end_leaves_no_database(tmp_path, monkeypatch):
    monkeypatch.setattr(writer, "os", _FailingReplace())
    with pytest.raises(BuildError, match="cannot build database"):
        build(tmp_path / "ttt.sqlite")
    assert [p.name for p in tmp_path.iterdir()] == [".ttt.sqlite.solving"]


class _FailingReplace:
    def __getattr__(self, name):
        import os

        return getattr(os, name)

    @staticmethod
    def replace(src, dst):
        raise OSError(28, "No space left on device")


def test_refuses_to_overwrite_a_foreign_file_unless_forced(tmp_path):
    foreign = tmp_path / "notes.sqlite"
    foreign.write_text("my notes")
    with pytest.raises(BuildError, match=r"refusing to overwrite .*: SQLite cannot read it \(file is not a database\)"):
        build(foreign)
    assert foreign.read_text() == "my notes"
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE meta (key TEXT, value TEXT)")
    with pytest.raises(BuildError, match="refusing to overwrite"):
        build(other)
    assert build(foreign, force=True).canonical_positions == 765


@pytest.mark.parametrize("setup", ["directory", "parent_is_file"])
def test_bad_targets_give_one_clear_error(tmp_path, setup):
    if setup == "directory":
        target = tmp_path
        message = "it is a folder, not a file"
    else:
        (tmp_path / "file").write_text("x")
        target = tmp_path / "file" / "ttt.sqlite"
        message = "cannot build database at"
    with pytest.raises(BuildError, match=message):
        build(target)


def test_the_build_command_prints_a_summary(tmp_path):
    result = CliRunner().invoke(cli, ["build", "--db", str(tmp_path / "t.sqlite"), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "5,478 positions in 765 canonical rows" in result.stdout
    assert "wins 2,836 / draws 1,068 / loses 1,574" in result.stdout
    assert result.stderr == ""


@pytest.mark.parametrize(
    "args, message, code",
    [
        (["--db", "{tmp}"], "Error: cannot build database at '{tmp}': it is a folder, not a file", 1),
        (["--db", "sqlite://"], "Error: invalid database 'sqlite://': a SQLite URL must name a file", 2),
        (["--variant", "3y3"], "Error: invalid variant '3y3'", 2),
    ],
)
def test_build_errors_are_one_line(tmp_path, args, message, code):
    args = [a.format(tmp=tmp_path) for a in args]
    result = CliRunner().invoke(cli, ["build", *args])
    assert result.exit_code == code
    assert result.stdout == ""
    assert result.stderr.startswith(message.format(tmp=tmp_path)) and result.stderr.count("\n") == 1


def test_build_db_script_runs_and_refuses(tmp_path):
    target = tmp_path / "x.sqlite"
    target.write_text("not ours")
    run = subprocess.run(
        [sys.executable, str(ROOT / "build_db.py"), "--db", str(target)], capture_output=True, text=True, check=False
    )
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr.strip().startswith("Error: refusing to overwrite") and "Traceback" not in run.stderr
    run = subprocess.run(
        [sys.executable, str(ROOT / "build_db.py"), "--db", str(target), "--force"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0 and "765 canonical rows" in run.stdout


def test_reader_rejects_missing_foreign_damaged_and_outdated_databases(tmp_path, built):
    missing = tmp_path / "missing.sqlite"
    with pytest.raises(
        DatabaseError, match=f"no database at .*build it with: ttt-lookup build --variant 3x3 --db {missing}$"
    ):
        read(Target.parse(missing))
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"\0garbage" * 100)
    with pytest.raises(DatabaseError, match="is not a readable ttt-solver database") as caught:
        read(Target.parse(garbage))
    assert "--force" not in str(caught.value)
    empty = tmp_path / "empty.sqlite"
    sqlite3.connect(empty).close()
    with pytest.raises(DatabaseError, match="is not a readable ttt-solver database \\(no such table: meta\\)"):
        read(Target.parse(empty))
    rebuild = f"rebuild it with: ttt-lookup build --variant 3x3 --db {tmp_path}/copy.sqlite --force"
    for sql, message in [
        ("UPDATE packed SET data = x'00' WHERE name = 'value'", "a packed array does not decompress"),
        ("UPDATE meta SET value = '00' WHERE key = 'digest'", "the content digest does not match"),
        (
            "UPDATE meta SET value = '2' WHERE key = 'schema_version'",
            "built by an older version of ttt-solver \\(schema 2\\)",
        ),
        (
            "UPDATE meta SET value = '9' WHERE key = 'schema_version'",
            "schema version '9', this ttt-solver reads version 3",
        ),
        ("DELETE FROM packed WHERE name = 'orbit'", "the packed arrays are"),
    ]:
        copy = tmp_path / "copy.sqlite"
        copy.write_bytes(built.read_bytes())
        with sqlite3.connect(copy) as conn:
            conn.execute(sql)
        with pytest.raises(DatabaseError, match=message) as caught:
            read(Target.parse(copy))
        assert str(caught.value).endswith(rebuild), sql
    copy.write_bytes(built.read_bytes())
    with sqlite3.connect(copy) as conn:
        conn.execute("UPDATE meta SET value = 'someone' WHERE key = 'generator'")
    with pytest.raises(DatabaseError, match="is not a readable ttt-solver database") as caught:
        read(Target.parse(copy))
    assert "--force" not in str(caught.value)
    with pytest.raises(DatabaseError, match="holds variant '3x3', not '4x4'") as caught:
        Reader(Target.parse(built), "4x4")
    assert "--force" not in str(caught.value)


def test_a_file_built_under_umask_022_is_readable_by_others(tmp_path):
    import os

    old = os.umask(0o022)
    try:
        path = tmp_path / "shared.sqlite"
        build(path)
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o644


@pytest.mark.parametrize("name", ["new#1.sqlite", "what?.sqlite", "100%.sqlite", "with space.sqlite", "été.sqlite"])
def test_a_path_with_uri_characters_works_end_to_end(tmp_path, name):
    path = tmp_path / name
    build(path)
    assert len(read(Target.parse(path)).arrays()) == 765
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


def test_an_unknown_database_url_is_one_clear_error():
    with pytest.raises(
        BuildError, match="cannot build database at 'bogus://x/y': Can't load plugin: sqlalchemy.dialects:bogus"
    ):
        build("bogus://x/y")


def test_writing_reports_every_position_row_as_it_goes(tmp_path):
    reports: list[tuple[int, int]] = []
    build(tmp_path / "w.sqlite", Variant.parse("3x4k3"), writing=lambda rows, total: reports.append((rows, total)))
    assert sum(rows for rows, _ in reports) == 28_275 and {total for _, total in reports} == {28_275}


def test_the_build_command_shows_a_writing_bar_on_stderr(tmp_path, monkeypatch):
    monkeypatch.setattr(database, "bars", drawn_bars)  # as on a terminal
    result = CliRunner().invoke(cli, ["build", "--db", str(tmp_path / "t.sqlite")])
    assert result.exit_code == 0 and re.search(r"\r3x3: writing rows +\d+%\|", result.stderr)


@pytest.mark.fast
def test_a_build_packed_by_zlib_or_by_isal_holds_the_same_arrays_and_digest(tmp_path, monkeypatch):
    """The packed parts are ISA-L's where the [fast] extra is installed (``store.deflate``): other
    blobs than zlib's, the same arrays in them, and so the same digest."""
    isal_zlib = pytest.importorskip("isal.isal_zlib", reason=extras.reason("fast"))
    variant, found = Variant.parse("3x4k3"), {}
    for module in (zlib, isal_zlib):
        monkeypatch.setattr(deflate, "LIBRARY", module)
        path = tmp_path / f"{module.__name__}.sqlite"
        found[module] = build(path, variant).digest, rows(path, "SELECT name, part, data FROM packed ORDER BY 1, 2")
    (zlib_digest, zlib_blobs), (isal_digest, isal_blobs) = found[zlib], found[isal_zlib]
    assert zlib_digest == isal_digest
    assert [row[:2] for row in zlib_blobs] == [row[:2] for row in isal_blobs] and zlib_blobs != isal_blobs
    for (name, _part, ours), (_name, _part2, theirs) in zip(zlib_blobs, isal_blobs):
        assert zlib.decompress(ours) == zlib.decompress(theirs), name
