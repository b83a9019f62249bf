"""A Celery round trip through a real worker process on the test Redis and PostgreSQL."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from celery import Celery
from django.db import connection

from annotation.models import VariantGroup
from tests.factories import proverb_create

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def celery_worker_process(redis_url, transactional_db):
    if connection.vendor != "postgresql":
        pytest.fail("The Celery round trip needs the PostgreSQL that `make test` starts.")
    settings_dict = connection.settings_dict
    database_url = (
        f"postgres://{settings_dict['USER']}@{settings_dict['HOST']}:{settings_dict['PORT']}"
        f"/{settings_dict['NAME']}"
    )
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DATABASE_URL": database_url,
        "CELERY_BROKER_URL": redis_url,
        "CELERY_RESULT_BACKEND": redis_url,
    }
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "--pool=solo",
            "--concurrency=1",
            "--loglevel=WARNING",
            "--without-gossip",
            "--without-mingle",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    yield process
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()


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
    client = Celery(broker=redis_url, backend=redis_url)
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
