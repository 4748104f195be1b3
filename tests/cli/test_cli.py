"""``ttt-lookup``: the JSON contract, the human output, every error path and its exit code."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result
from hypothesis import given
from hypothesis import strategies as st
from support.damage import set_number
from support.parse_spy import count_parses

from ttt_solver import __version__
from ttt_solver.cli import COMMAND_MODULES, cli
from ttt_solver.game.variant import Variant

README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.fixture
def run(db_path):
    """Invoke ``ttt-lookup`` on the session database (TTT_DB unset, so --db is what counts)."""

    def invoke(*args: str, db: str | Path | None = db_path, input: str | None = None) -> Result:
        extra = [] if db is None else ["--db", str(db)]
        return CliRunner(env={"TTT_DB": None}).invoke(cli, [*args, *extra], input=input)

    return invoke


@pytest.fixture
def db_copy(db_path, tmp_path) -> Path:
    """A private copy of the database, to tamper with."""
    return Path(shutil.copy(db_path, tmp_path / "copy.sqlite"))


def sql(path: Path, statement: str) -> None:
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute(statement)


def assert_error(result: Result, code: int, message: str) -> None:
    """Exactly one ``Error:`` line on stderr, nothing on stdout."""
    assert (result.exit_code, result.stdout, result.stderr) == (code, "", f"Error: {message}\n")


# -- analyze: the JSON contract ---------------------------------------------------------------
def test_analyze_json_corner_then_centre(run):
    result = run("analyze", "X...O....", "--json")
    assert result.exit_code == 0 and result.stderr == ""
    assert json.loads(result.stdout) == {
        "board": "X...O....",
        "to_move": "X",
        "value": 0,
        "outcome": "draw",
        "remoteness": 7,
        "best_moves": [1, 2, 3, 5, 6, 7, 8],
        "preferred_moves": [1, 2, 3, 5, 6, 7, 8],
        "moves": [{"cell": cell, "value": 0, "remoteness": 7} for cell in (1, 2, 3, 5, 6, 7, 8)],
        "line": [1, 2, 6, 3, 5, 7, 8],
    }


def test_analyze_json_empty_board(run):
    data = json.loads(run("analyze", ".........", "--json").stdout)
    assert list(data) == [
        "board", "to_move", "value", "outcome", "remoteness", "best_moves", "preferred_moves", "moves", "line",
    ]  # fmt: skip
    assert (data["board"], data["to_move"], data["value"], data["outcome"], data["remoteness"]) == (
        ".........",
        "X",
        0,
        "draw",
        9,
    )
    assert data["best_moves"] == list(range(9))
    assert data["moves"] == [{"cell": cell, "value": 0, "remoteness": 9} for cell in range(9)]
    assert data["line"] == [0, 4, 1, 2, 6, 3, 5, 7, 8]


def test_analyze_json_win_lists_moves_best_first(run):
    data = json.loads(run("analyze", "XX.OO....", "--json").stdout)
    assert (data["value"], data["outcome"], data["remoteness"], data["best_moves"], data["line"]) == (
        1,
        "win",
        1,
        [2],
        [2],
    )
    assert data["preferred_moves"] == [2]
    assert [(m["cell"], m["value"], m["remoteness"]) for m in data["moves"]] == [
        (2, 1, 1),
        (5, 0, 5),
        (6, -1, 2),
        (7, -1, 2),
        (8, -1, 2),
    ]
    assert "winner" not in data


def test_analyze_json_won_board(run):
    assert json.loads(run("analyze", "XXXOO....", "--json").stdout) == {
        "board": "XXXOO....",
        "to_move": "O",
        "value": -1,
        "outcome": "loss",
        "remoteness": 0,
        "best_moves": [],
        "preferred_moves": [],
        "moves": [],
        "line": [],
        "winner": "X",
    }


def test_analyze_json_drawn_full_board(run):
    data = json.loads(run("analyze", "XOX/XOO/OXX", "--json").stdout)
    assert data == {
        "board": "XOXXOOOXX",
        "to_move": "O",
        "value": 0,
        "outcome": "draw",
        "remoteness": 0,
        "best_moves": [],
        "preferred_moves": [],
        "moves": [],
        "line": [],
        "winner": None,
    }


def test_analyze_moves_gives_the_same_answer_as_the_board(run):
    assert run("analyze", "--moves", "0,4", "--json").stdout == run("analyze", "X...O....", "--json").stdout


@pytest.mark.parametrize("command", ["analyze", "best"])
@pytest.mark.parametrize("args", [["x../.o./..."], ["--moves", "0, 4"]])
def test_the_board_is_parsed_once(run, monkeypatch, command, args):
    parsed = count_parses(monkeypatch)
    result = run(command, *args, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["board"] == "X...O...."
    assert parsed == args[-1:]


# -- analyze: the human form ------------------------------------------------------------------
def test_analyze_human_output(run):
    result = run("analyze", "X...O....")
    assert result.exit_code == 0
    assert (
        result.stdout
        == """\
