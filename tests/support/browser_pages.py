"""Helpers of the explorer's browser tests: Debian's headless Chromium driven by Playwright, the
test server's variants, the fixtures tests/conftest.py takes from here (one server and one
browser per test process, shared by the browser modules; one page per module, navigated afresh
for each test), and reading the page (the board as text, the focused cell, a ply). Screenshots
go to benchmarks/output/ (git-ignored)."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from support.extra_markers import need
from support.web_servers import built_4x4, live_server, served_for

CHROMIUM = shutil.which("chromium")


def browser_module_marks() -> list[pytest.MarkDecorator]:
    """What a browser test module needs, as its ``pytestmark``: the [web] extra and Playwright
    (the module is skipped, naming them, without), and Debian's Chromium."""
    need("web", "fastapi")
    pytest.importorskip("playwright.sync_api")
    return [
        pytest.mark.web,
        pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (apt-get install chromium)"),
    ]


SHOTS = Path(__file__).resolve().parents[2] / "benchmarks" / "output"
# The page sizes the layout tests look at: a desktop window, and a phone held upright.
DESKTOP = {"viewport": {"width": 1280, "height": 800}}
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# Small variants served beside 3x3 and 4x4: a misère one, and one where the best moves (keep
# the value) and the preferred moves (value, then remoteness) differ.
EXTRA_VARIANTS = ("3x3-misere", "3x4k3")


@contextmanager
def explorer_server(db_3x3: Path, db_4x4: Path | None, variant_db: Callable[[str], Path]) -> Iterator[str]:
    """A uvicorn server of the app for 3x3, 4x4 (when built) and EXTRA_VARIANTS; its base URL."""
    from ttt_solver.web.app import create_app
    from ttt_solver.web.data import open_variant

    served = dict(served_for(db_3x3, db_4x4))
    for name in EXTRA_VARIANTS:
        served[name] = open_variant(variant_db(name))
    with live_server(create_app(served)) as url:
        yield url


@contextmanager
def chromium() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()


@contextmanager
def open_page(browser: Any, **options: Any) -> Iterator[Any]:
    """A page in a fresh context (desktop size unless ``options`` say otherwise) that records
    console errors in ``page.console_errors``."""
    context = browser.new_context(**{"viewport": {"width": 1000, "height": 820}, **options})
    page = context.new_page()
    page.set_default_timeout(10_000)  # a broken promise fails in seconds, not after 30 s
    page.console_errors = []
    page.on("console", lambda m: m.type == "error" and page.console_errors.append(m.text))
    page.on("pageerror", lambda e: page.console_errors.append(str(e)))
    yield page
    context.close()


# The fixtures, named so that tests/conftest.py imports them without the tests' arguments
# shadowing them. The server and the browser are the session's: started once per test process
# for the four browser modules (each start cost 1-2 s of CPU: Chromium's launch, the server's
# four databases opened), where each module started its own.
@pytest.fixture(scope="session", name="db_4x4_or_none")
def db_4x4_fixture(request: Any) -> Path | None:
    return built_4x4(request)


@pytest.fixture(scope="session", name="base_url")
def base_url_fixture(db_path: Path, db_4x4_or_none: Path | None, variant_db: Callable[[str], Path]) -> Iterator[str]:
    with explorer_server(db_path, db_4x4_or_none, variant_db) as url:
        yield url


@pytest.fixture(scope="session", name="browser")
def browser_fixture() -> Iterator[Any]:
    with chromium() as browser:
        yield browser


@pytest.fixture(scope="module", name="shared_page")
def shared_page_fixture(browser: Any) -> Iterator[Any]:
    """One desktop page for a module's tests. A fresh context per test cost Chromium more than
    the tests' own work: the three browser modules took 78-81 s of Chromium's CPU that way,
    and 41-44 s with one page each."""
    with open_page(browser) as page:
        yield page


@pytest.fixture(name="page")
def page_fixture(shared_page: Any) -> Iterator[Any]:
    """The module's page, on ``about:blank`` with no console error recorded: navigating away
    ends the previous test's document, its timers and its focus. A test that changes the
    context itself (permissions, a fake clock, an event listener) takes ``own_page``."""
    shared_page.goto("about:blank")
    shared_page.console_errors.clear()
    yield shared_page


@pytest.fixture(name="own_page")
def own_page_fixture(browser: Any) -> Iterator[Any]:
    """A page in a context of its own, closed after the test."""
    with open_page(browser) as page:
        yield page


def cell(page: Any, n: int) -> Any:
    return page.locator(f"#board .cell[data-cell='{n}']")


def board_text(page: Any) -> str:
    """The board as the page shows it (X, O, or . for an empty cell)."""
    marks = page.locator("#board .cell").evaluate_all(
        "cells => cells.map(c => c.classList.contains('mark') ? c.textContent : '.')"
    )
    return "".join(marks)


def focused_cell(page: Any) -> int | None:
    """The board cell that has keyboard focus, or None when focus is elsewhere."""
    found = page.evaluate("document.activeElement?.closest?.('#board') ? document.activeElement.dataset.cell : null")
    return None if found is None else int(found)


def wait_for_ply(page: Any, ply: int) -> None:
    page.wait_for_function(
        "n => [...document.querySelectorAll('#board .cell.mark')].length === n && !document.querySelector('#status:empty')",
        arg=ply,
    )
