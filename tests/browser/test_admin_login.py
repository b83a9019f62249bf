"""In Chromium: a researcher logs into the admin and sees the proverb list."""

import pytest
from playwright.sync_api import expect

from tests.factories import proverb_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_researcher_logs_in_and_sees_proverbs(live_server, page, researcher):
    proverb_create("A rolling stone gathers no moss", status="curated")
    proverb_create("Haste makes waste", status="candidate")
    page.goto(f"{live_server.url}/admin/annotation/proverb/")
    page.fill("#id_username", "researcher")
    page.fill("#id_password", "researcher-pass")
    page.click("input[type=submit]")
    page.wait_for_selector("#result_list")
    expect(page.locator("#result_list tbody tr")).to_have_count(2)
    assert "A rolling stone gathers no moss" in page.inner_text("#result_list")
    assert page.inner_text("[data-testid=curated-count]") == "1"
