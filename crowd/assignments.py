"""Handing out work and taking it back: reservations, quotas, caps, expiry, submission.

Slots are counted under a row lock on the batch item, so two workers asking at once never
over-fill it; an expired reservation gives its slot back. Over 400 lines: the serving and
reservation SQL that keeps finding the next item constant-time sits beside its services.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from functools import cache

from django.db import OperationalError, connection, transaction
from django.db.models import Q
from django.utils import timezone

from crowd import task_types
from crowd.models import Assignment, Batch, BatchItem, Worker
from crowd.providers import get_provider
from crowd.task_types import SubmissionConflict, SubmissionError


class NoWorkAvailable(Exception):
    """Why a worker gets no task: the reason is shown to them as is."""

    def __init__(self, reason: str, *, code: str):
        super().__init__(reason)
        self.reason = reason
        self.code = code


# What a task page and a submit read with the assignment, in the same statement.
WITH_TASK = ("item__batch", "item__proverb", "item__narrative", "worker")


@dataclass(frozen=True)
class SubmitOutcome:
    assignment: Assignment
    result: dict
    replayed: bool


_DONE = Q(status__in=[Assignment.Status.SUBMITTED, Assignment.Status.APPROVED])


def active_filter(now) -> Q:
    """Assignments holding a slot: live reservations, submitted or approved work."""
    return _DONE | Q(status=Assignment.Status.RESERVED, expires_at__gt=now)


def item_slot_free(*, item_id: int, now, excluding: Assignment | None = None) -> bool:
    """Lock the item's row (not its batch's: that would queue the whole batch) and say
    whether it has a free slot besides `excluding`'s; gold (control) items always have room."""
    item = BatchItem.objects.select_for_update(of=("self",)).select_related("batch").get(pk=item_id)
    if item.is_gold:
        return True
    held = Assignment.objects.filter(active_filter(now), item=item)
    if excluding is not None:
        held = held.exclude(pk=excluding.pk)
    return held.count() < item.batch.target_per_item


def worker_load(*, batch: Batch, worker: Worker, now=None, reservations: bool = True) -> int:
    """How many items of the batch count against the worker's cap: their submitted and
    approved work, and their live reservations unless `reservations` is False."""
    now = now or timezone.now()
    counted = active_filter(now) if reservations else _DONE
    return Assignment.objects.filter(counted, item__batch=batch, worker=worker).count()


def assignments_expire(*, batch: Batch | None = None, now=None) -> int:
    """Mark reservations past their time as expired; their slots return to the pool."""
    now = now or timezone.now()
    stale = Assignment.objects.filter(status=Assignment.Status.RESERVED, expires_at__lte=now)
    if batch is not None:
        stale = stale.filter(item__batch=batch)
    return stale.update(status=Assignment.Status.EXPIRED)


# The items a worker may take: not taken by them already (unless expired or returned), not
# built on their own work, no narrative confirmed as literal use (nor crowd continuations of
# it), no withdrawn continuation pair. Read from OpenItem's serving-order index, so a call
# reads a few rows whatever the batch holds (counting it all took 220-330 ms at 10,000 items).
_WORKER_MAY_TAKE = """
  AND o.item_id NOT IN (
    SELECT mine.item_id FROM crowd_assignment mine
    WHERE mine.worker_id = %(worker)s AND mine.status NOT IN ('expired', 'returned')
  )
  AND (bi.narrative_id IS NULL OR NOT EXISTS (
    SELECT 1 FROM annotation_narrative n
    WHERE n.id = bi.narrative_id AND n.worker_id = %(worker)s
  ))
  AND (bi.source_assignment_id IS NULL OR NOT EXISTS (
    SELECT 1 FROM crowd_assignment source
    WHERE source.id = bi.source_assignment_id AND source.worker_id = %(worker)s
  ))
  AND (bi.figurative_narrative_id IS NULL OR NOT EXISTS (
    SELECT 1 FROM annotation_figurativenarrative fn
    WHERE fn.id = bi.figurative_narrative_id AND fn.literal_use_confirmed
  ))
  AND (bi.continuation_pair_id IS NULL OR NOT EXISTS (
    SELECT 1 FROM annotation_continuationpair cp
    LEFT JOIN annotation_continuation c ON c.id = cp.continuation_id
    LEFT JOIN crowd_assignment written ON written.id = c.assignment_id
    LEFT JOIN annotation_figurativenarrative cfn ON cfn.id = cp.narrative_id
    WHERE cp.id = bi.continuation_pair_id
      AND (cp.withdrawn OR (cfn.literal_use_confirmed AND cp.source = 'crowd')
           OR written.worker_id = %(worker)s)
  ))"""
