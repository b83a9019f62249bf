"""Who the worker on this request is: only ever from the session, set by a verified entry."""

from __future__ import annotations

from crowd.models import Worker

SESSION_KEY = "parable_worker_id"


def session_worker_id(request) -> int | None:
    """The session's worker id, unchecked: a view that reads it looks the worker up with
    its own query (not blocked) and calls `session_worker` when that finds nothing."""
    return request.session.get(SESSION_KEY)


def session_worker(request, *, lock: bool = False) -> Worker | None:
    """The session's worker; a blocked (or deleted) worker's session is dropped. `lock`
    takes the worker's row lock (inside a transaction)."""
    worker_id = session_worker_id(request)
    if worker_id is None:
        return None
    workers = Worker.objects.select_for_update() if lock else Worker.objects
    worker = workers.filter(pk=worker_id, blocked=False).first()
    if worker is None:
        request.session.flush()
    return worker


def session_worker_set(request, worker: Worker) -> None:
    request.session.cycle_key()
    request.session[SESSION_KEY] = worker.pk
