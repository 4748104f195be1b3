"""Reading never builds; only the first-use function above the read layer builds, and only a
small variant (issue 22). A missing big database stops at once, in one line naming the build
command and what it takes; every bot and environment of a process shares one load (issue 25,
item 9); ``Oracle.load(path)`` loads the variant the file holds (item 13)."""

from __future__ import annotations

import os
import shutil

import pytest
from click.testing import CliRunner

from ttt_solver import Oracle
from ttt_solver.builder import first_use
from ttt_solver.builder.first_use import FIRST_USE_CELLS, FirstUseBuild, default_database, shared_oracle
from ttt_solver.cli import cli
from ttt_solver.errors import DatabaseError, DatabaseMissingError
from ttt_solver.game.variant import Variant
from ttt_solver.lookup.position import Position
from ttt_solver.players.agents import make_agent
from ttt_solver.solver.tiers import tiers
from ttt_solver.store import paths
from ttt_solver.system.cost_model import estimate, tier_boards

BIG = "3x6k4"  # 18 cells: about 29 s of CPU, 1.2 GB of disk to build
# What the error says it takes is the cost model's estimate (tests/system/test_cost_model.py).
BIG_LINE = f"build it with: ttt-lookup build --variant 3x6k4 ({estimate(Variant.parse(BIG))})\n"


@pytest.fixture
def data(tmp_path, monkeypatch):
    """An empty default data folder, no TTT_DB, and no oracle shared from an earlier test."""
    folder = tmp_path / "data"
    monkeypatch.setattr(paths, "data_folder", lambda: str(folder))
    monkeypatch.delenv("TTT_DB", raising=False)
    monkeypatch.setattr(first_use, "_SHARED", {})
    return folder


def listing(folder) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) if folder.exists() else []


@pytest.mark.parametrize(
    "command",
    [
        ["verify"],
        ["analyze", "X" + "." * 17],
        ["best", "." * 18],
        ["query", "ply_counts"],
        ["stats"],
    ],
)
def test_a_missing_big_database_stops_in_one_line_and_writes_nothing(data, command):
    result = CliRunner(env={"TTT_DB": None}).invoke(cli, [*command, "--variant", BIG])
    assert result.exit_code == 1 and result.stdout == "", (result.exit_code, result.stdout)
    expected = f"Error: no {BIG} database at {os.path.join(str(data), BIG + '.sqlite')!r}; {BIG_LINE}"
    assert result.stderr == expected
    assert listing(data) == []


def test_verify_never_builds_even_a_small_variant(data):
    result = CliRunner(env={"TTT_DB": None}).invoke(cli, ["verify", "--variant", "2x3"])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == (
        f"Error: no 2x3 database at {os.path.join(str(data), '2x3.sqlite')!r}; build it with:"
        f" ttt-lookup build --variant 2x3 ({estimate(Variant.parse('2x3'))})\n"
    )
    assert listing(data) == []


def test_a_lookup_builds_a_small_variant_on_first_use_and_says_so(data):
    result = CliRunner(env={"TTT_DB": None}).invoke(cli, ["analyze", "X" + "." * 11, "--variant", "3x4k3"])
    built = os.path.join(str(data), "3x4k3.sqlite")
    assert result.exit_code == 0 and result.stdout.startswith("X...........: ")
    assert result.stderr == f"ttt-lookup: building the 3x4k3 database at {built} (first use; a moment)\n"
    assert listing(data) == ["3x4k3.sqlite"]


def test_loading_reads_and_never_builds(data):
    for variant in (BIG, "3x3", "2x3"):
        with pytest.raises(DatabaseMissingError, match=f"^no {variant} database at .*; build it with: ttt-lookup"):
            Oracle.load(variant=variant)
        with pytest.raises(DatabaseMissingError):
            Oracle.load(variant=variant, eager=False, verify=True)
    assert issubclass(DatabaseMissingError, DatabaseError)
    assert listing(data) == []