# One range of the serving-order index ({range}: gold, or open items); {item}: one item.
_RANGE_SQL = f"""
SELECT * FROM (
  SELECT o.item_id, o.is_gold, o.held, o.position FROM crowd_openitem o
  JOIN crowd_batchitem bi ON bi.id = o.item_id
  WHERE o.batch_id = %(batch)s AND {{range}}{{item}}{_WORKER_MAY_TAKE}
  ORDER BY o.held, o.position, o.item_id
  LIMIT %(limit)s
) {{name}}"""
# Plain SQL that PostgreSQL and SQLite (the embedded default) both run.
_CANDIDATES_SQL = """
SELECT c.item_id FROM ({gold} UNION ALL {open}) c
ORDER BY c.is_gold DESC, c.held, c.position, c.item_id
LIMIT %(limit)s
"""


@cache
def _candidates_sql(*, one_item: bool, holds_slot: bool = True) -> str:
    """The statement for one item or the batch (full items too when holding no slot)."""
    item = " AND o.item_id = %(item)s" if one_item else ""
    room = " AND o.held < %(target)s" if holds_slot else ""
    return _CANDIDATES_SQL.format(
        gold=_RANGE_SQL.format(range="o.is_gold", item=item, name="gold"),
        open=_RANGE_SQL.format(range=f"NOT o.is_gold{room}", item=item, name="open"),
    )


def _reserve_open(
    *,
    batch: Batch,
    worker: Worker,
    now,
    count: int,
    item: BatchItem | None = None,
    holds_slot: bool = True,
) -> list[Assignment]:
    """Reserve up to `count` of the items the worker may take, best first (only `item`).

    OpenItem counts a stale reservation as held until it is marked expired: when too few
    items look open (a batch's end), the batch's stale ones are expired first, before any
    item's row is locked, and the items looked for again (a deadlock leaves them to the other).
    """
    sql = _candidates_sql(one_item=item is not None, holds_slot=holds_slot)
    params = {
        "batch": batch.pk,
        "worker": worker.pk,
        "item": item.pk if item is not None else None,
        "target": batch.target_per_item,
        "limit": 20 + count,
    }

    def candidates() -> list[int]:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return [row[0] for row in cursor.fetchall()]

    found = candidates()
    if len(found) < count:
        try:
            with transaction.atomic():
                expired = assignments_expire(batch=batch, now=now)
        except OperationalError:
            expired = 0
        if expired:
            found = candidates()
    return _reserve_items(
        found, batch=batch, worker=worker, now=now, count=count, holds_slot=holds_slot
    )


def assignment_reserve_next(
    *,
    batch: Batch,
    worker: Worker,
    now=None,
    item: BatchItem | None = None,
    worker_locked: bool = False,
    holds_slot: bool = True,
) -> Assignment:
    """The worker's live reservation in the batch, or the next open item reserved;
    NoWorkAvailable says why not (batch closed, worker blocked, cap reached, nothing left).

    `item`: only that item (an MTurk HIT). `worker_locked`: the caller holds the worker's
    row lock. `holds_slot=False`: the reservation takes no slot, for a provider whose claims
    are checked after submission and which limits workers per item itself (MTurk's
    MaxAssignments): unverified claims must not lock real workers out.
    """
    now = now or timezone.now()
    _ensure_open(batch)
    # A caller holding the worker's lock has its transaction: no savepoint inside it.
    with transaction.atomic(savepoint=not worker_locked):
        # One decision per worker at a time: two tabs must not both pass the cap check.
        worker = _locked_worker(worker, batch=batch, locked=worker_locked)
        live = Assignment.objects.filter(
            item__batch=batch, worker=worker, status=Assignment.Status.RESERVED, expires_at__gt=now
        )
        if item is not None:
            live = live.filter(item=item)
        current = live.order_by("id").first()
        if current is not None:
            return current
        # Reservations holding no slot are unverified claims: they count against no cap.
        _cap_room(batch=batch, worker=worker, now=now, reservations=holds_slot)
        reserved = _reserve_open(
            batch=batch, worker=worker, now=now, count=1, item=item, holds_slot=holds_slot
        )
    return _first_or_none_left(reserved)[0]


