"""The explorer page in a real headless Chromium (Debian's package, driven by Playwright) against
a uvicorn server on a free 127.0.0.1 port: loading, playing, the keyboard, the hint line, the
address and what a bad address falls back to. (tests/web/test_web_page.py: the analysis beside the
board.) Screenshots go to benchmarks/output/ (git-ignored)."""

from __future__ import annotations

import re

import pytest
from support.browser_pages import (
    SHOTS,
    board_text,
    browser_module_marks,
    cell,
    focused_cell,
    wait_for_ply,
)

from ttt_solver import Oracle
from ttt_solver.game import rules

pytestmark = browser_module_marks()


@pytest.fixture(scope="module")
def oracle(db_path):
    return Oracle.load(db_path)


def test_the_page_loads_with_no_console_errors_and_shows_the_empty_board(page, base_url, oracle):
    page.goto(base_url + "/")
    wait_for_ply(page, 0)
    assert page.locator("#board .cell").count() == 9
    assert page.locator("#status").inner_text() == "X to move: a draw with perfect play, 9 plies to the end."
    first = oracle.probe(".........")
    assert [int(li.split()[0]) for li in page.locator("#moves li").all_inner_texts()] == [m.cell for m in first.moves]
    assert page.locator("#error").is_hidden()
    assert page.console_errors == []


def test_clicking_a_cell_plays_it_updates_colours_and_moves_and_the_opponent_replies(page, base_url, oracle):
    page.goto(base_url + "/?variant=3x3&play=O")
    wait_for_ply(page, 0)
    cell(page, 1).click()  # an edge: X keeps the draw, and the perfect opponent replies
    wait_for_ply(page, 2)
    board = board_text(page)
    assert board[1] == "X" and board.count("O") == 1
    reply = board.index("O")
    assert reply in oracle.probe(".X.......").preferred_moves  # a perfect reply
    position = oracle.probe(board)
    for move in position.moves:
        classes = cell(page, move.cell).get_attribute("class")
        assert {1: "win", 0: "draw", -1: "loss"}[move.value] in classes.split()
        assert cell(page, move.cell).inner_text() == f"{'WDL'[1 - move.value]}{move.remoteness}"
    listed = [int(li.split()[0]) for li in page.locator("#moves li").all_inner_texts()]
    assert listed == [m.cell for m in position.moves]
    assert f"moves=1,{reply}" in page.url
    assert page.console_errors == []


def test_hover_shows_value_and_remoteness(page, base_url):
    page.goto(base_url + "/?variant=3x3&moves=0,4")
    wait_for_ply(page, 2)
    cell(page, 8).hover()
    assert (
        page.locator("#detail").inner_text()
        == "Cell 8: X plays here, then a draw (7 plies to the end); a preferred move"
    )
    cell(page, 2).focus()
    assert page.locator("#detail").inner_text().startswith("Cell 2: X plays here")


def test_a_bad_move_is_marked_in_the_value_history(page, base_url, oracle):
    before = oracle.probe(rules.from_moves([0]))
    edge = next(m for m in before.moves if m.cell == 1)
    assert edge.value < before.value  # after a corner, the edge throws O's draw away
    page.goto(base_url + "/?variant=3x3&moves=0")
    wait_for_ply(page, 1)
    assert page.locator("svg.chart circle.mistake").count() == 0
    cell(page, 1).click()
    wait_for_ply(page, 2)
    assert page.locator("svg.chart circle.dot").count() == 3
    assert page.locator("svg.chart circle.mistake").count() == 1
    assert page.locator("#mistakes").inner_text() == "Ply 2: O played 1, turning a draw into a loss."


