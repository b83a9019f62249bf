"""A Celery round trip through a real worker process on the test Redis and PostgreSQL."""

import pytest
from celery import Celery

from annotation.models import VariantGroup
from tests.factories import proverb_create
from tests.integration.processes import celery_worker


@pytest.fixture
def celery_worker_process(redis_url, transactional_db):
    with celery_worker(redis_url) as process:
        yield process


def test_task_runs_in_worker_and_writes_to_database(celery_worker_process, redis_url):
    proverb_create("Birds of a feather flock together", status="candidate")
    proverb_create("Birds of a feather", status="candidate")
    client = Celery(broker=redis_url, backend=redis_url)
    result = client.send_task("annotation.variant_groups_refresh")
    try:
        created = result.get(timeout=90)
    finally:
        if celery_worker_process.poll() is not None:
            print(celery_worker_process.stdout.read())
    assert created == 1
    group = VariantGroup.objects.get()
    assert set(group.proverbs.values_list("text", flat=True)) == {
        "Birds of a feather flock together",
        "Birds of a feather",
    }
    # Idempotent: a second run finds the group already proposed.
    assert client.send_task("annotation.variant_groups_refresh").get(timeout=90) == 0
