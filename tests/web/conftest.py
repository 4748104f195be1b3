"""The browser tests' fixtures (tests/support/browser_pages.py): one explorer server and one
Chromium per test process, shared by test_web_browser, test_web_layout and test_web_page; a
module's own fixture of the same name (test_web_api's db_4x4_or_none) takes precedence."""

from support.browser_pages import base_url_fixture, browser_fixture, db_4x4_fixture, page_fixture

__all__ = ["base_url_fixture", "browser_fixture", "db_4x4_fixture", "page_fixture"]
