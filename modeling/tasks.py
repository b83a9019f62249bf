"""Celery tasks of the modeling app: runs on their own queue, their watch on the default
one (CELERY_TASK_ROUTES)."""

from celery import shared_task


@shared_task(name="modeling.run_execute")
def run_execute_task(run_id: int) -> str:
    """Execute a queued run; idempotent (a started or finished run is left as it is)."""
    from modeling.runs.services import run_execute

    return run_execute(run_id=run_id).status


@shared_task(name="modeling.runs_watch")
def runs_watch_task() -> dict:
    """Beat: fail dead runs, send again queued runs whose message was lost."""
    from modeling.runs.services import runs_watch

    return runs_watch()
