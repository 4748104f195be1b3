"""A database of shards: the rows written side by side by a distributed build's workers into
files of their own, behind one main file. It answers as the one-file database does (rows,
digest, lookups, named queries, verify), a damaged or missing shard is found, a build stopped
while writing shards goes on from them, and a rebuild leaves no stale shard behind."""

from __future__ import annotations

import re
import shutil
import signal
import sqlite3
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from support import extra_markers as extras
from support import write_spy
from support.killing import killed_when
from support.stored_rows import rows

from ttt_solver.builder.build import build
from ttt_solver.builder.merge import count_outcomes
from ttt_solver.cli import cli
from ttt_solver.errors import BuildError, DatabaseError
from ttt_solver.game.variant import Variant
from ttt_solver.lookup.oracle import Oracle
from ttt_solver.solver.solve import solve_tables
from ttt_solver.store import Target
from ttt_solver.store.reader import Reader

extras.need("dask", "dask.distributed")  # the module is skipped without the extra

from ttt_solver.engine.engine_dask import DaskEngine  # after the skip without the extra

pytestmark = pytest.mark.dask
NAME = "3x4k3"


def build_sharded(client: object, target: Path, count: int = 2, **options: object) -> object:
    with DaskEngine(client=client) as engine:  # type: ignore[arg-type]
        return build(target, Variant.parse(NAME), memory=1 << 20, engine=engine, shards=count, **options)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def sharded(dask_client: object, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """3x4k3 built on 2 workers into 3 shards (read-only: copy it with ``copied`` to change it)."""
    target = tmp_path_factory.mktemp("sharded") / f"{NAME}.sqlite"
    build_sharded(dask_client, target, 3)
    return target


def copied(sharded: Path, folder: Path) -> Path:
    shutil.copytree(sharded.parent, folder, dirs_exist_ok=True)
    return folder / sharded.name


def shard_paths(path: Path) -> list[Path]:
    with sqlite3.connect(path) as db:
        return [path.parent / file for (file,) in db.execute("SELECT file FROM shards ORDER BY shard")]


def test_the_shards_hold_the_rows_and_digest_of_the_single_process_build(sharded, variant_db):
    single = variant_db(NAME)
    assert rows(sharded) == rows(single)
    with Reader(Target.parse(str(sharded)), None) as a, Reader(Target.parse(str(single)), None) as b:
        assert a.meta["digest"] == b.meta["digest"] and a.meta["shards"] == "3"
        assert a.meta["legal_positions"] == b.meta["legal_positions"]  # counted by the shards' tasks
        assert sum(shard.rows for shard in a.shards) == 28275
        assert all(abs(shard.rows - 28275 / 3) < 600 for shard in a.shards), a.shards  # cut where about a third passed
    assert [path.parent.name for path in shard_paths(sharded)] == [f"{NAME}.sqlite.shards"] * 3
    assert sorted(p.name for p in sharded.parent.iterdir()) == [f"{NAME}.sqlite", f"{NAME}.sqlite.shards"]


def test_lookups_queries_and_verify_answer_as_from_one_file(sharded, variant_db):
    single = variant_db(NAME)
    lazy, eager = Oracle.load(sharded, NAME, eager=False), Oracle.load(single, NAME)
    for board in ["............", "X...........", "XO..X.......", "XOX.OXO....."]:
        assert lazy.probe(board) == eager.probe(board) and lazy.moves(board) == eager.moves(board)
    runner = CliRunner()
    one = runner.invoke(cli, ["query", "ply_counts", "--variant", NAME, "--db", str(single)])
    many = runner.invoke(cli, ["query", "ply_counts", "--variant", NAME, "--db", str(sharded)])
    assert many.exit_code == one.exit_code == 0 and many.stdout == one.stdout, many.output
    verified = runner.invoke(cli, ["verify", "--variant", NAME, "--db", str(sharded)])
    assert verified.exit_code == 0, verified.output
    assert "ok    each of the 3 shards holds the rows of its code range" in verified.stdout
    assert "the table is proved" in verified.stdout


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        (lambda shards: shards[1].unlink(), "is missing"),
        (lambda shards: shutil.copy(shards[0], shards[2]), "is not its shard 2"),
        (lambda shards: shards[2].write_bytes(b"not a database"), "cannot be read"),
    ],
    ids=["missing", "another shard", "not SQLite"],
)
def test_a_missing_or_wrong_shard_is_a_damaged_database_with_the_rebuild_command(sharded, tmp_path, damage, said):
    path = copied(sharded, tmp_path)
    damage(shard_paths(path))
    with pytest.raises(DatabaseError, match=said) as raised:
        Reader(Target.parse(str(path)), NAME)
    assert f"rebuild it with: ttt-lookup build --variant {NAME} --db {path} --force" in str(raised.value)
    result = CliRunner().invoke(cli, ["analyze", "--variant", NAME, "--db", str(path), "X..........."])
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1 and said in result.stderr


