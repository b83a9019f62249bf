"""Sending runs to the modeling queue by the task's name.

The services and the pipeline queue runs through Celery's registry of tasks instead of
importing modeling.tasks, whose tasks call the services: no import circle.
"""

from __future__ import annotations

from config.task_queue import queue_on_commit, task_send

RUN_EXECUTE = "modeling.run_execute"


def run_execute_task():
    from celery import current_app

    return current_app.tasks[RUN_EXECUTE]


def run_queue_on_commit(run_id: int) -> None:
    """Send the run to the modeling queue once the current transaction commits."""
    queue_on_commit(run_execute_task(), run_id)


def run_send(run_id: int) -> bool:
    """Send the run now; False when the broker could not take it (logged)."""
    return task_send(run_execute_task(), run_id)
