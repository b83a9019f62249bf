"""Celery tasks of the Prolific provider: polling (the fallback to webhooks) and bonuses."""

import logging

from celery import shared_task

from prolific.client import ProlificError

logger = logging.getLogger(__name__)


@shared_task(name="prolific.studies_sync")
def studies_sync_task() -> int:
    """Poll every study on Prolific that is not finished, and pay bonuses still unpaid
    (run by beat)."""
    from prolific.models import BonusPayment, Study
    from prolific.submissions import study_sync

    seen = 0
    for study in Study.objects.exclude(study_id="").exclude(status="COMPLETED"):
        seen += study_sync(study=study)
    for bonus_id in BonusPayment.objects.exclude(status=BonusPayment.Status.PAID).values_list(
        "pk", flat=True
    ):
        bonus_pay_task.delay(bonus_id)
    return seen


@shared_task(name="prolific.study_sync")
def study_sync_task(study_id: int) -> int:
    from prolific.models import Study
    from prolific.submissions import study_sync

    return study_sync(study=Study.objects.get(pk=study_id))


@shared_task(name="prolific.bonus_pay", bind=True, max_retries=5)
def bonus_pay_task(self, bonus_id: int) -> str:
    """Pay a recorded bonus; idempotent, so a redelivered or retried task pays once.

    A failure is retried with backoff on a worker; without one (tasks run in-process)
    the bonus stays unpaid and the next beat sync pays it.
    """
    from prolific.bonuses import bonus_payment_pay

    try:
        return bonus_payment_pay(bonus_id=bonus_id).status
    except ProlificError as error:
        logger.warning("prolific: bonus %s not paid yet: %s", bonus_id, error)
        if self.request.is_eager:
            return "unpaid"
        raise self.retry(exc=error, countdown=30 * 2**self.request.retries) from error
