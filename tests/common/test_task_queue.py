"""Queueing tasks: a broker that cannot be reached is logged, never raised, and fast; with
no broker under a web server, a request's tasks run after its response."""

import time

import pytest
from celery import Celery
from django.core.signals import request_finished, request_started
from django.db import transaction

from annotation.tasks import narrative_keywords_extract_task
from common.task_queue import (
    queue_on_commit,
    task_send,
    tasks_after_response,
    tasks_after_response_wait,
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
