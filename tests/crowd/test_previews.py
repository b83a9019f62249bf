"""Previews of a batch's task page: a sample item as a worker sees it, nothing stored."""

import pytest

from crowd.models import Assignment, Worker
from crowd.previews import NothingToPreview, preview_assignment, preview_item
from tests.factories import BIRDS, proverb_create, task_batch_create, write_batch_create

pytestmark = pytest.mark.django_db


def test_preview_item_is_the_first_regular_item_or_the_one_asked_for():
    batch = write_batch_create(proverbs=[proverb_create(BIRDS), proverb_create("Time is money")])
    first, second = batch.items.order_by("position", "id")
    assert preview_item(batch=batch) == first
    assert preview_item(batch=batch, item_id=second.pk) == second


def test_a_batch_without_items_has_nothing_to_preview():
    write = write_batch_create(proverbs=[proverb_create(BIRDS)])
    align = task_batch_create(task_type="align", source_batch=write)
    with pytest.raises(NothingToPreview, match="no items yet"):
        preview_item(batch=align)


def test_the_preview_assignment_is_gone_once_the_page_is_built():
    batch = write_batch_create(proverbs=[proverb_create(BIRDS)])
    with preview_assignment(item=batch.items.get()) as assignment:
        assert Assignment.objects.filter(pk=assignment.pk).exists()
        assert assignment.status == Assignment.Status.RESERVED
    assert not Assignment.objects.exists()
    assert not Worker.objects.exists()
