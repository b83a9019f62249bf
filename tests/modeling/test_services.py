"""Runs: created on a frozen snapshot, executed with stored results, cancelled, refused."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.models import Narrative
from annotation.task_types.align.models import SpanPair
from modeling.models import Run, Snapshot
from modeling.runs import services
from modeling.runs.selectors import runs_to_resend
from modeling.runs.services import run_cancel, run_create, run_execute
from modeling.runs.snapshots import snapshot_examples, snapshot_freeze
from modeling.training.examples import SnapshotError
from tests.factories import (
    alignment_create,
    narrative_create,
    proverb_create,
    split_dataset_create,
)
from tests.modeling.conftest import TINY_HYPERPARAMETERS

pytestmark = pytest.mark.django_db


def test_unchanged_data_freezes_one_snapshot_and_a_change_another():
    split_dataset_create()
    first = snapshot_freeze()
    assert snapshot_freeze() == first
    assert first.narratives == 24 and first.proverbs == 6
    assert first.splits["seen"] == {"train": 12, "test": 12}
    Narrative.objects.filter(pk=first.examples[0]["narrative_id"]).update(text="Changed.")
    assert snapshot_freeze().content_hash != first.content_hash
    assert Snapshot.objects.count() == 2


def test_snapshot_takes_only_approved_dataset_narratives():
    split_dataset_create()
    proverb = proverb_create()
    narrative_create(proverb=proverb, text="Pending.", status=Narrative.Status.SUBMITTED)
    narrative_create(proverb=proverb, text="Generated.", source=Narrative.Source.MODEL)
    texts = {example["narrative"] for example in snapshot_freeze().examples}
    assert "Pending." not in texts and "Generated." not in texts


def test_snapshot_keeps_keywords_and_one_approved_alignment_per_narrative():
    first, second, third, *_ = split_dataset_create()
    Narrative.objects.filter(pk=first.pk).update(
        keywords={"verbs": ["sow", "reap"], "entities": [{"text": "Ann", "label": "PERSON"}]}
    )
    proverb_length = len(first.proverb.text)
    alignment_create(narrative=first, pairs=[(0, 4, 0, 5), (5, proverb_length, 6, 9)])
    alignment_create(narrative=first, pairs=[(0, 4, 2, 7)])  # a second annotator's
    alignment_create(narrative=second, pairs=[(0, 4, 0, 3)], status="rejected")
    SpanPair.objects.create(  # an imported alignment wins over the crowd's
        narrative=third, position=1, proverb_start=0, proverb_end=3,
        proverb_span=third.proverb.text[:3], narrative_start=1, narrative_end=4,
        narrative_span=third.text[1:4],
    )  # fmt: skip
    alignment_create(narrative=third, pairs=[(0, 4, 0, 2)])
    examples = {example.narrative_id: example for example in snapshot_examples(snapshot_freeze())}
    assert examples[first.pk].keywords == ("sow", "reap", "Ann")
    assert examples[first.pk].alignments == (
        (first.proverb.text[:4], 0, 5),
        (first.proverb.text[5:], 6, 9),
    )
    assert examples[second.pk].alignments == () and examples[second.pk].keywords == ()
    assert examples[third.pk].alignments == ((third.proverb.text[:3], 1, 4),)


def test_empty_snapshot_is_refused_with_a_clear_message():
    with pytest.raises(SnapshotError, match="no approved narratives"):
        run_create(task="retrieval")
    assert not Run.objects.exists()


def test_snapshot_without_splits_is_refused_with_what_to_do():
    narrative_create(proverb=proverb_create(), status=Narrative.Status.APPROVED)
    with pytest.raises(SnapshotError, match="assign_splits"):
        run_create(task="biencoder")


def test_unknown_task_and_classifier_on_unseen_are_refused():
    split_dataset_create()
    with pytest.raises(ValueError, match="Unknown task"):
        run_create(task="telepathy")
    with pytest.raises(ValueError, match="runs on the seen split only"):
        run_create(task="classifier", setting="unseen")


def test_run_executes_and_stores_results(tiny_model, artifacts):
    split_dataset_create()
    # The study's curated proverbs a round ranks among: the snapshot's six and three more.
    for status in ("curated", "curated", "curated", "candidate"):
        proverb_create(status=status)
    run = run_create(
        task="biencoder", model_name=tiny_model, hyperparameters=TINY_HYPERPARAMETERS, queue=False
    )
    assert run.status == Run.Status.QUEUED and run.hyperparameters["learning_rate"] == 2e-5
    run = run_execute(run_id=run.pk)
    assert run.status == Run.Status.SUCCEEDED, run.error
    assert len(run.epochs) == 2 and run.selected_epoch in (1, 2)
    assert run.metrics["test"]["total"] == 12 and run.metrics["test"]["candidates"] == 6
    assert len(run.predictions) == 12 and len(run.candidates) == 6
    assert run.environment["device"] == "cpu" and "torch" in run.environment
    assert run.durations["total"] > 0 and run.finished_at and run.started_at
    assert (artifacts / f"run-{run.pk}" / "config.json").is_file()
    assert run.progress["stage"] == "succeeded"
    # On a round's task: its 12 held-out (seen test) stories among the 9 curated proverbs.
    figures = run.metrics["round_task"]
    assert (figures["stories"], figures["proverbs"]) == (12, 9)
    assert figures["chance_top1"] == pytest.approx(1 / 9)
    # Its seen train part less the dev slice (one story of each proverb): 6 of 6 proverbs.
    assert (figures["trained_stories"], figures["trained_proverbs"]) == (6, 6)


def test_executing_a_finished_run_again_changes_nothing(tiny_model, artifacts):
    split_dataset_create()
    run = run_create(task="retrieval", model_name=tiny_model, queue=False)
    finished = run_execute(run_id=run.pk)
    with CaptureQueriesContext(connection) as queries:
        again = run_execute(run_id=run.pk)
    assert again.finished_at == finished.finished_at
    assert not [q for q in queries.captured_queries if q["sql"].startswith("UPDATE")]


def test_cancelled_queued_run_never_starts(tiny_model):
    split_dataset_create()
    run = run_create(task="retrieval", model_name=tiny_model, queue=False)
    run_cancel(run=run)
    run = run_execute(run_id=run.pk)
    assert run.status == Run.Status.CANCELLED and run.started_at is None
    assert "before it started" in run.error
    with pytest.raises(ValueError, match="already cancelled"):
        run_cancel(run=run)


def test_running_run_stops_at_its_next_step_and_says_so(tiny_model, artifacts, monkeypatch):
    monkeypatch.setattr(services, "PROGRESS_EVERY", 0.0)
    split_dataset_create()
    run = run_create(
        task="biencoder",
        model_name=tiny_model,
        hyperparameters={**TINY_HYPERPARAMETERS, "epochs": 5},
        queue=False,
    )

    def cancel_once_training(fields):
        if fields.get("stage") == "training" and fields.get("step") == 1:
            run_cancel(run=run)

    run = run_execute(run_id=run.pk, echo=cancel_once_training)
    assert run.status == Run.Status.CANCELLED
    assert run.error.startswith("Cancelled at epoch 1, step 2")
    assert run.epochs == [] and run.predictions == []


def test_unloadable_model_fails_with_its_name():
    split_dataset_create()
    run = run_create(task="retrieval", model_name="nobody/no-such-model", queue=False)
    run = run_execute(run_id=run.pk)
    assert run.status == Run.Status.FAILED and "nobody/no-such-model" in run.error


def _running(tiny_model, *, silent_for: float, worker="gpu-1:4242") -> Run:
    """A run marked running by a process whose last heartbeat was `silent_for` seconds ago."""
    from datetime import timedelta

    from django.utils import timezone

    split_dataset_create()
    run = run_create(task="biencoder", model_name=tiny_model, queue=False)
    beat = timezone.now() - timedelta(seconds=silent_for)
    Run.objects.filter(pk=run.pk).update(
        status="running", started_at=beat, heartbeat_at=beat, worker=worker
    )
    return Run.objects.get(pk=run.pk)


def test_a_run_silent_for_three_heartbeats_is_failed_with_the_reason(tiny_model, settings):
    settings.PARABLE_MODELING_HEARTBEAT_SECONDS = 10
    dead = _running(tiny_model, silent_for=31)
    assert services.runs_watch() == {"failed": 1, "sent": 0}
    dead.refresh_from_db()
    assert dead.status == "failed" and dead.finished_at is not None
    assert "its worker gpu-1:4242 stopped answering: no heartbeat since" in dead.error
    assert "Relaunch it" in dead.error


def test_a_run_with_a_recent_heartbeat_is_left_running(tiny_model, settings):
    settings.PARABLE_MODELING_HEARTBEAT_SECONDS = 10
    live = _running(tiny_model, silent_for=25)
    assert services.runs_watch() == {"failed": 0, "sent": 0}
    assert run_execute(run_id=live.pk).status == "running"  # a redelivered message: no-op
    live.refresh_from_db()
    assert live.status == "running" and not live.error


def test_a_redelivered_message_of_a_dead_run_fails_it(tiny_model, settings):
    settings.PARABLE_MODELING_HEARTBEAT_SECONDS = 10
    dead = _running(tiny_model, silent_for=60)
    assert run_execute(run_id=dead.pk).status == "failed"
    assert "stopped answering" in Run.objects.get(pk=dead.pk).error


def test_cancelling_a_dead_run_ends_it_at_once(tiny_model, settings):
    settings.PARABLE_MODELING_HEARTBEAT_SECONDS = 10
    dead = _running(tiny_model, silent_for=60)
    run_cancel(run=dead)
    dead.refresh_from_db()
    assert dead.status == "cancelled" and dead.error.startswith("Cancelled; its worker")


def test_a_finished_run_is_relaunched_with_its_configuration_and_snapshot(tiny_model, settings):
    settings.PARABLE_MODELING_HEARTBEAT_SECONDS = 10
    dead = _running(tiny_model, silent_for=60)
    with pytest.raises(ValueError, match="only a finished run is relaunched"):
        services.run_relaunch(run=Run.objects.create(task="retrieval", snapshot=dead.snapshot))
    services.runs_watch()
    dead.refresh_from_db()
    new = services.run_relaunch(run=dead, queue=False)
    assert new.status == "queued" and new.relaunch_of == dead
    fields = ("task", "setting", "model_name", "hyperparameters", "seed", "snapshot_id")
    assert [getattr(new, f) for f in fields] == [getattr(dead, f) for f in fields]


def test_a_run_whose_message_was_lost_is_sent_again_later_each_time(tiny_model, settings):
    from datetime import timedelta

    from django.utils import timezone

    settings.PARABLE_BACKGROUND_GRACE_SECONDS = 100
    split_dataset_create()
    run = run_create(task="biencoder", model_name=tiny_model, queue=False)
    now = timezone.now()
    Run.objects.filter(pk=run.pk).update(queued_at=now - timedelta(seconds=150), sends=1)
    assert [r.pk for r in runs_to_resend(now)] == [run.pk]  # one grace after 1 send
    Run.objects.filter(pk=run.pk).update(sends=2)
    assert runs_to_resend(now) == []  # after 2 sends: two graces
    assert [r.pk for r in runs_to_resend(now + timedelta(seconds=60))] == [run.pk]
    Run.objects.filter(pk=run.pk).update(queued_at=None)
    assert runs_to_resend(now + timedelta(days=1)) == []  # never sent: not queued


def test_runs_go_to_the_modeling_queue_and_their_watch_to_the_default_one():
    from django.conf import settings

    from config.celery_app import app

    queue = {
        name: app.amqp.router.route({}, name)["queue"].name
        for name in ("modeling.run_execute", "modeling.runs_watch")
    }
    assert queue == {"modeling.run_execute": "modeling", "modeling.runs_watch": "celery"}
    assert settings.CELERY_BEAT_SCHEDULE["watch-modeling-runs"]["task"] == "modeling.runs_watch"


def test_one_launch_over_three_seeds_makes_three_runs_of_one_series(tiny_model):
    split_dataset_create()
    runs = services.runs_create(
        seeds=[1, 2, 3], task="retrieval", model_name=tiny_model, queue=False
    )
    assert [run.seed for run in runs] == [1, 2, 3]
    assert len({run.snapshot_id for run in runs}) == 1 and Run.objects.count() == 3
    with pytest.raises(ValueError, match="each once"):
        services.runs_create(seeds=[1, 1], task="retrieval", model_name=tiny_model)


def test_a_dead_run_is_ended_by_its_page_with_no_beat(tiny_model, settings, client, researcher):
    settings.PARABLE_MODELING_HEARTBEAT_SECONDS = 10
    dead = _running(tiny_model, silent_for=31, worker="laptop:77")
    client.force_login(researcher)
    page = client.get(f"/admin/modeling/run/{dead.pk}/change/").content.decode()
    dead.refresh_from_db()
    assert dead.status == "failed"
    assert "Failed" in page and "its worker laptop:77 stopped answering" in page
    assert "Relaunch this run" in page