X...O....: X to move at ply 2, a draw, 7 plies to the end

  X  | D7 | D7
  ---+----+---
  D7 | O  | D7
  ---+----+---
  D7 | D7 | D7

(each empty cell: W/D/L for X after moving there, then plies to the end)
best moves:  1 2 3 5 6 7 8  (keep the value: a draw)
preferred:   1 2 3 5 6 7 8  (value, then remoteness)
moves:       1:D7  2:D7  3:D7  5:D7  6:D7  7:D7  8:D7
line:        X1 O2 X6 O3 X5 O7 X8
"""
    )


def test_analyze_names_both_sets_of_moves(variant_db):
    """On 3x4k3 after X0 every move keeps the loss (the best moves), but only 5 loses slowest
    (the preferred move, which best, the line and the perfect player take)."""
    args = ["analyze", "--moves", "0", "--db", str(variant_db("3x4k3"))]
    data = json.loads(CliRunner().invoke(cli, [*args, "--json"]).stdout)
    assert (data["value"], data["best_moves"], data["preferred_moves"], data["line"][0]) == (
        -1,
        [*range(1, 12)],
        [5],
        5,
    )
    lines = CliRunner().invoke(cli, args).stdout.splitlines()
    assert lines[9:11] == [
        "best moves:  1 2 3 4 5 6 7 8 9 10 11  (keep the value: a loss)",
        "preferred:   5  (value, then remoteness: loses slowest)",
    ]
    best = CliRunner().invoke(cli, ["best", *args[1:]])
    assert best.stdout == "5\n"


def test_analyze_names_the_fastest_win(run):
    lines = run("analyze", ".....XOOX").stdout.splitlines()  # X wins at 2 at once, or later by 0, 1, 3, 4
    assert [line for line in lines if line.startswith(("best moves:", "preferred:"))] == [
        "best moves:  0 1 2 3 4  (keep the value: a win)",
        "preferred:   2  (value, then remoteness: wins fastest)",
    ]


def test_analyze_human_output_mixed_results(run):
    lines = run("analyze", "--moves", "0,3,1,4").stdout.splitlines()
    assert lines[0] == "XX.OO....: X to move at ply 4, X wins in 1 ply"
    assert lines[2:7] == ["  X  | X  | W1", "  ---+----+---", "  O  | O  | D5", "  ---+----+---", "  L2 | L2 | L2"]


def test_analyze_human_output_finished_board(run):
    assert (
        run("analyze", "XXXOO....").stdout
        == """\
XXXOO....: game over at ply 5, X won

  X | X | X
  --+---+--
  O | O | .
  --+---+--
  . | . | .
