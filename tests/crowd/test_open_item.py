"""OpenItem: the items a worker may be served and their held slots, kept by the database's
triggers, and the next-item statement that reads it visiting a handful of rows whatever
the batch holds."""

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from crowd.assignments import (
    _candidates_sql,
    assignment_reserve_next,
    assignment_return,
    assignment_submit,
)
from crowd.models import Assignment, BatchItem, OpenItem
from crowd.review import assignment_approve, assignment_reject
from tests.factories import (
    assignment_create,
    batch_create,
    batch_item_create,
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


def held(item: BatchItem) -> int | None:
    return OpenItem.objects.filter(item=item).values_list("held", flat=True).first()


def test_held_follows_reservation_submission_review_return_and_expiry():
    batch = write_batch_create(proverbs=[proverb_create("Time is money")], target_per_item=5)
    item = batch.items.get()
    assert held(item) == 0
    reserved = assignment_reserve_next(batch=batch, worker=worker_create())
    assert held(item) == 1
    assignment_submit(assignment=reserved, payload={"text": STORY}, submission_key="k")
    assert held(item) == 1  # reserved to submitted: the same slot
    reserved.refresh_from_db()
    assignment_reject(assignment=reserved, message="Not a story about the proverb.")
    assert held(item) == 0
    assignment_approve(assignment=reserved)
    assert held(item) == 1
    returned = assignment_reserve_next(batch=batch, worker=worker_create())
    assert held(item) == 2
    assignment_return(assignment=returned)
    assert held(item) == 1
    stale = assignment_reserve_next(batch=batch, worker=worker_create())
    assert held(item) == 2
    Assignment.objects.filter(pk=stale.pk).update(status="expired")
    assert held(item) == 1
    later = timezone.now() + timedelta(minutes=1)
    extra = assignment_create(
        item=item, worker=worker_create(), status="submitted", submitted_at=later
    )
    assert held(item) == 2
    Assignment.objects.filter(pk=extra.pk).delete()
    assert held(item) == 1


def test_withdrawn_items_leave_the_table_and_come_back_with_their_count():
    batch = write_batch_create(proverbs=[proverb_create(), proverb_create()], target_per_item=3)
    kept, withdrawn = batch.items.order_by("position")
    now = timezone.now() + timedelta(minutes=1)
    assignment_create(item=withdrawn, worker=worker_create(), status="approved", submitted_at=now)
    BatchItem.objects.filter(pk=withdrawn.pk).update(withdrawn_at=timezone.now())
    assert held(withdrawn) is None
    assert held(kept) == 0
    assert assignment_reserve_next(batch=batch, worker=worker_create()).item_id == kept.pk
    BatchItem.objects.filter(pk=withdrawn.pk).update(withdrawn_at=None)
    assert held(withdrawn) == 1


def test_gold_flag_and_position_follow_the_item():
    batch = batch_create(status="published", target_per_item=2)
    item = batch_item_create(batch=batch, proverb=proverb_create(), position=4)
    BatchItem.objects.filter(pk=item.pk).update(is_gold=True, gold_answer={"choice": 1}, position=9)
    row = OpenItem.objects.get(item=item)
    assert (row.batch_id, row.is_gold, row.position) == (batch.pk, True, 9)


def _rows_read(*, batch, worker) -> int:
    """Rows the next-item statement reads on PostgreSQL, every plan node's rows times its
    loops, from EXPLAIN ANALYZE."""
    params = {"batch": batch.pk, "worker": worker.pk, "item": None, "target": 3, "limit": 21}
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + _candidates_sql(one_item=False), params)
        (plan,) = cursor.fetchone()[0]
    nodes, total = [plan["Plan"]], 0
    while nodes:
        node = nodes.pop()
        total += node["Actual Rows"] * node["Actual Loops"]
        nodes.extend(node.get("Plans", []))
    return total


def _batch_with_items(count: int):
    batch = batch_create(status="published", target_per_item=3)
    proverbs = [proverb_create() for _ in range(count)]
    BatchItem.objects.bulk_create(
        BatchItem(batch=batch, proverb=proverb, position=number)
        for number, proverb in enumerate(proverbs)
    )
    return batch


def test_next_item_reads_as_many_rows_at_600_items_as_at_30():
    if connection.vendor != "postgresql":
        pytest.fail("This test reads PostgreSQL's plans: run it with `make test`.")
    worker = worker_create()
    small, large = _batch_with_items(30), _batch_with_items(600)
    for batch in (small, large):  # some work done, as in a running batch
        for item in batch.items.order_by("position")[:10]:
            assignment_create(item=item, worker=worker_create(), status="reserved")
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE crowd_openitem, crowd_batchitem, crowd_assignment")
    read_small, read_large = (
        _rows_read(batch=small, worker=worker),
        _rows_read(batch=large, worker=worker),
    )
    assert 0 < read_large <= read_small + 5, (read_small, read_large)