def assignments_reserve(*, batch: Batch, worker: Worker, count: int, now=None) -> list[Assignment]:
    """Reserve up to `count` open items at once, for a session that holds several (a
    Prolific participant's), under the same rules; NoWorkAvailable when not even one."""
    now = now or timezone.now()
    _ensure_open(batch)
    with transaction.atomic():
        worker = _locked_worker(worker, batch=batch)
        room = min(count, _cap_room(batch=batch, worker=worker, now=now))
        reserved = _reserve_open(batch=batch, worker=worker, now=now, count=room)
    return _first_or_none_left(reserved)


def _ensure_open(batch: Batch) -> None:
    if batch.status != Batch.Status.PUBLISHED:
        raise NoWorkAvailable("This batch is not open for work.", code="closed")


def _first_or_none_left(reserved: list[Assignment]) -> list[Assignment]:
    """The reservations made, after the transaction that made them; none: NoWorkAvailable."""
    if not reserved:
        raise NoWorkAvailable(
            "There are no tasks left for you in this batch right now.", code="empty"
        )
    return reserved


def _locked_worker(worker: Worker, *, batch: Batch, locked: bool = False) -> Worker:
    """The worker's row, locked (unless the caller holds the lock); NoWorkAvailable when
    blocked or still to qualify for `batch`."""
    if not locked:
        worker = Worker.objects.select_for_update().get(pk=worker.pk)
    if worker.blocked:
        raise NoWorkAvailable("Your account cannot take tasks in this study.", code="blocked")
    if task_types.get(batch.task_type).qualification_needed(batch=batch, worker=worker):
        raise NoWorkAvailable(
            "This batch starts with a short qualification test.", code="qualification"
        )
    return worker


def _cap_room(*, batch: Batch, worker: Worker, now, reservations: bool = True) -> int:
    """How many more items the worker may take in the batch; NoWorkAvailable at the cap."""
    if batch.per_worker_cap is None:
        return 10**6
    load = worker_load(batch=batch, worker=worker, now=now, reservations=reservations)
    room = batch.per_worker_cap - load
    if room <= 0:
        raise NoWorkAvailable(
            f"You have reached the limit of {batch.per_worker_cap} tasks in this batch. "
            "Thank you for your work!",
            code="cap",
        )
    return room


def _reserve_items(
    item_ids: list[int],
    *,
    batch: Batch,
    worker: Worker,
    now,
    count: int,
    holds_slot: bool = True,
) -> list[Assignment]:
    """Reserve up to `count` of the items, in order, in the worker's transaction. Items
    another reservation locks are passed over first (SKIP LOCKED), so that workers asking
    at once spread over the items, and waited for only when the others run out."""
    reserved: list[Assignment] = []
    busy: list[int] = []  # filled by the first pass, waited for by the second
    for wait, candidates in ((False, item_ids), (True, busy)):
        for item_id in candidates:
            if len(reserved) >= count:
                return reserved
            assignment = _reserve_item(
                item_id, batch=batch, worker=worker, now=now, wait=wait, holds_slot=holds_slot
            )
            if assignment is _BUSY:
                busy.append(item_id)
            elif assignment is not None:
                reserved.append(assignment)
    return reserved


_BUSY = object()  # _reserve_item without waiting: another transaction holds the item's row

