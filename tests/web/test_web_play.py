"""The explorer as a place to play, in a real headless Chromium (see tests/support/browser_pages.py),
as a new user met it (issue 39): a play mode that hides the analysis and is kept in the link,
buttons named for what they do, a refused Skill that does not outlive the game it was typed in,
a hint that says what to do once the game is over, the moves right after the board on a phone,
and a board editor whose boards the API judges as it judges typed ones. Screenshots go to
benchmarks/output/ (git-ignored)."""

from __future__ import annotations

import json
from urllib.error import HTTPError
from urllib.request import urlopen

import pytest
from support.browser_pages import (
    DESKTOP,
    PHONE,
    SHOTS,
    board_text,
    browser_module_marks,
    cell,
    focused_cell,
    open_page,
    wait_for_ply,
)

from ttt_solver import Oracle
from ttt_solver.game import rules

pytestmark = browser_module_marks()

OUTCOMES = {"win", "draw", "loss", "best"}


@pytest.fixture(scope="module")
def oracle(db_path):
    return Oracle.load(db_path)


def api_message(base_url: str, board: str) -> str:
    """What the API says of a board it refuses (the error's one line)."""
    with pytest.raises(HTTPError) as refused:
        urlopen(f"{base_url}/api/v1/3x3?board={board}")
    body = json.load(refused.value)
    error = body.get("error", body.get("detail"))
    return error if isinstance(error, str) else error["message"]


def shows_no_analysis(page) -> None:
    """Nothing on the page tells a move's value: no colour class, label or underline on the
    board, no value in a cell's words, no listed move, line, history or '?' mark."""
    classes = page.locator("#board .cell").evaluate_all("cells => cells.map(c => [...c.classList])")
    assert not OUTCOMES & {name for names in classes for name in names}
    assert page.locator("#board .cell .label").count() == 0
    labels = page.locator("#board .cell").evaluate_all("cells => cells.map(c => c.getAttribute('aria-label'))")
    assert not [words for words in labels if "wins" in words or "draw" in words or "preferred" in words]
    for selector in ["#moves", "#line", "#chart", "#mistakes", ".legend"]:
        assert page.locator(selector).is_hidden(), selector
    assert page.locator("#moves li").count() == 0 and page.locator("#line button").count() == 0
    assert "?" not in page.locator("#played").inner_text()
    assert page.locator("#status").inner_text() in ("X to move.", "O to move.") or page.locator(
        "#status"
    ).inner_text().startswith("Game over")


def test_play_mode_hides_the_analysis_keeps_it_in_the_link_and_reveals_it_on_request(page, base_url, oracle):
    page.goto(f"{base_url}/?variant=3x3&play=O")
    wait_for_ply(page, 0)
    assert page.locator("#board .cell .label").count() == 9  # the analysis, until it is hidden
    page.check("#hide-analysis")
    page.wait_for_url("**analysis=hidden")
    shows_no_analysis(page)
    cell(page, 4).click()
    wait_for_ply(page, 2)  # the computer still replies, and nothing tells its move's value
    shows_no_analysis(page)
    cell(page, board_text(page).index(".")).hover()
    assert page.locator("#detail").inner_text().endswith("X plays here")
    # the link keeps the mode: a page opened from it hides the analysis too
    link = page.url
    assert "play=O" in link and "analysis=hidden" in link
    page.goto("about:blank")
    page.goto(link)
    wait_for_ply(page, 2)
    shows_no_analysis(page)
    assert page.locator("#hide-analysis").is_checked()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "explorer-play-mode.png"), full_page=True)
    # a move that threw value away is not marked either, until the analysis is shown
    page.goto(f"{base_url}/?variant=3x3&moves=0,1&analysis=hidden")
    wait_for_ply(page, 2)
    shows_no_analysis(page)
    page.get_by_role("button", name="Show analysis").click()
    page.wait_for_function("!location.search.includes('analysis=')")
    position = oracle.probe(rules.from_moves([0, 1]))
    assert [int(text.split()[0]) for text in page.locator("#moves li").all_inner_texts()] == [
        m.cell for m in position.moves
    ]
    assert page.locator("#board .cell .label").count() == len(position.moves)
    assert page.locator("#played").inner_text().count("?") == 1 and page.locator(".legend").is_visible()
    assert not page.locator("#hide-analysis").is_checked()
    page.go_back()  # Back keeps the mode of each entry: the page it came from had it hidden
    page.wait_for_function("document.querySelector('#hide-analysis').checked")
    shows_no_analysis(page)


def test_at_game_over_in_play_mode_the_hint_says_how_to_see_the_analysis(page, base_url):
    page.goto(f"{base_url}/?variant=3x3&moves=0,3,1,4&analysis=hidden")
    wait_for_ply(page, 4)
    cell(page, 2).click()  # X completes the top row
    wait_for_ply(page, 5)
    assert page.locator("#status").inner_text() == "Game over: X won."
    hint = page.locator("#detail").inner_text()
    assert hint.startswith("Game over.") and "New game" in hint and "Show analysis" in hint
    page.get_by_role("button", name="Show analysis").click()
    page.wait_for_function("!document.querySelector('#moves').closest('[hidden]')")
    assert page.locator("svg.chart circle.dot").count() == 6


