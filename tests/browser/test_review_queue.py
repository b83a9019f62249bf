"""In Chromium: a reviewer goes through a batch's queue with the keyboard alone."""

import pytest

from annotation.models import Narrative
from annotation.text import word_count
from crowd.models import Assignment, SavedReviewMessage
from tests.browser.helpers import guide_picture
from tests.factories import (
    BIRDS,
    BIRDS_STORY,
    batch_create,
    crowd_narrative_create,
    proverb_create,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

HOSTILE = '<img src=x onerror="document.title=`owned`"> wrote a story.'


def log_in(page, live_server, url):
    page.goto(live_server.url + url)
    page.fill("#id_username", "reviewer")
    page.fill("#id_password", "reviewer-pass")
    page.click("input[type=submit]")


def shown(page) -> int:
    """Wait for a submission and return its assignment id (0: the queue is empty)."""
    # Selectors, not script predicates: the admin's Content-Security-Policy forbids eval.
    page.wait_for_selector("#submission[data-assignment]", state="attached")
    return int(page.get_attribute("#submission", "data-assignment") or 0)


def wait_for_next(page, previous: int) -> int:
    page.wait_for_selector(
        f"#submission[data-assignment]:not([data-assignment='{previous}'])", state="attached"
    )
    return shown(page)


def test_thirty_narratives_reviewed_with_the_keyboard_alone(live_server, page, reviewer):
    SavedReviewMessage.objects.all().delete()
    SavedReviewMessage.objects.create(text="Your story does not fit the proverb.", position=1)
    batch = batch_create(task_type="write", status="published")
    proverb = proverb_create(BIRDS)
    narratives = [
        crowd_narrative_create(
            proverb=proverb,
            batch=batch,
            status="submitted",
            text=HOSTILE if number == 0 else f"{BIRDS_STORY} ({number})",
        )
        for number in range(30)
    ]
    log_in(page, live_server, f"/admin/review/{batch.pk}/")
    current = shown(page)
    assert current == narratives[0].assignment_id
    assert "<img" in page.inner_text("#submission")
    page.keyboard.press("r")
    page.keyboard.press("1")
    page.keyboard.press("Enter")
    current = wait_for_next(page, current)
    page.keyboard.press("s")
    skipped = current
    current = wait_for_next(page, current)
    page.keyboard.press("r")
    page.keyboard.type("Too short.")
    page.keyboard.press("Enter")
    current = wait_for_next(page, current)
    for _ in range(27):
        page.keyboard.press("a")
        current = wait_for_next(page, current)
    assert current == 0
    assert "1 skipped submission(s) remain" in page.inner_text("#submission")
    assert page.inner_text("[data-testid=awaiting]") == "1"
    assert page.title() != "owned"

    rejected = Narrative.objects.get(pk=narratives[0].pk)
    assert rejected.review_message == "Your story does not fit the proverb."
    assert Narrative.objects.get(pk=narratives[2].pk).review_message == "Too short."
    statuses = Assignment.objects.filter(item__batch=batch)
    assert statuses.filter(status="approved").count() == 27
    assert statuses.filter(status="rejected").count() == 2
    assert statuses.get(status="submitted").pk == skipped


def test_block_with_the_keyboard_blocks_the_worker(live_server, page, reviewer):
    batch = batch_create(task_type="write", status="published")
    narrative = crowd_narrative_create(
        proverb=proverb_create(BIRDS), batch=batch, status="submitted", text=BIRDS_STORY
    )
    log_in(page, live_server, f"/admin/review/{batch.pk}/")
    current = shown(page)
    page.keyboard.press("b")
    page.keyboard.press("Escape")
    assert page.is_hidden("#reason")
    page.keyboard.press("b")
    page.keyboard.type("Spam.")
    page.keyboard.press("Enter")
    wait_for_next(page, current)
    narrative.worker.refresh_from_db()
    assert narrative.worker.blocked
    assert narrative.worker.blocked_reason == "Spam."


def test_flagged_story_shows_its_score_and_a_rejection_names_the_evidence(
    live_server, page, reviewer
):
    from annotation.models import NarrativeIntegrity
    from tests.factories import writing_record

    batch = batch_create(task_type="write", status="published", name="Pilot")
    narrative = crowd_narrative_create(
        proverb=proverb_create(BIRDS),
        batch=batch,
        status="submitted",
        text=BIRDS_STORY,
        word_count=word_count(BIRDS_STORY),  # as a submit stores it; the guide shows it
    )
    NarrativeIntegrity.objects.create(
        narrative=narrative, telemetry=writing_record(typed=0, keys=0, pasted=160)
    )
    log_in(page, live_server, f"/admin/review/{batch.pk}/")
    shown(page)
    score = page.locator("[data-testid=writing-score]")
    assert "Writing-process score 0." in score.inner_text()
    assert "Default weights" in score.inner_text()
    assert "No pledge asked" in page.inner_text("#submission")
    guide_picture(page, "review-queue", element=page.locator("#content"))
    page.keyboard.press("r")
    assert "Pasted from outside" in page.input_value("#reason-text")
    page.keyboard.press("Enter")
    wait_for_next(page, narrative.assignment_id)
    message = Narrative.objects.get(pk=narrative.pk).review_message
    assert message.startswith("Your work was not accepted") and "160 of the story's" in message


def test_bonus_dialog_offers_earlier_bonus_reasons_and_says_what_was_done(
    live_server, page, reviewer
):
    from crowd.review import assignment_bonus

    SavedReviewMessage.objects.all().delete()
    SavedReviewMessage.objects.create(text="Your story does not fit the proverb.", position=1)
    batch = batch_create(task_type="write", status="published")
    proverb = proverb_create(BIRDS)
    earlier = crowd_narrative_create(proverb=proverb, batch=batch, text=BIRDS_STORY)
    assignment_bonus(assignment=earlier.assignment, cents=40, reason="A vivid, careful story")
    waiting = crowd_narrative_create(
        proverb=proverb, batch=batch, status="submitted", text=f"{BIRDS_STORY} (2)"
    )
    log_in(page, live_server, f"/admin/review/{batch.pk}/")
    assert shown(page) == waiting.assignment_id
    page.keyboard.press("p")
    assert page.is_hidden("[data-testid=saved-rejections]")
    assert page.inner_text("[data-testid=bonus-reasons]").strip() == "1 A vivid, careful story"
    page.fill("#bonus-amount", "0.25")
    page.focus("#reason-text")
    page.keyboard.press("1")  # the first offered reason: the earlier bonus's
    assert page.input_value("#reason-text") == "A vivid, careful story"
    page.keyboard.press("Enter")
    page.wait_for_selector("#queue-status:has-text('recorded for the lab to pay')")
    assert "bonus of 0.25" in page.inner_text("#queue-status")
    waiting.assignment.refresh_from_db()
    assert waiting.assignment.bonus_cents == 25
