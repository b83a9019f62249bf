"""Previews of a batch's task page on a sample item, with nothing stored: an assignment of
a preview worker, made inside a savepoint that is rolled back once the page is rendered."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from crowd.models import Assignment, Batch, BatchItem, Worker


class NothingToPreview(LookupError):
    """The batch has no item to show yet."""


def preview_item(*, batch: Batch, item_id: int | None = None) -> BatchItem:
    """The item a preview shows: the one asked for, else the batch's first regular item."""
    items = batch.items.select_related("proverb", "narrative__proverb", "choice_question")
    if item_id is not None:
        item = items.filter(pk=item_id).first()
    else:
        item = items.filter(is_gold=False).order_by("position", "id").first() or items.first()
    if item is None:
        raise NothingToPreview(
            "This batch has no items yet (a chained batch takes them as its source's work "
            "is approved)."
        )
    return item


@contextmanager
def preview_assignment(*, item: BatchItem) -> Iterator[Assignment]:
    """A reserved assignment of the item for a throwaway worker, rolled back on exit."""
    with transaction.atomic():
        now = timezone.now()
        worker = Worker.objects.create(
            provider="local", external_id=f"preview-{uuid.uuid4().hex}", display_name="Preview"
        )
        assignment = Assignment.objects.create(
            item=item,
            worker=worker,
            expires_at=now + timedelta(seconds=item.batch.time_allowed_seconds),
        )
        yield assignment
        transaction.set_rollback(True)
