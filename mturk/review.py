"""Review services specific to MTurk's admin: a message to every worker of a batch.
(A bonus goes through crowd.review.assignment_bonus, which pays it once.)"""

from __future__ import annotations

from crowd.models import Batch, Worker
from crowd.providers import ProviderError
from crowd.review import workers_notify


def batch_workers_notify(*, batch: Batch, subject: str, message: str) -> int:
    """Message every worker with work in the batch that MTurk vouches for: one call per
    worker, sent after this commits, each once (Crowd work › Provider calls shows which
    MTurk refused)."""
    if not subject.strip() or not message.strip():
        raise ProviderError("A notification needs a subject and a message.")
    workers = list(
        Worker.objects.filter(
            provider="mturk",
            assignments__item__batch=batch,
            assignments__mturk_assignment__isnull=False,
        )
        .distinct()
        .order_by("id")
    )
    return workers_notify(workers=workers, subject=subject, message=message)
