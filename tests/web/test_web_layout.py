"""The explorer's layout in a real headless Chromium (see tests/support/browser_pages.py), as a new user
met it (issue 25): the Board box holds a whole 16- or 18-cell board, the Skill field says what it
accepts, a phone shows the board and the hint line on its first screen, one Tab and Enter reach
the board, and the value history names its last point. Screenshots go to benchmarks/output/."""

from __future__ import annotations

import pytest
from support.browser_pages import (
    DESKTOP,
    PHONE,
    SHOTS,
    board_text,
    browser_module_marks,
    focused_cell,
    open_page,
    wait_for_ply,
)

from ttt_solver import Oracle
from ttt_solver.game import rules

pytestmark = browser_module_marks()


@pytest.fixture(scope="module")
def oracle(db_path):
    return Oracle.load(db_path)


def bottom(page, selector: str) -> float:
    box = page.locator(selector).bounding_box()
    return box["y"] + box["height"]


def shows_whole_text(page, selector: str) -> bool:
    """The field's text fits inside it: nothing scrolled out of sight."""
    return page.locator(selector).evaluate("el => el.scrollWidth <= el.clientWidth")


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_board_box_shows_a_whole_16_or_18_cell_board(browser, base_url, db_4x4_or_none, size):
    with open_page(browser, **size) as page:
        if db_4x4_or_none is not None:  # the box as the page fills it, for a 16-cell board
            page.goto(f"{base_url}/?variant=4x4&moves=12,10,15")
            wait_for_ply(page, 3)
            assert page.locator("#position").input_value() == "..........O.X..X"
            assert shows_whole_text(page, "#position")
        else:
            page.goto(f"{base_url}/?variant=3x3")
            wait_for_ply(page, 0)
        for typed in ["X.O.X.O.X.O.X.O.XO", "X.O.X.|O.X.O.|X.O.XO"]:  # an 18-cell board, and by rows
            page.fill("#position", typed)
            assert shows_whole_text(page, "#position"), typed
        size_px = page.locator("#position").evaluate("el => parseFloat(getComputedStyle(el).fontSize)")
        assert size_px >= 13, "legible"


def test_the_skill_field_says_what_it_accepts_and_keeps_what_was_typed(page, base_url):
    page.goto(f"{base_url}/?variant=3x3&play=O")
    wait_for_ply(page, 0)
    assert "0 to 1" in page.locator("label", has=page.locator("#skill")).inner_text()
    problem = page.locator("#skill-problem")
    assert problem.is_hidden()
    page.fill("#skill", "7")
    page.press("#skill", "Tab")  # a change is taken when the field is left
    problem.wait_for(state="visible")
    assert problem.inner_text() == "Skill takes a number from 0 to 1 (the chance of a perfect move), not 7: it stays 1."
    assert page.locator("#skill").input_value() == "7"  # not silently changed
    assert page.locator("#skill").get_attribute("aria-invalid") == "true"
    assert "skill=" not in page.url  # the computer still plays at 1
    page.fill("#skill", "0.5")
    page.press("#skill", "Tab")
    problem.wait_for(state="hidden")
    assert page.locator("#skill").get_attribute("aria-invalid") == "false" and page.url.endswith("&skill=0.5")
    page.fill("#skill", "-1")
    page.press("#skill", "Tab")
    problem.wait_for(state="visible")
    assert problem.inner_text().endswith("not -1: it stays 0.5.") and page.url.endswith("&skill=0.5")
    page.fill("#skill", "")
    page.press("#skill", "Tab")
    page.wait_for_function(
        "document.querySelector('#skill-problem').textContent.includes('(the chance of a perfect move): it')"
    )
    # an address with a skill out of range: the same message, beside the field
    page.goto(f"{base_url}/?variant=3x3&skill=7")
    wait_for_ply(page, 0)
    problem.wait_for(state="visible")
    assert page.locator("#skill").input_value() == "7" and "not 7: it stays 1." in problem.inner_text()
    assert page.locator("#error").is_hidden() and "skill=" not in page.url