"""
    )


def test_analyze_colours_results_on_a_terminal(db_path):
    result = CliRunner(env={"TTT_DB": None}).invoke(cli, ["analyze", "XX.OO....", "--db", str(db_path)], color=True)
    assert click.style("W1", fg="green", bold=True) in result.stdout
    assert click.style("L2", fg="red", bold=False) in result.stdout


def test_db_from_environment(db_path):
    result = CliRunner(env={"TTT_DB": str(db_path)}).invoke(cli, ["best", "X...O...."])
    assert (result.exit_code, result.stdout) == (0, "1\n")


# -- best -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "args, move",
    [
        (["X...O...."], "1"),
        (["XX.OO...."], "2"),
        (["--moves", "0,3,1"], "2"),
        (
            [
                ".........",
            ],
            "0",
        ),
    ],
)
def test_best(run, args, move):
    result = run("best", *args)
    assert (result.exit_code, result.stdout, result.stderr) == (0, f"{move}\n", "")


def test_best_on_a_finished_board(run):
    assert_error(run("best", "XXXOO...."), 2, "no move on 'XXXOO....': the game is over")


# -- board errors: exit 2, one line ---------------------------------------------------------------
@pytest.mark.parametrize("command", ["analyze", "best"])
@pytest.mark.parametrize(
    "args, message",
    [
        (["X..?O...."], "invalid board 'X..?O....': bad character '?' at position 3 (use X, O and . for empty)"),
        (["XO"], "invalid board 'XO': expected 9 cells (the variant 3x3 of --db {db!r}), got 2"),
        (
            ["XXX......"],
            (
                "illegal board 'XXX......': wrong piece counts: X has 3 and O has 0, but X moves first"
                " so X must have as many marks as O or one more"
            ),
        ),
        (["XXXOOO..."], "illegal board 'XXXOOO...': both X and O have 3 in a row"),
        (["X........", "--moves", "4"], "give either BOARD or --moves, not both"),
        ([], "no board given: pass BOARD (e.g. X...O....) or --moves (e.g. 4,0,8)"),
        (["--moves", "4,a"], "invalid moves '4,a': expected cell numbers separated by commas, e.g. 4,0,8"),
        (["--moves", "4,4"], "invalid move 4: cell 4 of '....X....' is taken"),
        (["--moves", "4,9"], "invalid move 9: cells are 0 to 8"),
    ],
)
def test_bad_board(run, db_path, command, args, message):
    assert_error(run(command, *args), 2, message.format(db=str(db_path)))


def test_bad_variant(run):
    assert_error(
        run("analyze", "X........", "--variant", "9x9"),
        2,
        "invalid variant '9x9': a 9x9 board has 81 cells; the most is 25",
    )


def test_bad_db_url(run):
    assert_error(
        run("best", "X........", db="sqlite://"),
        2,
        "invalid database 'sqlite://': a SQLite URL must name a file, e.g. sqlite:///data/ttt.sqlite",
    )


# -- database errors: exit 1, one line --------------------------------------------------------
@pytest.mark.parametrize("command", [["analyze", "X........"], ["stats"], ["query", "ply_counts"]])
def test_missing_db(run, tmp_path, command):
    missing = tmp_path / "nowhere.sqlite"
    assert_error(
        run(*command, db=missing),
        1,
        f"no database at '{missing}'; build it with: ttt-lookup build --variant 3x3 --db {missing}",
    )


@pytest.mark.parametrize("command", [["analyze", "X........"], ["stats"], ["query", "ply_counts"]])
def test_foreign_db(run, tmp_path, command):
    foreign = tmp_path / "foreign.sqlite"
    sql(foreign, "CREATE TABLE notes (text TEXT)")
    assert_error(
        run(*command, db=foreign),
        1,
        f"'{foreign}' is not a readable ttt-solver database (no such table: meta); give --db a ttt-solver"
        " database, or build the default one with: ttt-lookup build --variant 3x3",
    )


def test_a_changed_row_fails_the_lookup_that_shows_it(run, db_copy):
    sql(db_copy, f"UPDATE positions SET {set_number('value', '1')} WHERE board = '.........'")
    assert_error(
        run("analyze", ".........", db=db_copy),
        1,
        f"database '{db_copy}' contradicts itself at board '.........': it stores value 1, but its children"
        f" imply 0; rebuild it with: ttt-lookup build --variant 3x3 --db {db_copy} --force",
    )
    assert run("best", "X...O....", db=db_copy).exit_code == 0  # rows the damage does not reach still answer


@pytest.mark.parametrize("command", [["stats"], ["compare", "perfect", "random", "--games", "10"]])
def test_damaged_packed_arrays_fail_every_load(run, db_copy, command):
    sql(db_copy, "UPDATE meta SET value = 'f00' WHERE key = 'digest'")
    assert_error(
        run(*command, db=db_copy),
        1,
        f"database '{db_copy}' is damaged (the content digest does not match);"
        f" rebuild it with: ttt-lookup build --variant 3x3 --db {db_copy} --force",
    )


@pytest.mark.parametrize("command", [["analyze", "X........"], ["stats"], ["query", "ply_counts"]])
def test_schema_version_mismatch(run, db_copy, command):
    sql(db_copy, "UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    assert_error(
        run(*command, db=db_copy),
        1,
        f"database '{db_copy}' has schema version '99', this ttt-solver reads version 3: upgrade ttt-solver,"
        f" or rebuild it with: ttt-lookup build --variant 3x3 --db {db_copy} --force",
    )


def test_wrong_variant_db(run):
    result = run("analyze", "X...............", "--variant", "4x4")
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith("Error: database ") and "holds variant '3x3', not '4x4'" in result.stderr


@pytest.mark.parametrize(("variant", "board"), [("3x3", "X...O...."), ("2x3", "X....O")])
def test_a_lookup_that_builds_the_default_database_says_so_in_one_line(tmp_path, monkeypatch, variant, board):
    from ttt_solver.store import paths

    monkeypatch.setattr(paths, "data_folder", lambda: str(tmp_path))
    runner = CliRunner(env={"TTT_DB": None})
    first = runner.invoke(cli, ["analyze", board, "--variant", variant])
    built = paths.database_file(Variant.parse(variant))
    assert first.exit_code == 0 and first.stdout.startswith(f"{board}: ")
    assert first.stderr == f"ttt-lookup: building the {variant} database at {built} (first use; a moment)\n"
    again = runner.invoke(cli, ["analyze", board, "--variant", variant])
    assert (again.stdout, again.stderr) == (first.stdout, "")


def test_the_build_command_keeps_its_whole_progress(tmp_path):
    result = CliRunner().invoke(cli, ["build", "--db", str(tmp_path / "t.sqlite")])
    assert result.exit_code == 0
    lines = result.stderr.splitlines()
    counts = (1, 3, 12, 38, 108, 174, 204, 153, 57, 15)  # canonical positions by ply, solved from the last
    assert [line for line in lines if line.startswith("3x3: ply ")] == [
        f"3x3: ply {ply}: {count:,} position{'' if count == 1 else 's'}"
        for ply, count in reversed(list(enumerate(counts)))
    ]
    assert lines[-1] == f"3x3: writing 765 positions to {tmp_path / 't.sqlite'}"


# -- query ------------------------------------------------------------------------------------
def test_query_list(run):
    result = run("query", "--list", db=None)
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["name", "description"]
    names = [line.split()[0] for line in lines[2:]]
    assert names == sorted(names) and len(names) >= 6
    assert "traps             Traps: positions not lost where most moves (and at least :min_losing) lose." in lines


def test_query_table(run):
    result = run("query", "ply_counts")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[:3] == [
        "ply  to_move  boards   wins  draws  losses  finished  canonical",
        "---  -------  ------  -----  -----  ------  --------  ---------",
        "  0  X             1      0      1       0         0          1",
    ]
    assert lines[-1] == "  9  O            78      0     16      62        78         15"


def test_query_table_writes_whole_numbers_with_separators_as_every_command_does(run):
    """The table's counts read ``1,140`` (as ``stats`` prints them); CSV and JSON keep plain numbers."""
    table = run("query", "ply_counts").stdout.splitlines()[2:]
    csv_rows = run("query", "ply_counts", "--csv").stdout.splitlines()[1:]
    assert [line.split() for line in table] == [
        [f"{int(cell):,}" if cell.isdigit() else cell for cell in row.split(",")] for row in csv_rows
    ]
    assert "1,140" in table[7].split() and "7,O,1140,416,200,524,444,153" in csv_rows  # 3x3's ply 7
    assert json.loads(run("query", "ply_counts", "--json").stdout)[7]["boards"] == 1140


