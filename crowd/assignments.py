"""Handing out work and taking it back: reservations, quotas, caps, expiry, submission.

Slots are counted under a row lock on the batch item, so two workers asking at
once never over-fill it; an expired reservation gives its slot back.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from crowd import task_types
from crowd.models import Assignment, Batch, BatchItem, Worker
from crowd.task_types import SubmissionConflict, SubmissionError

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
    # Only the item's row is locked: locking its batch too would queue every reservation
    # of the batch behind one row.
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


def _candidate_items(*, batch: Batch, worker: Worker, now):
    done_before = Assignment.objects.filter(worker=worker, item__batch=batch).exclude(
        status__in=[Assignment.Status.EXPIRED, Assignment.Status.RETURNED]
    )
    return (
        BatchItem.objects.filter(batch=batch, withdrawn_at__isnull=True)
        .exclude(pk__in=done_before.values("item_id"))
        # Never an item built on the worker's own work.
        .exclude(narrative__worker=worker)
        .exclude(source_assignment__worker=worker)
        .exclude(continuation_pair__continuation__assignment__worker=worker)
        # Narratives a reviewer confirmed as literal use get no more work.
        .exclude(figurative_narrative__literal_use_confirmed=True)
        .exclude(continuation_pair__narrative__literal_use_confirmed=True)
        .exclude(continuation_pair__withdrawn=True)
        .annotate(active=Count("assignments", filter=active_filter(now, prefix="assignments__")))
        # Gold (control) items go to every worker, first: they are not limited by the target.
        .filter(Q(active__lt=batch.target_per_item) | Q(is_gold=True))
        .order_by("-is_gold", "active", "position", "id")
    )


def assignment_reserve_next(
    *, batch: Batch, worker: Worker, now=None, item: BatchItem | None = None
) -> Assignment:
    """Give the worker their live reservation in the batch, or reserve the next open item.

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
        worker = _locked_worker(worker, batch=batch)
        live = Assignment.objects.filter(
            item__batch=batch, worker=worker, status=Assignment.Status.RESERVED, expires_at__gt=now
        )
        if item is not None:
            live = live.filter(item=item)
        current = live.order_by("id").first()
        if current is not None:
            return current
        _cap_room(batch=batch, worker=worker, now=now)
        candidates = _candidate_items(batch=batch, worker=worker, now=now)
        if item is not None:
            candidates = candidates.filter(pk=item.pk)
        for item_id in candidates.values_list("id", flat=True)[:50]:
            assignment = _reserve_item(item_id=item_id, batch=batch, worker=worker, now=now)
            if assignment is not None:
                return assignment
    raise NoWorkAvailable("There are no tasks left for you in this batch right now.", code="empty")


def assignments_reserve(*, batch: Batch, worker: Worker, count: int, now=None) -> list[Assignment]:
    """Reserve up to `count` open items at once, for a session that holds several
    (a Prolific participant's), under the same quotas, cap and never-your-own-work rule.

    Raises NoWorkAvailable when not even one item can be reserved.
    """
    now = now or timezone.now()
    if batch.status != Batch.Status.PUBLISHED:
        raise NoWorkAvailable("This batch is not open for work.", code="closed")
    reserved: list[Assignment] = []
    with transaction.atomic():
        worker = _locked_worker(worker, batch=batch)
        room = min(count, _cap_room(batch=batch, worker=worker, now=now))
        candidates = _candidate_items(batch=batch, worker=worker, now=now)
        for item_id in candidates.values_list("id", flat=True)[: 50 + room]:
            if len(reserved) >= room:
                break
            assignment = _reserve_item(item_id=item_id, batch=batch, worker=worker, now=now)
            if assignment is not None:
                reserved.append(assignment)
    if not reserved:
        raise NoWorkAvailable(
            "There are no tasks left for you in this batch right now.", code="empty"
        )
    return reserved


def _locked_worker(worker: Worker, *, batch: Batch) -> Worker:
    """The worker's row, locked; NoWorkAvailable when blocked or still to qualify for `batch`."""
    worker = Worker.objects.select_for_update().get(pk=worker.pk)
    if worker.blocked:
        raise NoWorkAvailable("Your account cannot take tasks in this study.", code="blocked")
    if task_types.get(batch.task_type).qualification_needed(batch=batch, worker=worker):
        raise NoWorkAvailable(
            "This batch starts with a short qualification test.", code="qualification"
        )
    return worker


