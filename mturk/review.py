"""Review services specific to MTurk's admin: a message to every worker of a batch.
(A bonus goes through crowd.review.assignment_bonus, which pays it once.)"""

from __future__ import annotations

from crowd.models import Batch, Worker
from crowd.providers import ProviderError, get_provider


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
