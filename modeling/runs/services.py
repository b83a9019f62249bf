"""Services of the modeling app: create, execute, cancel, relaunch and watch runs.

A running run's process writes a heartbeat (`heartbeat_at`, its `worker` host:pid) from a
thread of its own every PARABLE_MODELING_HEARTBEAT_SECONDS. A run silent for three is dead:
beat (`runs_watch`), a redelivered message, a cancel, and (with no broker or beat) the run
pages and `run_baseline` as they open (`runs_dead_end`) end it as failed, saying why; it can
be relaunched. Beat also sends again a queued run whose message was lost; a run executes
once whatever its messages (`_start` takes it under a row lock, only while queued).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.db import DatabaseError, connections, transaction
from django.utils import timezone

from annotation.opponents.selectors import round_proverbs
from modeling.models import Run
from modeling.runs.queueing import run_create_queued, run_send
from modeling.runs.selectors import run_is_dead, runs_dead, runs_to_resend, source_runs_of
from modeling.runs.snapshots import snapshot_examples, snapshot_freeze
from modeling.runs.storage import artifact_upload
from modeling.training.examples import SETTINGS, SnapshotError
from modeling.training.hyperparameters import Cancelled, Hyperparameters, Reporter
from modeling.training.registry import baseline_for

logger = logging.getLogger(__name__)

PROGRESS_EVERY = 1.0  # seconds between progress writes and cancel checks


@transaction.atomic
def run_create(
    *,
    task: str,
    setting: str = "seen",
    model_name: str | None = None,
    hyperparameters: dict | None = None,
    seed: int = 1,
    created_by=None,
    queue: bool = True,
) -> Run:
    """A queued run on a snapshot of the approved data now (a baseline that combines the
    finished runs `hyperparameters` names: on theirs); queued on commit unless queue=False.
    ValueError (SnapshotError) saying what to change when the run cannot be made."""
    baseline = baseline_for(task)
    if setting not in SETTINGS:
        raise ValueError(f"The split is seen or unseen, not {setting!r}.")
    cleaned = vars(Hyperparameters.from_dict(hyperparameters or {}))
    if baseline.source_runs:
        sources = source_runs_of(baseline, hyperparameters or {})
        baseline.check_sources({key: view for key, (view, _) in sources.items()})
        runs = [run for _, run in sources.values()]
        cleaned = {key: runs[number].pk for number, key in enumerate(baseline.source_runs)}
        snapshot, setting, seed = runs[-1].snapshot, runs[-1].setting, runs[-1].seed
        model_name = " → ".join(run.model_name for run in runs)[:500]
    else:
        if setting not in baseline.settings:
            raise ValueError(
                f"The {task} baseline runs on the {' or '.join(baseline.settings)} split only."
            )
        snapshot = snapshot_freeze()
        if snapshot.narratives == 0:
            raise SnapshotError(
                "There are no approved narratives to train or score on: approve narratives "
                "or import a dataset first."
            )
        baseline.parts(
            snapshot_examples(snapshot), setting=setting, seed=seed, hp=Hyperparameters(**cleaned)
        )
    return run_create_queued(
        queue=queue,
        task=task,
        setting=setting,
        model_name=model_name or getattr(settings, baseline.model_setting),
        hyperparameters=cleaned,
        seed=seed,
        snapshot=snapshot,
        created_by=created_by,
    )


@transaction.atomic
def runs_create(*, seeds: list[int], **configuration) -> list[Run]:
    """One queued run per seed of one configuration (a series whose results table shows
    mean ± sd); each run stays a run of its own. Keyword arguments: run_create's."""
    if not seeds or len(set(seeds)) != len(seeds):
        raise ValueError("Give one seed or more, each once.")
    return [run_create(seed=seed, **configuration) for seed in seeds]


