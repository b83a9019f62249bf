"""Queueing Celery tasks so that a broker outage never fails the request that queued them.

Work a task must do is first recorded in the database (e.g. a narrative's
`keywords_pending_since`), in the same transaction as the change that calls for it;
`queue_on_commit` then sends the task once that transaction commits. A broker that
is down or unreachable is logged, not raised: the committed change stands, and a
beat task re-queues whatever is still pending after the grace period
(PARABLE_BACKGROUND_GRACE_SECONDS). Sending tries the broker once and waits for no
result, so a dead broker costs a request a refused connection, not Celery's retries
(about 19 s with a Redis result backend).
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

logger = logging.getLogger(__name__)
_ONE_ATTEMPT = {"max_retries": 0}


def task_send(task, *args) -> bool:
    """Send `task(*args)` to the broker (or run it in-process when eager); False when the
    broker could not take it (logged), so the caller can leave it to the re-queue.

    One connection attempt (max_retries 0) on a connection of its own, no publish retry,
    and no result: the work's state is in the database, so nobody waits on the result
    backend (whose subscription retries for ~19 s when Redis is down)."""
    try:
        with task.app.connection_for_write(transport_options=_ONE_ATTEMPT) as connection:
            task.apply_async(args=args, retry=False, ignore_result=True, connection=connection)
    except Exception:
        logger.exception(
            "Could not queue %s%r; it stays pending and is re-queued later.", task.name, args
        )
        return False
    return True


def waiting_past_grace(queryset, *, since: str, limit: int, now=None, id_field: str = "id"):
    """`id_field` of the rows whose `since` time is older than the grace period
    (PARABLE_BACKGROUND_GRACE_SECONDS), oldest first, at most `limit`: work whose task
    was lost, for a beat task to queue again."""
    cutoff = (now or timezone.now()) - timedelta(seconds=settings.PARABLE_BACKGROUND_GRACE_SECONDS)
    return list(
        queryset.filter(**{f"{since}__lte": cutoff})
        .order_by(since, id_field)
        .values_list(id_field, flat=True)[:limit]
    )


def queue_on_commit(task, *args) -> None:
    """Send `task(*args)` after the current transaction commits; never raises."""
    transaction.on_commit(lambda: task_send(task, *args))