def _cap_room(*, batch: Batch, worker: Worker, now) -> int:
    """How many more items the worker may take in the batch; NoWorkAvailable at the cap."""
    if batch.per_worker_cap is None:
        return 10**6
    room = batch.per_worker_cap - worker_load(batch=batch, worker=worker, now=now)
    if room <= 0:
        raise NoWorkAvailable(
            f"You have reached the limit of {batch.per_worker_cap} tasks in this batch. "
            "Thank you for your work!",
            code="cap",
        )
    return room


class _ItemTaken(Exception):
    """Rolls back the savepoint of a full item, which releases its row lock at once."""


def _reserve_item(*, item_id: int, batch: Batch, worker: Worker, now) -> Assignment | None:
    try:
        with transaction.atomic():
            return _reserve_locked_item(item_id=item_id, batch=batch, worker=worker, now=now)
    except _ItemTaken:
        return None


def _reserve_locked_item(*, item_id: int, batch: Batch, worker: Worker, now) -> Assignment:
    if not item_slot_free(item_id=item_id, now=now):
        raise _ItemTaken
    expires_at = now + timedelta(seconds=batch.time_allowed_seconds)
    previous = Assignment.objects.filter(item_id=item_id, worker=worker).first()
    if previous is None:
        return Assignment.objects.create(item_id=item_id, worker=worker, expires_at=expires_at)
    if previous.status not in (Assignment.Status.EXPIRED, Assignment.Status.RETURNED):
        raise _ItemTaken
    previous.status = Assignment.Status.RESERVED
    previous.started_at = now
    previous.expires_at = expires_at
    previous.submission_key = ""
    previous.save(update_fields=["status", "started_at", "expires_at", "submission_key"])
    return previous


@transaction.atomic
def assignment_return(*, assignment: Assignment) -> Assignment:
    """The worker gives a reservation back; its slot reopens at once."""
    assignment = Assignment.objects.select_for_update().get(pk=assignment.pk)
    if assignment.status == Assignment.Status.RESERVED:
        assignment.status = Assignment.Status.RETURNED
        assignment.save(update_fields=["status"])
    return assignment


def assignment_submit(
    *, assignment: Assignment, payload: dict, submission_key: str = "", now=None
) -> SubmitOutcome:
    """Validate and store a worker's submission exactly once.

    A retried or double-clicked submit (same submission key) returns the stored result
    (replayed=True); a submit with another key, from a second window, raises
    SubmissionConflict and stores nothing. Raises SubmissionError with a message for
    the worker when the rules fail or the reservation can no longer be honoured.
    """
    now = now or timezone.now()
    with transaction.atomic():
        # Only the assignment's row is locked; its item, batch and proverb or narrative
        # come in the same statement for the task type's validation.
        locked = (
            Assignment.objects.select_for_update(of=("self",))
            .select_related("item__batch", "item__proverb", "item__narrative", "worker")
            .get(pk=assignment.pk)
        )
        task_type = task_types.get(locked.item.batch.task_type)
        if locked.status in Assignment.STORED:
            if locked.submission_key and submission_key[:64] != locked.submission_key:
                raise SubmissionConflict(
                    "This task was already submitted from another window; the text here "
                    "was not stored. It is still here: copy it if you want to keep it."
                )
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
    if assignment.item.withdrawn_at is not None:
        raise SubmissionError(
            "The text this task was about has been withdrawn from the study; "
            "open the next task to continue."
        )
    if assignment.status not in (Assignment.Status.RESERVED, Assignment.Status.EXPIRED):
        raise SubmissionError("This task was given back; open the next task to continue.")
    # Late: keep the work if the slot is still free.
    if not item_slot_free(item_id=assignment.item_id, now=now, excluding=assignment):
        raise SubmissionError(
            "The time allowed for this task ran out and its place went to someone else. "
            "Your text is still in this page: copy it if you want to keep it."
        )
    assignment.status = Assignment.Status.RESERVED
