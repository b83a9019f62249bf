"""Review services specific to MTurk's admin: a bonus guarded against a resubmitted form,
and a message to every worker of a batch."""

from __future__ import annotations

from django.db import transaction

from crowd.models import Assignment, Batch, Worker
from crowd.providers import ProviderError, get_provider
from crowd.review import assignment_bonus


@transaction.atomic
def mturk_bonus_pay(
    *, assignment: Assignment, cents: int, reason: str, paid_before_cents: int
) -> Assignment:
    """Pay a bonus if the assignment's bonuses still total what the form showed.

    A form sent twice (double click, reload) finds the total changed and pays nothing;
    a call retried after a failure carries the same UniqueRequestToken (see the provider).
    """
    locked = Assignment.objects.select_for_update().get(pk=assignment.pk)
    if locked.bonus_cents != paid_before_cents:
        raise ProviderError(
            f"Assignment {locked.pk} has been paid a bonus since this page was loaded "
            f"(now {locked.bonus_cents}¢ in all); reload before paying another."
        )
    if not reason.strip():
        raise ProviderError("A bonus needs a reason; the worker sees it.")
    return assignment_bonus(assignment=locked, cents=cents, reason=reason.strip())


def batch_workers_notify(*, batch: Batch, subject: str, message: str) -> int:
    """Send a message to every MTurk worker with work in the batch (MTurk: 100 per call)."""
    if not subject.strip() or not message.strip():
        raise ProviderError("A notification needs a subject and a message.")
    workers = list(
        Worker.objects.filter(provider="mturk", assignments__item__batch=batch)
        .distinct()
        .order_by("id")
    )
    if workers:
        get_provider("mturk").notify(
            workers=workers, subject=subject.strip(), message=message.strip()
        )
    return len(workers)
