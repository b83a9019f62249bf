"""A Celery worker killed while Prolific's pay call is under way, with real processes on
PostgreSQL and Redis: the bonus is left `sending`, is never sent again by a redelivered
task, and is settled as paid from Prolific's record of the submission's payments."""

import os
import signal
from datetime import timedelta

import pytest
from celery import Celery
from django.utils import timezone

from crowd.review import assignment_approve, assignment_bonus
from prolific.bonuses import bonus_payment_reconcile
from prolific.models import BonusPayment
from prolific.sessions import session_assignments
from prolific.submissions import study_sync
from prolific.tasks import bonus_pay_task, studies_sync_task
from tests.integration.processes import celery_worker, child_pids, wait_until
from tests.prolific.conftest import TOKEN, standin_settings, standin_start
from tests.prolific.helpers import finish_on_prolific, submit_all, take_part, write_study

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def standin(settings):
    server = standin_start()
    standin_settings(settings, server)
    yield server
    server.stop()


def pay_calls(standin) -> int:
    return sum(1 for _, path in standin.state.requests if path.endswith("/pay/"))


def test_a_worker_killed_during_a_pay_leaves_the_bonus_unknown_never_paid_twice(standin, redis_url):
    batch = write_study()
    session, submission = take_part(standin, batch, "p1")
    submit_all(session)
    finish_on_prolific(standin, submission)
    study_sync(study=batch.prolific_study)
    assignment = assignment_approve(assignment=session_assignments(session=session).first())
    standin.state.fail(path="submissions/bonus-payments/", status=400)  # the in-process try
    assignment_bonus(assignment=assignment, cents=80, reason="Thorough")
    bonus = BonusPayment.objects.get()
    assert bonus.status == BonusPayment.Status.PENDING
    # Prolific pays, then the answer never comes back before the worker dies.
    standin.state.fail(path="/pay/", status=200, after=True, delay=300)
    env = {"PROLIFIC_API_URL": standin.api_url, "PROLIFIC_API_TOKEN": TOKEN}
    with celery_worker(redis_url, pool="prefork", env=env) as worker:
        Celery(broker=redis_url, set_as_current=False).send_task("prolific.bonus_pay", [bonus.pk])
        wait_until(lambda: standin.state.payments, timeout=120, what="Prolific to pay")
        for pid in (*child_pids(worker.pid), worker.pid):
            os.kill(pid, signal.SIGKILL)
        worker.wait(timeout=30)
    assert BonusPayment.objects.get().status == BonusPayment.Status.SENDING
    assert bonus_pay_task(bonus.pk) == "sending"  # a redelivery sends nothing
    studies_sync_task()  # the call could still be in flight: left alone
    assert BonusPayment.objects.get().status == BonusPayment.Status.SENDING
    later = timezone.now() + timedelta(minutes=5)
    assert bonus_payment_reconcile(bonus_id=bonus.pk, now=later).status == "paid"
    assert pay_calls(standin) == 1
    assert [payment["cents"] for payment in standin.state.payments] == [80]
