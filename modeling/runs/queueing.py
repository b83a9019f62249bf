"""Sending runs to the modeling queue by the task's name (importing modeling.tasks would make
an import circle). With no broker a run executes in a background thread of the process that
launched it (PARABLE_MODELING_WITHOUT_BROKER="thread"), so the admin answers at once, or
"inline", in the request.
"""

from __future__ import annotations

import threading

from django.conf import settings
from django.db import connections, transaction
from django.utils import timezone

from common.task_queue import named_task, queue_on_commit, task_send
from modeling.models import Run

RUN_EXECUTE = "modeling.run_execute"


def run_queue_on_commit(run_id: int) -> None:
    """Send the run to the modeling queue once the current transaction commits (with no
    broker: start it in a background thread then, see the module)."""
    if settings.CELERY_TASK_ALWAYS_EAGER and settings.PARABLE_MODELING_WITHOUT_BROKER == "thread":
        transaction.on_commit(lambda: run_in_thread(run_id))
    else:
        queue_on_commit(RUN_EXECUTE, run_id)


def run_create_queued(*, queue: bool = True, **fields) -> Run:
    """A new Run with these fields, queued (sent once the transaction commits, counted in
    `sends`) unless queue=False; what launching, a pipeline and a relaunch share."""
    run = Run.objects.create(
        **fields, queued_at=timezone.now() if queue else None, sends=int(queue)
    )
    if queue:
        run_queue_on_commit(run.pk)
    return run


def run_in_thread(run_id: int) -> threading.Thread:
    """Execute the run in a daemon thread of this process, named run-<id>."""

    def execute() -> None:
        try:
            named_task(RUN_EXECUTE).apply(args=[run_id])
        finally:
            connections.close_all()  # this thread's connections

    thread = threading.Thread(target=execute, name=f"run-{run_id}", daemon=True)
    thread.start()
    return thread


def run_send(run_id: int) -> bool:
    """Send the run now; False when the broker could not take it (logged)."""
    return task_send(RUN_EXECUTE, run_id)
