"""Who the worker on this request is: only ever from the session, set by a verified entry."""

from __future__ import annotations

from crowd.models import Worker

SESSION_KEY = "parable_worker_id"


def session_worker(request) -> Worker | None:
    """The session's worker; a blocked (or deleted) worker's session is dropped."""
    worker_id = request.session.get(SESSION_KEY)
    if worker_id is None:
        return None
    worker = Worker.objects.filter(pk=worker_id, blocked=False).first()
    if worker is None:
        request.session.flush()
    return worker


def session_worker_set(request, worker: Worker) -> None:
    request.session.cycle_key()
    request.session[SESSION_KEY] = worker.pk