@pytest.mark.parametrize(
    ("sql", "said"),
    [
        (
            "DELETE FROM positions WHERE code = (SELECT max(code) FROM positions)",
            r"shard 1 holds [\d,]+ rows, not [\d,]+",
        ),
        ("UPDATE positions SET code = 1 WHERE code = (SELECT max(code) FROM positions)", "shard 1 holds codes outside"),
        ("UPDATE positions SET data = data + 1 WHERE code = (SELECT min(code) FROM positions)", "contradictions"),
    ],
    ids=["row missing", "row outside its range", "row changed"],
)
def test_verify_finds_a_damaged_shard(sharded, tmp_path, sql, said):
    path = copied(sharded, tmp_path)
    with sqlite3.connect(shard_paths(path)[1]) as db:
        db.execute(sql)
    result = CliRunner().invoke(cli, ["verify", "--variant", NAME, "--db", str(path)])
    assert result.exit_code == 1, result.output
    assert re.search(said, result.output), result.output


class Stop(Exception):
    """Stands for an interrupt while the shards are written."""


def test_a_build_stopped_while_writing_shards_goes_on_from_them_and_proves_the_file(dask_client, variant_db, tmp_path):
    target = tmp_path / f"{NAME}.sqlite"

    def stop_after_a_shard(rows: int, _total: int) -> None:
        if rows:
            raise Stop

    with pytest.raises(Stop):
        build_sharded(dask_client, target, writing=stop_after_a_shard)
    assert not target.exists()
    while any(dask_client.processing().values()):  # the other shard's task, left running, finishes
        time.sleep(0.01)
    folder = tmp_path / f".{NAME}.sqlite.solving" / f"{NAME}.sqlite.shards"
    shards = sorted(folder.glob("*.sqlite"))
    assert len(shards) == 2
    with sqlite3.connect(shards[0]) as db:  # a damaged shard is written again; the other goes on
        db.execute("UPDATE positions SET data = data + 1 WHERE code = (SELECT min(code) FROM positions)")
    lines: list[str] = []
    report = build_sharded(dask_client, target, progress=lines.append)
    said = "\n".join(lines)
    assert "could not be written on (its rows from row 0 on differ from the solved ones): wrote it again" in said
    assert "resumed" in said and "proved the resumed database whole" in said
    assert rows(target) == rows(variant_db(NAME))
    # A resumed shard's task counts all its rows by value, not only those it writes.
    assert report.outcomes == count_outcomes([solve_tables(Variant.parse(NAME)).solved])  # type: ignore[attr-defined]


def test_a_rebuild_removes_the_shards_of_the_database_it_replaces(dask_client, sharded, tmp_path):
    path = copied(sharded, tmp_path)
    old = shard_paths(path)
    stray = path.parent / f"{NAME}.sqlite.shards" / "notes.txt"  # not a shard: left alone
    stray.write_text("mine")
    build_sharded(dask_client, path, 2, force=True)
    new = shard_paths(path)
    assert len(new) == 2 and not any(p.exists() for p in old) and all(p.exists() for p in new)
    build(path, Variant.parse(NAME), force=True)  # one file again
    assert not any(p.exists() for p in new) and stray.exists()
    assert Reader(Target.parse(str(path)), NAME).shards == []


