"""In Chromium: a researcher previews a batch's task page; working through it stores nothing."""

import pytest
from playwright.sync_api import expect

from annotation.models import Narrative
from crowd.models import Assignment, Worker
from tests.factories import BIRDS, BIRDS_STORY, proverb_create, write_batch_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_preview_runs_the_real_page_and_stores_nothing(live_server, page, researcher):
    batch = write_batch_create(
        proverbs=[proverb_create(BIRDS)], instructions="Write a story of your own."
    )
    page.goto(f"{live_server.url}/tasks/preview/{batch.pk}/")
    page.fill("#id_username", "researcher")
    page.fill("#id_password", "researcher-pass")
    page.click("input[type=submit]")
    page.wait_for_selector("body[data-ready=true]", state="attached")
    expect(page.locator("[data-testid=preview-note]")).to_contain_text("nothing you do here")
    expect(page.locator(".instructions-text")).to_have_text("Write a story of your own.")
    expect(page.locator("#proverb")).to_have_text(BIRDS)
    page.fill("#narrative", BIRDS_STORY)
    submit = page.locator("#submit")
    expect(submit).to_be_enabled()
    submit.click()
    expect(page.locator("#status")).to_contain_text("This is a preview")
    assert page.locator(".return-form").count() == 0
    assert not Assignment.objects.exists()
    assert not Narrative.objects.exists()
    assert not Worker.objects.exists()
