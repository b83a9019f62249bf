"""Review: approve, reject (the slot reopens), block a worker, bonus."""

import pytest

from annotation.models import Narrative
from crowd.assignments import NoWorkAvailable, assignment_reserve_next, assignment_submit
from crowd.models import Assignment
from crowd.review import (
    ReviewError,
    assignment_approve,
    assignment_approve_exclude,
    assignment_bonus,
    assignment_reject,
    worker_block,
    worker_unblock,
)
from crowd.task_types import SubmissionError
from tests.factories import BIRDS, BIRDS_STORY, proverb_create, worker_create, write_batch_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def batch():
    return write_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=1)


def submitted(batch, worker=None):
    assignment = assignment_reserve_next(batch=batch, worker=worker or worker_create())
    return assignment_submit(assignment=assignment, payload={"text": BIRDS_STORY}).assignment


def test_approve_marks_assignment_and_narrative_and_extracts_keywords(
    batch, django_capture_on_commit_callbacks
):
    assignment = submitted(batch)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        assignment_approve(assignment=assignment)
    assert len(callbacks) == 1
    assignment.refresh_from_db()
    narrative = Narrative.objects.get(assignment=assignment)
    assert assignment.status == Assignment.Status.APPROVED
    assert narrative.status == Narrative.Status.APPROVED
    assert narrative.reviewed_at is not None
    assert "meet" in narrative.keywords["verbs"]
    assert narrative.keywords_pending_since is None


def test_approval_records_keywords_as_pending_until_extracted(batch):
    assignment = submitted(batch)
    assignment_approve(assignment=assignment)  # on-commit callbacks not run: task not sent
    narrative = Narrative.objects.get(assignment=assignment)
    assert narrative.keywords == {} and narrative.keywords_pending_since is not None


def test_approve_twice_changes_nothing_more(batch, django_capture_on_commit_callbacks):
    assignment = submitted(batch)
    assignment_approve(assignment=assignment)
    with django_capture_on_commit_callbacks() as callbacks:
        assignment_approve(assignment=assignment)
    assert callbacks == []


def test_reject_needs_a_message(batch):
    with pytest.raises(ReviewError, match="needs a message"):
        assignment_reject(assignment=submitted(batch), message="  ")


def test_reject_tells_the_worker_why_and_reopens_the_slot(batch):
    assignment = submitted(batch)
    with pytest.raises(NoWorkAvailable):
        assignment_reserve_next(batch=batch, worker=worker_create())
    assignment_reject(assignment=assignment, message="Too close to the proverb.")
    narrative = Narrative.objects.get(assignment=assignment)
    assert narrative.status == Narrative.Status.REJECTED
    assert narrative.review_message == "Too close to the proverb."
    assert assignment_reserve_next(batch=batch, worker=worker_create()).item == assignment.item


def test_rejected_worker_does_not_get_the_same_proverb_again(batch):
    worker = worker_create()
    assignment_reject(assignment=submitted(batch, worker), message="Off topic.")
    with pytest.raises(NoWorkAvailable):
        assignment_reserve_next(batch=batch, worker=worker)


def test_approving_a_rejected_submission_is_refused_once_its_slot_is_taken(batch):
    assignment = submitted(batch)
    assignment_reject(assignment=assignment, message="Off topic.")
    submitted(batch)
    with pytest.raises(ReviewError, match="place has been taken"):
        assignment_approve(assignment=assignment)


def test_approving_a_rejected_submission_with_its_slot_free_approves_it(batch):
    assignment = submitted(batch)
    assignment_reject(assignment=assignment, message="Off topic.")
    assert assignment_approve(assignment=assignment).status == Assignment.Status.APPROVED
    assert Narrative.objects.get(assignment=assignment).status == Narrative.Status.APPROVED


def test_review_of_a_reservation_is_refused(batch):
    assignment = assignment_reserve_next(batch=batch, worker=worker_create())
    with pytest.raises(ReviewError, match="no submission"):
        assignment_approve(assignment=assignment)


def test_block_returns_reservations_and_refuses_further_work(batch):
    worker = worker_create()
    assignment = assignment_reserve_next(batch=batch, worker=worker)
    worker_block(worker=worker, reason="Copied stories from the web.")
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.RETURNED
    with pytest.raises(SubmissionError, match="cannot take tasks"):
        assignment_submit(assignment=assignment, payload={"text": BIRDS_STORY})
    with pytest.raises(NoWorkAvailable):
        assignment_reserve_next(batch=batch, worker=worker)


def test_unblocked_worker_takes_tasks_again(batch):
    worker = worker_create()
    worker_block(worker=worker, reason="Copied stories from the web.")
    worker = worker_unblock(worker=worker)
    assert not worker.blocked and worker.blocked_reason == ""
    assert assignment_reserve_next(batch=batch, worker=worker).status == "reserved"


def test_approval_feedback_is_kept_for_the_worker(batch):
    approved = assignment_approve(assignment=submitted(batch), message="  Lovely twist. ")
    assert approved.review_message == "Lovely twist."


def test_block_needs_a_reason(batch):
    with pytest.raises(ReviewError):
        worker_block(worker=worker_create(), reason="")


def test_bonus_only_on_approved_work_and_adds_up(batch):
    assignment = submitted(batch)
    with pytest.raises(ReviewError, match="approved work only"):
        assignment_bonus(assignment=assignment, cents=10, reason="Great")
    assignment_approve(assignment=assignment)
    assignment_bonus(assignment=assignment, cents=10, reason="Great")
    assert assignment_bonus(assignment=assignment, cents=5, reason="More").bonus_cents == 15


def test_approve_and_exclude_pays_but_keeps_the_work_out_and_reopens_the_slot(batch):
    from tests.factories import task_batch_create

    align = task_batch_create(task_type="align", source_batch=batch)
    assignment = submitted(batch)
    with pytest.raises(ReviewError, match="needs a reason"):
        assignment_approve_exclude(assignment=assignment, reason=" ")
    assignment_approve_exclude(assignment=assignment, reason="Reads like a paraphrase.")
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.EXCLUDED
    assert assignment.exclusion_reason == "Reads like a paraphrase."
    assert assignment.review_message == ""  # the reason is not shown to the worker
    assert Narrative.objects.get(assignment=assignment).status != Narrative.Status.APPROVED
    assert not align.items.exists()  # not fed to chained batches
    second = submitted(batch)  # target 1: the slot reopened
    assert second.status == Assignment.Status.SUBMITTED
    assignment_bonus(assignment=assignment, cents=20, reason="For your time")
    assert Assignment.objects.get(pk=assignment.pk).bonus_cents == 20


def test_excluding_approved_work_withdraws_what_was_built_on_it(batch):
    from tests.factories import task_batch_create

    align = task_batch_create(task_type="align", source_batch=batch)
    assignment = submitted(batch)
    assignment_approve(assignment=assignment)
    assert align.items.count() == 1
    assignment_approve_exclude(assignment=assignment, reason="Found copied later.")
    assert align.items.filter(withdrawn_at__isnull=True).count() == 0
