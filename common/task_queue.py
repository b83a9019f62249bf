"""Queueing Celery tasks so that a broker outage never fails the request that queued them.

Work a task must do is recorded in the database in the change's own transaction;
`queue_on_commit` sends the task once it commits. A broker that is down is logged, not
raised: a beat task re-queues what is still pending after PARABLE_BACKGROUND_GRACE_SECONDS
with no message waiting in the broker (`tasks_requeue_lost`), so a backlog does not grow
itself. A send tries the broker once and waits for no result (not Celery's ~19 s of retries).

With no broker (the embedded default) tasks run in-process, after the request's response
(config/wsgi.py calls `tasks_after_response`), in lanes, one per Celery queue (`task_lane`),
each on one background thread in request order, as a Celery worker of one per queue would:
a thread per request let submits start dozens of embedding runs at once (taking the CPU and
the GIL from requests holding SQLite's write lock), one thread for all let an import hold
up every model check.
"""

from __future__ import annotations

import base64
import importlib
import json
import logging
import os
import threading
from collections import deque
from contextlib import contextmanager
from datetime import timedelta
from typing import NamedTuple

from django.conf import settings
from django.core.signals import request_finished, request_started
from django.db import connections, transaction
from django.utils import timezone
from kombu import serialization

logger = logging.getLogger(__name__)
# The tasks the current request has queued, while tasks wait for its response; else None.
_this_request = threading.local()
# One connection attempt, and a reply awaited at most 5 s on a connection kept open.
_ONE_ATTEMPT = {"max_retries": 0, "socket_timeout": 5}
# Per thread, the connection each Celery app last sent on, by id(app).
_senders = threading.local()


class _Kept(NamedTuple):
    app: object  # held, so that its id names no other app
    pid: int
    url: str
    connection: object


def named_task(task):
    """The Celery task registered under a name, "<app>.<task>" (services queue tasks by
    name: the app's tasks.py defines them and imports the services), importing that module
    when no worker has yet; a task object as it is."""
    if not isinstance(task, str):
        return task
    from celery import current_app

    if task not in current_app.tasks:
        importlib.import_module(f"{task.split('.', 1)[0]}.tasks")
    return current_app.tasks[task]


def task_send(task, *args) -> bool:
    """Send `task(*args)` (a task or its name) to the broker (in-process when eager); False
    when the broker could not take it (logged), leaving it to the re-queue. One connection
    attempt and no result: nobody waits on the result backend (~19 s of retries when Redis
    is down). In a request whose tasks wait for its response it is only noted."""
    task = named_task(task)
    waiting = getattr(_this_request, "tasks", None)
    if waiting is not None:
        waiting.append((task, args))
        return True
    try:
        _publish(task, args)
    except Exception:
        logger.exception(
            "Could not queue %s%r; it stays pending and is re-queued later.", task.name, args
        )
        return False
    return True


def _publish(task, args) -> None:
    """Publish on this thread's kept connection to the broker (one per send cost a sixth of
    a web worker's CPU in bench/serving), else on a new one, then kept. A kept connection
    that fails is dropped and the message sent once on a new one (tasks are idempotent).
    A connection is never shared across threads nor inherited through a fork."""
    app = task.app
    options = {"args": args, "retry": False, "ignore_result": True}
    if app.conf.task_always_eager:
        # apply(), not eager apply_async(): that sets and resets a process-wide "a join would
        # block" flag around the call, and two lanes' threads interleaving left it set, so
        # that every later result.get() in the process raised. Arguments still go through
        # the serializer, as a broker would take them.
        content_type, encoding, data = serialization.dumps(args, app.conf.task_serializer)
        task.apply(serialization.loads(data, content_type, encoding))
        return
    kept = getattr(_senders, "connections", None)
    if kept is None:
        kept = _senders.connections = {}
    url = app.conf.broker_write_url or app.conf.broker_url
    entry = kept.pop(id(app), None)
    if entry is not None and (entry.pid, entry.url) == (os.getpid(), url):
        try:
            task.apply_async(connection=entry.connection, **options)
        except Exception:
            entry.connection.release()
        else:
            kept[id(app)] = entry
            return
    connection = app.connection_for_write(transport_options=_ONE_ATTEMPT)
    try:
        task.apply_async(connection=connection, **options)
    except Exception:
        connection.release()
        raise
    kept[id(app)] = _Kept(app, os.getpid(), url, connection)


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
            first = args[0]
            waiting.add(tuple(first) if isinstance(first, list) else first)
    return waiting