# The reservation, under the item's row lock so that its count sees every one committed
# before: a new assignment when the item has room, or the worker's expired/returned one again.
_RESERVE_SQL = """
INSERT INTO crowd_assignment ({columns})
SELECT {values}
WHERE %(unlimited)s OR (
    SELECT count(*) FROM crowd_assignment a WHERE a.item_id = %(item)s AND (
        a.status IN ('submitted', 'approved')
        OR (a.status = 'reserved' AND a.expires_at > %(now)s)
    )
) < %(target)s
ON CONFLICT (item_id, worker_id) DO UPDATE
SET status = 'reserved', started_at = excluded.started_at, expires_at = excluded.expires_at,
    submission_key = ''
WHERE crowd_assignment.status IN ('expired', 'returned')
RETURNING {returned}
"""


@cache
def _reserve_sql() -> tuple[str, list[str]]:
    """_RESERVE_SQL for Assignment's columns, and the attributes of those it returns."""
    fields = [field for field in Assignment._meta.concrete_fields if not field.primary_key]
    columns = [field.column for field in Assignment._meta.concrete_fields]
    sql = _RESERVE_SQL.format(
        columns=", ".join(field.column for field in fields),
        values=", ".join(f"%({field.column})s" for field in fields),
        returned=", ".join(columns),
    )
    return sql, [field.attname for field in Assignment._meta.concrete_fields]


def _reserve_item(
    item_id: int, *, batch: Batch, worker: Worker, now, wait: bool, holds_slot: bool = True
):
    """Lock the item's row and reserve it: the Assignment, None when it has no room (a gold
    item or a reservation holding no slot needs none) or the worker holds it already,
    _BUSY when not `wait`ing and the row is held."""
    features = connection.features
    lock = ""  # SQLite (the embedded default) has no row locks: its writers take turns
    if features.has_select_for_update:
        skip = not wait and features.has_select_for_update_skip_locked
        lock = " FOR UPDATE SKIP LOCKED" if skip else " FOR UPDATE"
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT is_gold FROM crowd_batchitem WHERE id = %s{lock}", [item_id])
        row = cursor.fetchone()
        if row is None:
            return _BUSY if not wait else None
        sql, attnames = _reserve_sql()
        values = {
            "item_id": item_id,
            "worker_id": worker.pk,
            "status": Assignment.Status.RESERVED.value,
            "started_at": now,
            "expires_at": now + timedelta(seconds=batch.time_allowed_seconds),
        }
        params = {
            field.column: field.get_db_prep_save(
                values.get(field.column, field.get_default()), connection
            )
            for field in Assignment._meta.concrete_fields
            if not field.primary_key
        }
        params.update(
            item=item_id,
            unlimited=row[0] or not holds_slot,
            now=connection.ops.adapt_datetimefield_value(now),
            target=batch.target_per_item,
        )
        cursor.execute(sql, params)
        stored = cursor.fetchone()
    if stored is None:
        return None
    if connection.vendor != "postgresql":  # values as SQLite stores them: read back typed
        return Assignment.objects.get(pk=stored[0])
    return Assignment.from_db(connection.alias, attnames, stored)


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

    `worker_id` makes the locked read an ownership check (Assignment.DoesNotExist for
    another's or a blocked worker's). A retry with the same submission key returns the stored
    result (replayed=True); another key (a second window) raises SubmissionConflict.
    """
    now = now or timezone.now()
    with transaction.atomic():
        # Only the assignment's row is locked; what validation reads comes with it.
        locked = Assignment.objects.select_for_update(of=("self",)).select_related(*WITH_TASK)
        if worker_id is not None:
            locked = locked.filter(worker_id=worker_id, worker__blocked=False)
        locked = locked.get(pk=assignment.pk)
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
        # Work its provider confirms only once it is submitted there too counts from then.
        confirmed_later = get_provider(locked.item.batch.provider).confirms_after_submit
        locked.status = (
            Assignment.Status.UNCONFIRMED if confirmed_later else Assignment.Status.SUBMITTED
        )
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
