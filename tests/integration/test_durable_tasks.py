"""Background work survives crashes and outages, with real processes on PostgreSQL and Redis:
a Celery pool process killed mid-task, a whole worker killed, a broker down at approval;
the one task that fills many narratives' keywords, run by a real worker; and the same for
modeling runs (a run's worker killed mid-training, a run created with the broker down)."""

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager

import psycopg
import pytest
import redis
from celery import Celery
from django.utils import timezone
from rest_framework.authtoken.models import Token

from annotation.models import Narrative
from crowd.assignments import assignment_reserve_next, assignment_submit
from modeling.models import Run
from modeling.runs.selectors import run_is_dead
from modeling.runs.services import run_cancel, run_create, run_relaunch
from tests.conftest import free_loopback_port
from tests.factories import (
    BIRDS,
    BIRDS_STORY,
    figurative_narrative_create,
    narrative_create,
    proverb_create,
    split_dataset_create,
    worker_create,
    write_batch_create,
)
from tests.integration.processes import (
    ROOT,
    celery_worker,
    child_pids,
    database_url,
    gunicorn_server,
    process_environment,
    wait_until,
)
from tests.modeling.conftest import TINY_HYPERPARAMETERS, tiny_model_folder

pytestmark = pytest.mark.django_db(transaction=True)
STORY = "When Maria moved to Chicago in March, she joined a choir and sang every Friday."


def _keywords_done(narrative_id: int) -> bool:
    narrative = Narrative.objects.get(pk=narrative_id)
    return narrative.keywords_pending_since is None and bool(narrative.keywords.get("verbs"))


def _pending_narrative() -> Narrative:
    return narrative_create(
        proverb=proverb_create(),
        text=STORY,
        status="approved",
        keywords_pending_since=timezone.now(),
    )


def _waiting_on_row_lock(lock: psycopg.Connection) -> bool:
    row = lock.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
        "AND query LIKE '%annotation_narrative%FOR UPDATE%'"
    ).fetchone()
    return row[0] > 0


def _task_blocked_on_the_narrative(worker, narrative: Narrative, redis_url: str):
    """Hold the narrative's row lock, send its keywords task, and return once the worker is
    inside the task waiting on that lock; yields the lock's connection to release it."""
    lock = psycopg.connect(database_url())
    lock.execute("SELECT id FROM annotation_narrative WHERE id = %s FOR UPDATE", [narrative.pk])
    Celery(broker=redis_url, set_as_current=False).send_task(
        "annotation.narrative_keywords_extract", [narrative.pk]
    )
    monitor = psycopg.connect(database_url(), autocommit=True)
    try:
        wait_until(lambda: _waiting_on_row_lock(monitor), timeout=120, what="the task to start")
    finally:
        monitor.close()
    assert worker.poll() is None
    return lock


def test_task_of_a_killed_pool_process_is_redelivered_and_done(redis_url):
    narrative = _pending_narrative()
    with celery_worker(redis_url, pool="prefork") as worker:
        lock = _task_blocked_on_the_narrative(worker, narrative, redis_url)
        [child] = child_pids(worker.pid)
        os.kill(child, signal.SIGKILL)
        lock.rollback()
        lock.close()
        wait_until(lambda: _keywords_done(narrative.pk), timeout=120, what="the keywords")


def test_task_of_a_killed_worker_is_requeued_by_beat_and_done(redis_url):
    narrative = _pending_narrative()
    with celery_worker(redis_url, pool="prefork") as worker:
        lock = _task_blocked_on_the_narrative(worker, narrative, redis_url)
        for pid in (*child_pids(worker.pid), worker.pid):
            os.kill(pid, signal.SIGKILL)
        worker.wait(timeout=30)
        lock.rollback()
        lock.close()
    assert Narrative.objects.get(pk=narrative.pk).keywords_pending_since is not None
    env = {"PARABLE_BACKGROUND_GRACE_SECONDS": "0"}
    with celery_worker(redis_url, env=env):
        client = Celery(broker=redis_url, backend=redis_url, set_as_current=False)
        assert client.send_task("annotation.keywords_requeue").get(timeout=120) >= 1
        wait_until(lambda: _keywords_done(narrative.pk), timeout=120, what="the keywords")


