"""Review services: approve, reject (the slot reopens), block a worker, pay a bonus, message
workers; and the confirmation of work the provider vouches for after the fact.

A decision and the call it owes its provider (a crowd.ProviderAction) commit together; a
call the provider would refuse, judged from Parable's copy of its records, is a ReviewError.
The rules every provider shares: only work the provider vouches for is approved or paid;
work still unvouched after its time and the provider's grace is rejected (unvouched_release);
a bonus per assignment, reason and amount is paid once (crowd.Bonus), so a resent form pays
no more; work a provider confirms after submission (MTurk) counts once it does.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from crowd import task_types
from crowd.assignments import item_slot_free
from crowd.chaining import batches_feed
from crowd.models import Assignment, Batch, Bonus, ProviderAction, Worker
from crowd.money import money_text
from crowd.outbox import action_record
from crowd.providers import ProviderError, get_provider
from crowd.withdrawals import batch_items_restore, batch_items_withdraw

Kind = ProviderAction.Kind


class ReviewError(ValueError):
    """A review action that does not apply to this assignment."""


class BonusAlreadyPaid(ReviewError):
    """The same bonus (assignment, reason, amount) was given before: a resent form."""


def _ensure_vouched(assignment: Assignment, what: str) -> None:
    provider = get_provider(assignment.item.batch.provider)
    if not provider.vouched(assignment=assignment):
        raise ReviewError(
            f"Assignment {assignment.pk} is not {what}: {provider.key} has no record "
            "confirming this worker did this work, so it is never approved or paid. "
            "Sync the batch if the worker has just finished."
        )


def _locked_submission(assignment: Assignment) -> Assignment:
    locked = (
        Assignment.objects.select_for_update()
        .select_related("item__batch", "worker")
        .get(pk=assignment.pk)
    )
    if locked.status not in Assignment.STORED:
        raise ReviewError(f"Assignment {locked.pk} has no submission to review.")
    return locked


def _text(text: str, missing: str) -> str:
    """`text` stripped; ReviewError `missing` when nothing is left."""
    if not text.strip():
        raise ReviewError(missing)
    return text.strip()


def _ensure_slot_free(assignment: Assignment) -> None:
    """A rejected submission gave its slot back: approving it later needs a free slot."""
    if not item_slot_free(item_id=assignment.item_id, now=timezone.now(), excluding=assignment):
        raise ReviewError(
            f"Assignment {assignment.pk} was rejected and its place has been taken since; "
            "approving it would exceed the item's target."
        )


def _tell(locked: Assignment | Worker, kind: str, *, bonus=None, **payload):
    """Record the call the decision about `locked` (work, or a worker) owes its provider;
    one it would refuse raises ReviewError, and nothing is decided."""
    if isinstance(locked, Worker):
        subject, provider = {"worker": locked}, locked.provider
    else:
        subject, provider = {"assignment": locked}, locked.item.batch.provider
    try:
        return action_record(kind=kind, provider=provider, bonus=bonus, payload=payload, **subject)
    except ProviderError as error:
        raise ReviewError(str(error)) from error


def _reviewed_save(locked: Assignment, status: str, *, why: str = "", **fields) -> None:
    """Write the review's outcome; the task type reacts (approved work counts). Approved
    work reviewed otherwise withdraws the items built on it (crowd.withdrawals), saying why."""
    if locked.status == Assignment.Status.APPROVED and status != locked.status:
        batch_items_withdraw(assignment=locked, reason=f"Assignment {locked.pk} {status}: {why}")
    locked.status = status
    locked.reviewed_at = timezone.now()
    for name, value in fields.items():
        setattr(locked, name, value)
    locked.save(update_fields=["status", "reviewed_at", *fields])
    approved = status == Assignment.Status.APPROVED
    task_types.get(locked.item.batch.task_type).on_reviewed(assignment=locked, approved=approved)


@transaction.atomic
def assignment_approve(*, assignment: Assignment, message: str = "") -> Assignment:
    """Approve a submission (idempotent), with optional feedback the provider passes on;
    the task type reacts, and the provider's approval is sent once this commits."""
    message = message.strip()
    locked = _locked_submission(assignment)
    if locked.status == Assignment.Status.APPROVED:
        return locked
    _ensure_vouched(locked, "approved")
    if locked.status == Assignment.Status.REJECTED:
        _ensure_slot_free(locked)
        batch_items_restore(assignment=locked)
    _reviewed_save(locked, Assignment.Status.APPROVED, review_message=message)
    batches_feed(assignment=locked)  # chained batches take the newly approved output
    _tell(locked, Kind.APPROVE, message=message)
    return locked


@transaction.atomic
def assignment_approve_exclude(*, assignment: Assignment, reason: str) -> Assignment:
    """Pay the worker as for approved work, but keep the work out of the dataset, with a
    reason not shown to them: for work suspicious but not proven bad, as Prolific's policy
    asks. Its slot reopens; items already built on it are withdrawn."""
    reason = _text(reason, "Approving and excluding needs a reason (kept with the work).")
    locked = _locked_submission(assignment)
    if locked.status == Assignment.Status.EXCLUDED:
        return locked
    _ensure_vouched(locked, "approved")
    paid_already = locked.status == Assignment.Status.APPROVED
    _reviewed_save(locked, Assignment.Status.EXCLUDED, why=reason, exclusion_reason=reason)
    if not paid_already:  # approved work was approved at the provider already
        _tell(locked, Kind.APPROVE, message="")
    return locked


