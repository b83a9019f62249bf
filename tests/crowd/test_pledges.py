"""The batch pledge: needed until agreed, recorded once with the text shown."""

import pytest

from crowd.models import BatchPledge
from crowd.pledges import pledge_needed, pledge_record
from tests.factories import batch_create, worker_create

pytestmark = pytest.mark.django_db


def test_a_batch_without_pledge_needs_none_and_refuses_a_record():
    batch, worker = batch_create(), worker_create()
    assert not pledge_needed(batch=batch, worker=worker)
    with pytest.raises(ValueError):
        pledge_record(batch=batch, worker=worker)


def test_pledge_is_needed_until_agreed_and_recorded_once_with_its_text():
    batch, worker = batch_create(pledge="No AI tools, please."), worker_create()
    assert pledge_needed(batch=batch, worker=worker)
    first = pledge_record(batch=batch, worker=worker)
    batch.pledge = "Changed later."
    batch.save()
    again = pledge_record(batch=batch, worker=worker)
    assert first.pk == again.pk and again.text == "No AI tools, please."
    assert not pledge_needed(batch=batch, worker=worker)
    assert pledge_needed(batch=batch, worker=worker_create())
    assert BatchPledge.objects.count() == 1
