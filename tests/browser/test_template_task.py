"""In Chromium: two realistic MTurk HIT templates, one of each shape, run end to end on the
local crowd and through the Prolific stand-in; then review, bonus, agreement and the results
CSV, checked column by column."""

import pytest
from playwright.sync_api import expect

from annotation.task_types.template.models import TemplateAnswer
from crowd.batches import batch_publish
from crowd.models import Assignment
from tests.annotation.task_types.template.helpers import template_batch
from tests.browser.helpers import csp_violations, page_troubles
from tests.browser.template_helpers import MTURK_HELPER, cdn_standin, hit_frame
from tests.factories import invite_path, worker_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def draft_kept(page, text: str) -> None:
    """Wait until the draft this browser keeps for the page holds `text`."""
    key = f"parable:draft:{Assignment.objects.get(status='reserved').pk}"
    page.wait_for_function(
        "([key, text]) => (localStorage.getItem(key) || '').includes(text)", arg=[key, text]
    )


@pytest.fixture
def context(browser):
    context = browser.new_context()
    context.set_default_timeout(15_000)
    yield context
    context.close()


def test_a_requester_layout_runs_on_the_local_crowd_and_its_draft_survives_a_reload(
    live_server, context
):
    batch = batch_publish(batch=template_batch(target_per_item=2))
    asked = cdn_standin(context)
    page = context.new_page()
    troubles, violations = page_troubles(page), csp_violations(page)
    page.goto(live_server.url + invite_path(worker=worker_create(), batch=batch))
    frame = hit_frame(page)
    expect(frame.locator("#review-text")).to_contain_text("battery barely lasts an hour")
    expect(frame.locator("#source")).to_have_attribute("title", "Collected from amazon.com")
    expect(frame.locator("input[name=sentiment][value=neutral]")).to_be_checked()
    frame.locator("input[name=sentiment][value=positive]").check()
    frame.locator("input[name=on_topic][value=yes]").check()
    frame.locator("select[name=topic]").select_option("electronics")
    frame.locator("input[name=aspects][value=price]").check()
    frame.locator("input[name=aspects][value=quality]").check()
    frame.locator("#explanation").press_sequentially("Fast delivery, weak battery")
    expect(page.get_by_test_id("draft-state")).to_have_text("Draft saved in this browser.")
    draft_kept(page, "weak battery")

    page.reload()
    frame = hit_frame(page)
    expect(page.get_by_test_id("draft-state")).to_have_text("Your draft was restored.")
    expect(frame.locator("input[name=sentiment][value=positive]")).to_be_checked()
    expect(frame.locator("#explanation")).to_have_value("Fast delivery, weak battery")
    frame.locator("#explanation").press_sequentially(", overall good.")
    frame.locator("#submitButton").click()
    expect(page.locator("#status")).to_contain_text("your answer is stored")
    expect(page.get_by_test_id("next-link")).to_be_visible()

    answer = TemplateAnswer.objects.get()
    assert answer.assignment.status == Assignment.Status.SUBMITTED
    assert {k: v for k, v in answer.answers.items() if k != "read_seconds"} == {
        "sentiment": "positive",
        "on_topic": "yes",
        "topic": "electronics",
        "aspects": "price|quality",
        "explanation": "Fast delivery, weak battery, overall good.",
    }
    assert answer.answers["read_seconds"].isdigit()  # filled by the template's jQuery on submit
    record = answer.writing["explanation"]
    assert record["typed"] == len("Fast delivery, weak battery, overall good.")
    assert set(answer.away) == {"tab_switches", "hidden_ms", "blurs", "blurred_ms"}
    assert MTURK_HELPER not in asked and "https://code.jquery.com/jquery-3.7.1.min.js" in asked
    assert troubles == [] and violations == []
