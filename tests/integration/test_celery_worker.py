"""A Celery round trip through a real worker process on the test Redis and PostgreSQL."""

import pytest
from celery import Celery

from annotation.models import NarrativeIntegrity, VariantGroup
from tests.factories import (
    BIRDS,
    BIRDS_STORY,
    crowd_narrative_create,
    proverb_create,
    writing_record,
)
from tests.integration.processes import celery_worker

pytestmark = pytest.mark.django_db(transaction=True)  # the worker sees committed rows only


@pytest.fixture(scope="module")
def celery_worker_process(redis_url, django_db_setup):
    """One worker for this module's tests: its start and model loads are paid once."""
    with celery_worker(redis_url) as process:
        yield process


def test_task_runs_in_worker_and_writes_to_database(celery_worker_process, redis_url):
    proverb_create("Birds of a feather flock together", status="candidate")
    proverb_create("Birds of a feather", status="candidate")
    client = Celery(broker=redis_url, backend=redis_url, set_as_current=False)
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


def test_similarity_check_embeds_in_the_worker_and_finds_the_copy(celery_worker_process, redis_url):
    proverb = proverb_create(BIRDS)
    original = crowd_narrative_create(proverb=proverb, text=BIRDS_STORY)
    copy = crowd_narrative_create(proverb=proverb, text=BIRDS_STORY.replace("spicy", "hot"))
    NarrativeIntegrity.objects.create(narrative=copy, telemetry=writing_record())
    client = Celery(broker=redis_url, backend=redis_url, set_as_current=False)
    result = client.send_task("annotation.narrative_similarity_check", args=[copy.pk])
    try:
        # The stories checked in its pass: the copy, and the original, which had no
        # integrity row until the pass embedded it and so was waiting for its check too.
        assert result.get(timeout=180) == 2
    finally:
        if celery_worker_process.poll() is not None:
            print(celery_worker_process.stdout.read())
    integrity = NarrativeIntegrity.objects.get(narrative=copy)
    assert integrity.similarity["proverb"]["narrative"] == original.pk
    assert integrity.checked_at is not None
    assert NarrativeIntegrity.objects.get(narrative=original).embedding is not None


def test_dashboard_analysis_job_runs_in_a_worker_with_progress(celery_worker_process, redis_url):
    from annotation.analysis.jobs import analysis_scope, dataset_state_key, scope_key
    from annotation.models import DatasetAnalysis
    from tests.factories import crowd_narrative_create

    crowd_narrative_create(proverb=proverb_create("Time is money"), text="Raj lost an hour.")
    scope = analysis_scope()
    analysis = DatasetAnalysis.objects.create(  # as analysis_request leaves a queued job
        scope_key=scope_key(scope),
        scope=scope,
        status=DatasetAnalysis.Status.QUEUED,
        job_state=dataset_state_key(),
    )
    client = Celery(broker=redis_url, backend=redis_url, set_as_current=False)
    result = client.send_task("annotation.dataset_analysis_compute", args=[analysis.pk])
    try:
        assert result.get(timeout=120) == analysis.pk
    finally:
        if celery_worker_process.poll() is not None:
            print(celery_worker_process.stdout.read())
    analysis.refresh_from_db()
    assert analysis.status == DatasetAnalysis.Status.IDLE
    assert analysis.result["scope"]["narratives_loaded"] == 1
    assert analysis.progress_total > 0
    assert analysis.progress_done == analysis.progress_total
    assert analysis.plots["overlap_bars"].startswith("<svg")
