"""Queueing tasks: a broker that cannot be reached is logged, never raised, and fast; with
no broker under a web server, a request's tasks run after its response, on a background
thread per lane (a Celery queue)."""

import threading
import time

import pytest
from celery import Celery
from django.core.signals import request_finished, request_started
from django.db import transaction

from annotation.tasks import narrative_keywords_extract_task
from common.task_queue import (
    queue_on_commit,
    task_lane,
    task_send,
    tasks_after_response,
    tasks_after_response_wait,
    tasks_in_lanes,
)
from tests.conftest import free_loopback_port
from tests.factories import BIRDS_STORY, narrative_create, proverb_create


@pytest.fixture
def unreachable_task():
    # Not the current app: the project's shared tasks in later tests keep theirs.
    app = Celery(broker=f"redis://127.0.0.1:{free_loopback_port()}/0", set_as_current=False)
    app.conf.broker_transport_options = {"socket_connect_timeout": 2}

    @app.task(name="tests.unreachable")
    def unreachable(value):
        return value

    return unreachable


def test_send_to_an_unreachable_broker_returns_false_and_logs(unreachable_task, caplog):
    started = time.monotonic()
    assert task_send(unreachable_task, 7) is False
    assert time.monotonic() - started < 10
    assert "Could not queue tests.unreachable(7,)" in caplog.text


@pytest.mark.django_db(transaction=True)
def test_queue_on_commit_never_fails_the_committed_transaction(unreachable_task, caplog):
    with transaction.atomic():
        queue_on_commit(unreachable_task, 3)
    assert "it stays pending" in caplog.text


@pytest.fixture
def web_server_hooks():
    """The signal receivers config/wsgi.py connects where tasks run in-process."""
    tasks_after_response()
    yield
    request_started.disconnect(dispatch_uid="tasks_after_response_collect")
    request_finished.disconnect(dispatch_uid="tasks_after_response_run")


@pytest.mark.django_db(transaction=True)
def test_a_requests_in_process_tasks_run_after_its_response(web_server_hooks):
    narrative = narrative_create(proverb=proverb_create(), text=BIRDS_STORY)
    request_started.send(sender=None)
    with transaction.atomic():
        queue_on_commit(narrative_keywords_extract_task, narrative.pk)
    narrative.refresh_from_db()
    assert not narrative.keywords  # committed and queued, not run inside the request
    request_finished.send(sender=None)  # the response is sent
    tasks_after_response_wait(timeout=120)
    narrative.refresh_from_db()
    assert narrative.keywords["verbs"]


@pytest.mark.django_db(transaction=True)
def test_tasks_queued_outside_a_request_still_run_at_once(web_server_hooks):
    narrative = narrative_create(proverb=proverb_create(), text=BIRDS_STORY)
    with transaction.atomic():
        queue_on_commit(narrative_keywords_extract_task, narrative.pk)
    narrative.refresh_from_db()
    assert narrative.keywords["verbs"]


def test_the_tasks_of_many_requests_run_in_turn_on_one_background_thread(web_server_hooks):
    """A lab's submits each leave a similarity check: they run one after another on one
    thread, in the order the requests finished, never side by side nor in a request."""
    app = Celery(set_as_current=False)
    app.conf.task_always_eager = True
    ran = []

    @app.task(name="tests.record")
    def record(request_number):
        ran.append((request_number, threading.get_ident()))

    for request_number in range(5):
        request_started.send(sender=None)
        task_send(record, request_number)
        assert request_number not in [number for number, _ in ran]  # noted, not run
        request_finished.send(sender=None)
    tasks_after_response_wait(timeout=60)
    assert [number for number, _ in ran] == [0, 1, 2, 3, 4]
    threads = {thread for _, thread in ran}
    assert len(threads) == 1 and threading.get_ident() not in threads


def test_tasks_are_in_lanes_by_their_queue():
    from annotation.tasks import (
        import_job_run_task,
        narrative_similarity_check_task,
        opponent_check_answer_task,
    )
    from modeling.tasks import run_execute_task

    assert task_lane(opponent_check_answer_task) == "celery"
    assert task_lane(narrative_similarity_check_task) == "celery"
    assert task_lane(import_job_run_task) == "bulk"
    assert task_lane(run_execute_task) == "modeling"


def test_a_short_task_runs_while_a_long_one_holds_its_own_lane(web_server_hooks):
    """An import on the bulk lane does not hold up a model check on the default one; the
    tasks of one lane still run in turn."""
    app = Celery(set_as_current=False)
    app.conf.task_always_eager = True
    app.conf.task_routes = {"tests.long": {"queue": "bulk"}}
    release, ran = threading.Event(), []

    @app.task(name="tests.long")
    def long(name):
        release.wait(30)
        ran.append(name)

    @app.task(name="tests.short")
    def short(name):
        ran.append(name)

    with tasks_in_lanes():  # as a request's tasks, run once the block ends
        task_send(long, "import")
        task_send(long, "analysis")
    with tasks_in_lanes():
        task_send(short, "check")
    deadline = time.monotonic() + 10
    while "check" not in ran and time.monotonic() < deadline:
        time.sleep(0.01)
    assert ran == ["check"]  # answered while the import still runs
    release.set()
    tasks_after_response_wait(timeout=60)
    assert ran == ["check", "import", "analysis"]


@pytest.fixture
def redis_task(redis_url):
    """A task of an app of its own on the test Redis, sending to a queue of its own."""
    import redis

    app = Celery(broker=redis_url, set_as_current=False)
    app.conf.task_default_queue = "tests.kept_connection"

    @app.task(name="tests.kept")
    def kept(value):
        return value

    client = redis.Redis.from_url(redis_url)
    client.delete("tests.kept_connection")
    yield kept, client
    client.delete("tests.kept_connection")
    client.close()


def _connections_received(client) -> int:
    return client.info("stats")["total_connections_received"]


def test_a_thread_sends_on_one_kept_connection_and_a_lost_one_is_replaced(redis_task):
    task, client = redis_task
    assert task_send(task, 0) is True
    before = _connections_received(client)
    for value in range(1, 11):
        assert task_send(task, value) is True
    assert _connections_received(client) == before  # ten sends, no new connection
    assert client.llen("tests.kept_connection") == 11
    # The broker drops every connection but this test's (as a restart would): the next
    # message goes out once, on a new connection, and the one after reuses that.
    client.client_kill_filter(_type="normal", skipme=True)
    assert task_send(task, 11) is True
    reconnected = _connections_received(client)
    assert reconnected > before
    assert task_send(task, 12) is True
    assert _connections_received(client) == reconnected
    assert client.llen("tests.kept_connection") == 13


def test_another_thread_opens_its_own_connection(redis_task):
    import threading

    task, client = redis_task
    assert task_send(task, 0) is True
    before = _connections_received(client)
    sent = []
    other = threading.Thread(target=lambda: sent.append(task_send(task, 1)))
    other.start()
    other.join()
    after_other = _connections_received(client)
    assert sent == [True] and after_other > before
    assert task_send(task, 2) is True  # this thread's connection is still its own
    assert _connections_received(client) == after_other
    assert client.llen("tests.kept_connection") == 3