def test_query_params_csv_and_json(run):
    csv = run("query", "opening", "--param", "first=0", "--csv")
    assert csv.exit_code == 0
    lines = csv.stdout.splitlines()
    assert lines[0] == "first,first_outcome,first_remoteness,reply,reply_outcome,reply_remoteness,best_reply"
    assert lines[4] == "0,draw,9,4,draw,8,1" and len(lines) == 9
    data = json.loads(run("query", "longest_wins", "-p", "limit=2", "--json").stdout)
    assert data == [
        {"board": ".O......X", "ply": 2, "to_move": "X", "remoteness": 5, "best_moves": "2,4,6", "orbit": 8},
        {"board": ".O...X...", "ply": 2, "to_move": "X", "remoteness": 5, "best_moves": "2,4", "orbit": 8},
    ]


def test_unknown_query(run):
    assert_error(run("query", "nope"), 2, "unknown query 'nope': see ttt-lookup query --list")


def test_missing_query_param(run):
    assert_error(
        run("query", "positions_at_ply"), 2, "query 'positions_at_ply' needs parameter 'ply': pass --param ply=VALUE"
    )


def test_unknown_query_param(run):
    assert_error(
        run("query", "traps", "--param", "min_lose=2"),
        2,
        "unknown parameter 'min_lose' for query 'traps': did you mean 'min_losing'? (it takes: min_losing)",
    )


