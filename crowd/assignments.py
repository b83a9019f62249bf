"""Handing out work and taking it back: reservations, quotas, caps, expiry, submission.

Slots are counted under a row lock on the batch item, so two workers asking at
once never over-fill it; an expired reservation gives its slot back.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from crowd import task_types
from crowd.models import Assignment, Batch, BatchItem, Worker
from crowd.task_types import SubmissionError

ACTIVE = Assignment.ACTIVE


class NoWorkAvailable(Exception):
    """Why a worker gets no task: the reason is shown to them as is."""

    def __init__(self, reason: str, *, code: str):
        super().__init__(reason)
        self.reason = reason
        self.code = code


@dataclass(frozen=True)
class SubmitOutcome:
    assignment: Assignment
    result: dict
    replayed: bool


def active_filter(now, *, prefix: str = "") -> Q:
    """Assignments holding a slot: live reservations, submitted or approved work.

    `prefix` reaches them through a relation, e.g. "assignments__" from a BatchItem.
    """
    return Q(
        **{f"{prefix}status__in": [Assignment.Status.SUBMITTED, Assignment.Status.APPROVED]}
    ) | Q(**{f"{prefix}status": Assignment.Status.RESERVED, f"{prefix}expires_at__gt": now})


def item_slot_free(*, item_id: int, now, excluding: Assignment | None = None) -> bool:
    """Lock the item's row and say whether it has a free slot; call inside a transaction.

    Counting under the lock is what keeps concurrent workers from over-filling an
    item. `excluding` leaves one assignment out of the count (its own slot). Gold
    (control) items go to every worker: they always have room.
    """
    # of=("self",): lock the item row only; locking its batch too would queue every
    # reservation of the batch behind one row.
    item = BatchItem.objects.select_for_update(of=("self",)).select_related("batch").get(pk=item_id)
    if item.is_gold:
        return True
    held = Assignment.objects.filter(active_filter(now), item=item)
    if excluding is not None:
        held = held.exclude(pk=excluding.pk)
    return held.count() < item.batch.target_per_item


def worker_load(*, batch: Batch, worker: Worker, now=None) -> int:
    """How many items of the batch count against the worker's cap."""
    now = now or timezone.now()
    return Assignment.objects.filter(active_filter(now), item__batch=batch, worker=worker).count()


def assignments_expire(*, batch: Batch | None = None, now=None) -> int:
    """Mark reservations past their time as expired; their slots return to the pool."""
    now = now or timezone.now()
    stale = Assignment.objects.filter(status=Assignment.Status.RESERVED, expires_at__lte=now)
    if batch is not None:
        stale = stale.filter(item__batch=batch)
    return stale.update(status=Assignment.Status.EXPIRED)


# The next-task choice runs on every "next" a worker asks for; written as SQL it skips
# the ORM's building and compiling of the query, which took about half of the web
# process's CPU for a whole reservation. Open items the worker may take, least filled first:
# not done by the worker (an expired or returned try does not count, and comes back as
# `previous`, to be reopened), never built on the worker's own work, fewer live slots
# than the target, and gold (control) items first, whatever their count.
_CANDIDATES_SQL = """
SELECT id, previous FROM (
    SELECT item.id, item.is_gold, item.position,
        (SELECT mine.id FROM {assignment} mine
            WHERE mine.item_id = item.id AND mine.worker_id = %s) AS previous,
        (SELECT COUNT(*) FROM {assignment} held
            WHERE held.item_id = item.id
            AND (held.status IN (%s, %s) OR (held.status = %s AND held.expires_at > %s))
        ) AS active
    FROM {item} item
    LEFT JOIN {narrative} narrative ON narrative.id = item.narrative_id
    LEFT JOIN {assignment} source ON source.id = item.source_assignment_id
    WHERE item.batch_id = %s {one_item}
    AND NOT EXISTS (
        SELECT 1 FROM {assignment} done
        WHERE done.item_id = item.id AND done.worker_id = %s AND done.status NOT IN (%s, %s)
    )
    AND (narrative.worker_id IS NULL OR narrative.worker_id <> %s)
    AND (source.worker_id IS NULL OR source.worker_id <> %s)
) candidates
WHERE is_gold OR active < %s
ORDER BY is_gold DESC, active, position, id
LIMIT 50
"""