def test_the_first_use_function_builds_small_variants_only(data):
    with pytest.raises(DatabaseMissingError) as caught:
        default_database(Variant.parse(BIG))
    assert str(caught.value).endswith(BIG_LINE.rstrip("\n"))
    with pytest.raises(DatabaseMissingError):
        shared_oracle(Variant.parse("4x5k4"))
    assert listing(data) == []
    assert FIRST_USE_CELLS == Variant.parse("4x4").cells
    with pytest.warns(FirstUseBuild, match=r"^building the 2x3 database at .*2x3\.sqlite \(first use; a moment\)$"):
        path = default_database(Variant.parse("2x3"))
    assert listing(data) == ["2x3.sqlite"] and os.path.isfile(path)
    heard: list[str] = []
    default_database(Variant.parse("2x3"), heard.append)  # there now: nothing to say
    assert heard == []


def test_one_load_serves_every_bot_and_environment_of_a_process(data, db_path):
    data.mkdir()
    shutil.copyfile(db_path, data / "ttt.sqlite")
    first, second = make_agent("perfect"), make_agent("perfect:0.5")
    assert first.oracle is second.oracle is shared_oracle()
    assert shared_oracle(eager=False) is shared_oracle(eager=False) is not first.oracle
    shared = first.oracle
    # a rebuilt file (a new inode, size or time) is loaded again
    (data / "ttt.sqlite").unlink()
    shutil.copyfile(db_path, data / "ttt.sqlite")
    os.utime(data / "ttt.sqlite", ns=(1, 1))
    assert make_agent("perfect").oracle is not shared
    assert shared_oracle(db=str(db_path)) is shared_oracle(Variant.parse("3x3"), str(db_path))


@pytest.mark.rl
def test_environments_share_the_players_load(data, db_path):
    from ttt_solver.envs import TicTacToeEnv

    data.mkdir()
    shutil.copyfile(db_path, data / "ttt.sqlite")
    env, other = TicTacToeEnv(), TicTacToeEnv("perfect:0.8")
    assert env.opponent.oracle is other.opponent.oracle is make_agent("perfect").oracle


def test_a_path_alone_loads_the_variant_the_file_holds(db_4x4, db_path):
    with Oracle.load(db_4x4) as oracle:
        assert oracle.variant.name == "4x4" and oracle.value("." * 16) == 0
    with Oracle.load(db_4x4, eager=False) as oracle:
        assert oracle.variant.name == "4x4"
    with pytest.raises(DatabaseError, match="holds variant '4x4', not '3x3'"):
        Oracle.load(db_4x4, "3x3")
    with pytest.raises(DatabaseError, match="holds variant '3x3', not '4x4'"):
        Oracle.load(db_path, "4x4", eager=False)


@pytest.mark.long
def test_an_eager_load_of_a_small_variant_resolves_boards_when_asked(variant_db):
    """Resolving every board of 3x4k3 up front took 2.6 s of the load: now each is resolved
    when first asked, after the table is proved whole (test_verify.py pins the proof)."""
    oracle = Oracle.load(variant_db("3x4k3"), "3x4k3")
    assert not oracle.exhaustive
    assert oracle.value("." * 12) == 1
    every = oracle.all_positions()
    assert oracle.exhaustive and len(every) == 111_973
    assert every["." * 12] == oracle.probe("." * 12)


def test_positions_name_their_preferred_moves_so():
    assert Position._fields[-1] == "preferred_moves" and not hasattr(Position, "preferred")


@pytest.mark.parametrize("name", ["3x3", "3x4k3", "4x4", "2x9k3", "3x6k4", "4x5k4"])
def test_the_estimate_counts_the_boards_of_the_tiers(name):
    variant = Variant.parse(name)
    assert tier_boards(variant) == int(tiers(variant).sizes.sum())


def test_a_source_checkout_keeps_its_databases_in_its_data_folder():
    root = os.path.dirname(os.path.dirname(os.path.abspath(paths.__file__)))
    checkout = os.path.dirname(root)
    if os.path.isfile(os.path.join(checkout, "build_db.py")):  # not an installed copy
        assert paths.data_folder() == os.path.join(checkout, "data")


def test_a_path_alone_whose_meta_names_no_variant_is_a_database_error(db_path, tmp_path):
    import sqlite3
    from contextlib import closing

    copy = tmp_path / "copy.sqlite"
    shutil.copyfile(db_path, copy)
    with closing(sqlite3.connect(copy)) as conn, conn:
        conn.execute("UPDATE meta SET value = '0' WHERE key = 'variant'")
    with pytest.raises(DatabaseError, match="holds variant '0', not '3x3'"):
        Oracle.load(copy)
