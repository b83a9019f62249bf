"""Celery tasks of the MTurk provider."""

from celery import shared_task

from crowd.models import Batch
from mturk.sync import batch_sync, open_batches_sync


@shared_task(name="mturk.hits_sync")
def hits_sync_task(batch_id: int | None = None) -> int:
    """Sync one batch's HITs, or every published MTurk batch (beat); idempotent."""
    if batch_id is None:
        return open_batches_sync()
    return batch_sync(batch=Batch.objects.get(pk=batch_id))