def test_malformed_query_param(run):
    assert_error(
        run("query", "traps", "--param", "min_losing"),
        2,
        "invalid --param 'min_losing': expected KEY=VALUE, e.g. min_losing=3",
    )


def test_query_without_name(run):
    assert_error(run("query"), 2, "no query given: pass a NAME (see ttt-lookup query --list) or a SELECT statement")


def test_query_list_with_name(run):
    assert_error(run("query", "traps", "--list"), 2, "--list takes no query NAME or --param")


# -- stats ------------------------------------------------------------------------------------
def test_stats_json(run):
    data = json.loads(run("stats", "--json").stdout)
    assert data["boards"]["total"] == 5478 and data["canonical"]["total"] == 765
    assert data["boards"]["by_value"] == {"win": 2836, "draw": 1068, "loss": 1574}
    assert data["canonical"]["by_value"] == {"win": 390, "draw": 151, "loss": 224}
    assert data["boards"]["by_remoteness"] == {
        "0": 958,
        "1": 2438,
        "2": 708,
        "3": 556,
        "4": 388,
        "5": 258,
        "6": 138,
        "7": 24,
        "8": 9,
        "9": 1,
    }
    assert data["longest_win"] == {"remoteness": 5, "boards": 122, "canonical": 18, "example": ".O......X"}


def test_stats_human(run):
    lines = run("stats").stdout.splitlines()
    assert lines[:7] == [
        "3x3: values are for the side to move",
        "",
        "                boards  canonical",
        "positions        5,478        765",
        "win              2,836        390",
        "draw             1,068        151",
        "loss             1,574        224",
    ]
    assert lines[-1] == "longest forced win: 5 plies (122 boards, 18 canonical), e.g. .O......X"


# -- play -------------------------------------------------------------------------------------
PROMPT = "Your move (a free cell 0-8; h hint, u undo, q quit): "
OVER = "Game over (r play again, u undo, q quit): "


def test_play_a_lost_game(run):
    result = run("play", "--as", "O", "--seed", "2", input="4\n8\nq\n")
    assert result.exit_code == 0
    assert (
        result.output
        == f"""\
You are O; the computer plays perfectly.
The computer plays 0.

X | 1 | 2
--+---+--
3 | 4 | 5
--+---+--
6 | 7 | 8
{PROMPT}4
The computer plays 3.

X | 1 | 2
--+---+--
X | O | 5
--+---+--
6 | 7 | 8
{PROMPT}8
The computer plays 6.

X | . | .
--+---+--
X | O | .
--+---+--
X | . | O
The computer wins.
The game: X0 O4 X3 O8 X6
{OVER}q
"""
    )


def test_play_reprompts_on_bad_input_and_quits(run):
    result = run("play", input="9\nb2\n0\nq\n")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[7:11] == [
        f"{PROMPT}9",
        "'9' is not a free cell; choose one of 0 1 2 3 4 5 6 7 8 (h hint, u undo, q quit).",
        f"{PROMPT}b2",
        "'b2' is not a free cell; choose one of 0 1 2 3 4 5 6 7 8 (h hint, u undo, q quit).",
    ]
    assert lines[-3:] == ["6 | 7 | 8", f"{PROMPT}q", "You quit."]
    assert "The computer plays 4." in lines  # the only reply to a corner that holds the draw


def test_play_against_a_random_opponent_can_be_won(run):
    result = run("play", "--skill", "0", "--seed", "3", input="0\n1\n2\n")
    assert result.exit_code == 0
    assert result.output.splitlines()[-3:] == ["You win!", "The game: X0 O3 X1 O7 X2", OVER]  # then the input ends


