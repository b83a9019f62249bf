"""Who the worker on this request is: only ever from the session, set by a verified entry."""

from __future__ import annotations

from crowd.models import Worker

SESSION_KEY = "parable_worker_id"
BLOCKED_KEY = "parable_blocked_reason"


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
    worker = workers.filter(pk=worker_id).first()
    if worker is None or worker.blocked:
        session_worker_drop(request, blocked_reason=worker.blocked_reason if worker else "")
        return None
    return worker


def session_worker_set(request, worker: Worker) -> None:
    request.session.cycle_key()
    request.session[SESSION_KEY] = worker.pk


def session_worker_drop(request, *, blocked_reason: str = "") -> None:
    """End the worker's session; a blocked worker's reason stays, for the page that tells
    them (`session_blocked_reason`)."""
    request.session.flush()
    if blocked_reason:
        request.session[BLOCKED_KEY] = blocked_reason


def session_blocked_reason(request) -> str:
    """Why this browser's worker was blocked, when a blocked worker's session was dropped."""
    return request.session.get(BLOCKED_KEY, "")
