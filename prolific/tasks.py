"""Celery tasks of the Prolific provider: polling (the fallback to webhooks), approvals and
bonuses.

Tasks are queued through common.task_queue. The bonus task never retries: a pay call
whose outcome is not known is reconciled from Prolific's records, never sent blind.
"""

import logging

from celery import shared_task

from common.task_queue import task_send
from prolific.bonuses import bonus_payment_pay, bonus_payment_reconcile
from prolific.client import ProlificClient, ProlificError
from prolific.models import Study
from prolific.polling import studies_sync
from prolific.submissions import (
    study_sync,
    submission_approve,
    submission_reject,
    submissions_bulk_approve,
)

logger = logging.getLogger(__name__)


@shared_task(name="prolific.studies_sync")
def studies_sync_task() -> int:
    """Poll every study on Prolific that is not finished (prolific.polling), then send the
    bonuses not sent yet, reconcile those whose pay call went unanswered and send the
    decisions still waiting, each by its own task (run by beat)."""
    polled = studies_sync()
    for task, ids in (
        (bonus_pay_task, polled.bonuses_to_send),
        (bonus_reconcile_task, polled.bonuses_to_reconcile),
        (submission_approve_task, polled.approvals),
        (submission_reject_task, polled.rejections),
    ):
        for pk in ids:
            task_send(task, pk)
    return polled.seen


@shared_task(name="prolific.submission_approve")
def submission_approve_task(submission_pk: int) -> str:
    """Send a submission's approval to Prolific after the review committed; a failure is
    left to beat, which sends approvals still waiting again."""
    try:
        return submission_approve(submission_pk=submission_pk)
    except ProlificError as error:
        logger.warning("prolific: approval of %s not sent yet: %s", submission_pk, error)
        return "waiting"


@shared_task(name="prolific.submissions_bulk_approve")
def submissions_bulk_approve_task(submission_ids: list[str]) -> int:
    """Send a bulk approval after the review committed; a failure is left to beat, which
    sends the approvals still waiting again, one by one."""
    try:
        return submissions_bulk_approve(submission_ids=submission_ids)
    except ProlificError as error:
        logger.warning("prolific: bulk approval of %d not sent yet: %s", len(submission_ids), error)
        return 0


@shared_task(name="prolific.message_send")
def message_send_task(recipient_id: str, study_id: str, body: str) -> bool:
    """Send one message to a participant after the caller's transaction committed.
    Prolific's POST /messages/ is not idempotent, so a failed send is logged, not
    retried."""
    try:
        ProlificClient().message_send(recipient_id=recipient_id, study_id=study_id, body=body)
    except ProlificError as error:
        logger.warning("prolific: message to %s not sent: %s", recipient_id, error)
        return False
    return True


@shared_task(name="prolific.study_sync")
def study_sync_task(study_id: int) -> int:
    return study_sync(study=Study.objects.get(pk=study_id))


@shared_task(name="prolific.bonus_pay")
def bonus_pay_task(bonus_id: int) -> str:
    """Send a recorded bonus's pay call at most once; a redelivered task finds it sending,
    unknown or paid and does nothing. A failed set-up is left to the next beat."""
    try:
        return bonus_payment_pay(bonus_id=bonus_id).status
    except ProlificError as error:
        logger.warning("prolific: bonus %s not set up yet: %s", bonus_id, error)
        return "unpaid"


@shared_task(name="prolific.bonus_reconcile")
def bonus_reconcile_task(bonus_id: int) -> str:
    """Settle a bonus whose pay call went unanswered, from Prolific's records."""
    try:
        return bonus_payment_reconcile(bonus_id=bonus_id).status
    except ProlificError as error:
        logger.warning("prolific: bonus %s not reconciled yet: %s", bonus_id, error)
        return "unknown"


@shared_task(name="prolific.submission_reject")
def submission_reject_task(submission_pk: int) -> str:
    """Send a submission's rejection to Prolific after the review committed."""
    try:
        return submission_reject(submission_pk=submission_pk)
    except ProlificError as error:
        logger.warning("prolific: rejection of %s not sent yet: %s", submission_pk, error)
        return "waiting"
