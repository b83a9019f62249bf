"""Every review decision reaches its provider once, with real processes on PostgreSQL and
Redis: gunicorn records a decision and the call it owes (crowd.outbox) in one
transaction, a Celery worker sends the call, and beat settles what a death left behind.

Each test kills a process, or breaks its database connection, at each step of the path:
after the decision commits (the web process dies before its call is queued), before the
provider's call acts, and after the call acted but before its answer is recorded. Every
decision ends sent exactly once, never zero times and never twice: the stand-ins pay
again whenever they are asked again, as Prolific and MTurk do, so a second payment would
show. Beat runs here as the test's own process at a later hour (past the grace period,
the in-flight time and Prolific's settling time), with the same services beat runs.
"""

from __future__ import annotations

import os
import signal
import socket
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from datetime import timedelta

import psycopg
import pytest
import redis
import requests
from django.db import connection
from django.utils import timezone

from crowd.models import Assignment, Bonus, ProviderAction
from crowd.outbox import provider_actions_drain
from crowd.pay import batch_realised_pay, batch_target_rate_set, batch_top_up
from crowd.review import assignment_approve
from mturk.models import HIT
from mturk.sync import batch_sync
from prolific.models import ParticipantSession
from prolific.sessions import session_assignments
from prolific.submissions import study_sync
from tests.conftest import free_loopback_port
from tests.factories import BIRDS, mturk_batch_create, prolific_batch_create, proverb_create
from tests.integration.processes import (
    celery_worker,
    child_pids,
    database_url,
    gunicorn_server,
    wait_until,
)
from tests.mturk.test_provider import _work
from tests.prolific.conftest import TOKEN, standin_wired
from tests.prolific.helpers import finish_on_prolific, submit_all, take_part

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

PAY = "/pay/"
SESSIONS = "/admin/prolific/participantsession/"


@pytest.fixture
def prolific(settings):
    server = standin_wired(settings)
    yield server
    server.stop()


def prolific_env(standin) -> dict[str, str]:
    return {"PROLIFIC_API_URL": standin.api_url, "PROLIFIC_API_TOKEN": TOKEN}


def mturk_env(standin) -> dict[str, str]:
    return {
        "MTURK_ENDPOINT": standin.url,
        "MTURK_MAX_ATTEMPTS": "0",  # botocore's retries: none
        "AWS_ACCESS_KEY_ID": "AKIDTESTSTANDIN",
        "AWS_SECRET_ACCESS_KEY": "test-secret",
    }


def approved_participants(standin, count: int) -> list[ParticipantSession]:
    """`count` participants of a one-item-per-session study, each with their item approved
    on Prolific."""
    batch = prolific_batch_create(
        proverbs=[proverb_create() for _ in range(count)], target_per_item=1, items_per_session=1
    )
    sessions = []
    for number in range(count):
        session, submission = take_part(standin, batch, f"p{number:02d}")
        submit_all(session)
        finish_on_prolific(standin, submission)
        sessions.append(session)
    study_sync(study=batch.prolific_study)
    for session in sessions:
        assignment_approve(assignment=session_assignments(session=session).get())
    return sessions


@pytest.fixture
def researcher(researcher):
    """The researcher, whose password the servers' own hashers can check (the tests' MD5
    hasher is not among them)."""
    from django.contrib.auth.hashers import PBKDF2PasswordHasher

    hasher = PBKDF2PasswordHasher()
    researcher.password = hasher.encode("researcher-pass", hasher.salt(), iterations=1000)
    researcher.save(update_fields=["password"])
    return researcher


def admin_session(base_url: str) -> requests.Session:
    """The researcher signed in to the admin of the server at `base_url`."""
    session = requests.Session()
    session.get(f"{base_url}/admin/login/", timeout=60)
    response = session.post(
        f"{base_url}/admin/login/",
        data={
            "username": "researcher",
            "password": "researcher-pass",
            "csrfmiddlewaretoken": session.cookies["csrftoken"],
            "next": "/admin/",
        },
        allow_redirects=False,
        timeout=60,
    )
    assert response.status_code == 302, response.text[:500]
    return session


