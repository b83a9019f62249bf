"""Withdrawing the items built on work that was rejected after it had been approved: no
worker is served one again, open reservations are released with a message to their worker,
and finished answers are kept but marked (`withdrawn_at`) so that agreement, analysis and
export leave them out.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from crowd import task_types
from crowd.models import Assignment, BatchItem, ProviderAction
from crowd.outbox import action_record
from crowd.providers import ProviderError

logger = logging.getLogger("parable.review")

RELEASE_MESSAGE = (
    "The text this task was about has been withdrawn from the study, so this task was "
    "released. You do not need to do anything; open your next task to continue."
)
FINISHED = (Assignment.Status.SUBMITTED, Assignment.Status.APPROVED)


@dataclass(frozen=True)
class WithdrawalImpact:
    """What rejecting approved work touches downstream."""

    items: int
    reservations: int
    answers: int


def downstream_items(*, assignments: Iterable[Assignment]) -> QuerySet[BatchItem]:
    """Items (not yet withdrawn) built on the approved ones among the assignments."""
    condition = Q(pk__in=[])
    for assignment in assignments:
        if assignment.status == Assignment.Status.APPROVED:
            task_type = task_types.get(assignment.item.batch.task_type)
            condition |= task_type.built_on(assignment=assignment)
    return BatchItem.objects.filter(condition, withdrawn_at__isnull=True)


def withdrawal_impact(*, assignments: Iterable[Assignment]) -> WithdrawalImpact:
    """How many downstream items, open reservations and finished answers a rejection touches."""
    item_ids = set(downstream_items(assignments=assignments).values_list("pk", flat=True))
    on_items = Assignment.objects.filter(item_id__in=item_ids)
    return WithdrawalImpact(
        items=len(item_ids),
        reservations=on_items.filter(status=Assignment.Status.RESERVED).count(),
        answers=on_items.filter(status__in=FINISHED).count(),
    )


@transaction.atomic
def batch_items_withdraw(*, assignment: Assignment, reason: str) -> WithdrawalImpact:
    """Retire the items built on an approved assignment that is being rejected; call
    before its status changes (it must still read approved)."""
    found = set(downstream_items(assignments=[assignment]).values_list("pk", flat=True))
    item_ids = list(
        BatchItem.objects.select_for_update().filter(pk__in=found).values_list("pk", flat=True)
    )
    impact = withdrawal_impact(assignments=[assignment])
    if not item_ids:
        return impact
    now = timezone.now()
    BatchItem.objects.filter(pk__in=item_ids).update(withdrawn_at=now, withdrawn_reason=reason)
    reservations = list(
        Assignment.objects.select_for_update()
        .select_related("worker", "item__batch")
        .filter(item_id__in=item_ids, status=Assignment.Status.RESERVED)
    )
    for reservation in reservations:
        reservation.status = Assignment.Status.RETURNED
        reservation.review_message = RELEASE_MESSAGE
        reservation.save(update_fields=["status", "review_message"])
        _notify_released(reservation)
    logger.info(
        "Assignment %s rejected after approval: %d downstream item(s) withdrawn "
        "(ids %s), %d reservation(s) released, %d finished answer(s) marked",
        assignment.pk,
        impact.items,
        sorted(item_ids),
        impact.reservations,
        impact.answers,
    )
    return impact


@transaction.atomic
def batch_items_restore(*, assignment: Assignment) -> int:
    """Approving the work again puts the items withdrawn because of it back in service."""
    task_type = task_types.get(assignment.item.batch.task_type)
    restored = BatchItem.objects.filter(
        task_type.built_on(assignment=assignment), withdrawn_at__isnull=False
    ).update(withdrawn_at=None, withdrawn_reason="")
    if restored:
        logger.info("Assignment %s approved again: %d item(s) restored", assignment.pk, restored)
    return restored


def _notify_released(reservation: Assignment) -> None:
    """Tell the worker their reservation was released (crowd.outbox); a provider that
    cannot message them is logged, without undoing the withdrawal."""
    worker = reservation.worker
    try:
        action_record(
            kind=ProviderAction.Kind.NOTIFY,
            provider=reservation.item.batch.provider,
            worker=worker,
            payload={"subject": "Task withdrawn", "message": RELEASE_MESSAGE},
        )
    except ProviderError as error:
        logger.warning("Worker %s not told of the withdrawal: %s", worker.pk, error)
