"""One quoting of bad values: every layer cuts a long one with ``errors.shown``, at one length."""

from __future__ import annotations

import sqlite3

import pytest
from click.testing import CliRunner

from ttt_solver.cli import cli
from ttt_solver.errors import SHOWN_LENGTH, DatabaseError, InvalidBoardError, InvalidVariantError, shown
from ttt_solver.game import board as rules
from ttt_solver.game.variant import Variant
from ttt_solver.store.reader import held_variant

LONG = "Z" * 100


def test_shown_quotes_a_value_whole_up_to_its_length_and_cuts_it_after():
    assert SHOWN_LENGTH == 60
    assert shown("X...O....") == "'X...O....'"
    assert shown([1, 0, -1]) == "[1, 0, -1]"
    assert shown("a" * 58) == "'" + "a" * 58 + "'"  # 60 characters with its quotes: whole
    assert shown("a" * 59) == "'" + "a" * 56 + "..."
    assert len(shown(LONG)) == SHOWN_LENGTH


def test_the_board_the_variant_the_command_line_and_the_database_quote_a_long_value_alike(tmp_path):
    quoted = f" {shown(LONG)}"
    with pytest.raises(InvalidBoardError) as board:
        rules.parse(LONG)
    with pytest.raises(InvalidVariantError) as variant:
        Variant.parse(LONG)
    with pytest.raises(InvalidBoardError) as move:
        rules.play("." * 9, LONG)  # type: ignore[arg-type]
    option = CliRunner().invoke(cli, ["compare", "random", "random", "--games", LONG])
    foreign = tmp_path / "foreign.sqlite"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE meta (key TEXT, value TEXT)")
        conn.execute("INSERT INTO meta VALUES ('generator', ?)", (LONG,))
    conn.close()
    with pytest.raises(DatabaseError) as database:
        held_variant(foreign)
    assert option.exit_code == 2
    for message in (str(board.value), str(variant.value), str(move.value), option.output, str(database.value)):
        assert quoted in message and LONG not in message, message