def test_undo_and_redo(page, base_url):
    page.goto(base_url + "/?variant=3x3")
    wait_for_ply(page, 0)
    for n, c in enumerate([4, 0, 8], start=1):
        cell(page, c).click()
        wait_for_ply(page, n)
    assert board_text(page) == "O...X...X"
    page.click("#undo")
    wait_for_ply(page, 2)
    assert board_text(page) == "O...X...."
    page.keyboard.press("u")
    wait_for_ply(page, 1)
    page.click("#redo")
    wait_for_ply(page, 2)
    page.keyboard.press("r")
    wait_for_ply(page, 3)
    assert board_text(page) == "O...X...X" and page.locator("#redo").is_disabled()
    assert page.console_errors == []


def test_keyboard_plays_a_move(page, base_url):
    page.goto(base_url + "/?variant=3x3")
    wait_for_ply(page, 0)
    cell(page, 0).focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    wait_for_ply(page, 1)
    assert board_text(page) == "....X...."


def test_the_shared_url_round_trips(own_page, browser, base_url):
    page = own_page  # its context gets clipboard permissions
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(base_url + "/?variant=3x3")
    wait_for_ply(page, 0)
    for n, c in enumerate([4, 0, 8], start=1):
        cell(page, c).click()
        wait_for_ply(page, n)
    shared, shown = page.url, board_text(page)
    assert shared == base_url + "/?variant=3x3&moves=4,0,8"  # commas as README writes them, not %2C
    page.click("#share")
    page.get_by_text("Link copied").wait_for()
    assert page.evaluate("navigator.clipboard.readText()") == shared
    other = browser.new_page()
    for link in [shared, base_url + "/?variant=3x3&moves=4%2C0%2C8"]:  # the links shared before load too
        other.goto(link)
        wait_for_ply(other, 3)
        assert board_text(other) == shown == "O...X...X"
        assert other.locator("#status").inner_text() == page.locator("#status").inner_text()
        assert other.locator("svg.chart circle.dot").count() == 4  # the history is restored too
        assert other.url == shared
    for query in ["variant=3x3-misere&board=X...O....&moves=8,2", "variant=3x4k3&moves=0,11,5&skill=0.5"]:
        other.goto(f"{base_url}/?{query}")
        other.wait_for_function("document.querySelector('#board .cell.last')")
        assert other.url == f"{base_url}/?{query}" and other.locator("#error").is_hidden()
    other.close()


def test_switching_to_4x4_works_and_a_screenshot_is_clear(page, base_url, db_4x4_or_none):
    if db_4x4_or_none is None:
        pytest.skip("no 4x4 database")
    page.goto(base_url + "/?variant=3x3")
    wait_for_ply(page, 0)
    page.select_option("#variant", "4x4")
    page.wait_for_function("document.querySelectorAll('#board .cell').length === 16")
    for n, c in enumerate([12, 10, 15, 9, 13, 8], start=1):  # X can win at once, or lose, or draw
        cell(page, c).click()
        wait_for_ply(page, n)
    assert re.search(r"variant=4x4", page.url) and board_text(page) == "........OOO.XX.X"
    assert page.locator("#moves li").count() == 10
    assert page.locator("#status").inner_text() == "X to move: X wins in 1 ply."
    cell(page, 14).hover()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "explorer-4x4.png"), full_page=True)
    assert page.console_errors == []


def test_a_mid_game_3x3_screenshot(page, base_url):
    page.goto(base_url + "/?variant=3x3&moves=0,2,1")  # O to move: wins, draws and losses
    wait_for_ply(page, 3)
    assert {"win", "draw", "loss"} <= set(
        " ".join(page.locator("#board .cell").evaluate_all("c => c.map(x => x.className)")).split()
    )
    cell(page, 5).hover()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "explorer-3x3.png"), full_page=True)
    phone = page.context.browser.new_page(viewport={"width": 375, "height": 740})
    phone.goto(base_url + "/?variant=3x3&moves=0,2,1")
    wait_for_ply(phone, 3)
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 375, "no sideways scrolling on a phone"
    phone.screenshot(path=str(SHOTS / "explorer-phone.png"), full_page=True)
    phone.close()