def test_approval_with_the_broker_down_succeeds_and_keywords_follow(redis_url, researcher):
    batch = write_batch_create(proverbs=[proverb_create(BIRDS)])
    assignment = assignment_reserve_next(batch=batch, worker=worker_create())
    assignment_submit(assignment=assignment, payload={"text": BIRDS_STORY})
    narrative = Narrative.objects.get(assignment=assignment)
    token = Token.objects.create(user=researcher)
    down = f"redis://127.0.0.1:{free_loopback_port()}/0"
    with gunicorn_server(broker_url=down) as (url, _):
        # A first request loads the application, so the bound below times the approval only.
        warm_up = urllib.request.Request(
            f"{url}/api/narratives/{narrative.pk}/", headers={"Authorization": f"Token {token.key}"}
        )
        with urllib.request.urlopen(warm_up, timeout=60) as response:
            assert response.status == 200
        request = urllib.request.Request(
            f"{url}/api/narratives/{narrative.pk}/approve/",
            method="POST",
            headers={"Authorization": f"Token {token.key}"},
        )
        started = time.monotonic()
        with urllib.request.urlopen(request, timeout=60) as response:
            assert response.status == 200
            assert json.loads(response.read())["status"] == "approved"
        assert time.monotonic() - started < 1  # straight to the durable path
    narrative.refresh_from_db()
    assert narrative.status == "approved" and narrative.keywords == {}
    assert narrative.keywords_pending_since is not None
    with celery_worker(redis_url, env={"PARABLE_BACKGROUND_GRACE_SECONDS": "0"}):
        client = Celery(broker=redis_url, backend=redis_url, set_as_current=False)
        assert client.send_task("annotation.keywords_requeue").get(timeout=120) == 1
        wait_until(lambda: _keywords_done(narrative.pk), timeout=120, what="the keywords")


def test_beat_requeues_only_work_whose_message_is_lost(redis_url):
    narratives = [_pending_narrative() for _ in range(3)]
    broker = redis.Redis.from_url(redis_url)
    broker.delete("celery")
    env = {"PARABLE_BACKGROUND_GRACE_SECONDS": "0"}
    # The worker takes the beat task only ("beat" queue): the keyword tasks it queues wait
    # in the "celery" queue as a backlog older than the grace period.
    try:
        with celery_worker(redis_url, queues="beat", env=env):
            client = Celery(broker=redis_url, backend=redis_url, set_as_current=False)

            def requeue() -> int:
                task = client.send_task("annotation.keywords_requeue", queue="beat")
                return task.get(timeout=120)

            assert requeue() == 3
            assert requeue() == 0  # all three still wait: the backlog does not grow
            assert broker.llen("celery") == 3
            broker.lpop("celery")  # the broker lost one message
            assert requeue() == 1
            assert broker.llen("celery") == 3
    finally:
        broker.delete("celery")
    assert all(Narrative.objects.get(pk=n.pk).keywords_pending_since for n in narratives)


def test_beat_requeues_a_lost_figurative_check_once_while_it_waits(redis_url):
    """Imported idiom narratives whose check never ran: beat queues one check of them all
    (its argument is the list of ids), and not another while that one waits."""
    from datetime import timedelta

    from annotation.models import FigurativeNarrative

    for text in ("On Friday she decided to call it a day.", "At noon they call it a day."):
        figurative_narrative_create(text=text)
    FigurativeNarrative.objects.update(created_at=timezone.now() - timedelta(hours=1))
    from config.settings.celery import PARABLE_BULK_QUEUE as BULK  # the check's lane

    broker = redis.Redis.from_url(redis_url)
    broker.delete(BULK)
    try:
        with celery_worker(redis_url, queues="beat"):
            client = Celery(broker=redis_url, backend=redis_url, set_as_current=False)

            def requeue() -> int:
                task = client.send_task("annotation.similarity_requeue", queue="beat")
                return task.get(timeout=120)

            assert requeue() == 2
            assert requeue() == 0  # the check still waits: no second one
            assert broker.llen(BULK) == 1
            broker.lpop(BULK)  # the broker lost it
            assert requeue() == 2
            assert broker.llen(BULK) == 1
    finally:
        broker.delete(BULK)


def test_one_worker_task_fills_the_keywords_of_many_imported_narratives(redis_url):
    """The task an upload or the admin's backfill queues: one task for many narratives."""
    narratives = [_pending_narrative() for _ in range(3)]
    with celery_worker(redis_url):
        client = Celery(broker=redis_url, backend=redis_url, set_as_current=False)
        ids = [narrative.pk for narrative in narratives]
        assert client.send_task("annotation.narratives_keywords_fill", [ids]).get(timeout=120) == 3
        assert all(_keywords_done(pk) for pk in ids)
        assert client.send_task("annotation.narratives_keywords_fill", [ids]).get(timeout=120) == 0


# The modeling queue: a run's worker killed mid-training, a run created with the broker down.

RUN_ENV = {"PARABLE_MODELING_HEARTBEAT_SECONDS": "0.5", "PARABLE_BACKGROUND_GRACE_SECONDS": "0"}


def _training(run_id: int) -> bool:
    return Run.objects.get(pk=run_id).progress.get("stage") == "training"


