"""In Chromium against the MTurk stand-in: a researcher publishes the batch,
a worker accepts a HIT on the stand-in's worker site and writes in the framed
ExternalQuestion page, the form reaches externalSubmit, sync links the answer, and the
researcher approves and pays a bonus once, then rejects, blocks, refills and expires."""

import pytest
from playwright.sync_api import expect

from crowd.models import Assignment
from mturk.models import HIT
from tests.browser.helpers import admin_login, guide_picture
from tests.factories import BIRDS, BIRDS_STORY, mturk_batch_create, proverb_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_publish_work_sync_approve_and_bonus_end_to_end(
    live_server, browser, page, researcher, standin, settings
):
    settings.PARABLE_PUBLIC_URL = live_server.url
    proverbs = [proverb_create(BIRDS)] + [proverb_create() for _ in range(4)]
    batch = mturk_batch_create(
        proverbs=proverbs, target_per_item=2, publish=False, name="Pilot on MTurk"
    )

    admin_login(page, live_server, researcher)
    page.goto(f"{live_server.url}/admin/mturk/publication/batch/{batch.pk}/")
    page.get_by_test_id("publish").click()
    expect(page.get_by_test_id("batch-status")).to_have_text("Published")
    expect(page.get_by_test_id("hit")).to_have_count(5)
    assert len(standin.state.hits) == 5

    hit = HIT.objects.get(item__proverb=proverbs[0])
    worker_context = browser.new_context()
    worker_page = worker_context.new_page()
    for worker_id in ("A1WORKERX", "A2WORKERY"):
        worker_page.goto(f"{standin.url}/accept?hit={hit.hit_id}&worker={worker_id}")
        frame = worker_page.frame_locator("[data-testid=task-frame]")
        expect(frame.locator("#proverb")).to_have_text(BIRDS)
        frame.locator("body[data-ready=true]").wait_for(state="attached")
        frame.get_by_test_id("narrative").fill(BIRDS_STORY)
        if worker_id == "A1WORKERX":
            guide_picture(worker_page, "mturk-worker-site")
        frame.get_by_test_id("submit").click()
        expect(frame.get_by_test_id("mturk-submitted")).to_be_visible()
    remote, other = sorted(standin.state.assignments.values(), key=lambda a: a["AcceptTime"])
    assert remote["AssignmentStatus"] == "Submitted"
    answer = Assignment.objects.get(provider_assignment_id=remote["AssignmentId"])
    # Stored, but counting for nothing until MTurk's records confirm it (sync).
    assert answer.status == "unconfirmed" and answer.worker.external_id == "A1WORKERX"
    worker_context.close()

    page.reload()
    page.get_by_test_id("sync").click()
    row = page.locator(f"[data-assignment='{remote['AssignmentId']}']")
    expect(row.get_by_test_id("answer-status")).to_have_text("Submitted")
    row.get_by_test_id("approve").click()
    expect(row.get_by_test_id("remote-status")).to_have_text("Approved")
    row.get_by_test_id("bonus-amount").fill("0.25")
    row.get_by_test_id("bonus-reason").fill("A vivid story")
    row.get_by_test_id("bonus").click()
    expect(row.get_by_test_id("bonus-total")).to_have_text("0.25 USD")
    assert remote["AssignmentStatus"] == "Approved"
    assert [bonus["BonusAmount"] for bonus in standin.state.bonuses] == ["0.25"]

    # The second story is rejected, its worker blocked, the slot refilled, another HIT expired.
    row = page.locator(f"[data-assignment='{other['AssignmentId']}']")
    row.get_by_test_id("reject-feedback").fill("The story does not show the proverb.")
    row.get_by_test_id("reject").click()
    expect(row.get_by_test_id("remote-status")).to_have_text("Rejected")
    row.get_by_test_id("block-reason").fill("Off-topic work")
    row.get_by_test_id("block").click()
    expect(row.get_by_test_id("unblock")).to_be_visible()
    assert standin.state.blocks == {"A2WORKERY": "Off-topic work"}
    hit_box = page.locator(f"[data-hit='{hit.hit_id}']")
    hit_box.get_by_test_id("add").click()
    expect(hit_box.get_by_test_id("max-assignments")).to_have_text("3")
    other_hit = HIT.objects.exclude(pk=hit.pk).first()
    page.locator(f"[data-hit='{other_hit.hit_id}']").get_by_test_id("expire").click()
    expect(page.locator(f"[data-hit='{other_hit.hit_id}']")).to_contain_text("(expired)")
    guide_picture(page, "mturk-batch", element=page.locator("#content"))
    assert standin.state.hits[hit.hit_id]["MaxAssignments"] == 3
    assert standin.state.hits[other_hit.hit_id]["HITStatus"] == "Reviewable"
    assert len(standin.state.bonuses) == 1
