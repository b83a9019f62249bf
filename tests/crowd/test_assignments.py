"""Handing out work: reservations, distinct workers, caps, expiry, own work, submission."""

from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.models import Narrative
from crowd.assignments import (
    NoWorkAvailable,
    assignment_reserve_next,
    assignment_return,
    assignment_submit,
    assignments_expire,
    worker_load,
)
from crowd.models import Assignment, Batch
from crowd.task_types import SubmissionConflict, SubmissionError
from tests.factories import (
    BIRDS,
    BIRDS_STORY,
    batch_create,
    batch_item_create,
    narrative_create,
    proverb_create,
    worker_create,
    write_batch_create,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def birds_batch():
    return write_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=2)


def test_reserve_gives_an_open_item_with_the_time_allowed(birds_batch):
    now = timezone.now()
    assignment = assignment_reserve_next(batch=birds_batch, worker=worker_create(), now=now)
    assert assignment.status == Assignment.Status.RESERVED
    assert assignment.item.proverb.text == BIRDS
    assert assignment.expires_at == now + timedelta(seconds=birds_batch.time_allowed_seconds)


def test_asking_again_resumes_the_live_reservation(birds_batch):
    worker = worker_create()
    first = assignment_reserve_next(batch=birds_batch, worker=worker)
    assert assignment_reserve_next(batch=birds_batch, worker=worker) == first
    assert Assignment.objects.count() == 1


def test_items_go_to_distinct_workers_up_to_the_target(birds_batch):
    first = assignment_reserve_next(batch=birds_batch, worker=worker_create())
    second = assignment_reserve_next(batch=birds_batch, worker=worker_create())
    assert first.item == second.item
    assert first.worker != second.worker
    with pytest.raises(NoWorkAvailable) as refused:
        assignment_reserve_next(batch=birds_batch, worker=worker_create())
    assert refused.value.code == "empty"
    assert "no tasks left" in refused.value.reason


def test_worker_never_gets_the_same_proverb_twice():
    batch = write_batch_create(proverbs=[proverb_create(BIRDS), proverb_create()])
    worker = worker_create()
    first = assignment_reserve_next(batch=batch, worker=worker)
    assignment_submit(assignment=first, payload={"text": BIRDS_STORY})
    second = assignment_reserve_next(batch=batch, worker=worker)
    assert second.item != first.item


def test_worker_at_the_cap_is_told_so():
    batch = write_batch_create(
        proverbs=[proverb_create(BIRDS), proverb_create(), proverb_create()], per_worker_cap=1
    )
    worker = worker_create()
    assignment_submit(
        assignment=assignment_reserve_next(batch=batch, worker=worker),
        payload={"text": BIRDS_STORY},
    )
    with pytest.raises(NoWorkAvailable) as refused:
        assignment_reserve_next(batch=batch, worker=worker)
    assert refused.value.code == "cap"
    assert refused.value.reason == (
        "You have reached the limit of 1 tasks in this batch. Thank you for your work!"
    )


def test_expired_reservation_returns_its_slot_to_the_pool():
    batch = write_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=1)
    late = assignment_reserve_next(batch=batch, worker=worker_create())
    after = late.expires_at + timedelta(seconds=1)
    taken = assignment_reserve_next(batch=batch, worker=worker_create(), now=after)
    assert taken.item == late.item
    late.refresh_from_db()
    assert late.status == Assignment.Status.EXPIRED  # finding the next item marked it
    assert assignments_expire(now=after) == 0


def test_periodic_expiry_frees_the_slot_of_a_reservation_past_its_time():
    batch = write_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=1)
    late = assignment_reserve_next(batch=batch, worker=worker_create())
    after = late.expires_at + timedelta(seconds=1)
    assert assignments_expire(now=after) == 1
    late.refresh_from_db()
    assert late.status == Assignment.Status.EXPIRED
    assert assignment_reserve_next(batch=batch, worker=worker_create(), now=after).item == late.item


def test_expire_leaves_live_reservations_alone(birds_batch):
    assignment = assignment_reserve_next(batch=birds_batch, worker=worker_create())
    assert assignments_expire() == 0
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.RESERVED


def test_worker_is_never_given_an_item_on_their_own_narrative():
    proverb = proverb_create()
    author, other = worker_create(), worker_create()
    own = narrative_create(proverb=proverb, text="Mine.", worker=author)
    theirs = narrative_create(proverb=proverb, text="Theirs.", worker=other)
    batch = batch_create(task_type="write", status=Batch.Status.PUBLISHED)
    batch_item_create(batch=batch, narrative=own)
    batch_item_create(batch=batch, narrative=theirs)
    assignment = assignment_reserve_next(batch=batch, worker=author)
    assert assignment.item.narrative == theirs
    assignment_return(assignment=assignment)
    with pytest.raises(NoWorkAvailable):
        assignment_reserve_next(batch=batch, worker=author, item=batch.items.get(narrative=own))


def test_returned_task_reopens_its_slot_at_once():
    batch = write_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=1)
    assignment = assignment_reserve_next(batch=batch, worker=worker_create())
    assignment_return(assignment=assignment)
    assert assignment_reserve_next(batch=batch, worker=worker_create()).item == assignment.item


def test_item_restriction_reserves_that_item_only():
    batch = write_batch_create(proverbs=[proverb_create(), proverb_create()])
    second = batch.items.order_by("position")[1]
    worker = worker_create()
    assert assignment_reserve_next(batch=batch, worker=worker, item=second).item == second
    first = batch.items.order_by("position")[0]
    assert assignment_reserve_next(batch=batch, worker=worker, item=first).item == first


