"""Review services: approve, reject (the slot reopens), block a worker, pay a bonus.

A provider that refuses (ProviderError) rolls the review back: it surfaces as a
ReviewError with the provider's reason, so nothing is approved or paid that the
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
from django.utils import timezone

from crowd import task_types
from crowd.assignments import item_slot_free
from crowd.chaining import batches_feed
from crowd.models import Assignment, Batch, Bonus, Worker
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


@transaction.atomic
def assignment_approve(*, assignment: Assignment, message: str = "") -> Assignment:
    """Approve a submission (idempotent), with optional feedback the provider passes on;
    the task type reacts, the provider is told."""
    locked = _locked_submission(assignment)
    if locked.status == Assignment.Status.APPROVED:
        return locked
    _ensure_vouched(locked, "approved")
    if locked.status == Assignment.Status.REJECTED:
        _ensure_slot_free(locked)
        batch_items_restore(assignment=locked)
    locked.status = Assignment.Status.APPROVED
    locked.reviewed_at = timezone.now()
    locked.review_message = message.strip()
    locked.save(update_fields=["status", "reviewed_at", "review_message"])
    task_types.get(locked.item.batch.task_type).on_reviewed(assignment=locked, approved=True)
    batches_feed(assignment=locked)  # chained batches take the newly approved output
    with _provider_refusal():
        get_provider(locked.item.batch.provider).approve(assignment=locked)
    return locked


@transaction.atomic
def assignment_approve_exclude(*, assignment: Assignment, reason: str) -> Assignment:
    """Pay the worker as for approved work, but keep the work out of the dataset,
    agreement, chained batches and exports, with a reason (kept, not shown to the
    worker): for work that is suspicious but not proven bad, as Prolific's policy asks.
    Its slot reopens for another worker; items already built on it are withdrawn."""
    reason = reason.strip()
    if not reason:
        raise ReviewError("Approving and excluding needs a reason (kept with the work).")
    locked = _locked_submission(assignment)
    if locked.status == Assignment.Status.EXCLUDED:
        return locked
    _ensure_vouched(locked, "approved")
    was_approved = locked.status == Assignment.Status.APPROVED
    if was_approved:
        batch_items_withdraw(assignment=locked, reason=f"Assignment {locked.pk} excluded: {reason}")
    locked.status = Assignment.Status.EXCLUDED
    locked.reviewed_at = timezone.now()
    locked.exclusion_reason = reason
    locked.save(update_fields=["status", "reviewed_at", "exclusion_reason"])
    task_types.get(locked.item.batch.task_type).on_reviewed(assignment=locked, approved=False)
    if not was_approved:
        with _provider_refusal():
            get_provider(locked.item.batch.provider).approve(assignment=locked)
    return locked


@transaction.atomic
def assignment_reject(*, assignment: Assignment, message: str) -> Assignment:
    """Reject a submission with a message to the worker; its slot reopens for others.

    Rejecting approved work withdraws the items built on it (crowd.withdrawals).
    """
    message = message.strip()
    if not message:
        raise ReviewError("A rejection needs a message telling the worker why.")
    locked = _locked_submission(assignment)
    if locked.status == Assignment.Status.REJECTED:
        return locked
    if locked.status == Assignment.Status.APPROVED:
        batch_items_withdraw(
            assignment=locked, reason=f"Assignment {locked.pk} rejected: {message}"
        )
    locked.status = Assignment.Status.REJECTED
    locked.reviewed_at = timezone.now()
    locked.review_message = message
    locked.save(update_fields=["status", "reviewed_at", "review_message"])
    task_types.get(locked.item.batch.task_type).on_reviewed(assignment=locked, approved=False)
    with _provider_refusal():
        get_provider(locked.item.batch.provider).reject(assignment=locked, message=message)
    return locked


@transaction.atomic
def worker_block(*, worker: Worker, reason: str) -> Worker:
    """Block a worker: no new tasks, no further submissions; the provider is told."""
    reason = reason.strip()
    if not reason:
        raise ReviewError("Blocking a worker needs a reason.")
    worker = Worker.objects.select_for_update().get(pk=worker.pk)
    worker.blocked = True
    worker.blocked_reason = reason
    worker.save(update_fields=["blocked", "blocked_reason"])
    Assignment.objects.filter(worker=worker, status=Assignment.Status.RESERVED).update(
        status=Assignment.Status.RETURNED
    )
    with _provider_refusal():
        get_provider(worker.provider).block(worker=worker, reason=reason)
    return worker


@transaction.atomic
def worker_unblock(*, worker: Worker) -> Worker:
    """Let a blocked worker take work again; the provider is told."""
    worker = Worker.objects.select_for_update().get(pk=worker.pk)
    if not worker.blocked:
        return worker
    worker.blocked = False
    worker.blocked_reason = ""
    worker.save(update_fields=["blocked", "blocked_reason"])
    with _provider_refusal():
        get_provider(worker.provider).unblock(worker=worker)
    return worker


def reason_digest(reason: str) -> str:
    return hashlib.sha256(reason.encode()).hexdigest()


@transaction.atomic
def assignment_bonus(*, assignment: Assignment, cents: int, reason: str) -> Assignment:
    """Pay a bonus on approved, vouched work (added to what was paid before), once for
    this assignment, reason and amount: a resent form raises BonusAlreadyPaid."""
    reason = reason.strip()
    if cents <= 0:
        raise ReviewError("A bonus must be a positive amount.")
    if not reason:
        raise ReviewError("A bonus needs a reason; the worker sees it.")
    locked = _locked_submission(assignment)
    if locked.status not in Assignment.PAID:
        raise ReviewError("Bonuses are paid on approved work only.")
    _ensure_vouched(locked, "paid")
    digest = reason_digest(reason)
    earlier = Bonus.objects.filter(assignment=locked, cents=cents, reason_digest=digest).first()
    if earlier is not None:
        raise BonusAlreadyPaid(
            f"Assignment {locked.pk} was already paid a bonus of {cents}¢ with this reason "
            f"({earlier.created_at:%Y-%m-%d %H:%M} UTC): it is paid once. To pay another "
            "bonus, give it its own reason."
        )
    Bonus.objects.create(
        assignment=locked,
        cents=cents,
        reason=reason,
        reason_digest=digest,
        paid_before_cents=locked.bonus_cents,
    )
    with _provider_refusal():
        get_provider(locked.item.batch.provider).pay_bonus(
            assignment=locked, cents=cents, reason=reason
        )
    locked.bonus_cents += cents
    locked.save(update_fields=["bonus_cents"])
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