def test_new_game_is_the_empty_board_and_restart_goes_back_to_the_set_up_position(page, base_url):
    page.goto(f"{base_url}/?variant=3x3")
    wait_for_ply(page, 0)
    assert page.locator("#restart").is_hidden()  # no set-up position: nothing to restart from
    page.goto(f"{base_url}/?variant=3x3&board=X...O....&moves=8")
    wait_for_ply(page, 3)
    restart = page.get_by_role("button", name="Restart from set-up position")
    assert restart.is_visible() and page.locator("#new").inner_text() == "New game"
    restart.click()
    wait_for_ply(page, 2)
    assert board_text(page) == "X...O...." and "board=X...O...." in page.url and "moves=" not in page.url
    cell(page, 8).click()
    wait_for_ply(page, 3)
    page.get_by_role("button", name="New game").click()
    wait_for_ply(page, 0)
    assert board_text(page) == "." * 9 and "board=" not in page.url
    assert restart.is_hidden()
    page.go_back()  # the set-up game is one Back away
    wait_for_ply(page, 3)
    page.keyboard.press("n")  # the key does what the button named New game does
    wait_for_ply(page, 0)
    assert "board=" not in page.url


def test_a_refused_skill_does_not_outlive_a_variant_change_and_a_correction_clears_it(page, base_url):
    page.goto(f"{base_url}/?variant=3x3&play=O&skill=0.5")
    wait_for_ply(page, 0)
    skill, problem = page.locator("#skill"), page.locator("#skill-problem")
    page.fill("#skill", "7")
    page.press("#skill", "Tab")
    problem.wait_for(state="visible")
    assert skill.get_attribute("aria-invalid") == "true" and skill.input_value() == "7"
    page.select_option("#variant", "3x4k3")
    page.wait_for_function("document.querySelectorAll('#board .cell').length === 12")
    problem.wait_for(state="hidden")  # the field shows the skill in play again, not in red
    assert skill.input_value() == "0.5" and skill.get_attribute("aria-invalid") == "false"
    assert "skill=0.5" in page.url
    # a corrected value clears the message as it is typed, before the field is left
    page.fill("#skill", "-2")
    page.press("#skill", "Tab")
    problem.wait_for(state="visible")
    skill.click()  # back in the field: the key strokes that correct it
    page.keyboard.press("Control+A")
    page.keyboard.type("0.8")
    problem.wait_for(state="hidden")
    assert skill.get_attribute("aria-invalid") == "false" and page.evaluate("document.activeElement.id") == "skill"
    page.wait_for_url("**skill=0.8")


@pytest.mark.parametrize("start", ["", "&board=X...O...."])
def test_at_game_over_the_hint_says_what_to_do_now(page, base_url, start):
    moves = "1,8" if start else "0,3,1,4"  # X completes the top row with 2 next
    page.goto(f"{base_url}/?variant=3x3{start}&moves={moves}")
    wait_for_ply(page, 4)
    winning = 2
    cell(page, winning).click()
    page.wait_for_function("document.querySelector('#status').textContent.startsWith('Game over')")
    hint = page.locator("#detail")
    for pointed in [None, 7, winning]:  # nothing, an empty cell, the winning move: the same advice
        if pointed is not None:
            cell(page, pointed).hover()
        text = hint.inner_text()
        assert text.startswith("Game over.") and "New game" in text, text
        assert "Hover" not in text and "click it" not in text
        assert ("Restart from set-up position" in text) == bool(start)
    assert "value history" in hint.inner_text()  # where the game was won or lost


@pytest.mark.parametrize("variant", ["3x3", "3x4k3"])
def test_on_a_phone_the_moves_and_the_perfect_line_come_right_after_the_board(browser, base_url, variant):
    with open_page(browser, **PHONE) as phone:
        phone.goto(f"{base_url}/?variant={variant}&moves=0,2")
        wait_for_ply(phone, 2)
        boxes = {
            name: phone.locator(selector).bounding_box()
            for name, selector in [
                ("detail", "#detail"),
                ("moves", "h2:text('Moves, best first')"),
                ("line", "#line"),
                ("legend", ".legend"),
                ("setup", "#position-form"),
            ]
        }
        below_hint = boxes["moves"]["y"] - (boxes["detail"]["y"] + boxes["detail"]["height"])
        assert 0 <= below_hint <= 60, f"the moves start {below_hint:.0f} px below the hint line"
        assert boxes["moves"]["y"] < 844, "the moves start on the first screen"
        assert boxes["line"]["y"] < boxes["legend"]["y"] and boxes["line"]["y"] < boxes["setup"]["y"]
        SHOTS.mkdir(parents=True, exist_ok=True)
        phone.screenshot(path=str(SHOTS / f"explorer-phone-moves-{variant}.png"), full_page=True)
    with open_page(browser, **DESKTOP) as desk:  # a wide screen keeps the analysis beside the board
        desk.goto(f"{base_url}/?variant={variant}&moves=0,2")
        wait_for_ply(desk, 2)
        board, moves = desk.locator("#board").bounding_box(), desk.locator("#moves").bounding_box()
        assert moves["x"] >= board["x"] + board["width"] and moves["y"] < board["y"] + board["height"]
        legend = desk.locator(".legend").bounding_box()
        assert legend["x"] == board["x"] and legend["y"] > board["y"] + board["height"]
        desk.screenshot(path=str(SHOTS / f"explorer-desktop-{variant}.png"))