def test_play_rejects_a_taken_cell(run):
    result = run("play", "--as", "O", "--seed", "2", input="0\nq\n")
    assert "'0' is not a free cell; choose one of 1 2 3 4 5 6 7 8 (h hint, u undo, q quit)." in result.output


def test_play_hint_names_the_best_and_the_preferred_moves(run, variant_db):
    lines = run("play", "--as", "O", "--seed", "2", input="h\nq\n").output.splitlines()
    assert lines[lines.index(f"{PROMPT}h") + 1 :][:2] == [
        "best moves:  4  (keep the value: a draw)",  # after a corner only the centre holds the draw
        "preferred:   4  (value, then remoteness)",
    ]
    # Elsewhere the hint is what analyze says of the position: here 3x4k3 after X1.
    db = str(variant_db("3x4k3"))
    game = CliRunner().invoke(cli, ["play", "--as", "O", "--db", db, "--seed", "1"], input="h\nq\n").output
    assert "The computer plays 1." in game
    analysis = CliRunner().invoke(cli, ["analyze", "--moves", "1", "--db", db]).stdout
    hint = [line for line in game.splitlines() if line.startswith(("best moves:", "preferred:"))]
    assert hint == [line for line in analysis.splitlines() if line.startswith(("best moves:", "preferred:"))]
    assert len(hint) == 2


def test_play_undo_takes_back_your_move_and_the_reply(run):
    result = run("play", "--as", "O", "--seed", "2", input="u\n4\nu\n8\nq\n")
    lines = result.output.splitlines()
    assert "Nothing to undo: you have not moved yet." in lines
    at = lines.index("Took back your last move.")
    assert lines[at - 6 : at - 1] == ["X | 1 | 2", "--+---+--", "X | O | 5", "--+---+--", "6 | 7 | 8"]
    assert lines[at + 2 : at + 7] == ["X | 1 | 2", "--+---+--", "3 | 4 | 5", "--+---+--", "6 | 7 | 8"]
    assert lines[at + 7] == f"{PROMPT}8"  # the same position again, another move


def test_a_finished_game_offers_to_play_again_or_take_back(run):
    result = run("play", "--skill", "0", "--seed", "3", input="0\n1\n2\nx\nu\n4\nq\n")
    lines = result.output.splitlines()
    assert lines[lines.index("You win!") + 2 :][:3] == [f"{OVER}x", "'x' is not one of r, u or q.", f"{OVER}u"]
    assert "Took back your last move." in lines and lines[-1] == "You quit."
    again = run("play", "--skill", "0", "--seed", "3", input="0\n1\n2\nr\nq\n").output.splitlines()
    assert again[again.index(f"{OVER}r") + 1 :][:3] == ["", "A new game.", ""]
    assert again[-1] == "You quit."


def test_plays_keys_are_said_one_way_in_the_help_the_readme_and_the_docs():
    # One table of keys in the play module; the help, README and docs/cli.md say what it holds.
    from ttt_solver.cli.play import KEYS, MOVE_KEYS, OVER_KEYS, listed

    every = listed(KEYS)
    assert every == "h hint, u undo, r play again, q quit"
    for args in (["--help"], ["play", "--help"]):
        assert f"({every})" in " ".join(CliRunner().invoke(cli, args).stdout.split())
    cli_page = (README.parent / "docs" / "cli.md").read_text(encoding="utf-8")
    for text in (README.read_text(encoding="utf-8"), cli_page):
        assert f"# a game in the terminal: {every}\n" in text
    assert (listed(MOVE_KEYS), listed(OVER_KEYS)) == ("h hint, u undo, q quit", "r play again, u undo, q quit")
    section = cli_page.split("### `ttt-lookup play`")[1].split("###")[0]
    assert f"`{PROMPT[:-2]}`" in section and f"`{OVER[:-2]}`" in section
    assert set(re.findall(r"`([a-z])`", section)) == {key.letter for key in KEYS}


def test_play_skill_out_of_range(run):
    result = run("play", "--skill", "1.5")
    assert result.exit_code == 2 and result.stdout == ""


# -- help, version, README --------------------------------------------------------------------
def commands() -> list[str]:
    with click.Context(cli) as ctx:
        return cli.list_commands(ctx)


def test_every_listed_command_exists():
    assert set(commands()) >= {"analyze", "best", "play", "stats", "query"}
    for name in commands():
        with click.Context(cli) as ctx:
            assert cli.get_command(ctx, name) is not None, name


