"""The explorer's analysis in a real headless Chromium (see tests/support/browser_pages.py): the moves
grouped by result, the preferred and the best moves, the principal line, the moves played,
Back and Forward, the value history with remoteness, a completed line, setting up a position,
the rules of misère and the wording on touch screens. Each is checked against the oracle or
the API, never against the page's own arithmetic."""

from __future__ import annotations

import json
from urllib.request import urlopen

import pytest
from support.browser_pages import (
    SHOTS,
    board_text,
    browser_module_marks,
    cell,
    open_page,
    wait_for_ply,
)

from ttt_solver import Oracle
from ttt_solver.game import rules
from ttt_solver.game.variant import MAX_CELLS, Variant

pytestmark = browser_module_marks()
OUTCOME = {1: "win", 0: "draw", -1: "loss"}


@pytest.fixture(scope="module")
def oracles(db_path, variant_db):
    """The oracle of a variant by name."""
    found = {"3x3": Oracle.load(db_path)}

    def get(name: str) -> Oracle:
        if name not in found:
            found[name] = Oracle.load(variant_db(name), name, eager=False)
        return found[name]

    return get


def plies(n: int) -> str:
    return f"{n} {'ply' if n == 1 else 'plies'}"


def listed_cells(locator) -> list[int]:
    return [int(text.split()[0]) for text in locator.all_inner_texts()]


def test_the_moves_are_grouped_by_result_each_with_its_remoteness(page, base_url, oracles):
    for variant, moves in [("3x3", [0, 2, 1]), ("3x3", [4]), ("3x4k3", [0]), ("3x3-misere", [])]:
        position = oracles(variant).probe(rules.from_moves(moves, variant))
        page.goto(f"{base_url}/?variant={variant}&moves={','.join(map(str, moves))}")
        wait_for_ply(page, len(moves))
        groups = page.locator("#moves section.group")
        expected = [value for value in (1, 0, -1) if any(m.value == value for m in position.moves)]
        assert groups.count() == len(expected)
        for i, value in enumerate(expected):
            group = groups.nth(i)
            assert OUTCOME[value] in group.get_attribute("class").split()
            wanted = [m for m in position.moves if m.value == value]
            assert listed_cells(group.locator("li")) == [m.cell for m in wanted]  # best first within
            for item, move in zip(group.locator("li").all_inner_texts(), wanted, strict=True):
                assert f"{OUTCOME[value]} in {plies(move.remoteness)}" in item
            # the group that keeps the value is the best moves
            assert ("best moves: keep the value" in group.locator("h3").inner_text()) == (value == position.value)


def test_the_star_marks_the_preferred_moves_and_the_best_moves_are_named(page, base_url, oracles):
    # 3x4k3 after X0: O loses whatever it does (the best moves: 1 to 11); cell 5 loses slowest
    position = oracles("3x4k3").probe(rules.from_moves([0], "3x4k3"))
    assert position.best_moves == tuple(range(1, 12)) and position.preferred_moves == (5,)
    page.goto(f"{base_url}/?variant=3x4k3&moves=0")
    wait_for_ply(page, 1)
    starred = page.locator("#moves li", has_text="★")
    assert listed_cells(starred) == list(position.preferred_moves)
    underlined = page.locator("#board .cell.best").evaluate_all("cells => cells.map(c => +c.dataset.cell)")
    assert underlined == list(position.preferred_moves)
    keeping = page.locator("#moves section.group", has_text="best moves: keep the value").locator("li")
    assert sorted(listed_cells(keeping)) == list(position.best_moves)
    legend = page.locator(".legend").inner_text()
    assert "preferred moves" in legend and "value first, then remoteness" in legend
    assert "best moves" in legend and "keep the value" in legend
    assert cell(page, 5).get_attribute("aria-label").endswith("; a preferred move")


@pytest.mark.parametrize(
    ("variant", "moves"),
    [("3x3", [0, 2, 1]), ("3x3", [0, 1]), ("3x4k3", [0]), ("3x3-misere", [4, 0])],  # a draw, wins, losses
)
def test_the_principal_line_comes_from_the_api_and_plays_out(page, base_url, oracles, variant, moves):
    shape = Variant.parse(variant)
    board = rules.from_moves(moves, shape)
    with urlopen(f"{base_url}/api/v1/{variant}?board={board}") as response:
        line = json.load(response)["line"]
    page.goto(f"{base_url}/?variant={variant}&moves={','.join(map(str, moves))}")
    wait_for_ply(page, len(moves))
    marks = "XO" if len(moves) % 2 == 0 else "OX"
    assert page.locator("#line button.step").all_inner_texts() == [f"{marks[i % 2]} {c}" for i, c in enumerate(line)]
    oracle = oracles(variant)
    end = board
    for cell_played in line:  # a perfect line: every step is a preferred move
        assert cell_played in oracle.probe(end).preferred_moves
        end = rules.play(end, cell_played, shape)
    winner = rules.winner(end, shape)
    assert page.locator("#line .end").inner_text() == (f"{winner} wins" if winner else "a draw")
    page.locator("#line button.step").nth(1).click()  # plays the line's first two moves
    wait_for_ply(page, len(moves) + 2)
    page.locator("#line button.step").last.click()  # and the rest of it
    wait_for_ply(page, len(moves) + len(line))
    assert board_text(page) == end
    assert page.locator("#status").inner_text().startswith("Game over")


