"""One grammar for sizes (``--memory``, ``--cache-size``): ASCII digits and an optional unit,
K, M, G or T with an optional B or iB, in any case, powers of 1,024; nothing else. A memory
budget above the machine's memory or below the smallest a build keeps is refused naming both
bounds. And every variant error names the part that is wrong."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from ttt_solver.builder.build import build
from ttt_solver.cli import cli
from ttt_solver.cli.bounded_params import parse_size
from ttt_solver.errors import InvalidBudgetError, InvalidVariantError, shown
from ttt_solver.game.variant import Variant
from ttt_solver.system.memory import machine_memory, size_text

SHIFTS = {"": 0, "k": 10, "m": 20, "g": 30, "t": 40}
units = st.sampled_from(["", "b", *(u + s for u in "kmgt" for s in ("", "b", "ib"))])
cased = units.flatmap(lambda unit: st.tuples(*(st.sampled_from([c.lower(), c.upper()]) for c in unit)).map("".join))


@given(st.integers(0, 10**6), cased)
def test_every_size_in_the_grammar_parses_to_its_bytes(number, unit):
    assert parse_size(f"{number}{unit}") == number << SHIFTS[unit[:1].lower() if unit[:1].lower() in "kmgt" else ""]


@given(st.integers(0, 10**6), cased, st.sampled_from([" ", "\n", "\t", "\u3000"]), st.integers(0, 2))
def test_a_space_anywhere_is_refused(number, unit, space, where):
    text = f"{number}{unit}"
    at = [0, len(str(number)), len(text)][where]
    assert parse_size(text[:at] + space + text[at:]) is None


@given(st.text(min_size=1, max_size=8))
def test_anything_else_is_refused(text):
    if not re.fullmatch(r"[0-9]+(?:[kmgtKMGT](?:[iI]?[bB])?|[bB])?", text):
        assert parse_size(text) is None


@pytest.mark.parametrize("text", ["１G", "64 MB", "64M B", "1.5G", "-1", "1KK", "1iB", "1PB", "0x10", "٣M"])
def test_the_issues_lenient_sizes_are_refused_in_one_line(text):
    result = CliRunner().invoke(cli, ["build", "--variant", "3x3", "--db", "unused.sqlite", "--memory", text])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"Error: invalid --memory {text!r}: expected a size:"), result.stderr
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("text", [" 64MB", "1G\n", "\t512k "])
def test_whitespace_around_a_size_is_dropped_as_around_any_option(text):
    # The one rule of every option's text (cli/params.py: Tidy), as --variant '3x3 ' has it.
    result = CliRunner().invoke(cli, ["build", "--variant", "3x3", "--db", "unused.sqlite", "--memory", text, "--plan"])
    assert (result.exit_code, result.stderr) == (0, ""), result.output


@pytest.mark.parametrize("text", ["1TB", "99999999999999999999999", "1K"])
def test_a_budget_outside_the_machine_is_refused_naming_both_bounds(text):
    result = CliRunner().invoke(cli, ["build", "--variant", "3x3", "--db", "unused.sqlite", "--memory", text])
    assert result.exit_code == 2
    high = machine_memory()
    assert high is not None and parse_size(text) is not None
    assert result.stderr == (
        f"Error: invalid --memory {text!r}: expected a size from 64KB to {size_text(high)} (this machine's memory)\n"
    )


def test_a_budget_below_what_a_variant_needs_names_both_bounds(tmp_path):
    with pytest.raises(InvalidBudgetError, match=r"expected from 254MB \(the smallest a build of 4x5k4 keeps\) to "):
        build(tmp_path / "x.sqlite", Variant.parse("4x5k4"), memory=64 << 20)
    assert not list(tmp_path.iterdir())
    result = CliRunner().invoke(cli, ["build", "--variant", "3x4k3", "--db", str(tmp_path / "x"), "--memory", "64K"])
    assert result.exit_code == 2 and "108KB (the smallest a build of 3x4k3 keeps)" in result.stderr, result.stderr


@pytest.mark.parametrize(
    "name,part",
    [
        (
            "3x3k99999999999999999999",
            "on a 3x3 board k must be 3, not 99999999999999999999 (k runs from 3 to the longer side)",
        ),
        ("3x3k0", "on a 3x3 board k must be 3, not 0 (k runs from 3 to the longer side)"),
        ("99999999999x3", "rows must be from 1 to 25, not 99999999999"),
        ("99999999999999999999x3k3", "rows must be from 1 to 25, not 99999999999999999999"),
        ("0026x1", "rows must be from 1 to 25, not 0026"),
        ("1" * 30 + "x1", "rows must be from 1 to 25, not 1111111111...1111111111 (30 digits)"),
        ("0x4", "rows must be from 1 to 25, not 0"),
        ("4x0", "columns must be from 1 to 25, not 0"),
        ("3x99999999999999999999999", "columns must be from 1 to 25, not 99999999999999999999999"),
        ("26x1", "rows must be from 1 to 25, not 26"),
        ("6x5", "a 6x5 board has 30 cells; the most is 25"),
        ("7x4k4", "a 7x4 board has 28 cells; the most is 25"),
    ],
)
def test_every_variant_error_names_the_part_that_is_wrong(name, part):
    with pytest.raises(InvalidVariantError) as raised:
        Variant.parse(name)
    assert str(raised.value) == f"invalid variant {shown(name)}: {part}"