def admin_post(session: requests.Session, url: str, data: dict) -> requests.Response:
    data = {**data, "csrfmiddlewaretoken": session.cookies["csrftoken"]}
    return session.post(url, data=data, allow_redirects=False, timeout=120)


def bonus_form(participant: ParticipantSession, cents: int, reason: str) -> dict:
    return {
        "action": "bonus_selected",
        "_selected_action": [participant.pk],
        "amount": f"{cents / 100:.2f}",
        "reason": reason,
    }


def killed(process) -> None:
    """SIGKILL a process and its children: no handler runs, nothing is flushed."""
    for pid in (*child_pids(process.pid), process.pid):
        with suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    process.wait(timeout=30)


@contextmanager
def unanswering_broker():
    """A broker URL whose port accepts connections and never answers: a web process that
    sends its task there is held after its decision has committed."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", free_loopback_port()))
    listener.listen(64)
    try:
        yield f"redis://127.0.0.1:{listener.getsockname()[1]}/0"
    finally:
        listener.close()


def decided_then_killed(env: dict, url_path: str, form: dict, *, recorded) -> None:
    """Post `form` to a gunicorn whose broker never answers, and kill it once `recorded()`
    shows the decision committed: the call is left recorded, its task never queued."""
    with unanswering_broker() as broker, gunicorn_server(broker_url=broker, env=env) as (url, web):
        session = admin_session(url)
        posting = threading.Thread(
            target=_post_ignoring_death, args=(session, url + url_path, form)
        )
        posting.start()
        wait_until(recorded, timeout=120, what="the decision to commit")
        killed(web)
        posting.join(timeout=60)


def _post_ignoring_death(session, url: str, form: dict) -> None:
    with suppress(requests.RequestException):  # the server dies under it, as meant to
        admin_post(session, url, form)


def beat_later(*, hours: float = 2) -> None:
    """What beat does, `hours` from now: send again the calls whose task was lost, settle
    the ones a dead process left and those whose outcome is unknown."""
    provider_actions_drain(now=timezone.now() + timedelta(hours=hours))


def call_of_bonus(cents: int) -> ProviderAction:
    return ProviderAction.objects.get(kind="bonus", payload__cents=cents)


def test_a_prolific_bonus_killed_at_each_step_is_paid_exactly_once(prolific, researcher, redis_url):
    [participant] = approved_participants(prolific, 1)
    env = prolific_env(prolific)

    # 1. The web process dies once the decision has committed, before its task is queued.
    decided_then_killed(
        env,
        SESSIONS,
        bonus_form(participant, 70, "First"),
        recorded=ProviderAction.objects.filter(kind="bonus", payload__cents=70).exists,
    )
    assert call_of_bonus(70).status == "pending" and prolific.state.payments == []

    with gunicorn_server(broker_url=redis_url, env=env) as (url, _):
        session = admin_session(url)
        # 2. The worker dies while its pay call hangs before Prolific acts on it.
        prolific.state.fail(path=PAY, status=503, delay=300)
        with celery_worker(redis_url, pool="prefork", env=env) as worker:
            admin_post(session, url + SESSIONS, bonus_form(participant, 80, "Second"))
            wait_until(lambda: _pay_calls(prolific) == 1, timeout=120, what="the pay call")
            killed(worker)
        assert call_of_bonus(80).status == "sending" and prolific.state.payments == []
        # 3. The worker dies after Prolific paid, before its answer is recorded.
        prolific.state.failures.clear()
        prolific.state.fail(path=PAY, status=200, after=True, delay=300)
        with celery_worker(redis_url, pool="prefork", env=env) as worker:
            admin_post(session, url + SESSIONS, bonus_form(participant, 90, "Third"))
            wait_until(lambda: _paid(prolific) == [90], timeout=120, what="Prolific to pay")
            killed(worker)
        assert call_of_bonus(90).status == "sending"
    prolific.state.failures.clear()

    # Beat, by a worker: the call whose task was lost is sent; the two left sending may
    # still be in flight, so they are left alone.
    with celery_worker(redis_url, env={**env, "PARABLE_BACKGROUND_GRACE_SECONDS": "0"}) as worker:
        from celery import Celery

        drain = Celery(broker=redis_url, backend=redis_url, set_as_current=False)
        drain.send_task("crowd.provider_actions_requeue").get(timeout=120)
        wait_until(lambda: call_of_bonus(70).status == "done", timeout=120, what="the first")
    assert call_of_bonus(80).status == call_of_bonus(90).status == "sending"
    beat_later()  # an hour and more later: settled from Prolific's record
    assert {call.status for call in ProviderAction.objects.filter(kind="bonus")} == {"done"}
    assert sorted(_paid(prolific)) == [70, 80, 90]  # each once
    assert _pay_calls(prolific) == 4  # the hung call that did nothing, and one per bonus
    assert Assignment.objects.get(pk=participant_assignment(participant).pk).bonus_cents == 240
    beat_later(hours=3)
    assert sorted(_paid(prolific)) == [70, 80, 90]


def participant_assignment(participant) -> Assignment:
    return session_assignments(session=participant).get()


def _pay_calls(standin) -> int:
    return sum(1 for _, path in standin.state.requests if path.endswith(PAY))


def _paid(standin) -> list[int]:
    return [payment["cents"] for payment in standin.state.payments]


@pytest.fixture
def mturk_answer(standin):
    """An MTurk answer MTurk vouches for (accepted, stored here, submitted there, synced)."""
    batch = mturk_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=2)
    answer = _work(standin, HIT.objects.get(batch=batch), "A1WORKER")
    batch_sync(batch=batch)
    return Assignment.objects.get(pk=answer.pk)


def test_mturk_decisions_killed_at_each_step_are_sent_exactly_once(
    standin, mturk_answer, researcher, redis_url
):
    env = mturk_env(standin)
    page = f"/admin/mturk/publication/batch/{mturk_answer.item.batch_id}/"
    key = {"answer": mturk_answer.pk}

    # 1. The approval commits; the web process dies before its task is queued.
    decided_then_killed(
        env,
        page,
        {"action": "approve", **key},
        recorded=lambda: ProviderAction.objects.filter(kind="approve").exists(),
    )
    assert Assignment.objects.get(pk=mturk_answer.pk).status == "approved"
    assert "ApproveAssignment" not in standin.state.calls

    with gunicorn_server(broker_url=redis_url, env=env) as (url, _):
        session = admin_session(url)
        # 2. The worker dies while SendBonus hangs before MTurk acts on it.
        standin.state.fail_next("SendBonus", "ServiceFault", delay=300)
        with celery_worker(redis_url, pool="prefork", env=env) as worker:
            admin_post(
                session, url + page, {"action": "bonus", "amount": "0.40", "reason": "B", **key}
            )
            wait_until(lambda: "SendBonus" in standin.state.calls, timeout=120, what="SendBonus")
            killed(worker)
        assert call_of_bonus(40).status == "sending" and standin.state.bonuses == []
        # 3. The worker dies after MTurk paid, before its answer is recorded.
        standin.state.fail_next("SendBonus", "", after=True, delay=300)
        with celery_worker(redis_url, pool="prefork", env=env) as worker:
            admin_post(
                session, url + page, {"action": "bonus", "amount": "0.50", "reason": "C", **key}
            )
            wait_until(lambda: standin.state.bonuses, timeout=120, what="MTurk to pay")
            killed(worker)
        assert call_of_bonus(50).status == "sending"
    standin.state.tokens_expire()  # a day later: a token no longer keeps a repeat from paying
    beat_later(hours=30)
    assert ProviderAction.objects.get(kind="approve").status == "done"
    assert {call.status for call in ProviderAction.objects.filter(kind="bonus")} == {"done"}
    assert standin.state.calls.count("ApproveAssignment") == 1
    assert sorted(bonus["BonusAmount"] for bonus in standin.state.bonuses) == ["0.40", "0.50"]
    beat_later(hours=31)
    assert len(standin.state.bonuses) == 2


def _backends(*, excluding: set[int]) -> list[int]:
    """Backend pids of the test database other than `excluding` (this test's own)."""
    with psycopg.connect(database_url(), autocommit=True) as monitor:
        rows = monitor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid()"
        ).fetchall()
    return [pid for (pid,) in rows if pid not in excluding]


