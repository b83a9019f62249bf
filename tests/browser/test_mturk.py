"""In Chromium against the MTurk stand-in: a researcher confirms the cost and publishes,
a worker accepts a HIT on the stand-in's worker site and writes in the framed
ExternalQuestion page, the form reaches externalSubmit, sync links the answer, and the
researcher approves and pays a bonus once."""

import pytest
from playwright.sync_api import expect

from crowd.models import Assignment
from mturk.models import HIT
from tests.browser.test_write_task import admin_login
from tests.factories import BIRDS, BIRDS_STORY, mturk_batch_create, proverb_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_publish_work_sync_approve_and_bonus_end_to_end(
    live_server, browser, page, researcher, standin, settings
):
    settings.PARABLE_PUBLIC_URL = live_server.url
    proverbs = [proverb_create(BIRDS)] + [proverb_create() for _ in range(4)]
    batch = mturk_batch_create(proverbs=proverbs, target_per_item=2, publish=False)

    admin_login(page, live_server, researcher)
    page.goto(f"{live_server.url}/admin/mturk/publication/batch/{batch.pk}/")
    page.get_by_test_id("estimate").click()
    # 5 HITs × 2 assignments × $0.50 = $5.00, plus 20% commission (fewer than 10 per HIT).
    expect(page.get_by_test_id("total")).to_have_text("$6.00")
    page.get_by_test_id("confirm-publish").click()
    expect(page.get_by_test_id("batch-status")).to_have_text("Published")
    expect(page.get_by_test_id("hit")).to_have_count(5)
    assert len(standin.state.hits) == 5

    hit = HIT.objects.get(item__proverb=proverbs[0])
    worker_context = browser.new_context()
    worker_page = worker_context.new_page()
    worker_page.goto(f"{standin.url}/accept?hit={hit.hit_id}&worker=A1WORKERX")
    frame = worker_page.frame_locator("[data-testid=task-frame]")
    expect(frame.locator("#proverb")).to_have_text(BIRDS)
    frame.locator("body[data-ready=true]").wait_for(state="attached")
    frame.get_by_test_id("narrative").fill(BIRDS_STORY)
    frame.get_by_test_id("submit").click()
    expect(frame.get_by_test_id("mturk-submitted")).to_be_visible()
    remote = next(iter(standin.state.assignments.values()))
    assert remote["AssignmentStatus"] == "Submitted"
    answer = Assignment.objects.get(provider_assignment_id=remote["AssignmentId"])
    assert answer.status == "submitted" and answer.worker.external_id == "A1WORKERX"
    worker_context.close()

    page.reload()
    page.get_by_test_id("sync").click()
    row = page.locator(f"[data-assignment='{remote['AssignmentId']}']")
    expect(row.get_by_test_id("answer-status")).to_have_text("Submitted")
    row.get_by_test_id("approve").click()
    expect(row.get_by_test_id("remote-status")).to_have_text("Approved")
    row.get_by_test_id("bonus-cents").fill("25")
    row.get_by_test_id("bonus-reason").fill("A vivid story")
    row.get_by_test_id("bonus").click()
    expect(row.get_by_test_id("bonus-total")).to_have_text("25¢")
    assert remote["AssignmentStatus"] == "Approved"
    assert [bonus["BonusAmount"] for bonus in standin.state.bonuses] == ["0.25"]