@pytest.mark.parametrize(
    ("query", "message", "ply"),
    [
        ("board=XXXXXXXXX", "illegal board 'XXXXXXXXX': wrong piece counts", 0),
        ("variant=3x3&board=X..&moves=1", "invalid board 'X..': expected 9 cells, got 3", 0),
        ("moves=4,4", "invalid move 4: cell 4 of '....X....' is taken", 1),  # the legal part is kept
        ("moves=0,x", "invalid move", 1),
        ("board=X...O....&moves=8,8", "move 8 is not legal on 'X...O...X'", 3),
        ("variant=9x9", "variant '9x9' is not served here", 0),
        ("variant=9x9&board=XXXXXXXXX&moves=4", "variant '9x9' is not served here", 0),
        ("variant=%3Cb%3Ex%3C%2Fb%3E", "variant '<b>x</b>' is not served here", 0),
    ],
)
def test_a_bad_address_shows_the_message_above_a_working_page(page, base_url, query, message, ply):
    page.goto(f"{base_url}/?{query}")
    page.wait_for_selector("#error:not([hidden])")
    wait_for_ply(page, ply)
    assert page.locator("#error").inner_text().startswith(message)
    # a served variant's board, a working selector, Undo only when there is a move to take back
    assert page.locator("#board .cell").count() == 9
    assert page.locator("#variant").input_value() == "3x3"
    assert "3x3" in page.locator("#variant option").all_inner_texts()[0]
    assert page.locator("#undo").is_disabled() == (ply == 0)
    assert "variant=3x3" in page.url  # the address names what is shown
    free = board_text(page).index(".")
    cell(page, free).click()
    wait_for_ply(page, ply + 1)
    assert page.locator("#error").is_hidden()  # a working move clears the message
    if "board=X...O...." in query:  # a legal start board is kept to restart from
        page.click("#restart")
        wait_for_ply(page, 2)
    page.click("#new")
    wait_for_ply(page, 0)
    page.select_option("#variant", "3x3-misere")
    page.wait_for_function("document.querySelector('#rules').textContent.startsWith('Misère')")
    assert page.locator("#variant").input_value() == "3x3-misere" and board_text(page) == "." * 9
    # only the refused requests themselves are logged, no script error
    assert all("Failed to load resource" in error for error in page.console_errors)


def test_variant_names_in_the_address_ignore_case(page, base_url):
    page.goto(f"{base_url}/?variant=3X3-Misere&moves=4")
    wait_for_ply(page, 1)
    assert page.locator("#variant").input_value() == "3x3-misere"
    assert page.locator("#error").is_hidden() and "variant=3x3-misere" in page.url


def test_keyboard_focus_stays_on_the_board_after_moves_undo_and_redo(page, base_url, oracle):
    page.goto(base_url + "/?variant=3x3")
    wait_for_ply(page, 0)
    cell(page, 0).focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    wait_for_ply(page, 1)
    assert focused_cell(page) == 1  # the cell just played
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    wait_for_ply(page, 2)
    assert board_text(page) == ".X..O...." and focused_cell(page) == 4
    page.keyboard.press("u")
    wait_for_ply(page, 1)
    assert focused_cell(page) == 4  # the cell taken back, free again
    page.keyboard.press("r")
    wait_for_ply(page, 2)
    assert focused_cell(page) == 4
    page.keyboard.press("ArrowLeft")  # the arrow keys still work
    assert focused_cell(page) == 3
    page.keyboard.press("n")
    wait_for_ply(page, 0)
    assert focused_cell(page) == 3
    # a move chosen in the list: focus goes to the board, on the cell played
    first = oracle.probe("." * 9).moves[0].cell
    page.locator("#moves button.move").first.click()
    wait_for_ply(page, 1)
    assert focused_cell(page) == first