@pytest.mark.parametrize(
    ("variant", "width", "height"),
    [("3x3", 390, 844), ("4x4", 390, 844), ("3x4k3", 390, 844), ("3x3", 360, 640)],
)
def test_on_a_phone_the_board_and_the_hint_line_are_on_the_first_screen(
    browser, base_url, db_4x4_or_none, variant, width, height
):
    if variant == "4x4" and db_4x4_or_none is None:
        pytest.skip("no 4x4 database")
    with open_page(browser, **{**PHONE, "viewport": {"width": width, "height": height}}) as phone:
        phone.goto(f"{base_url}/?variant={variant}&moves=0,2")
        wait_for_ply(phone, 2)
        assert phone.locator("#detail").inner_text().startswith("Tap a cell")
        assert bottom(phone, "#board") <= height and bottom(phone, "#detail") <= height
        controls = phone.locator(".controls").bounding_box()["height"]
        assert controls <= 0.2 * height, f"the controls take {controls / height:.0%} of the first screen"
        assert phone.evaluate("document.documentElement.scrollWidth") <= width
        SHOTS.mkdir(parents=True, exist_ok=True)
        phone.screenshot(path=str(SHOTS / f"explorer-phone-first-screen-{variant}-{width}x{height}.png"))


def test_one_tab_and_enter_reach_the_board(page, base_url, oracle):
    page.goto(f"{base_url}/?variant=3x3")
    wait_for_ply(page, 0)
    skip = page.locator("#skip")
    assert skip.bounding_box()["y"] + skip.bounding_box()["height"] <= 0  # out of sight until focused
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "skip"
    assert skip.bounding_box()["y"] >= 0 and skip.inner_text() == "Skip to the board"
    page.keyboard.press("Enter")
    assert focused_cell(page) == oracle.probe("." * 9).moves[0].cell  # the first listed move
    assert board_text(page) == "." * 9  # reaching the board plays nothing
    page.keyboard.press("Enter")
    wait_for_ply(page, 1)
    page.goto(f"{base_url}/?variant=3x3&moves=4,0")
    wait_for_ply(page, 2)
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    assert focused_cell(page) == 0  # the last move


def for_x(position, mover: str) -> str:
    """A position's value from X's view, in the chart's words (the test's own wording)."""
    value = position.value if mover == "X" else -position.value
    if value == 0:
        return "draw"
    winner = "X" if value > 0 else "O"
    if position.remoteness == 0:
        return f"{winner} won"
    return f"{winner} wins in {position.remoteness} {'ply' if position.remoteness == 1 else 'plies'}"


@pytest.mark.parametrize("moves", [[], [0, 2, 1], [0, 1, 4, 2], [0, 3, 1, 4, 2]])
def test_the_value_historys_last_point_is_labelled(page, base_url, oracle, moves):
    page.goto(f"{base_url}/?variant=3x3&moves={','.join(map(str, moves))}")
    wait_for_ply(page, len(moves))
    board = rules.from_moves(moves)
    mover = "X" if len(moves) % 2 == 0 else "O"
    label = page.locator("svg.chart text.now")
    assert label.text_content() == f"now: {for_x(oracle.probe(board), mover)}"
    text, dot, chart = (
        x.bounding_box() for x in (label, page.locator("svg.chart circle.dot").last, page.locator("svg.chart"))
    )
    centre = (dot["x"] + dot["width"] / 2, dot["y"] + dot["height"] / 2)
    near_x = min(abs(centre[0] - text["x"]), abs(centre[0] - text["x"] - text["width"]))
    near_y = min(abs(centre[1] - text["y"]), abs(centre[1] - text["y"] - text["height"]))
    assert near_x < 20 and near_y < 20, "beside the last point"
    assert chart["x"] <= text["x"] and text["x"] + text["width"] <= chart["x"] + chart["width"]
    assert chart["y"] <= text["y"] and text["y"] + text["height"] <= chart["y"] + chart["height"]


def test_the_value_historys_last_ply_is_named_on_every_size(page, base_url):
    page.goto(f"{base_url}/?variant=3x3")
    wait_for_ply(page, 0)
    ticks = page.evaluate(
        """async sizes => { const { renderChart } = await import('/static/chart.js');
        return sizes.map(cells => { const root = document.createElement('div');
            renderChart(root, [], [], { cells });
            return [...root.querySelectorAll('text.axis')].map(t => t.textContent); }); }""",
        [9, 12, 15, 16, 18],
    )
    for cells, names in zip([9, 12, 15, 16, 18], ticks, strict=True):
        assert names[-1] == str(cells) and "0" in names
