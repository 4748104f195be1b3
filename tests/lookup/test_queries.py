"""The named SQL queries: loading, parameters, documented columns, and answers checked against the oracle."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from ttt_solver.game import rules
from ttt_solver.game.symmetry import canonical_text
from ttt_solver.lookup import named_queries as queries
from ttt_solver.lookup.oracle import Oracle
from ttt_solver.store import Target
from ttt_solver.store.reader import Reader


def run_query(target: Target, sql: str, params: dict, variant: str = "3x3") -> tuple[list[str], list[tuple]]:
    with Reader(target, variant) as reader:
        return reader.query(sql, params)


QUERIES_PAGE = Path(__file__).resolve().parents[2] / "docs" / "queries.md"
OUTCOME = {1: "win", 0: "draw", -1: "loss"}


@pytest.fixture(scope="module")
def oracle(db_path) -> Oracle:
    return Oracle.load(db_path)


@pytest.fixture(scope="module")
def ask(db_path):
    def run(name: str, **params: str) -> list[dict]:
        named = queries.get(name)
        columns, rows = run_query(Target.parse(db_path), named.sql, named.bind(params))
        return [dict(zip(columns, row)) for row in rows]

    return run


def documented_columns(named: queries.NamedQuery) -> list[str]:
    header = named.sql.split("\nSELECT", 1)[0].split("\nWITH", 1)[0]
    block = header.split("-- columns:\n", 1)[1]
    return [m.group(1) for m in re.finditer(r"^--\s+(\w+)\s", block, re.MULTILINE)]


# -- loading ----------------------------------------------------------------------------------
def test_the_sql_files_ship_as_package_resources():
    shipped = sorted(entry.name for entry in queries.folder().iterdir() if entry.name.endswith(".sql"))
    assert len(shipped) >= 6
    assert [name[:-4] for name in shipped] == queries.names()


def test_every_query_has_a_one_line_description():
    for named in queries.available():
        assert named.description and not named.description.startswith("-"), named.name
        assert len(named.description) <= 100, named.name


def test_every_query_runs_and_returns_its_documented_columns(db_path):
    needs = {"positions_at_ply": {"ply": "3"}}
    for named in queries.available():
        columns, rows = run_query(Target.parse(db_path), named.sql, named.bind(needs.get(named.name, {})))
        assert columns == documented_columns(named), named.name
        assert rows, named.name


@pytest.mark.long
@pytest.mark.parametrize("name", ["3x3-misere", "3x4k3", "4x4"])
def test_every_query_answers_every_variant_or_says_it_cannot(variant_db, name):
    """No empty table with exit 0: each query gives rows, or refuses the variant (exit 2)."""
    needs = {"positions_at_ply": {"ply": "3"}}
    target = Target.parse(variant_db(name))
    for named in queries.available():
        if named.variants and name not in named.variants:
            with pytest.raises(queries.QueryError, match=f"answers 3x3 only, not {name}"):
                named.check_variant(name)
            continue
        columns, rows = run_query(target, named.sql, named.bind(needs.get(named.name, {})), name)
        assert columns == documented_columns(named), (name, named.name)
        assert rows, (name, named.name)


@pytest.mark.parametrize(
    "name, given, message",
    [
        ("traps", {"min_losing": "abc"}, "expects an integer"),
        ("traps", {"min_losing": "99999999999999999999999"}, "expects an integer"),
        ("longest_wins", {"limit": "1.5"}, "expects an integer"),
        ("positions_at_ply", {"ply": "x"}, "expects an integer"),
    ],
)
def test_params_of_the_wrong_type_are_refused(name, given, message):
    with pytest.raises(queries.QueryError, match=message):
        queries.get(name).bind(given)


def test_every_query_is_in_the_documentation():
    page = QUERIES_PAGE.read_text(encoding="utf-8")
    assert [name for name in queries.names() if f"| `{name}` |" not in page] == []


def test_params_defaults_and_required():
    traps = queries.get("traps")
    assert traps.bind({}) == {"min_losing": 3}
    assert traps.bind({"min_losing": "4"}) == {"min_losing": 4}
    assert queries.get("opening").bind({}) == {"first": None}
    assert queries.get("positions_at_ply").params["ply"].required


def test_placeholders_in_comments_and_strings_are_not_params():
    named = queries.NamedQuery.from_text("t", "-- Uses :nothing here.\nSELECT ':no' AS a, :yes AS b -- :neither\n")
    assert list(named.params) == ["yes"]


def test_unknown_query():
    with pytest.raises(queries.QueryError, match=r"^unknown query 'nope': see ttt-lookup query --list$"):
        queries.get("nope")


def test_unknown_param():
    with pytest.raises(queries.QueryError, match=r"^unknown parameter 'x' for query 'traps' \(it takes: min_losing\)$"):
        queries.get("traps").bind({"x": "1"})


def test_missing_param():
    with pytest.raises(queries.QueryError, match=r"^query 'positions_at_ply' needs parameter 'ply'"):
        queries.get("positions_at_ply").bind({})


@pytest.mark.parametrize(
    "text, value", [("3", 3), ("-2", -2), ("0.5", 0.5), ("null", None), ("NULL", None), ("X..", "X..")]
)
def test_coerce(text, value):
    assert queries.coerce(text) == value and type(queries.coerce(text)) is type(value)


# -- answers, checked against the oracle ------------------------------------------------------
def test_opening_matches_the_oracle(ask, oracle):
    rows = ask("opening")
    assert len(rows) == 72
    for row in rows:
        after_first = rules.play(".........", row["first"])
        after_reply = rules.play(after_first, row["reply"])
        assert row["first_outcome"] == OUTCOME[-oracle.value(after_first)]
        assert row["first_remoteness"] == oracle.remoteness(after_first) + 1
        assert row["reply_outcome"] == OUTCOME[-oracle.value(after_reply)]
        assert row["reply_remoteness"] == oracle.remoteness(after_reply) + 1
        assert row["best_reply"] == int(row["reply"] in oracle.best_moves(after_first))


def test_opening_pins_the_textbook_replies(ask):
    def drawing_replies(first: str) -> list[int]:
        return [row["reply"] for row in ask("opening", first=first) if row["best_reply"]]

    assert drawing_replies("0") == [4]  # against a corner, only the centre holds
    assert drawing_replies("4") == [0, 2, 6, 8]  # against the centre, only a corner holds
    assert drawing_replies("1") == [0, 2, 4, 7]


def test_only_moves_match_the_oracle(ask, oracle):
    expected = set()
    for board, position in oracle.all_positions().items():
        if board == canonical_text(board) and len(position.moves) >= 2 and len(position.best_moves) == 1:
            expected.add((board, position.best_moves[0]))
    assert expected
    assert {(row["board"], row["only_move"]) for row in ask("only_moves")} == expected


def test_traps_match_the_oracle(ask, oracle):
    expected = set()
    for board, position in oracle.all_positions().items():
        losing = sum(move.value == -1 for move in position.moves)
        most = 2 * losing > len(position.moves)
        if board == canonical_text(board) and position.value >= 0 and losing >= 4 and most:
            expected.add(board)
    assert {row["board"] for row in ask("traps", min_losing="4")} == expected


def test_longest_wins_are_the_longest(ask, oracle):
    longest = max(p.remoteness for p in oracle.all_positions().values() if p.value == 1)
    rows = ask("longest_wins", limit="100")
    assert rows[0]["remoteness"] == longest == 5
    assert sum(row["orbit"] for row in rows if row["remoteness"] == longest) == sum(
        1 for p in oracle.all_positions().values() if p.value == 1 and p.remoteness == longest
    )


def test_ply_counts_match_the_oracle(ask, oracle):
    counts = Counter((rules.ply(board), position.value) for board, position in oracle.all_positions().items())
    rows = ask("ply_counts")
    assert [row["boards"] for row in rows] == [1, 9, 72, 252, 756, 1260, 1520, 1140, 390, 78]
    for row in rows:
        assert (row["wins"], row["draws"], row["losses"]) == tuple(counts[(row["ply"], v)] for v in (1, 0, -1))
    assert sum(row["finished"] for row in rows) == 958


def test_positions_at_ply(ask):
    counts = [len(ask("positions_at_ply", ply=str(ply))) for ply in range(10)]
    assert counts == [1, 3, 12, 38, 108, 174, 204, 153, 57, 15]


def test_rule_of_thumb_matches_the_oracle(ask, oracle):
    order = (4, 0, 2, 6, 8, 1, 3, 5, 7)
    expected = {}
    for board, position in oracle.all_positions().items():
        if position.moves and position.value >= 0:
            cell = next(cell for cell in order if board[cell] == rules.EMPTY)
            if cell not in position.best_moves:
                expected[board] = (cell, ",".join(map(str, position.best_moves)))
    rows = ask("rule_of_thumb")
    assert {row["board"]: (row["rule_move"], row["best_moves"]) for row in rows} == expected
    assert len(ask("rule_of_thumb", max_ply="2")) == 20  # won ply-2 boards where taking the centre only draws
