"""Queueing tasks: a broker that cannot be reached is logged, never raised, and fast."""

import time

import pytest
from celery import Celery
from django.db import transaction

from common.task_queue import queue_on_commit, task_send
from tests.conftest import free_loopback_port


@pytest.fixture
def unreachable_task():
    app = Celery(broker=f"redis://127.0.0.1:{free_loopback_port()}/0")
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
