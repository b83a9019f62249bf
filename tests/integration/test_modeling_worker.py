"""Runs through a real Celery worker listening on the modeling queue only."""

import pytest
from celery import Celery

from modeling.models import Run
from modeling.runs.services import run_cancel, run_create
from tests.factories import split_dataset_create
from tests.integration.processes import celery_worker, wait_until
from tests.modeling.conftest import TINY_HYPERPARAMETERS, tiny_model_folder


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> str:
    return tiny_model_folder(tmp_path_factory.mktemp("tiny-bert"))


pytestmark = pytest.mark.django_db(transaction=True)  # the worker sees committed rows only


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory):
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="module")
def modeling_worker(redis_url, django_db_setup, artifacts):
    """One worker for this module's tests: its start and torch's import are paid once."""
    env = {"PARABLE_MODELING_ARTIFACTS": str(artifacts)}
    with celery_worker(redis_url, queues="modeling", env=env) as process:
        yield process


def test_worker_runs_a_queued_run_and_stores_progress_and_results(
    modeling_worker, redis_url, tiny_model, artifacts
):
    split_dataset_create()
    run = run_create(
        task="biencoder", model_name=tiny_model, hyperparameters=TINY_HYPERPARAMETERS, queue=False
    )
    client = Celery(broker=redis_url, backend=redis_url, set_as_current=False)
    result = client.send_task("modeling.run_execute", args=[run.pk], queue="modeling")
    try:
        outcome = result.get(timeout=180)
        assert outcome == "succeeded", Run.objects.get(pk=run.pk).error
    finally:
        if modeling_worker.poll() is not None:
            print(modeling_worker.stdout.read())
    run.refresh_from_db()
    assert run.status == "succeeded" and len(run.epochs) == 2
    assert run.progress["epoch"] == 2 and run.progress["loss"] is not None
    assert run.progress["elapsed"] > 0 and "remaining" in run.progress
    assert len(run.predictions) == run.metrics["test"]["total"] == 12
    assert (artifacts / f"run-{run.pk}" / "config.json").is_file()


def test_cancelled_run_stops_in_the_worker_and_says_so(modeling_worker, redis_url, tiny_model):
    split_dataset_create()
    run = run_create(
        task="biencoder",
        model_name=tiny_model,
        # An epoch of the tiny model takes milliseconds: enough epochs that the run cannot
        # finish before the cancel reaches it.
        hyperparameters={**TINY_HYPERPARAMETERS, "epochs": 100_000},
        queue=False,
    )
    client = Celery(broker=redis_url, backend=redis_url, set_as_current=False)
    result = client.send_task("modeling.run_execute", args=[run.pk], queue="modeling")
    wait_until(
        lambda: Run.objects.get(pk=run.pk).progress.get("stage") == "training",
        timeout=120,
        what="the run to start training",
    )
    run_cancel(run=run)
    assert result.get(timeout=120) == "cancelled"
    run.refresh_from_db()
    assert run.error.startswith("Cancelled at epoch") and run.epochs == []