def test_shards_need_an_engine_on_the_command_line_and_rows_enough(dask_client, tmp_path):
    result = CliRunner().invoke(cli, ["build", "--variant", NAME, "--db", str(tmp_path / "x.sqlite"), "--shards", "2"])
    assert result.exit_code == 2 and result.stderr.strip() == "Error: --shards needs --engine"
    with pytest.raises(BuildError, match="too few for 10 shards"), DaskEngine(client=dask_client) as engine:
        build(tmp_path / "x.sqlite", Variant.parse("1x3"), engine=engine, shards=10)
    assert not (tmp_path / "x.sqlite").exists()


def test_this_processs_engine_writes_the_shards_in_turn(variant_db, tmp_path):
    """The library's build without an engine runs the shards' tasks here, one after the other:
    the same rows and digest as one file (before, a BuildError asked for an engine)."""
    target = tmp_path / "x.sqlite"
    build(target, Variant.parse(NAME), memory=1 << 20, shards=2)
    assert rows(target) == rows(variant_db(NAME))
    with Reader(Target.parse(str(target)), None) as a, Reader(Target.parse(str(variant_db(NAME))), None) as b:
        assert a.meta["digest"] == b.meta["digest"] and a.meta["shards"] == "2"


def test_every_file_a_sharded_build_writes_has_one_writer_that_syncs_it(dask_client, variant_db, tmp_path):
    """One writer a file, as for the tiers (test_engine_dask); each merged range (what a resumed
    shard is checked against) is written by its shard's task and synced before the digest's
    tasks hash it. SQLite writes its files itself (synced at each commit, ``synchronous =
    FULL``), unseen by the spy; a task's lock file holds no data."""
    target = tmp_path / f"{NAME}.sqlite"
    with write_spy.spying(dask_client, str(tmp_path)) as writes:
        build_sharded(dask_client, target)
    assert writes.shared() == {}
    passed = re.compile(r"/tier-\d\d\.part/run-[0-9a-f]+/")  # the tiers' tasks' files, passed on (test_engine_dask)
    written = {
        (path, task) for path, task in writes.by_tasks() if not path.endswith(".lock") and not passed.search(path)
    }
    merged = {path for path, _task in written if "/merged-" in path}
    assert len(merged) == 2 * 8  # each shard's range: a file per column the database keeps
    assert not [path for path in merged if path.endswith("/preferred.bin")]
    assert written <= writes.synced, sorted(written - writes.synced)[:3]
    assert rows(target) == rows(variant_db(NAME))


def test_the_server_answers_from_the_shards_as_from_one_file(sharded, variant_db):
    extras.need("web", "fastapi")
    from fastapi.testclient import TestClient

    from ttt_solver.web.app import create_app
    from ttt_solver.web.data import open_variant

    answers = []
    for path in (variant_db(NAME), sharded):
        with TestClient(create_app({NAME: open_variant(path)})) as client:
            answers.append(
                [client.get(f"/api/v1/{NAME}", params={"moves": moves}).json() for moves in ("", "0,5", "0,5,6")]
            )
    assert answers[0] == answers[1] and answers[0][1]["value"] in (-1, 0, 1)


def test_a_build_killed_while_writing_shards_resumes_them(dask_client, tmp_path):
    """The driver killed once a shard's task has opened its file: the task, left running on the
    cluster, finishes its shard holding the shard's lock; the same command run again waits for
    it, goes on from the rows it finds (all of them), and proves the database before installing."""
    target, name = tmp_path / "3x4k3.sqlite", "3x4k3"
    shards = tmp_path / f".{name}.sqlite.solving" / f"{name}.sqlite.shards"
    command = [sys.executable, "-m", "ttt_solver", "build", "--variant", name, "--db", str(target), "--engine",
               "dask", "--address", dask_client.scheduler.address, "--shards", "2"]  # fmt: skip
    status = killed_when(command, lambda: shards.is_dir() and any(shards.glob("*.sqlite")), poll=0.001)
    assert status == -signal.SIGKILL and not target.exists()
    result = CliRunner().invoke(cli, command[3:])
    assert result.exit_code == 0, result.output
    assert re.search(
        rf"resumed {name}\.sqlite\.shards/\w+-[01]\.sqlite in .* after its first [\d,]+ rows", result.output
    )
    assert "proved the resumed database whole" in result.output  # every row against the rules and its children
