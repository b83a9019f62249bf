"""In Chromium: a lab worker paid a bonus from the review queue sees it on their page, and a
researcher tops a batch up to its target hourly rate once they have seen whom it pays."""

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from crowd.assignments import assignment_reserve_next, assignment_submit
from crowd.models import Assignment, Bonus
from crowd.review import assignment_approve
from crowd.workers import invite_token
from tests.browser.helpers import guide_picture
from tests.browser.test_review_queue import log_in, shown, wait_for_next
from tests.factories import BIRDS, BIRDS_STORY, proverb_create, worker_create, write_batch_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_lab_worker_paid_a_bonus_in_the_queue_sees_it_on_their_page(
    live_server, page, browser, reviewer
):
    batch = write_batch_create(proverbs=[proverb_create(BIRDS)], reward_cents=100)
    worker = worker_create(display_name="Ana")
    assignment = assignment_reserve_next(batch=batch, worker=worker)
    assignment_submit(assignment=assignment, payload={"text": BIRDS_STORY})
    log_in(page, live_server, f"/admin/review/{batch.pk}/")
    current = shown(page)
    page.keyboard.press("p")
    expect(page.locator("#bonus-amount")).to_be_focused()
    page.keyboard.type("0.75")
    page.fill("#reason-text", "A vivid <b>story</b>")
    page.locator("#reason-text").press("Enter")
    assert wait_for_next(page, current) == 0
    expect(page.locator("#queue-status")).to_contain_text(
        "bonus of 0.75 for Ana: recorded for the lab to pay (Parable pays lab workers nothing)"
    )

    worker_page = browser.new_context().new_page()
    worker_page.goto(f"{live_server.url}/w/{invite_token(worker=worker)}/")
    bonus = worker_page.locator("#bonuses [data-testid=bonus]")
    expect(bonus).to_have_count(1)
    expect(bonus.locator("[data-testid=bonus-amount]")).to_have_text("0.75")
    expect(bonus.locator("[data-testid=bonus-reason]")).to_have_text("A vivid <b>story</b>")
    expect(bonus.locator("[data-testid=bonus-state]")).to_have_text(
        "recorded for the lab to pay (Parable pays lab workers nothing)"
    )
    expect(worker_page.locator("[data-testid=earnings-total]")).to_have_text("1.75")
    guide_picture(worker_page, "worker-page")
    worker_page.context.close()


def test_a_batch_is_topped_up_to_its_target_hourly_rate(live_server, page, researcher):
    batch = write_batch_create(
        proverbs=[proverb_create(BIRDS), proverb_create("Time is money")],
        reward_cents=100,
        name="Pilot",
    )
    for name, minutes in (("Slow", 30), ("Quick", 4)):
        assignment = assignment_reserve_next(batch=batch, worker=worker_create(display_name=name))
        assignment_submit(assignment=assignment, payload={"text": BIRDS_STORY})
        start = timezone.now() - timedelta(hours=1)
        Assignment.objects.filter(pk=assignment.pk).update(
            started_at=start, submitted_at=start + timedelta(minutes=minutes)
        )
        assignment_approve(assignment=Assignment.objects.get(pk=assignment.pk))
    page.goto(f"{live_server.url}/admin/crowd/bonus/batch/{batch.pk}/")
    page.fill("#id_username", "researcher")
    page.fill("#id_password", "researcher-pass")
    page.click("input[type=submit]")
    page.fill("input[name=target]", "10.00")
    page.click("[data-testid=save-target]")
    expect(page.locator("[data-testid=target-rate]")).to_have_text("10.00")
    expect(page.locator("[data-testid=below-target]")).to_contain_text("1,")
    page.click("[data-testid=top-up]")
    expect(page.locator("[data-testid=top-up-row]")).to_have_count(1)
    expect(page.locator("[data-testid=top-up-row]")).to_contain_text("Slow")
    assert not Bonus.objects.exists()  # nothing is paid before the confirmation
    page.click("[data-testid=top-up-confirm]")
    expect(page.locator(".messagelist")).to_contain_text("Topped up 1 worker(s) with 4.00")
    expect(page.locator("[data-testid=below-target]")).to_contain_text("0,")
    expect(page.locator("[data-testid=top-up]")).to_have_count(0)
    guide_picture(page, "realised-pay", element=page.locator("#content"))
    bonus = Bonus.objects.get()
    assert bonus.assignment.worker.display_name == "Slow" and bonus.cents == 400