def test_the_moves_played_are_listed_and_each_jumps_to_its_position(page, base_url, oracles):
    moves = [0, 1, 4, 8]  # O's 1 throws the draw away
    oracle = oracles("3x3")
    flagged = set()
    for i, played in enumerate(moves):
        before = oracle.probe(rules.from_moves(moves[:i]))
        if next(m for m in before.moves if m.cell == played).value < before.value:
            flagged.add(i)
    assert 1 in flagged
    page.goto(f"{base_url}/?variant=3x3&moves={','.join(map(str, moves))}")
    wait_for_ply(page, 4)
    marks = "XOXO"
    shown = page.locator("#played li").all_inner_texts()
    assert shown == [f"{marks[i]} {c}{'?' if i in flagged else ''}" for i, c in enumerate(moves)]
    assert page.locator("#played li button[aria-current=step]").inner_text() == "O 8"
    page.locator("#played li button").nth(1).click()
    wait_for_ply(page, 2)
    assert board_text(page) == "XO......." and page.locator("#redo").is_enabled()
    assert "moves=0,1&" in page.url + "&" and page.locator("#played li").count() == 4  # the rest can be redone
    page.locator("#played li button").nth(3).click()
    wait_for_ply(page, 4)
    page.locator("#played button.start").click()
    wait_for_ply(page, 0)
    assert page.locator("#undo").is_disabled()


def test_back_and_forward_step_through_the_game(page, base_url):
    page.goto(f"{base_url}/?variant=3x3")
    wait_for_ply(page, 0)
    for n, c in enumerate([0, 4, 8], start=1):
        cell(page, c).click()
        wait_for_ply(page, n)
    page.go_back()
    wait_for_ply(page, 2)
    assert board_text(page) == "X...O...."
    page.go_back()
    wait_for_ply(page, 1)
    page.go_forward()
    wait_for_ply(page, 2)
    assert board_text(page) == "X...O...." and page.url.endswith("moves=0,4")
    page.keyboard.press("u")  # an undo is a step of its own
    wait_for_ply(page, 1)
    page.go_back()
    wait_for_ply(page, 2)
    cell(page, 2).click()  # a new move after going back drops the old future
    wait_for_ply(page, 3)
    assert board_text(page) == "X.X.O...."
    page.go_back()
    wait_for_ply(page, 2)
    page.go_forward()
    wait_for_ply(page, 3)
    assert board_text(page) == "X.X.O...."


def test_back_skips_the_computers_reply(page, base_url):
    page.goto(f"{base_url}/?variant=3x3&play=O")
    wait_for_ply(page, 0)
    cell(page, 4).click()
    wait_for_ply(page, 2)
    page.go_back()  # to before X's move, not to O to move (where the computer would move again)
    wait_for_ply(page, 0)
    page.go_forward()
    wait_for_ply(page, 2)
    assert page.console_errors == []


def test_a_position_can_be_typed_and_a_bad_one_gets_the_apis_message(page, base_url):
    page.goto(f"{base_url}/?variant=3x3&moves=4")
    wait_for_ply(page, 1)
    assert page.locator("#position").input_value() == "....X...."  # the board shown, as text
    page.fill("#position", "x..|.o.|...")  # any spelling the API accepts
    page.press("#position", "Enter")
    wait_for_ply(page, 2)
    assert board_text(page) == "X...O...." and "board=X...O...." in page.url
    assert page.locator("#position").input_value() == "X...O...."
    for text, message in [
        ("XXXXXXXXX", "illegal board 'XXXXXXXXX': wrong piece counts"),
        ("X?.......", "invalid board 'X?.......': bad character '?'"),
        ("X" * 300, ""),  # too long for the API: its 422 message, whatever the wording
    ]:
        page.fill("#position", text)
        page.click("#position-form button[type=submit]")
        page.wait_for_selector("#error:not([hidden])")
        assert page.locator("#error").inner_text().startswith(message) and page.locator("#error").inner_text()
        assert page.locator("#position").get_attribute("aria-invalid") == "true"
        assert board_text(page) == "X...O...."  # the shown position is kept
        page.click("#new")
        wait_for_ply(page, 0)
        page.go_back()
        wait_for_ply(page, 2)