def test_keyboard_focus_stays_on_the_board_through_the_computers_reply(page, base_url):
    page.goto(base_url + "/?variant=3x3&play=O")
    wait_for_ply(page, 0)
    cell(page, 4).focus()
    page.keyboard.press("Enter")
    wait_for_ply(page, 2)  # X's move and the computer's reply
    assert focused_cell(page) == 4
    page.keyboard.press("ArrowUp")
    assert focused_cell(page) == 1
    page.keyboard.press("u")  # takes back the reply and the move
    wait_for_ply(page, 0)
    assert focused_cell(page) == 4


def test_the_focus_ring_is_not_the_last_move_marker(page, base_url):
    page.goto(base_url + "/?variant=3x3&moves=4")
    wait_for_ply(page, 1)
    cell(page, 4).focus()
    page.keyboard.press("ArrowLeft")
    assert page.evaluate("document.activeElement.matches(':focus-visible')")
    style = """el => { const c = getComputedStyle(el);
        return {outline: c.outlineStyle, width: parseFloat(c.outlineWidth), colour: c.outlineColor,
                shadow: c.boxShadow, background: c.backgroundColor}; }"""
    ring = cell(page, 3).evaluate(style)
    last = cell(page, 4).evaluate(style)
    assert ring["outline"] != "none" and ring["width"] >= 2
    assert last["outline"] == "none"  # the last move is not marked by a ring
    assert ring["colour"] not in (last["shadow"], last["background"])
    assert ring["colour"] not in last["shadow"], "the focus ring must not look like the last-move marker"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#board").screenshot(path=str(SHOTS / "explorer-focus.png"))


def hint_is_current(page) -> bool:
    """The hint line says the default hint or describes a cell of the board shown now."""
    labels = page.locator("#board .cell").evaluate_all("cells => cells.map(c => c.getAttribute('aria-label'))")
    shown = page.locator("#detail").inner_text()
    return shown in labels or shown.startswith("Hover over or focus a cell")


def test_the_hint_line_follows_the_position(page, base_url):
    page.goto(base_url + "/?variant=3x3&moves=0,4")
    wait_for_ply(page, 2)
    cell(page, 8).hover()
    before = page.locator("#detail").inner_text()
    assert before.startswith("Cell 8: X plays here")
    cell(page, 8).click()
    wait_for_ply(page, 3)
    assert page.locator("#detail").inner_text() == "Cell 8: X, the last move"
    page.keyboard.press("u")
    wait_for_ply(page, 2)
    assert page.locator("#detail").inner_text() == before
    page.mouse.move(0, 0)
    assert page.locator("#detail").inner_text() == before  # the focused cell, still there
    page.click("#new")
    wait_for_ply(page, 0)
    assert hint_is_current(page)


def test_notices_go_away_after_a_few_seconds_or_at_the_next_action(own_page, base_url):
    page = own_page  # its context gets clipboard permissions and a fake clock
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.clock.install()
    page.goto(base_url + "/?variant=3x3&moves=0")
    wait_for_ply(page, 1)
    copied = page.get_by_text("Link copied")
    page.click("#share")
    copied.wait_for(state="visible")
    assert page.evaluate("navigator.clipboard.readText()") == page.url
    page.clock.run_for(5_000)  # the page's timers run 5 s on; nothing else does
    copied.wait_for(state="hidden", timeout=2_000)
    page.click("#share")
    copied.wait_for(state="visible")
    page.keyboard.press("u")
    wait_for_ply(page, 0)
    assert copied.count() == 0 or not copied.is_visible()
    assert hint_is_current(page)


def test_the_api_docs_render_offline(own_page, base_url):
    page = own_page  # it gets a listener of every request
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(base_url + "/docs")
    page.wait_for_selector(".swagger-ui .opblock", timeout=15_000)
    assert page.locator(".swagger-ui .opblock").count() >= 4
    assert all(url.startswith((base_url, "data:")) for url in requested), requested
    assert page.console_errors == []