def _candidate_items(
    *, batch: Batch, worker: Worker, now, item: BatchItem | None
) -> list[tuple[int, int | None]]:
    """(item id, `previous`) of up to 50 items the worker may take, in the order to try them;
    `previous` is the worker's expired or returned assignment of the item, or None."""
    status = Assignment.Status
    sql = _CANDIDATES_SQL.format(
        assignment=Assignment._meta.db_table,
        item=BatchItem._meta.db_table,
        narrative=BatchItem._meta.get_field("narrative").related_model._meta.db_table,
        one_item="" if item is None else "AND item.id = %s",
    )
    now = connection.ops.adapt_datetimefield_value(now)
    params = [worker.pk, status.SUBMITTED, status.APPROVED, status.RESERVED, now, batch.pk]
    params += [] if item is None else [item.pk]
    params += [worker.pk, status.EXPIRED, status.RETURNED, worker.pk, worker.pk]
    params += [batch.target_per_item]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def assignment_reserve_next(
    *, batch: Batch, worker: Worker, now=None, item: BatchItem | None = None
) -> Assignment:
    """Give the worker their live reservation in the batch, or reserve the next open item.

    `worker` may be a bare `Worker(pk=...)`: its row is read here, under a lock (a
    missing worker raises Worker.DoesNotExist).

    `item` restricts the choice to one item, for providers whose unit of work is
    one item (an MTurk HIT takes N assignments from distinct workers); without it
    the worker holds one reservation at a time and moves through the batch (a
    local or Prolific session).

    Raises NoWorkAvailable with the reason (batch not open, worker blocked, cap
    reached, nothing left for this worker).
    """
    now = now or timezone.now()
    if batch.status != Batch.Status.PUBLISHED:
        raise NoWorkAvailable("This batch is not open for work.", code="closed")
    with transaction.atomic():
        # One decision per worker at a time: two tabs asking at once must not
        # both pass the cap check or hold two reservations.
        worker = Worker.objects.select_for_update().get(pk=worker.pk)
        if worker.blocked:
            raise NoWorkAvailable("Your account cannot take tasks in this study.", code="blocked")
        live = Assignment.objects.filter(
            item__batch=batch, worker=worker, status=Assignment.Status.RESERVED, expires_at__gt=now
        )
        if item is not None:
            live = live.filter(item=item)
        current = live.order_by("id").first()
        if current is not None:
            return current
        if batch.per_worker_cap is not None and (
            worker_load(batch=batch, worker=worker, now=now) >= batch.per_worker_cap
        ):
            raise NoWorkAvailable(
                f"You have reached the limit of {batch.per_worker_cap} tasks in this batch. "
                "Thank you for your work!",
                code="cap",
            )
        for item_id, previous_id in _candidate_items(
            batch=batch, worker=worker, now=now, item=item
        ):
            assignment = _reserve_item(
                item_id=item_id, previous_id=previous_id, batch=batch, worker=worker, now=now
            )
            if assignment is not None:
                return assignment
    raise NoWorkAvailable("There are no tasks left for you in this batch right now.", code="empty")


def _reserve_item(
    *, item_id: int, previous_id: int | None, batch: Batch, worker: Worker, now
) -> Assignment | None:
    """Reserve the item if it still has a slot under its row lock; None when it filled up.

    A full item stays locked until the transaction ends (no savepoint to release it
    earlier): it only happens when another worker took the last slot a moment ago, and
    two statements fewer on every reservation are worth more.
    """
    if not item_slot_free(item_id=item_id, now=now):
        return None
    expires_at = now + timedelta(seconds=batch.time_allowed_seconds)
    if previous_id is None:
        return Assignment.objects.create(item_id=item_id, worker=worker, expires_at=expires_at)
    # Taken again after it expired or was given back; a late submit of it may have
    # stored it since the candidates were read, so the status is checked in the update.
    reopened = Assignment.objects.filter(
        pk=previous_id, status__in=[Assignment.Status.EXPIRED, Assignment.Status.RETURNED]
    ).update(
        status=Assignment.Status.RESERVED, started_at=now, expires_at=expires_at, submission_key=""
    )
    return Assignment.objects.get(pk=previous_id) if reopened else None


@transaction.atomic
def assignment_return(*, assignment: Assignment) -> Assignment:
    """The worker gives a reservation back; its slot reopens at once."""
    assignment = Assignment.objects.select_for_update().get(pk=assignment.pk)
    if assignment.status == Assignment.Status.RESERVED:
        assignment.status = Assignment.Status.RETURNED
        assignment.save(update_fields=["status"])
    return assignment


def assignment_submit(
    *,
    assignment: Assignment,
    payload: dict,
    submission_key: str = "",
    now=None,
    worker_id: int | None = None,
) -> SubmitOutcome:
    """Validate and store a worker's submission exactly once.

    A retried or double-clicked submit returns the stored result (replayed=True).
    Raises SubmissionError with a message for the worker when the rules fail or
    the reservation can no longer be honoured. With `worker_id` (a worker's own
    page), an assignment of another worker raises Assignment.DoesNotExist, and
    `assignment` may be a bare `Assignment(pk=...)`: it is read here, under lock.
    """
    now = now or timezone.now()
    owner = {} if worker_id is None else {"worker_id": worker_id}
    with transaction.atomic():
        # Only the assignment's row is locked; its item, batch and proverb or narrative
        # come in the same statement for the task type's validation.
        locked = (
            Assignment.objects.select_for_update(of=("self",))
            .select_related("item__batch", "item__proverb", "item__narrative", "worker")
            .get(pk=assignment.pk, **owner)
        )
        task_type = task_types.get(locked.item.batch.task_type)
        if locked.status in Assignment.STORED:
            return SubmitOutcome(locked, task_type.result(assignment=locked), replayed=True)
        _ensure_still_held(locked, now=now)
        cleaned = task_type.validate(assignment=locked, payload=payload)
        task_type.store(assignment=locked, cleaned=cleaned)
        locked.status = Assignment.Status.SUBMITTED
        locked.submitted_at = now
        locked.submission_key = submission_key[:64]
        locked.save(update_fields=["status", "submitted_at", "submission_key"])
        return SubmitOutcome(locked, task_type.result(assignment=locked), replayed=False)


def _ensure_still_held(assignment: Assignment, *, now) -> None:
    if assignment.worker.blocked:
        raise SubmissionError("Your account cannot take tasks in this study.")
    if assignment.status == Assignment.Status.RESERVED and assignment.expires_at > now:
        return
    if assignment.status not in (Assignment.Status.RESERVED, Assignment.Status.EXPIRED):
        raise SubmissionError("This task was given back; open the next task to continue.")
    # Late: keep the work if the slot is still free.
    if not item_slot_free(item_id=assignment.item_id, now=now, excluding=assignment):
        raise SubmissionError(
            "The time allowed for this task ran out and its place went to someone else. "
            "Your text is still in this page: copy it if you want to keep it."
        )
    assignment.status = Assignment.Status.RESERVED
