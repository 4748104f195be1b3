"""Variant names as people type them: ``misère`` as well as ``misere``, in any case, everywhere a
variant is named (Python, the command line, the HTTP API); the name given back stays ``-misere``."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from ttt_solver import Oracle
from ttt_solver.cli import cli
from ttt_solver.errors import InvalidVariantError
from ttt_solver.game.variant import MAX_CELLS, Variant

MISERE_SPELLINGS = ("misere", "misère", "mise\u0300re")  # the last: e and a combining grave accent


@st.composite
def variants(draw: st.DrawFn) -> Variant:
    rows = draw(st.integers(1, MAX_CELLS))
    cols = draw(st.integers(1, MAX_CELLS // rows).filter(lambda cols: max(rows, cols) >= 3))  # k is 3 or more
    return Variant(rows, cols, draw(st.integers(3, max(rows, cols))), draw(st.booleans()))


@st.composite
def spellings(draw: st.DrawFn, variant: Variant) -> str:
    """A name of ``variant`` as someone might type it: any case, k written out or not, misère accented or not."""
    k = f"k{variant.k}" if variant.k != max(variant.rows, variant.cols) or draw(st.booleans()) else ""
    misere = f"-{draw(st.sampled_from(MISERE_SPELLINGS))}" if variant.misere else ""
    name = f"{variant.rows}x{variant.cols}{k}{misere}"
    upper = draw(st.lists(st.booleans(), min_size=len(name), max_size=len(name)))
    name = "".join(char.upper() if up else char for char, up in zip(name, upper))
    return draw(st.sampled_from(["", " "])) + name + draw(st.sampled_from(["", " "]))


@given(st.data())
def test_every_spelling_parses_to_the_variant_whose_name_is_ascii(data):
    variant = data.draw(variants())
    spelled = data.draw(spellings(variant))
    assert Variant.parse(spelled) == variant
    assert variant.name.isascii() and Variant.parse(variant.name) == variant


@pytest.mark.parametrize("name", ["3x3-misère", "3X3-MISÈRE", "4x4k3-Misère"])
def test_misere_with_its_accent_is_read(name):
    parsed = Variant.parse(name)
    assert parsed.misere and parsed.name == name.lower().replace("è", "e")


@pytest.mark.parametrize("name", ["3x3-misèr", "3x3-misé re", "3x3-misérè", "3x3-misére", "3x3 misère"])
def test_other_spellings_are_still_refused(name):
    with pytest.raises(InvalidVariantError, match="invalid variant"):
        Variant.parse(name)


def test_oracle_and_command_line_take_misere_with_its_accent(variant_db):
    path = variant_db("3x3-misere")
    assert Oracle.load(path, "3x3-misère").variant == Variant.parse("3x3-misere")
    runner = CliRunner(env={"TTT_DB": None})
    answers = [
        runner.invoke(cli, ["analyze", "--variant", name, "--db", str(path), "--json", "X...O...."])
        for name in ("3x3-misere", "3x3-misère")
    ]
    assert [answer.exit_code for answer in answers] == [0, 0], answers[1].output
    assert answers[0].stdout == answers[1].stdout


@pytest.mark.web
def test_the_http_api_takes_misere_with_its_accent(variant_db):
    from fastapi.testclient import TestClient

    from ttt_solver.web.app import create_app
    from ttt_solver.web.data import open_variant

    with TestClient(create_app({"3x3-misere": open_variant(variant_db("3x3-misere"))})) as client:
        plain = client.get("/api/v1/3x3-misere", params={"moves": "4"})
        accented = client.get("/api/v1/3x3-misère", params={"moves": "4"})
    assert (plain.status_code, accented.status_code) == (200, 200)
    assert plain.json() == accented.json()
