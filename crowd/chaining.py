"""Chained batches draw their items from another batch's approved output: each approval
lets the open batches chained to its batch take what is new (their type's `items_refresh`)."""

from __future__ import annotations

from django.db import transaction

from crowd import task_types
from crowd.models import Assignment, Batch


@transaction.atomic
def batch_items_refresh(*, batch: Batch) -> int:
    """Let the batch take what its sources offer now; returns how many items were added."""
    return task_types.get(batch.task_type).items_refresh(batch=batch)


@transaction.atomic
def batches_feed(*, assignment: Assignment) -> dict[int, int]:
    """Refresh every open batch chained to the assignment's batch, in the approval's
    transaction (the items appear with it, or not at all); {batch id: items added}."""
    chained = Batch.objects.filter(source_batch_id=assignment.item.batch_id).exclude(
        status=Batch.Status.CLOSED
    )
    return {batch.pk: batch_items_refresh(batch=batch) for batch in chained.order_by("id")}