def task_waiting(task) -> bool:
    """Whether a message of `task` waits in its queue on a Redis broker (False when the
    broker is not Redis, tasks run in-process, or the queue cannot be read)."""
    return bool(_waiting_first_args(named_task(task)))


def queue_on_commit(task, *args) -> None:
    """Send `task(*args)` (a task or its name) after the current transaction commits;
    never raises."""
    transaction.on_commit(lambda: task_send(task, *args))


def tasks_after_response() -> None:
    """Run the in-process tasks each request queues after its response is sent
    (request_finished), on their lanes' background threads, instead of inside the request.
    For web servers where tasks run in-process (no broker): config/wsgi.py calls it."""
    request_started.connect(_collect, dispatch_uid="tasks_after_response_collect")
    request_finished.connect(_run_collected, dispatch_uid="tasks_after_response_run")


def task_lane(task) -> str:
    """The lane a task runs in: its Celery queue (CELERY_TASK_ROUTES), with a broker the
    workers that take that queue, without one a background thread of its own."""
    return task.app.amqp.router.route({}, task.name, args=(), kwargs={})["queue"].name


class _Lanes:
    """The tasks finished requests left, by lane, and a daemon thread per lane running them
    in turn (started when first needed, and again in a forked process)."""

    def __init__(self):
        self.waiting: dict[str, deque[list]] = {}
        self.threads: dict[str, threading.Thread] = {}
        self.unfinished = 0  # batches put and not yet run to the end
        self.changed = threading.Condition()

    def put(self, tasks: list) -> None:
        by_lane: dict[str, list] = {}
        for task, args in tasks:
            by_lane.setdefault(task_lane(task), []).append((task, args))
        with self.changed:
            for lane, batch in by_lane.items():
                self.waiting.setdefault(lane, deque()).append(batch)
                self.unfinished += 1
                thread = self.threads.get(lane)
                if thread is None or not thread.is_alive():
                    thread = threading.Thread(
                        target=self._drain, args=(lane,), name=f"tasks-{lane}", daemon=True
                    )
                    self.threads[lane] = thread
                    thread.start()
            self.changed.notify_all()

    def wait(self, timeout: float | None) -> None:
        with self.changed:
            self.changed.wait_for(lambda: self.unfinished == 0, timeout)

    def _drain(self, lane: str) -> None:
        waiting = self.waiting[lane]
        while True:
            with self.changed:
                self.changed.wait_for(lambda: waiting)
                tasks = waiting.popleft()
            try:
                for task, args in tasks:
                    task_send(task, *args)
            finally:
                connections.close_all()  # this thread's own connections, between batches
                with self.changed:
                    self.unfinished -= 1
                    self.changed.notify_all()


_lanes = _Lanes()


def tasks_after_response_wait(timeout: float | None = None) -> None:
    """Wait, at most `timeout` seconds, until the tasks left for after their responses (or a
    `tasks_in_lanes` block) have run."""
    _lanes.wait(timeout)


@contextmanager
def tasks_in_lanes():
    """Tasks queued in the block run on their lanes' threads once it ends, as a request's
    after its response: a command works on meanwhile, then `tasks_after_response_wait`."""
    _collect()
    try:
        yield
    finally:
        _run_collected()


def _collect(**kwargs) -> None:
    _this_request.tasks = []


def _run_collected(**kwargs) -> None:
    tasks, _this_request.tasks = getattr(_this_request, "tasks", None), None
    if tasks:
        _lanes.put(tasks)
