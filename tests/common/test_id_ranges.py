import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.models import Narrative
from common.id_ranges import of_ids
from tests.factories import narrative_create, proverb_create

pytestmark = pytest.mark.django_db


def _ids(count):
    proverb = proverb_create()
    return [narrative_create(proverb=proverb, text=f"Story {n}.").pk for n in range(count)]


def test_dense_ids_are_read_as_a_range_without_a_parameter_per_id():
    ids = _ids(6)
    wanted = ids[1:5]
    with CaptureQueriesContext(connection) as queries:
        found = set(of_ids(Narrative.objects, "id", wanted).values_list("id", flat=True))
    assert found == set(wanted)
    assert " IN (" not in queries.captured_queries[0]["sql"]


def test_sparse_ids_are_an_in_list_and_only_they_are_read():
    ids = _ids(9)
    wanted = [ids[0], ids[8]]
    with CaptureQueriesContext(connection) as queries:
        found = set(of_ids(Narrative.objects, "id", wanted).values_list("id", flat=True))
    assert found == set(wanted)
    assert " IN (" in queries.captured_queries[0]["sql"]


def test_no_ids_read_nothing():
    _ids(2)
    assert list(of_ids(Narrative.objects, "id", [])) == []


def test_ids_in_any_order_are_all_read():
    ids = _ids(6)
    wanted = [ids[4], ids[1], ids[3], ids[2]]
    found = set(of_ids(Narrative.objects, "id", wanted).values_list("id", flat=True))
    assert found == set(wanted)