def test_a_completed_line_is_highlighted(page, base_url):
    for variant, board, status in [
        ("3x3", "XXXOO....", "Game over: X won."),
        ("3x3", "XXXXOOXOO", "Game over: X won."),  # two lines at once
        ("3x3", "XOXXOXOXO", "Game over: a draw."),
        ("3x3-misere", "XXXOO....", "Game over: O won (X completed a line)."),
        ("3x4k3", "XXXO.OO..X..", "Game over: X won."),
    ]:
        page.goto(f"{base_url}/?variant={variant}&board={board}")
        page.wait_for_function("text => document.querySelector('#status').textContent === text", arg=status)
        shown = page.locator("#board .cell.completed").evaluate_all("cells => cells.map(c => +c.dataset.cell)")
        owners = rules.line_owners(board, Variant.parse(variant))
        assert shown == sorted({c for lines in owners.values() for line in lines for c in line}), board
        for c in shown:
            assert "in the completed line" in cell(page, c).get_attribute("aria-label")


def test_the_value_history_shows_how_far_the_end_is(page, base_url, oracles):
    moves = [0, 1, 4, 2]  # two draws, then X wins (O threw the draw away), ..., then X wins in 1
    oracle = oracles("3x3")
    page.goto(f"{base_url}/?variant=3x3&moves={','.join(map(str, moves))}")
    wait_for_ply(page, 4)
    dots = page.locator("svg.chart circle.dot")
    titles = dots.evaluate_all("ds => ds.map(d => d.querySelector('title').textContent)")
    heights = dots.evaluate_all("ds => ds.map(d => +d.getAttribute('cy'))")
    for ply, (title, height) in enumerate(zip(titles, heights, strict=True)):
        position = oracle.probe(rules.from_moves(moves[:ply]))
        for_x = position.value if position.to_move == "X" else -position.value
        words = "draw" if for_x == 0 else f"{'X' if for_x > 0 else 'O'} wins in {plies(position.remoteness)}"
        assert title == f"after ply {ply}: {words}"
    draw = heights[0]
    wins = [(oracle.probe(rules.from_moves(moves[:p])).remoteness, heights[p]) for p in (2, 3, 4)]
    assert all(height < draw for _, height in wins)  # X's wins above the draw line
    by_remoteness = [height for _, height in sorted(wins)]
    assert by_remoteness == sorted(by_remoteness) and len(set(by_remoteness)) == 3  # nearer the end: higher
    assert "X wins in 1 ply" in page.locator("svg.chart").get_attribute("aria-label")


def test_misere_variants_say_what_misere_means(page, base_url):
    page.goto(f"{base_url}/?variant=3x3-misere")
    wait_for_ply(page, 0)
    assert page.locator("#rules").inner_text().startswith("Misère 3 by 3: whoever completes three in a row loses")
    page.select_option("#variant", "3x3")
    page.wait_for_function("!document.querySelector('#rules').textContent.includes('Misère')")
    assert page.locator("#rules").inner_text() == "3 by 3: three in a row wins."


def test_touch_screens_are_told_to_tap(browser, base_url):
    with open_page(browser, viewport={"width": 375, "height": 740}, has_touch=True, is_mobile=True) as phone:
        phone.goto(f"{base_url}/?variant=3x3")
        wait_for_ply(phone, 0)
        assert phone.locator("#detail").inner_text().startswith("Tap a cell")
        text = phone.locator("body").inner_text()
        assert "Hover" not in text and "arrow keys" not in text and "Enter" not in text
        cell(phone, 4).tap()
        wait_for_ply(phone, 1)
        assert phone.evaluate("document.documentElement.scrollWidth") <= 375, "no sideways scrolling on a phone"
        SHOTS.mkdir(parents=True, exist_ok=True)
        phone.screenshot(path=str(SHOTS / "explorer-phone-touch.png"), full_page=True)


def test_a_mouse_screen_is_told_to_hover_and_click(page, base_url):
    page.goto(f"{base_url}/?variant=3x3")
    wait_for_ply(page, 0)
    assert page.locator("#detail").inner_text().startswith("Hover over or focus a cell")
    assert page.locator("footer .keys").is_visible()


def test_the_pages_lines_are_the_variants_lines(page, base_url):
    """The page finds completed lines itself: its lines must be the library's, on every shape."""
    shapes = []
    for rows in range(1, MAX_CELLS + 1):
        for cols in range(1, MAX_CELLS // rows + 1):
            for k in range(3, max(rows, cols) + 1):
                shapes.append(Variant(rows, cols, k))
    assert len(shapes) > 30
    page.goto(f"{base_url}/?variant=3x3")
    wait_for_ply(page, 0)
    found = page.evaluate(
        "async shapes => { const { lines } = await import('/static/rules.js'); return shapes.map(lines); }",
        [{"rows": v.rows, "cols": v.cols, "k": v.k} for v in shapes],
    )
    for variant, lines in zip(shapes, found, strict=True):
        assert sorted(map(tuple, lines)) == sorted(variant.lines), variant.name
