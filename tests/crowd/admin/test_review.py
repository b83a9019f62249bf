"""The shared review actions: rejecting approved work says what it withdraws downstream."""

import pytest

from annotation.models import Narrative
from crowd.assignments import assignment_reserve_next, assignment_submit
from crowd.review import assignment_approve
from tests.factories import (
    BIRDS,
    BIRDS_STORY,
    proverb_create,
    task_batch_create,
    worker_create,
    write_batch_create,
)

pytestmark = pytest.mark.django_db


def test_rejecting_approved_narrative_confirms_and_reports_the_withdrawn_items(client, reviewer):
    write = write_batch_create(proverbs=[proverb_create(BIRDS)])
    align = task_batch_create(task_type="align", source_batch=write)
    task_batch_create(task_type="rate", source_batch=write)
    assignment = assignment_reserve_next(batch=write, worker=worker_create())
    assignment_submit(assignment=assignment, payload={"text": BIRDS_STORY})
    assignment_approve(assignment=assignment)
    assignment_reserve_next(batch=align, worker=worker_create())
    narrative = Narrative.objects.get()
    client.force_login(reviewer)
    selection = {"action": "reject_selected", "_selected_action": [narrative.pk]}
    asked = client.post("/admin/annotation/narrative/", selection).content.decode()
    assert "withdraws 2 item(s)" in asked
    assert "1 open reservation(s) are released" in asked
    done = client.post(
        "/admin/annotation/narrative/", {**selection, "reason": "Copied."}, follow=True
    )
    assert "withdraws 2 item(s)" in done.content.decode()
    assert align.items.get().withdrawn_at is not None


def test_rejecting_submitted_work_mentions_no_withdrawal(client, reviewer):
    write = write_batch_create(proverbs=[proverb_create(BIRDS)])
    assignment = assignment_reserve_next(batch=write, worker=worker_create())
    assignment_submit(assignment=assignment, payload={"text": BIRDS_STORY})
    client.force_login(reviewer)
    selection = {"action": "reject_selected", "_selected_action": [Narrative.objects.get().pk]}
    assert (
        "withdraws" not in client.post("/admin/annotation/narrative/", selection).content.decode()
    )


def test_a_saved_review_message_over_the_limit_is_refused_with_a_message(client, researcher):
    from crowd.models import SavedReviewMessage

    client.force_login(researcher)
    before = set(SavedReviewMessage.objects.values_list("text", flat=True))
    url = "/admin/crowd/savedreviewmessage/add/"
    too_long = "Your story does not use the proverb. " * 80  # 2,960 characters
    response = client.post(url, {"text": too_long, "position": 0})
    assert response.status_code == 200
    assert "Ensure this value has at most 600 characters" in response.content.decode()
    assert set(SavedReviewMessage.objects.values_list("text", flat=True)) == before
    response = client.post(url, {"text": "ü" * 600, "position": 0})  # 1,200 bytes: indexed
    assert response.status_code == 302
    assert SavedReviewMessage.objects.filter(text="ü" * 600).exists()
