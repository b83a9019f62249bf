"""In Chromium: the API documentation page lists the API's operations under the site's CSP."""

import pytest

from tests.browser.helpers import admin_login, csp_violations, guide_picture

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_api_docs_list_the_operations(live_server, page, researcher):
    violations = csp_violations(page)
    admin_login(page, live_server, researcher)
    page.goto(f"{live_server.url}/api/docs/")
    page.wait_for_selector(".opblock")
    paths = page.locator(".opblock-summary-path").all_inner_texts()
    assert "/api/proverbs/" in [path.replace("\u200b", "") for path in paths]
    assert len(paths) > 10
    guide_picture(page, "api-docs")
    assert violations == []
