"""Review services: approve, reject (the slot reopens), block a worker, pay a bonus.

No provider call runs inside a database transaction: a review checks its rules in
one short transaction, tells the provider outside any, and writes its outcome in a
second. A provider that refuses (ProviderError) surfaces as a ReviewError with the
provider's reason, and nothing is approved, rejected, paid or blocked that the
provider did not accept.

The rules every provider shares are stated here once:
- only work the provider vouches for (CrowdProvider.vouched) is approved or paid;
- work still unvouched once its time and the provider's grace are over is rejected
  (unvouched_release), which reopens its slot;
- a bonus for this assignment with this reason and amount is paid once (crowd.Bonus),
  so a resent form (reload, double click, back button) pays nothing more.
"""

from __future__ import annotations

import hashlib
from contextlib import contextmanager
from datetime import timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from crowd import task_types
from crowd.assignments import item_slot_free
from crowd.chaining import batches_feed
from crowd.models import Assignment, Batch, Bonus, Worker
from crowd.money import money_text
from crowd.providers import ProviderError, get_provider
from crowd.withdrawals import batch_items_restore, batch_items_withdraw


class ReviewError(ValueError):
    """A review action that does not apply to this assignment."""


class BonusAlreadyPaid(ReviewError):
    """The same bonus (assignment, reason, amount) was paid before: a resent form."""


def _ensure_vouched(assignment: Assignment, what: str) -> None:
    provider = get_provider(assignment.item.batch.provider)
    if not provider.vouched(assignment=assignment):
        raise ReviewError(
            f"Assignment {assignment.pk} is not {what}: {provider.key} has no record "
            "confirming this worker did this work, so it is never approved or paid. "
            "Sync the batch if the worker has just finished."
        )


@contextmanager
def _provider_refusal():
    try:
        yield
    except ProviderError as error:
        raise ReviewError(str(error)) from error


def _locked_submission(assignment: Assignment) -> Assignment:
    locked = (
        Assignment.objects.select_for_update()
        .select_related("item__batch", "worker")
        .get(pk=assignment.pk)
    )
    if locked.status not in Assignment.STORED:
        raise ReviewError(f"Assignment {locked.pk} has no submission to review.")
    return locked


def _ensure_slot_free(assignment: Assignment) -> None:
    """A rejected submission gave its slot back: approving it later needs a free slot."""
    if not item_slot_free(item_id=assignment.item_id, now=timezone.now(), excluding=assignment):
        raise ReviewError(
            f"Assignment {assignment.pk} was rejected and its place has been taken since; "
            "approving it would exceed the item's target."
        )


def _reviewed(assignment: Assignment, *, done: str, check, tell, apply, what: str) -> Assignment:
    """The shape of every review, so that no provider call runs inside a transaction
    (a call can take seconds; meanwhile the row locks, and on SQLite the whole database,
    would be held): lock and `check` in one short transaction; `tell` the provider
    outside any, where its refusal is a ReviewError and nothing here changes; then lock
    again and `apply`, unless another review changed the assignment meanwhile."""
    with transaction.atomic():
        locked = _locked_submission(assignment)
        if locked.status == done:
            return locked
        check(locked)
    seen = locked.status
    with _provider_refusal():
        tell(locked)
    with transaction.atomic():
        locked = _locked_submission(assignment)
        if locked.status == done:
            return locked
        if locked.status != seen:
            raise ReviewError(
                f"Assignment {locked.pk} was reviewed by someone else while {what} was sent "
                f"(it is now {locked.get_status_display().lower()}): reload it and review it again."
            )
        apply(locked)
    return locked


def _reviewed_save(
    locked: Assignment, status: str, *, withdrawn_because: str = "", **fields
) -> None:
    """Write the review's outcome; the task type reacts (approved work counts). Approved
    work reviewed otherwise withdraws the items built on it (crowd.withdrawals)."""
    if locked.status == Assignment.Status.APPROVED and status != locked.status:
        batch_items_withdraw(assignment=locked, reason=withdrawn_because)
    locked.status = status
    locked.reviewed_at = timezone.now()
    for name, value in fields.items():
        setattr(locked, name, value)
    locked.save(update_fields=["status", "reviewed_at", *fields])
    approved = status == Assignment.Status.APPROVED
    task_types.get(locked.item.batch.task_type).on_reviewed(assignment=locked, approved=approved)