def _end_dead(run: Run, status: str) -> Run:
    """End a locked dead run as failed (or cancelled), saying why."""
    reason = (
        f"its worker {run.worker or '(unknown)'} stopped answering: no heartbeat since "
        f"{run.heartbeat_at or run.started_at:%Y-%m-%d %H:%M:%S} UTC (killed, out of memory, "
        "or its machine lost)"
    )
    if status == Run.Status.CANCELLED:
        run.error = f"Cancelled; {reason}."
    else:
        run.error = f"Failed: {reason}. Relaunch it to run it again."
    run.status = status
    run.finished_at = timezone.now()
    run.progress = {**run.progress, "stage": status}
    run.save(update_fields=["status", "error", "finished_at", "progress"])
    return run


@transaction.atomic
def run_relaunch(*, run: Run, created_by=None, queue: bool = True) -> Run:
    """A new queued run of a finished run's configuration, on the same snapshot."""
    if not run.finished:
        raise ValueError(f"Run {run.pk} is {run.status}: only a finished run is relaunched.")
    return run_create_queued(
        queue=queue,
        task=run.task,
        setting=run.setting,
        model_name=run.model_name,
        hyperparameters=run.hyperparameters,
        seed=run.seed,
        snapshot=run.snapshot,
        created_by=created_by,
        relaunch_of=run,
    )


def runs_dead_end(*, now=None) -> int:
    """Fail the running runs whose heartbeat went stale (their process died), each with
    the reason; how many. Beat calls it (runs_watch) and so do the run pages and
    run_baseline, so that with no broker or beat (the embedded default, a command killed
    by a timeout) a dead run ends too, the next time anyone looks."""
    failed = 0
    for run_id in runs_dead(now).values_list("pk", flat=True)[:200]:
        with transaction.atomic():
            run = Run.objects.select_for_update().get(pk=run_id)
            if run_is_dead(run, now):
                _end_dead(run, Run.Status.FAILED)
                failed += 1
    return failed


def runs_watch(*, now=None) -> dict:
    """Fail the dead running runs and send again the queued runs whose message was lost
    (see the module). Returns {"failed": n, "sent": n}."""
    failed = runs_dead_end(now=now)
    sent = 0
    for run in runs_to_resend(now):
        if not run_send(run.pk):
            break  # the broker is down: the next beat tries again
        Run.objects.filter(pk=run.pk, status=Run.Status.QUEUED).update(
            queued_at=timezone.now(), sends=run.sends + 1
        )
        sent += 1
    return {"failed": failed, "sent": sent}


@transaction.atomic
def run_cancel(*, run: Run) -> Run:
    """Stop a run: a queued one is cancelled now, a running one at its next step, a dead one
    (its process silent, see the module) now."""
    run = Run.objects.select_for_update().get(pk=run.pk)
    if run.finished:
        raise ValueError(f"Run {run.pk} has already {run.status}.")
    if run_is_dead(run):
        run.cancel_requested = True
        run.save(update_fields=["cancel_requested"])
        return _end_dead(run, Run.Status.CANCELLED)
    if run.status == Run.Status.QUEUED:
        run.status = Run.Status.CANCELLED
        run.error = "Cancelled before it started."
        run.finished_at = timezone.now()
    run.cancel_requested = True
    run.save(update_fields=["status", "error", "finished_at", "cancel_requested"])
    return run


def worker_identity() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"[:200]


def _start(run_id: int) -> Run | None:
    with transaction.atomic():
        run = Run.objects.select_for_update().get(pk=run_id)
        if run_is_dead(run):  # a message redelivered after its worker was killed
            _end_dead(run, Run.Status.FAILED)
            return None
        if run.status != Run.Status.QUEUED:
            return None  # done, cancelled or taken already: executing again changes nothing
        now = timezone.now()
        run.status = Run.Status.RUNNING
        run.started_at = run.heartbeat_at = now
        run.worker = worker_identity()
        run.progress = {"stage": "starting"}
        run.save(update_fields=["status", "started_at", "heartbeat_at", "worker", "progress"])
    return run


