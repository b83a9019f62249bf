"""Bonuses in Prolific's two steps, each pay call sent at most once.

Prolific's pay call (POST /bulk-bonus-payments/{id}/pay/) is not idempotent: each
call pays again. So:
1. set up (prices the bonus, pays nothing; repeating it is harmless), committed with
   its bulk payment id;
2. `sending` committed before the pay call, which is sent once, never retried by the
   client, the task or a form;
3. an answer pays it; a refusal (4xx) leaves it set up, to be sent again; no answer
   (time-out, 5xx) makes it `unknown`, and so does a `sending` row left by a worker
   killed mid-call once the call cannot still be in flight;
4. an `unknown` bonus is reconciled from Prolific's own record of the submission's
   bonus payments (GET /submissions/{id}/ `bonus_payments`, in cents) before anything is
   paid again: listed there, it is paid; not listed once Prolific's asynchronous payment
   has had time to land (PROLIFIC_BONUS_SETTLE_SECONDS), it is sent again.
A bonus paid on the submission outside Parable with the same amount makes a lost one
count as paid: the error is towards paying too little, never twice.

No call to Prolific runs inside a database transaction.
"""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from prolific.client import ProlificClient, ProlificError
from prolific.models import BonusPayment
from prolific.vouching import vouched_submission

Status = BonusPayment.Status


def _in_flight() -> timedelta:
    """How long a pay call can still be under way: past this, a `sending` row was left
    by a worker that died mid-call."""
    return timedelta(seconds=2 * settings.PROLIFIC_TIMEOUT_SECONDS + 60)


def bonus_payment_pay(*, bonus_id: int, client: ProlificClient | None = None) -> BonusPayment:
    """Set up a recorded bonus if needed and send its pay call, at most once; safe to run
    any number of times (a bonus being sent, unknown or paid is left alone)."""
    client = client or ProlificClient()
    bonus = BonusPayment.objects.select_related("assignment__item__batch").get(pk=bonus_id)
    if bonus.status not in (Status.PENDING, Status.SET_UP):
        return bonus
    if not bonus.bulk_id:
        submission = vouched_submission(bonus.assignment)
        set_up = client.bonus_set_up(
            study_id=submission.study.study_id,
            csv_bonuses=f"{submission.submission_id},{bonus.cents / 100:.2f}\n",
        )
        with transaction.atomic():
            bonus = BonusPayment.objects.select_for_update().get(pk=bonus_id)
            if not bonus.bulk_id:  # a concurrent set-up that won keeps its own (unpaid) id
                bonus.bulk_id = str(set_up["id"])
                bonus.submission_id = submission.submission_id
                bonus.status = Status.SET_UP
                bonus.save(update_fields=["bulk_id", "submission_id", "status"])
    with transaction.atomic():
        bonus = BonusPayment.objects.select_for_update().get(pk=bonus_id)
        if bonus.status != Status.SET_UP:
            return bonus
        bonus.status = Status.SENDING
        bonus.sent_at = timezone.now()
        bonus.save(update_fields=["status", "sent_at"])
    # Committed as sending: from here on, only reconciliation may send it again.
    try:
        client.bonus_pay(bulk_id=bonus.bulk_id)
    except ProlificError as error:
        unknown = error.status == 0 or error.status >= 500
        return _outcome(
            bonus_id,
            status=Status.UNKNOWN if unknown else Status.SET_UP,
            note=f"{'No answer' if unknown else 'Refused'}: {error}",
        )
    return _outcome(bonus_id, status=Status.PAID, note="")


def _outcome(bonus_id: int, *, status: str, note: str) -> BonusPayment:
    with transaction.atomic():
        bonus = BonusPayment.objects.select_for_update().get(pk=bonus_id)
        if bonus.status != Status.SENDING:
            return bonus  # reconciled meanwhile
        bonus.status = status
        bonus.note = note[:2000]
        if status == Status.PAID:
            bonus.paid_at = timezone.now()
        bonus.save(update_fields=["status", "note", "paid_at"])
    return bonus


def bonus_payment_reconcile(
    *, bonus_id: int, client: ProlificClient | None = None, now=None
) -> BonusPayment:
    """Settle an unknown bonus (or one left `sending`) from Prolific's record of its
    submission's bonus payments; every unknown bonus of that submission and amount is
    settled with it, oldest first."""
    client = client or ProlificClient()
    now = now or timezone.now()
    bonus = BonusPayment.objects.get(pk=bonus_id)
    if not _unsettled(bonus, now):
        return bonus
    record = client.submission_get(submission_id=bonus.submission_id)
    listed = Counter(round(float(cents)) for cents in record.get("bonus_payments") or [])
    settle = timedelta(seconds=settings.PROLIFIC_BONUS_SETTLE_SECONDS)
    with transaction.atomic():
        same = list(
            BonusPayment.objects.select_for_update()
            .filter(submission_id=bonus.submission_id, cents=bonus.cents)
            .order_by("sent_at", "id")
        )
        unaccounted = listed[bonus.cents] - sum(b.status == Status.PAID for b in same)
        for row in same:
            if not _unsettled(row, now):
                continue
            if unaccounted > 0:
                unaccounted -= 1
                row.status, row.paid_at = Status.PAID, now
                row.note = "Reconciled: Prolific lists this payment on the submission."
            elif row.sent_at < now - settle:
                row.status = Status.SET_UP
                row.note = (
                    f"Reconciled: Prolific lists no such payment {settle} after the call; "
                    "it is sent again."
                )
            else:
                row.status = Status.UNKNOWN
                row.note = "Not listed by Prolific yet: its payments land within minutes."
            row.save(update_fields=["status", "paid_at", "note"])
    bonus.refresh_from_db()
    return bonus


def _unsettled(bonus: BonusPayment, now) -> bool:
    if bonus.status == Status.UNKNOWN:
        return True
    return bonus.status == Status.SENDING and bonus.sent_at < now - _in_flight()


def bonuses_waiting(*, now=None) -> tuple[list[int], list[int]]:
    """(bonuses to send, bonuses to reconcile): what beat queues."""
    now = now or timezone.now()
    to_send = BonusPayment.objects.filter(status__in=[Status.PENDING, Status.SET_UP])
    to_reconcile = BonusPayment.objects.filter(status=Status.UNKNOWN) | BonusPayment.objects.filter(
        status=Status.SENDING, sent_at__lt=now - _in_flight()
    )
    return (
        list(to_send.values_list("pk", flat=True)),
        list(to_reconcile.values_list("pk", flat=True)),
    )
