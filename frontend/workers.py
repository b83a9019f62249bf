"""Who the worker on this request is: only ever from the session, set by a verified entry."""

from __future__ import annotations

from crowd.models import Worker

SESSION_KEY = "parable_worker_id"


def session_worker_id(request) -> int | None:
    """The signed-in worker's id, read from the session alone (no query)."""
    return request.session.get(SESSION_KEY)


def session_worker(request) -> Worker | None:
    worker_id = session_worker_id(request)
    if worker_id is None:
        return None
    return Worker.objects.filter(pk=worker_id).first()


def session_worker_set(request, worker: Worker) -> None:
    request.session.cycle_key()
    request.session[SESSION_KEY] = worker.pk