def test_unpublished_batch_and_blocked_worker_get_no_work(birds_batch):
    draft = batch_create(task_type="write")
    with pytest.raises(NoWorkAvailable) as closed:
        assignment_reserve_next(batch=draft, worker=worker_create())
    assert closed.value.code == "closed"
    blocked = worker_create(blocked=True, blocked_reason="copied stories")
    with pytest.raises(NoWorkAvailable) as refused:
        assignment_reserve_next(batch=birds_batch, worker=blocked)
    assert refused.value.code == "blocked"


def test_submit_stores_one_narrative(birds_batch):
    worker = worker_create()
    assignment = assignment_reserve_next(batch=birds_batch, worker=worker)
    outcome = assignment_submit(
        assignment=assignment, payload={"text": BIRDS_STORY}, submission_key="k1"
    )
    assert not outcome.replayed
    assert outcome.assignment.status == Assignment.Status.SUBMITTED
    narrative = Narrative.objects.get()
    assert (narrative.worker, narrative.assignment, narrative.text) == (
        worker,
        assignment,
        BIRDS_STORY,
    )
    assert outcome.result == {
        "narrative": narrative.pk,
        "text": BIRDS_STORY,
        "word_count": 30,
        "status": "submitted",
    }


def test_submit_twice_stores_one_narrative_and_returns_the_same_result(birds_batch):
    assignment = assignment_reserve_next(batch=birds_batch, worker=worker_create())
    first = assignment_submit(assignment=assignment, payload={"text": BIRDS_STORY})
    again = assignment_submit(
        assignment=assignment, payload={"text": BIRDS_STORY + " More."}, submission_key="x"
    )
    assert again.replayed
    assert again.result == first.result
    assert Narrative.objects.count() == 1


def test_submit_with_another_key_is_a_conflict_and_changes_nothing(birds_batch):
    assignment = assignment_reserve_next(batch=birds_batch, worker=worker_create())
    assignment_submit(assignment=assignment, payload={"text": BIRDS_STORY}, submission_key="a")
    with pytest.raises(SubmissionConflict):
        assignment_submit(
            assignment=assignment, payload={"text": BIRDS_STORY + " More."}, submission_key="b"
        )
    assert Narrative.objects.get().text == BIRDS_STORY
    assert Assignment.objects.get().submission_key == "a"


def test_refused_submit_keeps_the_reservation(birds_batch):
    assignment = assignment_reserve_next(batch=birds_batch, worker=worker_create())
    with pytest.raises(SubmissionError):
        assignment_submit(assignment=assignment, payload={"text": "Birds of a feather."})
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.RESERVED
    assert not Narrative.objects.exists()


def test_late_submit_is_kept_while_the_slot_is_free():
    batch = write_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=1)
    assignment = assignment_reserve_next(batch=batch, worker=worker_create())
    late = assignment.expires_at + timedelta(minutes=5)
    assignments_expire(now=late)
    outcome = assignment_submit(assignment=assignment, payload={"text": BIRDS_STORY}, now=late)
    assert outcome.assignment.status == Assignment.Status.SUBMITTED


def test_late_submit_is_refused_when_the_slot_went_to_someone_else():
    batch = write_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=1)
    assignment = assignment_reserve_next(batch=batch, worker=worker_create())
    late = assignment.expires_at + timedelta(minutes=5)
    assignment_reserve_next(batch=batch, worker=worker_create(), now=late)
    with pytest.raises(SubmissionError) as refused:
        assignment_submit(assignment=assignment, payload={"text": BIRDS_STORY}, now=late)
    assert "its place went to someone else" in refused.value.message
    assert not Narrative.objects.exists()


def test_submit_after_returning_is_refused(birds_batch):
    assignment = assignment_reserve_next(batch=birds_batch, worker=worker_create())
    assignment_return(assignment=assignment)
    with pytest.raises(SubmissionError, match="given back"):
        assignment_submit(assignment=assignment, payload={"text": BIRDS_STORY})


def test_worker_load_counts_live_and_submitted_work_only(birds_batch):
    worker = worker_create()
    assignment = assignment_reserve_next(batch=birds_batch, worker=worker)
    assert worker_load(batch=birds_batch, worker=worker) == 1
    assignment_return(assignment=assignment)
    assert worker_load(batch=birds_batch, worker=worker) == 0


def test_item_given_back_is_reserved_again_on_the_same_assignment(birds_batch):
    worker = worker_create()
    first = assignment_reserve_next(batch=birds_batch, worker=worker)
    given_back = assignment_return(assignment=first)
    later = given_back.expires_at + timedelta(seconds=5)
    again = assignment_reserve_next(batch=birds_batch, worker=worker, now=later)
    assert again.pk == given_back.pk
    assert again.status == Assignment.Status.RESERVED
    assert again.started_at == later
    assert again.expires_at == later + timedelta(seconds=birds_batch.time_allowed_seconds)
    assert Assignment.objects.filter(worker=worker).count() == 1


def test_reserving_locks_the_item_row_and_not_its_batch(birds_batch):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        assignment_reserve_next(batch=birds_batch, worker=worker_create())
    locking = [query["sql"] for query in queries if "FOR UPDATE" in query["sql"]]
    assert len(locking) == 2  # the worker, then the item
    assert locking[1].startswith("SELECT is_gold FROM crowd_batchitem WHERE id =")
    assert "JOIN" not in locking[1] and "crowd_batch " not in locking[1]