def assignment_approve(*, assignment: Assignment, message: str = "") -> Assignment:
    """Approve a submission (idempotent), with optional feedback the provider passes on;
    the provider is told first (a refusal approves nothing), then the task type reacts."""
    message = message.strip()

    def check(locked: Assignment) -> None:
        _ensure_vouched(locked, "approved")
        if locked.status == Assignment.Status.REJECTED:
            _ensure_slot_free(locked)

    def tell(locked: Assignment) -> None:
        locked.review_message = message  # the feedback the provider passes on
        get_provider(locked.item.batch.provider).approve(assignment=locked)

    def apply(locked: Assignment) -> None:
        if locked.status == Assignment.Status.REJECTED:
            _ensure_slot_free(locked)
            batch_items_restore(assignment=locked)
        _reviewed_save(locked, Assignment.Status.APPROVED, review_message=message)
        batches_feed(assignment=locked)  # chained batches take the newly approved output

    return _reviewed(
        assignment,
        done=Assignment.Status.APPROVED,
        check=check,
        tell=tell,
        apply=apply,
        what="the approval",
    )


def assignment_approve_exclude(*, assignment: Assignment, reason: str) -> Assignment:
    """Pay the worker as for approved work, but keep the work out of the dataset,
    agreement, chained batches and exports, with a reason (kept, not shown to the
    worker): for work that is suspicious but not proven bad, as Prolific's policy asks.
    Its slot reopens for another worker; items already built on it are withdrawn."""
    reason = reason.strip()
    if not reason:
        raise ReviewError("Approving and excluding needs a reason (kept with the work).")

    def tell(locked: Assignment) -> None:
        if locked.status != Assignment.Status.APPROVED:  # approved work was paid already
            get_provider(locked.item.batch.provider).approve(assignment=locked)

    def apply(locked: Assignment) -> None:
        why = f"Assignment {locked.pk} excluded: {reason}"
        _reviewed_save(
            locked, Assignment.Status.EXCLUDED, withdrawn_because=why, exclusion_reason=reason
        )

    return _reviewed(
        assignment,
        done=Assignment.Status.EXCLUDED,
        check=lambda locked: _ensure_vouched(locked, "approved"),
        tell=tell,
        apply=apply,
        what="the approval",
    )


def assignment_reject(*, assignment: Assignment, message: str) -> Assignment:
    """Reject a submission with a message to the worker; its slot reopens for others.

    Rejecting approved work withdraws the items built on it (crowd.withdrawals).
    """
    message = message.strip()
    if not message:
        raise ReviewError("A rejection needs a message telling the worker why.")

    def tell(locked: Assignment) -> None:
        get_provider(locked.item.batch.provider).reject(assignment=locked, message=message)

    def apply(locked: Assignment) -> None:
        why = f"Assignment {locked.pk} rejected: {message}"
        _reviewed_save(
            locked, Assignment.Status.REJECTED, withdrawn_because=why, review_message=message
        )

    return _reviewed(
        assignment,
        done=Assignment.Status.REJECTED,
        check=lambda locked: None,
        tell=tell,
        apply=apply,
        what="the rejection",
    )


def worker_block(*, worker: Worker, reason: str) -> Worker:
    """Block a worker: no new tasks, no further submissions. The provider is told first,
    outside any transaction; a refusal blocks nothing."""
    reason = reason.strip()
    if not reason:
        raise ReviewError("Blocking a worker needs a reason.")
    worker = Worker.objects.get(pk=worker.pk)
    with _provider_refusal():
        get_provider(worker.provider).block(worker=worker, reason=reason)
    with transaction.atomic():
        worker = Worker.objects.select_for_update().get(pk=worker.pk)
        worker.blocked = True
        worker.blocked_reason = reason
        worker.save(update_fields=["blocked", "blocked_reason"])
        Assignment.objects.filter(worker=worker, status=Assignment.Status.RESERVED).update(
            status=Assignment.Status.RETURNED
        )
    return worker


