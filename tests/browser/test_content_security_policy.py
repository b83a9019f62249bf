"""In Chromium, under the Content-Security-Policy: admin and task pages run with no violation,
and the admin's behaviours that used inline handlers still work from static files."""

import pytest
from playwright.sync_api import expect

from crowd.models import Batch
from tests.factories import (
    BIRDS,
    invite_path,
    proverb_create,
    worker_create,
    write_batch_create,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _violations(page) -> list[str]:
    found = []
    page.on(
        "console",
        lambda message: (
            found.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    return found


def test_admin_and_task_pages_run_without_violations(live_server, page, researcher):
    violations = _violations(page)
    batch = write_batch_create(proverbs=[proverb_create(BIRDS)])
    worker = worker_create()
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", researcher.username)
    page.fill("#id_password", "researcher-pass")
    page.click("input[type=submit]")
    page.wait_for_selector("#site-name")

    page.goto(f"{live_server.url}/admin/crowd/worker/")
    page.check(f"input[name=_selected_action][value='{worker.pk}']")
    page.select_option("select[name=action]", "show_invite_links")
    page.click("button[name=index]")
    link = page.locator("[data-testid=invite-link]").first
    link.click()
    selected = link.evaluate("field => field.value.slice(field.selectionStart, field.selectionEnd)")
    assert selected == link.input_value() and "/w/" in selected

    page.goto(f"{live_server.url}/admin/crowd/batch/{batch.pk}/progress/")
    asked = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.click("input[name=close]")
    assert asked == ["Close this batch? Workers can no longer take its tasks."]
    assert Batch.objects.get(pk=batch.pk).status == Batch.Status.PUBLISHED

    page.goto(f"{live_server.url}{invite_path(worker=worker, batch=batch)}")
    page.wait_for_selector("body[data-ready=true]", state="attached")
    page.locator("#narrative").press_sequentially("Three small words")
    expect(page.locator("#word-count")).to_have_text("3")
    assert violations == []
