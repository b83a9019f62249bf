"""ItemDone: the count of submitted and approved work per item, kept by the database's
triggers whatever changes an assignment's status."""

from datetime import timedelta

import pytest
from django.utils import timezone

from crowd.assignments import assignment_reserve_next, assignment_submit
from crowd.models import Assignment, BatchItem, ItemDone
from crowd.review import assignment_approve, assignment_reject
from tests.factories import (
    assignment_create,
    proverb_create,
    worker_create,
    write_batch_create,
)

pytestmark = pytest.mark.django_db

STORY = (
    "Raj planted a mango tree behind the school and watered it every evening for years. "
    "His classmates laughed at him. Long after they had all left the town, children "
    "he never met sat in its shade and ate its fruit, and his teacher told them why."
)


def done(item: BatchItem) -> int:
    return ItemDone.objects.filter(item=item).values_list("count", flat=True).first() or 0


def test_the_count_follows_every_way_work_is_submitted_reviewed_or_removed():
    batch = write_batch_create(proverbs=[proverb_create("Time is money")], target_per_item=5)
    item = batch.items.get()
    reserved = assignment_reserve_next(batch=batch, worker=worker_create())
    assert done(item) == 0  # a reservation is counted live, not here
    assignment_submit(assignment=reserved, payload={"text": STORY}, submission_key="k")
    assert done(item) == 1
    reserved.refresh_from_db()
    assignment_approve(assignment=reserved)
    assert done(item) == 1  # submitted to approved: still one
    assignment_reject(assignment=reserved, message="Not a story about the proverb.")
    assert done(item) == 0
    assignment_approve(assignment=reserved)
    assert done(item) == 1
    now = timezone.now() + timedelta(minutes=1)  # submitted after the start
    others = [
        assignment_create(item=item, worker=worker_create(), status=s, submitted_at=now)
        for s in ("submitted", "approved", "rejected")
    ]
    assert done(item) == 3
    Assignment.objects.filter(pk__in=[a.pk for a in others]).update(status="rejected")
    assert done(item) == 1
    Assignment.objects.filter(pk=others[2].pk).update(status="approved")
    assert done(item) == 2
    Assignment.objects.filter(pk=others[2].pk).delete()
    assert done(item) == 1


def test_next_task_takes_the_least_done_item_first():
    batch = write_batch_create(
        proverbs=[proverb_create(text) for text in ("Time is money", "Haste makes waste")],
        target_per_item=3,
    )
    first, second = batch.items.order_by("position")
    now = timezone.now() + timedelta(minutes=1)  # submitted after the start
    for _ in range(2):
        assignment_create(item=first, worker=worker_create(), status="approved", submitted_at=now)
    assert done(first) == 2
    assignment = assignment_reserve_next(batch=batch, worker=worker_create())
    assert assignment.item_id == second.pk  # less done, though later
    assignment_create(item=second, worker=worker_create(), status="submitted", submitted_at=now)
    assignment_create(item=second, worker=worker_create(), status="submitted", submitted_at=now)
    # second: 2 done + 1 live reservation = full; first has one slot left.
    assert assignment_reserve_next(batch=batch, worker=worker_create()).item_id == first.pk