def worker_unblock(*, worker: Worker) -> Worker:
    """Let a blocked worker take work again; the provider is told first, outside any
    transaction; a refusal unblocks nothing."""
    worker = Worker.objects.get(pk=worker.pk)
    if not worker.blocked:
        return worker
    with _provider_refusal():
        get_provider(worker.provider).unblock(worker=worker)
    with transaction.atomic():
        worker = Worker.objects.select_for_update().get(pk=worker.pk)
        worker.blocked = False
        worker.blocked_reason = ""
        worker.save(update_fields=["blocked", "blocked_reason"])
    return worker


def reason_digest(reason: str) -> str:
    return hashlib.sha256(reason.encode()).hexdigest()


def assignment_bonus(*, assignment: Assignment, cents: int, reason: str) -> Assignment:
    """Pay a bonus on approved, vouched work (added to what was paid before), once for
    this assignment, reason and amount: a resent form raises BonusAlreadyPaid.

    The bonus is recorded (and its amount counted) in one short transaction, the
    provider is told outside any, and a refusal takes the record back."""
    reason = reason.strip()
    if cents <= 0:
        raise ReviewError("A bonus must be a positive amount.")
    if not reason:
        raise ReviewError("A bonus needs a reason; the worker sees it.")
    with transaction.atomic():
        locked = _locked_submission(assignment)
        if locked.status not in Assignment.PAID:
            raise ReviewError("Bonuses are paid on approved work only.")
        _ensure_vouched(locked, "paid")
        digest = reason_digest(reason)
        earlier = Bonus.objects.filter(assignment=locked, cents=cents, reason_digest=digest).first()
        if earlier is not None:
            raise BonusAlreadyPaid(
                f"Assignment {locked.pk} was already paid a bonus of {money_text(cents)} with "
                "this reason "
                f"({earlier.created_at:%Y-%m-%d %H:%M} UTC): it is paid once. To pay another "
                "bonus, give it its own reason."
            )
        # Counted at once, so that a bonus sent meanwhile has its own `paid_before_cents`.
        bonus = Bonus.objects.create(
            assignment=locked,
            cents=cents,
            reason=reason,
            reason_digest=digest,
            paid_before_cents=locked.bonus_cents,
        )
        Assignment.objects.filter(pk=locked.pk).update(bonus_cents=F("bonus_cents") + cents)
    try:
        with _provider_refusal():  # the provider sees what was paid before this bonus
            get_provider(locked.item.batch.provider).pay_bonus(
                assignment=locked, cents=cents, reason=reason
            )
    except Exception:  # refused or unsent: taken back (sent again, the same MTurk token)
        with transaction.atomic():
            bonus.delete()
            Assignment.objects.filter(pk=locked.pk).update(bonus_cents=F("bonus_cents") - cents)
        raise
    locked.refresh_from_db(fields=["bonus_cents"])
    return locked


def unvouched_release(*, batch: Batch, now=None) -> int:
    """Reject submitted work its provider has still not vouched for once the batch's time
    allowed and the provider's grace are over (the provider has nothing to reject: it is
    rejected here), so it is never approved or counted and its slot reopens."""
    now = now or timezone.now()
    provider = get_provider(batch.provider)
    cutoff = (
        now - timedelta(seconds=batch.time_allowed_seconds) - provider.unvouched_grace(batch=batch)
    )
    stale = Assignment.objects.filter(
        item__batch=batch, status=Assignment.Status.SUBMITTED, started_at__lt=cutoff
    ).select_related("item__batch", "worker")
    released = 0
    for answer in provider.unvouched_among(assignments=stale):
        assignment_reject(assignment=answer, message=provider.unvouched_message)
        released += 1
    return released