def _send(redis_url: str, name: str, *args):
    return Celery(broker=redis_url, backend=redis_url, set_as_current=False).send_task(
        name, args=list(args), queue="celery" if name == "modeling.runs_watch" else "modeling"
    )


@contextmanager
def _training_run(redis_url: str, tmp_path, queues: str):
    """A run training in a prefork worker taking `queues`: yields the run and the worker."""
    split_dataset_create()
    run = run_create(
        task="biencoder",
        model_name=tiny_model_folder(tmp_path / "tiny"),
        # An epoch of the tiny model takes milliseconds: enough epochs to be killed mid-run.
        hyperparameters={**TINY_HYPERPARAMETERS, "epochs": 100_000},
        queue=False,
    )
    env = {**RUN_ENV, "PARABLE_MODELING_ARTIFACTS": str(tmp_path / "models")}
    with celery_worker(redis_url, pool="prefork", queues=queues, env=env) as worker:
        _send(redis_url, "modeling.run_execute", run.pk)
        wait_until(lambda: _training(run.pk), timeout=120, what="the run to train")
        yield run, worker


def test_a_run_whose_pool_process_is_killed_is_failed_and_relaunched(redis_url, settings, tmp_path):
    settings.PARABLE_MODELING_HEARTBEAT_SECONDS = 0.5
    with _training_run(redis_url, tmp_path, "modeling,celery") as (run, worker):
        [child] = child_pids(worker.pid)
        os.kill(child, signal.SIGKILL)  # its message goes back to the queue, redelivered
        wait_until(lambda: run_is_dead(Run.objects.get(pk=run.pk)), timeout=60, what="a silent run")
        _send(redis_url, "modeling.runs_watch").get(timeout=120)
        run.refresh_from_db()
        assert run.status == "failed" and "stopped answering" in run.error, run.error
        assert run.worker.endswith(f":{child}")
        relaunched = run_relaunch(run=run, queue=False)
        _send(redis_url, "modeling.run_execute", relaunched.pk)
        wait_until(lambda: _training(relaunched.pk), timeout=120, what="the relaunch to train")
        run_cancel(run=relaunched)  # alive: it stops at its next step
        wait_until(
            lambda: Run.objects.get(pk=relaunched.pk).status == "cancelled",
            timeout=120,
            what="the relaunch to stop",
        )
    assert Run.objects.get(pk=run.pk).status == "failed"


def test_a_run_whose_whole_worker_is_killed_is_cancelled_at_once(redis_url, settings, tmp_path):
    settings.PARABLE_MODELING_HEARTBEAT_SECONDS = 0.5
    with _training_run(redis_url, tmp_path, "modeling") as (run, worker):
        for pid in (*child_pids(worker.pid), worker.pid):
            os.kill(pid, signal.SIGKILL)
        worker.wait(timeout=30)
    assert Run.objects.get(pk=run.pk).status == "running"  # nobody is left to say otherwise
    wait_until(lambda: run_is_dead(Run.objects.get(pk=run.pk)), timeout=60, what="silence")
    run_cancel(run=Run.objects.get(pk=run.pk))
    run.refresh_from_db()
    assert run.status == "cancelled" and "stopped answering" in run.error


def test_a_run_created_with_the_broker_down_is_sent_again_and_executed_once(redis_url, tmp_path):
    split_dataset_create()
    model = tiny_model_folder(tmp_path / "tiny")
    down = f"redis://127.0.0.1:{free_loopback_port()}/0"
    # A separate process with the production settings and a broker that is down.
    script = (
        "import django; django.setup(); from modeling.runs.services import run_create; "
        f"print(run_create(task='biencoder', model_name={model!r}, "
        f"hyperparameters={TINY_HYPERPARAMETERS!r}).pk)"
    )
    created = subprocess.run(
        [sys.executable, "-c", script],
        env=process_environment(down),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert created.returncode == 0, created.stderr
    run = Run.objects.get(pk=int(created.stdout.split()[-1]))
    assert run.status == "queued" and run.sends == 1 and run.queued_at is not None
    env = {**RUN_ENV, "PARABLE_MODELING_ARTIFACTS": str(tmp_path / "models")}
    with celery_worker(redis_url, queues="modeling,celery", env=env):
        assert _send(redis_url, "modeling.runs_watch").get(timeout=120) == {"failed": 0, "sent": 1}
        duplicates = [_send(redis_url, "modeling.run_execute", run.pk) for _ in range(3)]
        assert {result.get(timeout=300) for result in duplicates} == {"succeeded"}
    run.refresh_from_db()
    assert run.status == "succeeded" and run.sends == 2
    started = run.started_at
    assert len(run.epochs) == TINY_HYPERPARAMETERS["epochs"]  # one execution's epochs
    assert Run.objects.get(pk=run.pk).started_at == started