def test_command_modules_declare_what_they_define():
    from importlib import import_module

    for module, names in COMMAND_MODULES.items():
        defined = [command.name for command in import_module(f"ttt_solver.cli.{module}").COMMANDS]
        assert sorted(defined) == sorted(names), module


@pytest.mark.parametrize("args", [[], *([name] for name in commands())])
def test_help_has_an_example(args):
    result = CliRunner().invoke(cli, [*args, "--help"])
    assert result.exit_code == 0
    assert "Example:\n" in result.stdout


def test_every_command_is_in_the_readme():
    readme = README.read_text(encoding="utf-8")
    missing = [name for name in commands() if f"ttt-lookup {name}" not in readme]
    assert missing == []


def test_version():
    result = CliRunner().invoke(cli, ["--version"])
    assert (result.exit_code, result.stdout) == (0, f"ttt-lookup {__version__}\n")


def test_python_dash_m(db_path):
    done = subprocess.run(
        [sys.executable, "-m", "ttt_solver.cli", "best", "--moves", "0", "--db", str(db_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "4\n", "")


def test_error_in_a_real_process_is_one_line_without_traceback(db_path):
    done = subprocess.run(
        [sys.executable, "-m", "ttt_solver.cli", "analyze", "XXX......", "--db", str(db_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("Error: illegal board 'XXX......'")


def test_analyze_imports_neither_sqlalchemy_nor_numpy_nor_other_commands(db_path):
    code = f"""
import sys
from click.testing import CliRunner
from ttt_solver.cli import cli
result = CliRunner().invoke(cli, ["analyze", "X...O....", "--json", "--db", {str(db_path)!r}])
assert result.exit_code == 0, result.output
heavy = ("sqlalchemy", "numpy", "ttt_solver.cli.contests", "ttt_solver.cli.query", "ttt_solver.builder.build")
print(" ".join(name for name in heavy if name in sys.modules))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == []


json_data = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=20,
)


def _holds_containers(value: object) -> bool:
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return any(isinstance(item, (list, dict)) for item in items)


@given(json_data)
def test_the_json_writer_is_read_back_by_json_and_keeps_flat_arrays_on_one_line(data):
    from ttt_solver.cli.output import dumps

    written = dumps(data)
    assert json.loads(written) == data
    texts = isinstance(data, list) and any(isinstance(item, str) for item in data)
    if not _holds_containers(data) and not (texts and len(json.dumps(data)) > 96):
        assert written == json.dumps(data)  # a scalar, or an array or object of scalars: one line
        return
    lines = written.splitlines()
    assert lines[0] in ("[", "{") and lines[-1] in ("]", "}")
    for line in lines[1:-1]:  # one item a line: a bracket that opens or closes, or one flat value
        item = line.strip().removesuffix(",")
        if item in ("[", "{", "]", "}") or item.endswith((": [", ": {")):
            continue
        try:
            value = json.loads(item)
        except ValueError:  # an object's member, "key": value
            _key, end = json.JSONDecoder().raw_decode(item)
            assert item[end : end + 2] == ": ", line
            value = json.loads(item[end + 2 :])
        assert not _holds_containers(value), line


def test_analyze_json_is_compact(run):
    """A 3x3 analysis on one screen: lists of cells on one line, each move on its own line."""
    assert run("analyze", "X...O....", "--json").stdout == (
        "{\n"
        '  "board": "X...O....",\n'
        '  "to_move": "X",\n'
        '  "value": 0,\n'
        '  "outcome": "draw",\n'
        '  "remoteness": 7,\n'
        '  "best_moves": [1, 2, 3, 5, 6, 7, 8],\n'
        '  "preferred_moves": [1, 2, 3, 5, 6, 7, 8],\n'
        '  "moves": [\n'
        + "".join(
            f'    {{"cell": {c}, "value": 0, "remoteness": 7}}{"," if c != 8 else ""}\n' for c in (1, 2, 3, 5, 6, 7, 8)
        )
        + "  ],\n"
        '  "line": [1, 2, 6, 3, 5, 7, 8]\n'
        "}\n"
    )
    assert len(run("analyze", ".........", "--json").stdout.splitlines()) == 21  # 8 keys, 9 moves, 4 brackets
