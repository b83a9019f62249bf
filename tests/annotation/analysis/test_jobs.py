"""The analysis as a background job: stored per scope, recomputed when the data changes."""

from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.analysis.jobs import (
    analyses_waiting,
    analysis_compute,
    analysis_request,
    analysis_scope,
    dataset_state_key,
    progress_writer,
)
from annotation.models import DatasetAnalysis
from annotation.tasks import analyses_requeue_task
from crowd.review import assignment_reject
from tests.factories import crowd_narrative_create, proverb_create, rating_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def narrative():
    narrative = crowd_narrative_create(proverb=proverb_create("Time is money"), text="Raj lost.")
    rating_create(narrative=narrative, criterion="overall", value=4)
    return narrative


def test_scope_has_one_normal_form_and_refuses_unknown_sources():
    assert analysis_scope(batches=[3, 1, 3], sources=["model", "crowd"]) == {
        "batches": [1, 3],
        "sources": ["crowd", "model"],
        "approved_only": False,
        "seed": 0,
    }
    with pytest.raises(ValueError, match="Unknown source"):
        analysis_scope(sources=["web"])


def test_compute_stores_result_plots_state_and_progress(narrative):
    analysis = analysis_request(scope=analysis_scope())
    done = analysis_compute(analysis_id=analysis.pk)
    assert done.status == DatasetAnalysis.Status.IDLE
    assert done.result["scope"]["narratives_loaded"] == 1
    assert set(done.plots) == {
        "sentiment_scatter",
        "sentiment_counts",
        "readability_histogram",
        "rating_means",
        "overlap_bars",
        "integrity_flags",
    }
    assert all(svg.startswith("<svg") for svg in done.plots.values())
    assert done.result_state == dataset_state_key()
    assert done.progress_total > 0
    assert done.progress_done == done.progress_total


def test_a_finished_job_is_not_run_again(narrative, django_assert_max_num_queries):
    analysis = analysis_request(scope=analysis_scope())
    first = analysis_compute(analysis_id=analysis.pk)
    with django_assert_max_num_queries(2):
        again = analysis_compute(analysis_id=analysis.pk)
    assert again.computed_at == first.computed_at


def test_request_queues_only_when_the_data_changed(narrative, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True) as queued:
        analysis_request(scope=analysis_scope())
    assert len(queued) == 1
    with django_capture_on_commit_callbacks() as queued:
        analysis_request(scope=analysis_scope())
    assert queued == []
    assignment_reject(assignment=narrative.assignment, message="Off topic.")
    with django_capture_on_commit_callbacks() as queued:
        analysis = analysis_request(scope=analysis_scope())
    assert len(queued) == 1
    assert analysis.status == DatasetAnalysis.Status.QUEUED
    assert analysis.result is not None  # the last result stays shown meanwhile


def test_a_queued_job_is_not_queued_twice(narrative, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as queued:
        analysis_request(scope=analysis_scope())
        analysis_request(scope=analysis_scope())
    assert len(queued) == 1


def test_scopes_are_kept_apart(narrative):
    crowd = analysis_request(scope=analysis_scope(sources=["crowd"]))
    model = analysis_request(scope=analysis_scope(sources=["model"]))
    assert crowd.pk != model.pk
    assert analysis_compute(analysis_id=model.pk).result["scope"]["narratives_loaded"] == 0
    assert DatasetAnalysis.objects.get(pk=crowd.pk).result is None


def test_a_failure_is_recorded_and_the_next_request_retries(
    narrative, monkeypatch, django_capture_on_commit_callbacks
):
    analysis = analysis_request(scope=analysis_scope(seed=-1))
    monkeypatch.setitem(analysis.scope, "seed", "not a number")
    DatasetAnalysis.objects.filter(pk=analysis.pk).update(scope=analysis.scope)
    failed = analysis_compute(analysis_id=analysis.pk)
    assert failed.status == DatasetAnalysis.Status.FAILED
    assert failed.error
    with django_capture_on_commit_callbacks() as queued:
        analysis_request(scope=analysis_scope(seed=-1))
    assert len(queued) == 1


def test_progress_is_written_at_most_every_half_second(narrative):
    analysis = analysis_request(scope=analysis_scope())
    clock = iter([0.0, 0.1, 0.2, 1.0])
    write = progress_writer(analysis.pk, clock=lambda: next(clock))
    write(1, 10, "tokens")
    write(2, 10, "tokens")
    write(3, 10, "tokens")
    analysis.refresh_from_db()
    assert analysis.progress_done == 1
    write(4, 10, "tokens")
    analysis.refresh_from_db()
    assert (analysis.progress_done, analysis.progress_stage) == (4, "tokens")


def test_a_job_whose_task_was_lost_is_computed_by_the_requeue_task(narrative, settings):
    settings.PARABLE_BACKGROUND_GRACE_SECONDS = 300
    lost = analysis_request(scope=analysis_scope())  # queued; its task never sent
    assert analyses_waiting() == []
    DatasetAnalysis.objects.filter(pk=lost.pk).update(
        requested_at=timezone.now() - timedelta(seconds=301)
    )
    assert analyses_waiting() == [lost.pk]
    assert analyses_requeue_task.delay().get() == 1
    lost.refresh_from_db()
    assert lost.status == DatasetAnalysis.Status.IDLE and lost.result is not None
    assert analyses_requeue_task.delay().get() == 0