def test_a_position_can_be_placed_on_the_board_and_the_api_judges_it(page, base_url, oracle):
    page.goto(f"{base_url}/?variant=3x3&moves=4")
    wait_for_ply(page, 1)
    page.get_by_role("button", name="Edit on the board").click()
    page.locator("#editor").wait_for(state="visible")
    status = page.locator("#edit-status")
    assert board_text(page) == "....X...."  # the editor starts from the board shown
    assert page.locator("#status").inner_text().startswith("Editing the board")
    cell(page, 0).click()  # the chosen piece, X: a board X cannot have
    page.wait_for_function("document.querySelector('#edit-status').classList.contains('problem')")
    assert status.inner_text() == api_message(base_url, "X...X....")  # the API's own words
    assert page.locator("#position").input_value() == "X...X...."
    assert page.locator("#position").get_attribute("aria-invalid") == "true"
    hint = page.locator("#detail").inner_text()  # how to place a piece, even on a cell pointed at
    assert hint.startswith("Click a cell to place the chosen piece") and "type x, o or ." in hint
    page.get_by_role("button", name="O", exact=True).click()
    cell(page, 8).click()
    page.wait_for_function("!document.querySelector('#edit-status').classList.contains('problem')")
    position = oracle.probe("X...X...O")
    assert status.inner_text().startswith(f"{position.to_move} to move")
    assert page.locator("#position").get_attribute("aria-invalid") is None
    # the keys: x, o and . (or Delete) on a focused cell
    cell(page, 2).focus()
    page.keyboard.press("o")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("x")
    page.wait_for_function("document.querySelector('#position').value === 'XXO.X...O'")
    assert board_text(page) == "XXO.X...O" and focused_cell(page) == 1
    page.keyboard.press("Delete")
    for taken in [2, 8]:  # a click with the piece a cell holds (O) empties it
        cell(page, taken).click()
    page.wait_for_function("document.querySelector('#position').value === 'X...X....'")
    page.wait_for_function("document.querySelector('#edit-status').classList.contains('problem')")
    assert status.inner_text() == api_message(base_url, "X...X....")
    # setting up an illegal board: the same message as for the same board typed, the game kept
    page.get_by_role("button", name="Set up this position").click()
    page.wait_for_selector("#error:not([hidden])")
    assert page.locator("#error").inner_text() == api_message(base_url, "X...X....")
    assert page.locator("#editor").is_visible() and "board=" not in page.url
    page.get_by_role("button", name="Clear").click()
    page.wait_for_function("document.querySelector('#position').value === '.........'")
    assert board_text(page) == "." * 9
    page.keyboard.press("Escape")  # leaves the editor: the game's board again
    page.locator("#editor").wait_for(state="hidden")
    assert board_text(page) == "....X...." and page.locator("#board .cell .label").count() == 8
    # a legal board set up from the editor is played from, as a typed one is
    page.get_by_role("button", name="Edit on the board").click()
    cell(page, 0).focus()
    page.keyboard.press("o")
    page.wait_for_function("!document.querySelector('#edit-status').classList.contains('problem')")
    page.get_by_role("button", name="Set up this position").click()
    page.locator("#editor").wait_for(state="hidden")
    wait_for_ply(page, 2)
    assert board_text(page) == "O...X...." and "board=O...X...." in page.url
    assert page.get_by_role("button", name="Restart from set-up position").is_visible()
    assert all("Failed to load resource" in error for error in page.console_errors)  # the refused boards


def test_the_editor_at_desktop_and_phone_sizes(browser, base_url):
    for name, size in [("desktop", DESKTOP), ("phone", PHONE)]:
        with open_page(browser, **size) as page:
            page.goto(f"{base_url}/?variant=3x3&moves=4,0")
            wait_for_ply(page, 2)
            page.get_by_role("button", name="Edit on the board").click()
            page.locator("#editor").wait_for(state="visible")
            (cell(page, 8).tap if name == "phone" else cell(page, 8).click)()
            page.wait_for_function("document.querySelector('#edit-status').textContent !== ''")
            board, editor = page.locator("#board").bounding_box(), page.locator("#editor").bounding_box()
            assert 0 <= editor["y"] - (board["y"] + board["height"]) <= 20, "the pieces right under the board"
            assert editor["y"] + editor["height"] <= size["viewport"]["height"], "board and pieces on one screen"
            assert page.evaluate("document.documentElement.scrollWidth") <= size["viewport"]["width"]
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / f"explorer-editor-{name}.png"))
