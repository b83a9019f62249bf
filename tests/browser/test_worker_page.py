"""In Chromium: a worker's own page shows their submissions, the rejection message, earnings."""

import pytest
from playwright.sync_api import expect

from crowd.assignments import assignment_reserve_next, assignment_submit
from crowd.review import assignment_approve, assignment_reject, worker_block
from crowd.workers import invite_token
from tests.factories import (
    BIRDS,
    BIRDS_STORY,
    proverb_create,
    worker_create,
    write_batch_create,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_worker_sees_the_rejection_message_and_earnings(live_server, page):
    batch = write_batch_create(
        proverbs=[proverb_create(BIRDS), proverb_create("Time is money")], reward_cents=120
    )
    worker = worker_create(display_name="Ana")
    for message in ("", "Your story <i>copies</i> the proverb."):
        assignment = assignment_reserve_next(batch=batch, worker=worker)
        assignment_submit(assignment=assignment, payload={"text": BIRDS_STORY})
        if message:
            assignment_reject(assignment=assignment, message=message)
        else:
            assignment_approve(assignment=assignment)
    page.goto(f"{live_server.url}/w/{invite_token(worker=worker)}/")
    expect(page.locator("h1")).to_have_text("Hello, Ana")
    messages = page.locator("#submissions [data-testid=review-message]")
    expect(messages).to_have_count(2)
    expect(page.locator("#submissions")).to_contain_text("Your story <i>copies</i> the proverb.")
    expect(page.locator("#submissions")).to_contain_text("Rejected")
    expect(page.locator("[data-testid=earnings-total]")).to_have_text("1.20")


def test_a_blocked_worker_sees_the_reason_and_nothing_else(live_server, page):
    batch = write_batch_create(proverbs=[proverb_create(BIRDS)])
    worker = worker_create(display_name="Ana")
    page.goto(f"{live_server.url}/w/{invite_token(worker=worker, batch=batch)}/")
    expect(page.locator("[data-testid=proverb]")).to_have_text(BIRDS)  # at work
    worker_block(worker=worker, reason="Your stories copy <b>published</b> ones.")
    page.reload()
    expect(page.locator("[data-testid=blocked-reason]")).to_have_text(
        "Your stories copy <b>published</b> ones."
    )
    expect(page.locator("main a, main form, main textarea, main button")).to_have_count(0)
    page.goto(f"{live_server.url}/w/{invite_token(worker=worker, batch=batch)}/")
    expect(page.locator("[data-testid=blocked-reason]")).to_have_text(
        "Your stories copy <b>published</b> ones."
    )
    expect(page.locator("main a, main form, main textarea, main button")).to_have_count(0)