def _terminate(pids) -> None:
    with psycopg.connect(database_url(), autocommit=True) as admin:
        for pid in pids:
            admin.execute("SELECT pg_terminate_backend(%s)", [pid])


def _own_backend() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def _waiting_on(table: str) -> list[int]:
    """Backends waiting for a row lock while reading `table` (a long query's text is cut
    short in pg_stat_activity, so its FOR UPDATE may not show)."""
    with psycopg.connect(database_url(), autocommit=True) as monitor:
        rows = monitor.execute(
            "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE %s",
            [f"%{table}%"],
        ).fetchall()
    return [pid for (pid,) in rows]


def test_a_database_connection_broken_at_each_step_leaves_every_bonus_paid_once(
    prolific, researcher, redis_url
):
    [participant] = approved_participants(prolific, 1)
    assignment = participant_assignment(participant)
    env = prolific_env(prolific)
    sessions_url = SESSIONS
    with gunicorn_server(broker_url=redis_url, env=env) as (url, _):
        session = admin_session(url)
        # 1. While the decision is written: the web process's connection breaks inside its
        # transaction, so neither the bonus nor its call is recorded; the form sent again
        # is recorded and paid once.
        with psycopg.connect(database_url()) as lock:
            lock.execute(
                "SELECT id FROM crowd_assignment WHERE id = %s FOR UPDATE", [assignment.pk]
            )
            form = bonus_form(participant, 60, "Fourth")
            posting = ThreadPoolExecutor(1).submit(admin_post, session, url + sessions_url, form)
            _terminate(wait_until(lambda: _waiting_on("crowd_assignment"), timeout=60, what="it"))
            lock.rollback()
        assert posting.result(timeout=60).status_code == 503  # the database out of reach
        assert not Bonus.objects.exists()
        assert not ProviderAction.objects.filter(kind="bonus").exists()
        with celery_worker(redis_url, pool="prefork", env=env):
            assert admin_post(session, url + sessions_url, form).status_code == 302
            wait_until(lambda: _paid(prolific) == [60], timeout=120, what="the resent bonus")

        # 2. Before the call: the worker's connection breaks as it claims the call.
        admin_post(session, url + sessions_url, bonus_form(participant, 65, "Fifth"))
        with psycopg.connect(database_url()) as lock:
            lock.execute(
                "SELECT id FROM crowd_provideraction WHERE id = %s FOR UPDATE",
                [call_of_bonus(65).pk],
            )
            with celery_worker(redis_url, pool="prefork", env=env) as worker:
                claiming = wait_until(
                    lambda: _waiting_on("crowd_provideraction"), timeout=120, what="the claim"
                )
                _terminate(claiming)
                lock.rollback()
                assert call_of_bonus(65).status == "pending" and _paid(prolific) == [60]

                # 3. After the call: the worker's connection breaks while Prolific's answer
                # (it paid) is late, so the answer cannot be written; the worker finishes
                # that task (its answer comes) before it stops.
                prolific.state.fail(path=PAY, status=200, after=True, delay=10)
                mine = {_own_backend()}
                admin_post(session, url + sessions_url, bonus_form(participant, 75, "Sixth"))
                wait_until(lambda: 75 in _paid(prolific), timeout=120, what="Prolific to pay")
                _terminate(_backends(excluding=mine))
                assert worker.poll() is None
    assert call_of_bonus(75).status == "sending"  # its answer could not be written
    assert call_of_bonus(65).status == "pending"
    beat_later()
    assert {call.status for call in ProviderAction.objects.filter(kind="bonus")} == {"done"}
    assert sorted(_paid(prolific)) == [60, 65, 75]
    assert Assignment.objects.get(pk=assignment.pk).bonus_cents == 200


