"""The browser tests' fixtures (tests/support/browser_pages.py): the explorer's server and
Chromium once per test process, shared by the browser modules; a page per module."""

from support.browser_pages import (  # noqa: F401 - the *_fixture names are fixtures
    base_url_fixture,
    browser_fixture,
    db_4x4_fixture,
    own_page_fixture,
    page_fixture,
    shared_page_fixture,
)
