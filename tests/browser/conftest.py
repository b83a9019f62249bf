"""Fixtures of the browser tests beyond tests/conftest.py's."""

import pytest


@pytest.fixture
def clipboard_page(browser):
    """A page whose scripts may read and write the clipboard (copy and paste tests)."""
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    context.set_default_timeout(15_000)
    yield context.new_page()
    context.close()