@transaction.atomic
def assignment_reject(*, assignment: Assignment, message: str) -> Assignment:
    """Reject a submission with a message to the worker; its slot reopens for others, and
    the provider's rejection is sent once this commits. Rejecting approved work withdraws
    the items built on it (crowd.withdrawals)."""
    message = _text(message, "A rejection needs a message telling the worker why.")
    locked = _locked_submission(assignment)
    if locked.status == Assignment.Status.REJECTED:
        return locked
    _reviewed_save(locked, Assignment.Status.REJECTED, why=message, review_message=message)
    _tell(locked, Kind.REJECT, message=message)
    return locked


@transaction.atomic
def worker_block(*, worker: Worker, reason: str) -> Worker:
    """Block a worker: no new tasks, no further submissions; their reservations are given
    back, and the provider's block is sent once this commits."""
    reason = _text(reason, "Blocking a worker needs a reason.")
    worker = Worker.objects.select_for_update().get(pk=worker.pk)
    worker.blocked = True
    worker.blocked_reason = reason
    worker.save(update_fields=["blocked", "blocked_reason"])
    Assignment.objects.filter(worker=worker, status=Assignment.Status.RESERVED).update(
        status=Assignment.Status.RETURNED
    )
    _tell(worker, Kind.BLOCK, reason=reason)
    return worker


@transaction.atomic
def worker_unblock(*, worker: Worker) -> Worker:
    """Let a blocked worker take work again; the provider is told once this commits."""
    worker = Worker.objects.select_for_update().get(pk=worker.pk)
    if not worker.blocked:
        return worker
    worker.blocked = False
    worker.blocked_reason = ""
    worker.save(update_fields=["blocked", "blocked_reason"])
    _tell(worker, Kind.UNBLOCK)
    return worker


@transaction.atomic
def workers_notify(*, workers, subject: str, message: str) -> int:
    """Message each worker through their provider, one call each, sent once this commits;
    returns how many were recorded (a worker who cannot be messaged: ReviewError, none)."""
    subject, message = subject.strip(), _text(message, "A message needs some text.")
    recorded = 0
    for worker in workers:
        recorded += _tell(worker, Kind.NOTIFY, subject=subject, message=message) is not None
    return recorded


def reason_digest(reason: str) -> str:
    return hashlib.sha256(reason.encode()).hexdigest()


@transaction.atomic
def assignment_bonus(*, assignment: Assignment, cents: int, reason: str) -> Assignment:
    """Pay a bonus on approved, vouched work, once for this assignment, reason and amount
    (a resent form: BonusAlreadyPaid). The bonus and its pay call are recorded together;
    the call is sent once this commits (a refusal then takes the bonus back)."""
    if cents <= 0:
        raise ReviewError("A bonus must be a positive amount.")
    reason = _text(reason, "A bonus needs a reason; the worker sees it.")
    locked = _locked_submission(assignment)
    if locked.status not in Assignment.PAID:
        raise ReviewError("Bonuses are paid on approved work only.")
    _ensure_vouched(locked, "paid")
    digest = reason_digest(reason)
    earlier = Bonus.objects.filter(assignment=locked, cents=cents, reason_digest=digest).first()
    if earlier is not None:
        provider = get_provider(locked.item.batch.provider)
        amount = money_text(cents, provider.currency(batch=locked.item.batch))
        raise BonusAlreadyPaid(
            f"Assignment {locked.pk} already has this bonus of {amount} with this reason, "
            f"given {earlier.created_at:%Y-%m-%d %H:%M} UTC and now "
            f"{provider.bonus_state(bonus=earlier)}: it is paid once. To pay another bonus, "
            "give it its own reason."
        )
    bonus = Bonus.objects.create(
        assignment=locked,
        cents=cents,
        reason=reason,
        reason_digest=digest,
        paid_before_cents=locked.bonus_cents,
    )
    Assignment.objects.filter(pk=locked.pk).update(bonus_cents=F("bonus_cents") + cents)
    _tell(locked, Kind.BONUS, bonus=bonus, cents=cents, reason=reason)
    locked.refresh_from_db(fields=["bonus_cents"])
    return locked


@transaction.atomic
def assignment_confirm(*, assignment: Assignment) -> Assignment:
    """The provider now vouches for work stored unconfirmed (MTurk has the assignment as
    submitted): from here on it holds its slot, counts and may be reviewed."""
    locked = Assignment.objects.select_for_update().get(pk=assignment.pk)
    if locked.status == Assignment.Status.UNCONFIRMED:
        locked.status = Assignment.Status.SUBMITTED
        locked.save(update_fields=["status"])
    return locked


def unvouched_release(*, batch: Batch, now=None) -> int:
    """Reject stored work its provider has still not vouched for once the batch's time
    allowed and the provider's grace are over (here: the provider has nothing to reject)."""
    now = now or timezone.now()
    provider = get_provider(batch.provider)
    cutoff = (
        now - timedelta(seconds=batch.time_allowed_seconds) - provider.unvouched_grace(batch=batch)
    )
    stale = Assignment.objects.filter(
        item__batch=batch,
        status__in=[Assignment.Status.SUBMITTED, Assignment.Status.UNCONFIRMED],
        started_at__lt=cutoff,
    ).select_related("item__batch", "worker")
    released = 0
    for answer in provider.unvouched_among(assignments=stale):
        assignment_reject(assignment=answer, message=provider.unvouched_message)
        released += 1
    return released
