"""Bonuses in Prolific's two steps, recorded so that a retry never pays twice.

Step one (set up) is committed with its bulk payment id before step two (pay), so
a payment that failed or was interrupted is retried on the same bulk payment and
a paid one is never paid again.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from prolific.client import ProlificClient
from prolific.models import BonusPayment
from prolific.provider import vouched_submission


def bonus_payment_pay(*, bonus_id: int, client: ProlificClient | None = None) -> BonusPayment:
    """Set up (once) and pay (once) a recorded bonus; safe to run any number of times."""
    client = client or ProlificClient()
    with transaction.atomic():
        bonus = (
            BonusPayment.objects.select_for_update()
            .select_related("assignment__item__batch", "assignment__worker")
            .get(pk=bonus_id)
        )
        if bonus.status == BonusPayment.Status.PAID:
            return bonus
        if not bonus.bulk_id:
            submission = vouched_submission(bonus.assignment)
            amount = f"{bonus.cents / 100:.2f}"
            set_up = client.bonus_set_up(
                study_id=submission.study.study_id,
                csv_bonuses=f"{submission.participant_id},{amount}\n",
            )
            bonus.bulk_id = set_up["id"]
            bonus.status = BonusPayment.Status.SET_UP
            bonus.save(update_fields=["bulk_id", "status"])
    with transaction.atomic():
        bonus = BonusPayment.objects.select_for_update().get(pk=bonus_id)
        if bonus.status == BonusPayment.Status.PAID:
            return bonus
        client.bonus_pay(bulk_id=bonus.bulk_id)
        bonus.status = BonusPayment.Status.PAID
        bonus.paid_at = timezone.now()
        bonus.save(update_fields=["status", "paid_at"])
    return bonus
