"""In Chromium against the Prolific stand-in: a researcher runs a write batch as a study from
the admin (cost first), a participant arrives from Prolific with the three parameters and
completes a 3-item session, Prolific vouches for it (webhook, or polling), the researcher
approves and pays a bonus once."""

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from crowd.models import Assignment, Batch
from prolific.models import ParticipantSession, WebhookEvent
from tests.browser.helpers import admin_login
from tests.factories import BIRDS, BIRDS_STORY, proverb_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def publish_write_study(page, live_server) -> Batch:
    """From the admin as a new user: a draft write batch, prepared as a study, cost confirmed."""
    for text in (BIRDS, "Time is money", "Look before you leap"):
        proverb_create(text)
    page.goto(f"{live_server.url}/admin/crowd/batch/add/")
    page.get_by_role("link", name="New write narratives batch").click()
    page.fill("#id_name", "Stories on Prolific")
    page.click("#id_proverbs_add_all")
    page.fill("#id_target_per_item", "1")
    page.uncheck("#id_publish")
    page.click("input[type=submit]")
    batch = Batch.objects.get()
    assert batch.status == Batch.Status.DRAFT

    page.goto(f"{live_server.url}/admin/prolific/study/add/")
    page.select_option("#id_batch", str(batch.pk))
    page.fill("#id_items_per_session", "3")
    page.fill("#id_estimated_minutes", "6")
    page.click("input[type=submit]")
    total = page.locator("[data-testid=total-cost]")
    expect(total).to_have_text("2.10")  # 1.50 rewards, 0.50 fees, 0.10 VAT: Prolific's figures
    expect(page.locator("[data-testid=study-status]")).to_have_text("not on Prolific")
    page.click("input[name=confirm_publish]")
    # Prolific's answer: publishing, until it has processed the study.
    expect(page.locator("[data-testid=study-status]")).to_have_text("PUBLISHING")
    batch.refresh_from_db()
    assert batch.status == Batch.Status.PUBLISHED
    return batch


def complete_session(browser, standin, batch, participant: str):
    """The participant starts on Prolific, writes three stories and is sent back with the code."""
    page = browser.new_context().new_page()
    study_id = batch.prolific_study.study_id
    page.goto(f"{standin.url}/_standin/take/{study_id}/?participant={participant}")
    for _ in range(3):
        page.wait_for_selector("body[data-ready=true]", state="attached")
        assert "/tasks/a/" in page.url
        page.fill("#narrative", BIRDS_STORY)
        page.click("#submit")
        expect(page.locator("#status")).to_contain_text("your story is stored")
        page.click("[data-testid=next-link]")
    expect(page.locator("#complete")).to_have_text("Submission complete")
    expect(page.locator("#code")).to_have_text(batch.prolific_study.completion_code)
    assert page.url.startswith(f"{standin.url}/submissions/complete?cc=")
    return page


def select_session_and_act(page, live_server, action: str):
    page.goto(f"{live_server.url}/admin/prolific/participantsession/")
    page.check("input[name=_selected_action]")
    page.select_option("select[name=action]", action)
    page.click("button[name=index]")


def test_write_study_end_to_end_with_webhook(
    live_server, page, browser, researcher, standin, settings
):
    settings.PARABLE_PUBLIC_URL = live_server.url
    admin_login(page, live_server, researcher)
    batch = publish_write_study(page, live_server)
    call_command("prolific_subscribe")

    complete_session(browser, standin, batch, "participant1")
    session = ParticipantSession.objects.get()
    assert session.status == ParticipantSession.Status.FINISHED
    assert session.submission.status == "AWAITING REVIEW"  # linked by the signed webhook
    assert WebhookEvent.objects.count() == 1

    select_session_and_act(page, live_server, "approve_selected")
    expect(page.locator("ul.messagelist")).to_contain_text("3 item(s) approved")
    # Sent once the review committed (no broker here: at once, in the request's thread).
    expect(page.locator("#result_list")).to_contain_text("APPROVED")
    assert Assignment.objects.filter(status=Assignment.Status.APPROVED).count() == 3

    def bonus(reason: str):
        select_session_and_act(page, live_server, "bonus_selected")
        expect(page.locator("label[for=id_amount]")).to_have_text("Bonus (GBP):")
        page.fill("#id_amount", "1.00")
        page.fill("#id_reason", reason)
        page.click("input[type=submit]")

    bonus("Three vivid stories")
    expect(page.locator("ul.messagelist")).to_contain_text("Bonus recorded for 1")
    bonus("Three vivid stories")  # the same form again: paid once
    expect(page.locator("ul.messagelist")).to_contain_text("it is paid once")
    bonus("And a kind note")  # a separate, deliberate bonus
    expect(page.locator("ul.messagelist")).to_contain_text("Bonus recorded for 1")
    assert [p["cents"] for p in standin.state.payments] == [100, 100]
    assert len(standin.state.bonuses) == 2
    assert standin.state.submissions[session.session_id]["status"] == "APPROVED"


def test_polling_links_the_session_without_webhooks(
    live_server, page, browser, researcher, standin, settings
):
    settings.PARABLE_PUBLIC_URL = live_server.url
    admin_login(page, live_server, researcher)
    batch = publish_write_study(page, live_server)
    complete_session(browser, standin, batch, "participant2")
    # Linked at entry, but no webhook is subscribed: Parable has not heard of the completion.
    assert ParticipantSession.objects.get().submission.status == "ACTIVE"

    page.goto(f"{live_server.url}/admin/prolific/study/{batch.prolific_study.pk}/manage/")
    page.click("input[name=sync]")
    expect(page.locator("ul.messagelist")).to_contain_text("1 submission(s) read from Prolific")
    expect(page.locator("[data-testid=awaiting]")).to_have_text("1")
    expect(page.locator("[data-testid=unvouched]")).to_have_text("0")


def test_the_review_queue_shows_a_session_still_working_and_offers_approval_once_it_can(
    live_server, page, researcher, standin
):
    from prolific.submissions import study_sync
    from tests.prolific.helpers import finish_on_prolific, submit_all, take_part, write_study

    batch = write_study()
    session, submission = take_part(standin, batch, "p1")
    submit_all(session)  # stored here, but the participant has not finished on Prolific
    study_sync(study=batch.prolific_study)
    admin_login(page, live_server, researcher)
    page.goto(f"{live_server.url}/admin/review/{batch.pk}/")
    card = page.locator("#submission .provider-state")
    expect(card).to_have_text("Still working on Prolific (not submitted there yet)")
    expect(page.locator("[data-decision=approve]")).to_be_disabled()
    page.keyboard.press("a")
    expect(page.locator("#queue-status")).to_contain_text("Not approvable yet")
    assert not Assignment.objects.filter(status=Assignment.Status.APPROVED).exists()

    finish_on_prolific(standin, submission)
    study_sync(study=batch.prolific_study)
    page.reload()
    expect(card).to_have_text("Prolific: AWAITING REVIEW")
    expect(page.locator("[data-decision=approve]")).to_be_enabled()
    page.keyboard.press("a")
    expect(page.locator("#queue-status")).to_have_text("Approved.")
    assert Assignment.objects.filter(status=Assignment.Status.APPROVED).count() == 1
