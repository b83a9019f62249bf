"""In Chromium at 1280 px: the proverb list's buttons never cover the curation banner's links."""

import pytest

from tests.browser.helpers import guide_picture
from tests.factories import proverb_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def overlaps(a: dict, b: dict) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def test_banner_links_are_clear_of_the_list_buttons_at_1280px(live_server, browser, researcher):
    proverb_create("A rolling stone gathers no moss", status="curated")
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(f"{live_server.url}/admin/annotation/proverb/")
    page.fill("#id_username", "researcher")
    page.fill("#id_password", "researcher-pass")
    page.click("input[type=submit]")
    page.wait_for_selector("#curation-progress")
    page.wait_for_load_state()  # the whole page parsed and its stylesheets applied
    guide_picture(page, "proverb-list", element=page.locator("#content"))
    buttons = [b.bounding_box() for b in page.locator(".object-tools a").all()]
    links = [link.bounding_box() for link in page.locator("#curation-progress a").all()]
    assert buttons and links
    for link in links:
        assert not any(overlaps(link, button) for button in buttons)
        # nothing else is drawn on top of the link's centre
        centre = (link["x"] + link["width"] / 2, link["y"] + link["height"] / 2)
        on_top = page.evaluate(
            "([x, y]) => document.elementFromPoint(x, y).closest('a')?.href", centre
        )
        assert on_top and "/admin/" in on_top
    context.close()