def test_a_burst_of_bonus_forms_with_the_database_dropped_pays_each_recorded_bonus_once(
    prolific, researcher, redis_url
):
    participants = approved_participants(prolific, 40)
    env = {**prolific_env(prolific), "GUNICORN_THREADS": "8"}
    # Prolific answers each pay call a little late (after paying), as it does under load:
    # the database drops find the worker between a payment and its record too.
    prolific.state.fail(path=PAY, status=200, count=len(participants), after=True, delay=0.3)
    mine = {_own_backend()}
    broker = redis.Redis.from_url(redis_url)
    with gunicorn_server(broker_url=redis_url, env=env) as (url, _):
        sessions = [admin_session(url) for _ in range(8)]
        start = threading.Barrier(len(participants) + 1)

        def pay(number: int):
            start.wait(timeout=60)
            form = bonus_form(participants[number], 100, "Thank you for a careful story")
            session = sessions[number % len(sessions)]
            try:
                return admin_post(session, url + SESSIONS, form).status_code
            except requests.RequestException:
                return "no answer"

        with celery_worker(redis_url, pool="prefork", env=env):
            with ThreadPoolExecutor(len(participants)) as pool:
                answers = [pool.submit(pay, number) for number in range(len(participants))]
                start.wait(timeout=60)
                # The database drops every connection of the web and worker processes, as
                # a fast restart does, again and again while the forms are coming in and
                # the worker sends their calls.
                for count in (3, 10, 17, 24):
                    wait_until(
                        lambda count=count: (
                            Bonus.objects.count() >= count
                            or all(answer.done() for answer in answers)
                        ),
                        timeout=120,
                        what="the burst",
                    )
                    _terminate(_backends(excluding=mine))
                statuses = Counter(answer.result(timeout=300) for answer in answers)
            done = ProviderAction.objects.filter(kind="bonus", status="done")
            for count in (4, 11):  # and while the worker pays
                wait_until(
                    lambda count=count: done.count() >= count or broker.llen("celery") == 0,
                    timeout=120,
                    what="the payments",
                )
                _terminate(_backends(excluding=mine))
            wait_until(lambda: broker.llen("celery") == 0, timeout=120, what="the queue")
    broker.delete("celery")
    beat_later()
    recorded = set(Bonus.objects.values_list("assignment_id", flat=True))
    assert statuses[302] <= len(recorded) <= len(participants)
    assert ProviderAction.objects.filter(kind="bonus").count() == len(recorded)
    assert {call.status for call in ProviderAction.objects.filter(kind="bonus")} == {"done"}
    submissions = {
        participant_assignment(participant).pk: participant.session_id
        for participant in participants
    }
    paid = Counter(payment["submission_id"] for payment in prolific.state.payments)
    assert paid == Counter(submissions[assignment_id] for assignment_id in recorded)

    # The top-up afterwards: each worker is paid exactly up to the target, the bonuses
    # recorded in the burst counted once.
    for pk in submissions:
        done = Assignment.objects.get(pk=pk).submitted_at
        Assignment.objects.filter(pk=pk).update(started_at=done - timedelta(minutes=30))
    batch = batch_target_rate_set(batch=participants[0].study.batch, target_hourly_cents=1200)
    batch_top_up(batch=batch)
    beat_later()
    assert batch_realised_pay(batch=batch)["top_up"] == 0
    totals = Counter()
    for payment in prolific.state.payments:
        totals[payment["submission_id"]] += payment["cents"]
    assert totals == dict.fromkeys(submissions.values(), 600 - 50)
