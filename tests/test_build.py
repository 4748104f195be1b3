"""Building the database: contents, determinism, all-or-nothing writes, refusals, errors."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from ttt_solver import board as rules
from ttt_solver.build import build, main
from ttt_solver.errors import BuildError, DatabaseError
from ttt_solver.solver import solve
from ttt_solver.store import Target, writer
from ttt_solver.store.content import move_rows, position_rows
from ttt_solver.store.reader import read
from ttt_solver.symmetry import canonical_text

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("db") / "ttt.sqlite"
    build(path)
    return path


def rows(path: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute(sql).fetchall()


def test_positions_table_has_one_row_per_canonical_position(built):
    assert rows(built, "SELECT count(*), sum(orbit) FROM positions") == [(765, 5478)]
    assert rows(built, "SELECT count(*) FROM positions WHERE best_moves = ''") == [(138,)]
    assert rows(built, "SELECT * FROM positions WHERE board = '.........'") == [
        (".........", 0, "X", 0, 9, "0,1,2,3,4,5,6,7,8", 1, None)
    ]


def test_finished_rows_by_outcome(built):
    counted = rows(
        built, "SELECT coalesce(winner, 'draw'), sum(orbit) FROM positions WHERE remoteness = 0 GROUP BY 1 ORDER BY 1"
    )
    assert counted == [("O", 316), ("X", 626), ("draw", 16)]


def test_best_moves_column_lists_the_moves_keeping_the_value(built):
    listed = dict(rows(built, "SELECT board, best_moves FROM positions"))
    derived = rows(
        built,
        "SELECT p.board, group_concat(m.cell) FROM positions p JOIN moves m ON m.board = p.board"
        " AND m.value = p.value GROUP BY p.board ORDER BY p.board",
    )
    assert len(derived) == 627
    for board, cells in derived:
        assert listed[board] == ",".join(sorted(cells.split(","), key=int))


def test_game_tree_counts_by_walking_the_moves_table(built):
    children: dict[str, list[str]] = {}
    for board, cell in rows(built, "SELECT board, cell FROM moves"):
        children.setdefault(board, []).append(canonical_text(rules.play(board, cell)))

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
    assert meta["generator"] == "ttt-solver" and meta["schema_version"] == "1" and meta["variant"] == "3x3"
    assert (meta["positions"], meta["moves"], meta["legal_positions"]) == ("765", "2270", "5478")
    assert meta["solver_version"] and meta["built_at"] and len(meta["digest"]) == 64


def test_indexes_exist(built):
    names = {name for (name,) in rows(built, "SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {"ix_positions_ply_value", "ix_positions_value_remoteness", "ix_moves_value"} <= names


def test_round_trip_reads_back_what_was_written(built):
    solutions = solve()
    contents = read(Target.parse(built))
    assert sorted(contents.positions) == position_rows(solutions, _std())
    assert sorted(contents.moves) == move_rows(solutions)


def _std():
    from ttt_solver.variant import STANDARD

    return STANDARD


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
    solutions = solve()
    positions, moves = position_rows(solutions, _std()), move_rows(solutions)
    meta = writer.write(target, "3x3", positions, moves)
    assert len(read(target).positions) == 765
    writer.write(target, "3x3", positions, moves)  # ours: replaced without --force
    with sqlite3.connect(tmp_path / "server.sqlite") as conn:
        conn.execute("UPDATE meta SET value = 'other' WHERE key = 'generator'")
    with pytest.raises(BuildError, match="holds tables ttt-solver did not make"):
        writer.write(target, "3x3", positions, moves)
    writer.write(target, "3x3", positions, moves, force=True)
    assert dict(read(target).meta)["digest"] == meta["digest"]


def test_an_interrupted_build_leaves_the_old_database_and_no_temporary_file(tmp_path, monkeypatch):
    path = tmp_path / "ttt.sqlite"
    first = build(path)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(writer, "_insert", interrupted)
    with pytest.raises(KeyboardInterrupt):
        build(path)
    assert [p.name for p in tmp_path.iterdir()] == ["ttt.sqlite"]
    assert dict(read(Target.parse(path)).meta)["digest"] == first.digest


def test_an_interrupted_first_build_leaves_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(writer, "os", _FailingReplace())
    with pytest.raises(BuildError, match="cannot build database"):
        build(tmp_path / "ttt.sqlite")
    assert list(tmp_path.iterdir()) == []


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
    with pytest.raises(BuildError, match="refusing to overwrite .*: it is not a ttt-solver database"):
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
        message = "it is a directory"
    else:
        (tmp_path / "file").write_text("x")
        target = tmp_path / "file" / "ttt.sqlite"
        message = "cannot build database at"
    with pytest.raises(BuildError, match=message):
        build(target)


def test_main_prints_a_summary(tmp_path, capsys):
    assert main(["--db", str(tmp_path / "t.sqlite")]) == 0
    out = capsys.readouterr().out
    assert "5,478 positions in 765 canonical rows" in out
    assert "wins 2,836 / draws 1,068 / loses 1,574" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["--db", "{tmp}"], "Error: cannot build database at '{tmp}': it is a directory"),
        (["--db", "sqlite://"], "Error: invalid database 'sqlite://': a SQLite URL must name a file"),
        (["--variant", "3y3"], "Error: invalid variant '3y3'"),
    ],
)
def test_main_errors_are_one_line_and_exit_1(tmp_path, capsys, args, message):
    args = [a.format(tmp=tmp_path) for a in args]
    assert main(args) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(message.format(tmp=tmp_path)) and captured.err.count("\n") == 1


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


def test_reader_rejects_missing_foreign_corrupt_and_outdated_databases(tmp_path, built):
    with pytest.raises(DatabaseError, match="no database at .*build it with"):
        read(Target.parse(tmp_path / "missing.sqlite"))
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"\0garbage" * 100)
    with pytest.raises(DatabaseError, match="is corrupt .*rebuild it with: python -m ttt_solver.build"):
        read(Target.parse(garbage))
    empty = tmp_path / "empty.sqlite"
    sqlite3.connect(empty).close()
    with pytest.raises(DatabaseError, match="is not a ttt-solver database"):
        read(Target.parse(empty))
    for sql, message in [
        ("UPDATE positions SET value = 1 WHERE board = '.........'", "content digest does not match"),
        ("DELETE FROM moves WHERE cell = 0 AND board = '.........'", "2269 moves, meta says 765 and 2270"),
        (
            "UPDATE meta SET value = '0' WHERE key = 'schema_version'",
            "schema version '0', this ttt-solver reads version '1'",
        ),
        ("UPDATE meta SET value = 'someone' WHERE key = 'generator'", "is not a ttt-solver database"),
    ]:
        copy = tmp_path / "copy.sqlite"
        copy.write_bytes(built.read_bytes())
        with sqlite3.connect(copy) as conn:
            conn.execute(sql)
        with pytest.raises(DatabaseError, match=message):
            read(Target.parse(copy))
    with pytest.raises(DatabaseError, match="holds variant '3x3', not '4x4'"):
        read(Target.parse(built), "4x4")


def test_an_unknown_database_url_is_one_clear_error():
    with pytest.raises(BuildError, match="cannot build database at 'bogus://x/y': NoSuchModuleError"):
        build("bogus://x/y")
