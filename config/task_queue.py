"""Queueing Celery tasks so that a broker outage never fails the request that queued them.

Work a task must do is first recorded in the database (e.g. a narrative's
`keywords_pending_since`), in the same transaction as the change that calls for it;
`queue_on_commit` then sends the task once that transaction commits. A broker that
is down or unreachable is logged, not raised: the committed change stands, and a
beat task re-queues whatever is still pending after the grace period
(PARABLE_BACKGROUND_GRACE_SECONDS) and has no message waiting in the broker
(`tasks_requeue_lost`), so that a long backlog does not grow itself. Sending tries
the broker once and waits for no result, so a dead broker costs a request a refused
connection, not Celery's retries (about 19 s with a Redis result backend).
"""

from __future__ import annotations

import base64
import json
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


def tasks_requeue_lost(task, pending_ids) -> int:
    """Send `task(pk)` for each pending id whose message is lost: none waits in the task's
    queue on the broker. A message a worker holds (running, or its worker killed) is not
    waiting, so its work is queued once more: tasks are idempotent. Returns how many
    were sent. Without a Redis broker to ask, every pending id is sent."""
    pending_ids = list(pending_ids)
    waiting = _waiting_first_args(task) if pending_ids else set()
    return sum(task_send(task, pk) for pk in pending_ids if pk not in waiting)


def _waiting_first_args(task) -> set:
    """The first argument of every `task` message waiting in its queue on a Redis broker
    (messages without a priority sit in the list named after the queue); empty when the
    broker is not Redis (or tasks run in-process) or cannot be read."""
    app = task.app
    if app.conf.task_always_eager or not app.conf.broker_url.startswith(("redis", "rediss")):
        return set()
    queue = app.amqp.router.route({}, task.name, args=(), kwargs={})["queue"].name
    try:
        with app.connection_for_read(transport_options=_ONE_ATTEMPT) as connection:
            messages = connection.default_channel.client.lrange(queue, 0, -1)
    except Exception:
        logger.exception("Could not read the %s queue; re-queueing every pending task.", queue)
        return set()
    waiting = set()
    for raw in messages:
        message = json.loads(raw)
        if message.get("headers", {}).get("task") != task.name:
            continue
        body = message["body"]
        if message.get("properties", {}).get("body_encoding") == "base64":
            body = base64.b64decode(body)
        args = json.loads(body)[0]
        if args:
            waiting.add(args[0])
    return waiting


def queue_on_commit(task, *args) -> None:
    """Send `task(*args)` after the current transaction commits; never raises."""
    transaction.on_commit(lambda: task_send(task, *args))
