"""In Chromium at a laptop's 1366 px: the narrative review list gives the story a readable
width, and its other columns and the filters collapse and come back on demand."""

import pytest
from playwright.sync_api import expect

from tests.browser.test_write_task import admin_login
from tests.factories import (
    BIRDS,
    BIRDS_STORY,
    crowd_narrative_create,
    proverb_create,
    write_batch_create,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SECONDARY = ("word_count", "overlap_summary", "time_taken", "worker", "source")


def test_the_story_is_readable_at_1366_px_and_the_rest_collapses(live_server, page, researcher):
    batch = write_batch_create(proverbs=[proverb_create(BIRDS)])
    for _ in range(2):
        crowd_narrative_create(proverb=batch.items.get().proverb, batch=batch, text=BIRDS_STORY)
    page.set_viewport_size({"width": 1366, "height": 768})
    admin_login(page, live_server, researcher)
    page.goto(f"{live_server.url}/admin/annotation/narrative/")
    story = page.locator("#result_list td.field-excerpt").first
    expect(page.locator("[data-testid=toggle-details]")).to_have_text("Show details")
    for column in SECONDARY:
        expect(page.locator(f"#result_list td.field-{column}").first).to_be_hidden()
    expect(page.locator("#changelist-filter")).to_be_hidden()
    assert story.bounding_box()["width"] >= 380
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366

    page.click("[data-testid=toggle-details]")
    for column in SECONDARY:
        expect(page.locator(f"#result_list td.field-{column}").first).to_be_visible()
    assert story.bounding_box()["width"] >= 380
    page.reload()  # the choice is kept
    expect(page.locator("#result_list td.field-worker").first).to_be_visible()
    expect(page.locator("[data-testid=toggle-details]")).to_have_text("Hide details")
    page.click("[data-testid=toggle-filters]")
    expect(page.locator("#changelist-filter")).to_be_visible()