@contextmanager
def _heartbeat(run: Run):
    """Write the run's heartbeat from a thread of its own while the block runs.

    Not inside an atomic block (a test's transaction): the thread's own connection
    would wait on the row lock the block holds.
    """
    if transaction.get_connection().in_atomic_block:
        yield
        return
    stop = threading.Event()

    def beat() -> None:
        try:
            while not stop.wait(settings.PARABLE_MODELING_HEARTBEAT_SECONDS):
                try:
                    Run.objects.filter(pk=run.pk, status=Run.Status.RUNNING).update(
                        heartbeat_at=timezone.now()
                    )
                except DatabaseError:
                    logger.warning("Run %s: heartbeat not written", run.pk, exc_info=True)
        finally:
            connections.close_all()  # this thread's connections

    thread = threading.Thread(target=beat, name=f"run-{run.pk}-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def _reporter(run: Run, echo=None) -> Reporter:
    state = {"written": 0.0, "checked": 0.0, "stage": None, "stop": False}
    latest: dict = {}  # the last value of every field reported (epoch, loss, dev accuracy...)

    def progress(fields: dict) -> None:
        if echo is not None:
            echo(fields)
        latest.update(fields)
        now = time.monotonic()
        if fields.get("stage") == state["stage"] and now - state["written"] < PROGRESS_EVERY:
            return
        state.update(written=now, stage=fields.get("stage"))
        Run.objects.filter(pk=run.pk).update(progress=dict(latest))

    def should_stop() -> bool:
        now = time.monotonic()
        if now - state["checked"] >= PROGRESS_EVERY:
            state["checked"] = now
            state["stop"] = Run.objects.filter(pk=run.pk, cancel_requested=True).exists()
        return state["stop"]

    return Reporter(progress=progress, should_stop=should_stop)


def artifact_folder(run: Run) -> Path:
    return Path(settings.PARABLE_MODELING_ARTIFACTS) / f"run-{run.pk}"


def run_execute(*, run_id: int, echo=None) -> Run:
    """Execute a queued run and store its results; idempotent (a started run is left alone).

    `echo(fields)` sees every progress report (the command's progress bar).
    """
    run = _start(run_id)
    if run is None:
        return Run.objects.get(pk=run_id)
    with _heartbeat(run):
        return _execute(run, echo)


def _execute(run: Run, echo) -> Run:
    # torch and the models load in the process that runs the baseline, never in a web process.
    from common.encoder import ModelNotFound
    from modeling.training.registry import run_task

    baseline = baseline_for(run.task)
    folder = artifact_folder(run) if baseline.trains else None
    try:
        sources = source_runs_of(baseline, run.hyperparameters)
        result = run_task(
            task=run.task,
            examples=snapshot_examples(run.snapshot) if not sources else [],
            setting=run.setting,
            model=run.model_name,
            hyperparameters=Hyperparameters.from_dict(run.hyperparameters),
            seed=run.seed,
            reporter=_reporter(run, echo),
            artifact_dir=folder,
            sources={key: view for key, (view, _) in sources.items()},
            round_proverbs=round_proverbs() if baseline.ranks_proverbs else (),
        )
        artifact = artifact_upload(folder=folder, name=folder.name) if folder else ""
    except Cancelled as stop:
        return _finish(run, status=Run.Status.CANCELLED, error=str(stop))
    except (SnapshotError, ModelNotFound) as error:
        return _finish(run, status=Run.Status.FAILED, error=str(error))
    except Exception as error:
        logger.exception("Run %s failed", run.pk)
        return _finish(run, status=Run.Status.FAILED, error=f"{type(error).__name__}: {error}")
    stored = {
        key: result[key]
        for key in ("metrics", "epochs", "selected_epoch", "predictions", "candidates")
        if key in result
    }
    environment = {**result.get("environment", {})}
    for key in ("model_path", "pooling", "counts", "model_kind"):
        if key in result:
            environment[key] = result[key]
    return _finish(
        run,
        status=Run.Status.SUCCEEDED,
        **stored,
        environment=environment,
        durations=result.get("durations", {}),
        artifact=artifact,
    )


def _finish(run: Run, *, status: str, **fields) -> Run:
    progress = Run.objects.filter(pk=run.pk).values_list("progress", flat=True).get()
    fields.update(status=status, finished_at=timezone.now(), progress={**progress, "stage": status})
    Run.objects.filter(pk=run.pk).update(**fields)
    run.refresh_from_db()
    return run
