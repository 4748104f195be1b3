"""PostgreSQL as a second backend, against a real server (the session's throwaway cluster):
the same answers and the same named-query rows as SQLite, rebuilds that readers never see
half-way, and one clear line for every failure."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest
from click.testing import CliRunner

from ttt_solver import Oracle
from ttt_solver.audit.verify import verify_source
from ttt_solver.builder.build import build
from ttt_solver.cli import cli
from ttt_solver.game.variant import Variant
from ttt_solver.lookup.named_queries import available, get
from ttt_solver.solver.solve import Tables
from ttt_solver.store import Target
from ttt_solver.store.reader import Reader

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def _tables(url: str) -> list[str]:
    """Every table of the database's public schema, as another session sees them."""
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1").fetchall()
    return [name for (name,) in rows]


@pytest.fixture(autouse=True)
def own_data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A build to a server keeps its scratch folder in the data folder (kept for a resume where
    it fails): here a folder of the test's own, not the checkout's data/ that other tests read."""
    folder = tmp_path / "data"
    folder.mkdir()
    monkeypatch.setattr("ttt_solver.builder.build.data_folder", lambda: str(folder))
    return folder


@pytest.fixture
def pg_3x3(pg_url: str, solved: Callable[[str], Tables]) -> str:
    build(pg_url, Variant.parse("3x3"), tables=solved("3x3"))
    return pg_url


def test_every_lookup_agrees_with_sqlite(pg_3x3: str, db_path: Path) -> None:
    with Oracle.load(db_path) as local, Oracle.load(pg_3x3, eager=False) as lazy, Oracle.load(pg_3x3) as eager:
        boards = sorted(local.all_positions())
        assert len(boards) == 5478  # every legal board
        for board in boards:
            expected = local.probe(board)
            assert lazy.probe(board) == expected == eager.probe(board)
        assert eager.meta["digest"] == local.meta["digest"]


@pytest.mark.parametrize("name", ["3x3", "3x3-misere", "3x4k3"])
def test_verify_proves_a_table_built_on_the_server(
    pg_url: str, solved: Callable[[str], Tables], variant_db: Callable[[str], Path], name: str
) -> None:
    build(pg_url, Variant.parse(name), tables=solved(name))
    code, out, err = _run("verify", "--variant", name, "--db", pg_url, "--quiet")
    assert (code, err) == (0, "") and out.rstrip().endswith("the table is proved")
    assert Oracle.load(pg_url, name).meta["digest"] == Oracle.load(variant_db(name), name).meta["digest"]


def test_verify_reads_one_state_while_another_build_commits(
    pg_url: str, solved: Callable[[str], Tables], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A build of another variant starts once verify has read the positions table, and runs to
    # its swap before verify reads the packed arrays, the moves and their counts. Read statement
    # by statement, verify compared one build's positions with the other's packed arrays.
    build(pg_url, Variant.parse("3x3"), tables=solved("3x3"))
    read_positions = Reader.position_blocks
    rebuilds: list[subprocess.Popen[str]] = []

    def then_rebuild(reader: Reader, rows: int, limit: int) -> object:
        columns = list(read_positions(reader, rows, limit))
        command = [sys.executable, "-m", "ttt_solver", "build", "--variant", "3x3-misere", "--db", pg_url]
        rebuilds.append(subprocess.Popen(command, cwd=ROOT, stderr=subprocess.PIPE, text=True))
        deadline = time.monotonic() + 120
        while rebuilds[0].poll() is None and time.monotonic() < deadline:  # done, or waiting at its swap
            with psycopg.connect(pg_url) as conn:
                waiting = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
                if waiting.fetchone() != (0,):
                    break
            time.sleep(0.05)
        return iter(columns)

    monkeypatch.setattr(Reader, "position_blocks", then_rebuild)
    with Oracle.load(pg_url, "3x3", eager=False) as oracle:
        report = verify_source(oracle.source)
    assert report.ok, report.contradictions
    assert rebuilds[0].wait(timeout=120) == 0, rebuilds[0].stderr
    monkeypatch.undo()
    assert _run("verify", "--variant", "3x3-misere", "--db", pg_url)[0] == 0


# Parameters beyond the defaults, to run each query with more than one binding.
_PARAMS = {
    "longest_wins": [["limit=3"]],
    "only_moves": [["min_choices=1"]],
    "opening": [["first=4"], ["first=0"]],
    "positions_at_ply": [["ply=0"], ["ply=5"], ["ply=9"]],
    "rule_of_thumb": [["max_ply=3"]],
    "traps": [["min_losing=1"]],
}


@pytest.mark.parametrize("name", ["3x3", "3x4k3"])
@pytest.mark.long
def test_every_named_query_gives_the_same_rows_as_on_sqlite(
    pg_url: str, solved: Callable[[str], Tables], variant_db: Callable[[str], Path], name: str
) -> None:
    build(pg_url, Variant.parse(name), tables=solved(name))
    compared = 0
    for spec in available():
        query = spec.name
        if spec.variants and name not in spec.variants:
            continue
        for params in [[], *_PARAMS.get(query, [])]:
            if query == "positions_at_ply" and not params:
                continue  # its ply has no default
            options = [item for param in params for item in ("--param", param)]
            local = _run("query", query, "--variant", name, "--db", str(variant_db(name)), "--csv", *options)
            server = _run("query", query, "--variant", name, "--db", pg_url, "--csv", *options)
            assert server == local and local[0] == 0 and local[1].count("\n") > 1, (query, params)
            compared += 1
    assert compared >= 10


def test_readers_never_fail_or_mix_while_the_database_is_rebuilt(pg_3x3: str, db_path: Path) -> None:
    boards = [".........", "X........", "X...O....", "XO..X....", "X.O.X...O"]
    with Oracle.load(db_path) as local:
        expected = [local.probe(board) for board in boards]
    rule = get("rule_of_thumb").sql
    expected_rows = _run("query", "rule_of_thumb", "--db", str(db_path), "--csv")[1]
    failures: list[str] = []
    done = threading.Event()
    served = [0, 0]

    def lookups() -> None:
        while not done.is_set():
            try:  # a new oracle each time: every answer read from the server, not a cache
                with Oracle.load(pg_3x3, eager=False) as oracle:
                    assert [oracle.probe(board) for board in boards] == expected
                served[0] += 1
            except Exception as error:  # noqa: BLE001 - any failure is the finding
                failures.append(repr(error))

    def queries() -> None:
        while not done.is_set():
            code, out, err = _run("query", "rule_of_thumb", "--db", pg_3x3, "--csv")
            if (code, out, err) != (0, expected_rows, ""):
                failures.append(f"query: exit {code}: {err or out[:200]}")
            served[1] += 1

    assert "positions" in rule  # the query reads positions then moves: the locking order
    readers = [threading.Thread(target=lookups), threading.Thread(target=lookups), threading.Thread(target=queries)]
    for thread in readers:
        thread.start()
    try:
        for _ in range(3):
            built = subprocess.run(
                [sys.executable, "-m", "ttt_solver", "build", "--db", pg_3x3, "--force"],
                check=False, capture_output=True, text=True, cwd=ROOT,
            )  # fmt: skip
            assert built.returncode == 0, built.stderr
    finally:
        done.set()
        for thread in readers:
            thread.join()
    assert failures == [] and min(served) >= 3


def test_a_killed_build_leaves_the_old_tables_and_its_scratch_folder(pg_3x3: str, own_data_folder: Path) -> None:
    before = _run("stats", "--db", pg_3x3, "--json")
    # The command line, with the data folder (where a server target's scratch folder goes) the test's own.
    command = (
        "import sys, ttt_solver.store.paths as paths; folder = sys.argv.pop(1); paths.data_folder = lambda: folder;"
        " from ttt_solver.cli import cli; cli(prog_name='ttt-lookup')"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", command, str(own_data_folder), "build", "--variant", "3x4k3", "--db", pg_3x3, "--force"],
        stderr=subprocess.PIPE, text=True, cwd=ROOT,
    )  # fmt: skip
    assert process.stderr is not None
    writing = False
    for line in process.stderr:  # killed while it writes, inside its transaction
        if "writing" in line:
            writing = True
            time.sleep(0.2)
            break
    process.send_signal(signal.SIGKILL)
    assert process.wait() == -signal.SIGKILL and writing
    assert _tables(pg_3x3) == ["meta", "moves", "packed", "positions"]
    assert _run("stats", "--db", pg_3x3, "--json") == before
    assert _run("verify", "--db", pg_3x3)[0] == 0
    assert [path.name.startswith(".3x4k3.") for path in own_data_folder.iterdir()] == [True]  # kept for a resume


def test_tables_that_are_not_ours_are_replaced_only_with_force(pg_url: str) -> None:
    with psycopg.connect(pg_url) as conn:
        conn.execute("CREATE TABLE positions (id integer)")
        conn.execute("INSERT INTO positions VALUES (7)")
    code, out, err = _run("build", "--db", pg_url)
    assert (code, out) == (1, "")
    assert (
        err
        == f"Error: refusing to overwrite {pg_url!r}: it holds tables ttt-solver did not make (use --force to replace them)\n"
    )
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT id FROM positions").fetchall() == [(7,)]
    assert _run("build", "--db", pg_url, "--force")[0] == 0
    assert _tables(pg_url) == ["meta", "moves", "packed", "positions"]
    assert _run("analyze", "X...O....", "--db", pg_url, "--json")[0] == 0


def test_a_view_on_the_tables_stops_a_rebuild_in_one_line_and_the_old_tables_stay(pg_3x3: str) -> None:
    with psycopg.connect(pg_3x3) as conn:
        conn.execute("CREATE VIEW wins AS SELECT board FROM positions WHERE value = 1")
    code, out, err = _run("build", "--db", pg_3x3, "--force")  # found at the swap, after the progress lines
    error = err.splitlines()[-1]
    assert (code, out) == (1, "") and err.count("Error:") == 1
    assert error.startswith(
        f"Error: cannot build database at {pg_3x3!r}: DependentObjectsStillExist: cannot drop desired"
    )
    assert error.endswith("(view wins depends on table positions)")
    assert _run("verify", "--db", pg_3x3)[0] == 0


def test_an_empty_database_says_how_to_build_it(pg_url: str) -> None:
    for command in (["analyze", "X........"], ["stats"], ["verify"], ["query", "traps"]):
        code, out, err = _run(*command, "--db", pg_url)
        assert (code, out) == (1, "")
        assert (
            err
            == f"Error: no ttt-solver database at {pg_url!r}; build it with: ttt-lookup build --variant 3x3 --db {pg_url}\n"
        )


def test_a_server_that_is_down_is_not_called_damaged(pg_cluster: object) -> None:
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"postgresql://postgres:s3cret@127.0.0.1:{port}/ttt"
    shown = f"postgresql://postgres:***@127.0.0.1:{port}/ttt"
    for command in (["analyze", "X........"], ["stats"], ["verify"], ["query", "traps"]):
        code, out, err = _run(*command, "--db", url)
        assert (code, out) == (1, "") and err.count("\n") == 1
        assert err.startswith(f"Error: cannot reach the database server of {shown!r} (OperationalError: ")
        assert "s3cret" not in err and "--force" not in err and "damaged" not in err
    code, out, err = _run("build", "--db", url)
    assert (code, out) == (1, "") and err.count("\n") == 1 and "s3cret" not in err
    assert err.startswith(f"Error: cannot build database at {shown!r}: OperationalError: ")


def test_the_postgres_scheme_and_the_psycopg_driver_name_both_work(pg_3x3: str) -> None:
    for url in (
        pg_3x3.replace("postgresql://", "postgres://"),
        pg_3x3.replace("postgresql://", "postgresql+psycopg://"),
    ):
        code, out, _ = _run("analyze", "X...O....", "--db", url, "--json")
        assert code == 0 and '"value": 0' in out


def test_a_rebuild_between_a_snapshots_first_look_and_its_locks_is_not_seen_half(pg_3x3, solved, monkeypatch):
    """A snapshot asks which tables are ours, then locks them; a rebuild that swaps its tables
    in between must not leave the snapshot older than the new tables (which it would see
    empty): the locks come before the transaction's first query, which fixes its snapshot."""
    from ttt_solver.store import connection as module

    asked = module.live_tables
    rebuilt = []

    def rebuilt_after_the_first_look(conn):
        found = asked(conn)
        if not rebuilt:  # once, as if another process's rebuild committed just now
            rebuilt.append(True)
            build(pg_3x3, Variant.parse("3x3"), tables=solved("3x3"), force=True)
        return found

    with Reader(Target.parse(pg_3x3), "3x3") as reader:
        monkeypatch.setattr(module, "live_tables", rebuilt_after_the_first_look)
        with reader.snapshot():  # before the fix: "... its meta table names generator None"
            assert rebuilt and reader.meta["generator"] == "ttt-solver" and reader.meta["positions"] == "765"
            assert list(reader.rows([9841])) == [9841]  # the empty board's row, in the new tables
