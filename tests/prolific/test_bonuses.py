"""Prolific bonuses, paid at most once: the pay call is not idempotent on Prolific (the
stand-in pays again each time, as Prolific documents), so it is sent once, and an
unanswered call is settled from Prolific's record of the submission's bonus payments."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from crowd.models import ProviderAction
from crowd.outbox import provider_action_reconcile, provider_action_send, provider_actions_due
from crowd.review import BonusAlreadyPaid, assignment_approve, assignment_bonus
from crowd.tasks import provider_action_send_task, provider_actions_requeue_task
from prolific.client import ProlificClient, ProlificError
from prolific.models import ParticipantSession
from prolific.sessions import session_assignments
from prolific.submissions import study_sync
from tests.factories import provider_calls_send
from tests.prolific.helpers import finish_on_prolific, submit_all, take_part, write_study

pytestmark = pytest.mark.django_db
PAY = "/pay/"


@pytest.fixture
def approved(standin):
    """An approved item of a finished session Prolific vouches for (its approval sent)."""
    batch = write_study()
    session, submission = take_part(standin, batch, "p1")
    submit_all(session)
    finish_on_prolific(standin, submission)
    study_sync(study=batch.prolific_study)
    assignment = assignment_approve(assignment=session_assignments(session=session).first())
    provider_calls_send()
    return assignment


def pay_calls(standin) -> int:
    return sum(1 for method, path in standin.state.requests if path.endswith(PAY))


def recorded(approved, cents=75, reason="A vivid story") -> ProviderAction:
    """The bonus's call, recorded by the review service; its task left to the test to run."""
    assignment_bonus(assignment=approved, cents=cents, reason=reason)
    return ProviderAction.objects.get(kind="bonus", payload__cents=cents)


def test_the_standin_pays_twice_when_asked_twice_as_prolific_documents(standin, approved):
    bonus = recorded(approved)
    provider_action_send(action_id=bonus.pk)
    bonus.refresh_from_db()
    ProlificClient().bonus_pay(bulk_id=bonus.payload["bulk_id"])
    assert [p["cents"] for p in standin.state.payments] == [75, 75]


def test_the_client_never_retries_a_pay_call_that_failed_after_paying(standin, approved):
    finished = approved.item.batch.prolific_study.sessions.get().session_id
    set_up = ProlificClient().bonus_set_up(
        study_id=approved.item.batch.prolific_study.study_id,
        csv_bonuses=f"{finished},0.75\n",
    )
    standin.state.fail(path=PAY, status=502, count=5, after=True)
    with pytest.raises(ProlificError) as failure:
        ProlificClient().bonus_pay(bulk_id=set_up["id"])
    assert failure.value.status == 502
    assert pay_calls(standin) == 1
    assert len(standin.state.payments) == 1


def test_a_redelivered_or_repeated_task_pays_once(standin, approved, settings):
    bonus = recorded(approved)
    assert provider_action_send_task.delay(bonus.pk).result == "done"
    assert provider_action_send_task.delay(bonus.pk).result == "done"
    settings.PARABLE_BACKGROUND_GRACE_SECONDS = 0
    provider_actions_requeue_task()
    assert pay_calls(standin) == 1
    assert [p["cents"] for p in standin.state.payments] == [75]


def test_a_5xx_leaves_the_bonus_unknown_and_the_task_does_not_send_it_again(standin, approved):
    bonus = recorded(approved)
    standin.state.fail(path=PAY, status=503, count=5, after=True)
    assert provider_action_send_task.delay(bonus.pk).result == "unknown"
    assert provider_action_send_task.delay(bonus.pk).result == "unknown"
    assert pay_calls(standin) == 1
    standin.state.failures.clear()
    provider_actions_requeue_task()  # beat reconciles: Prolific lists the payment
    bonus.refresh_from_db()
    assert bonus.status == "done"
    assert "records show the call took effect" in bonus.note
    provider_actions_requeue_task()
    assert pay_calls(standin) == 1 and len(standin.state.payments) == 1


def test_a_time_out_after_prolific_paid_is_reconciled_without_paying_again(
    standin, approved, settings
):
    settings.PROLIFIC_TIMEOUT_SECONDS = 0.5
    bonus = recorded(approved)
    standin.state.fail(path=PAY, status=200, count=1, after=True, delay=1.5)
    assert provider_action_send(action_id=bonus.pk) == "unknown"
    assert "No answer" in ProviderAction.objects.get(pk=bonus.pk).note
    assert provider_action_reconcile(action_id=bonus.pk) == "done"
    provider_actions_requeue_task()
    assert pay_calls(standin) == 1
    assert [p["cents"] for p in standin.state.payments] == [75]


def test_an_unanswered_call_prolific_never_received_is_sent_again_only_after_settling(
    standin, approved, settings
):
    bonus = recorded(approved)
    standin.state.fail(path=PAY, status=503, count=1)  # refused before paying
    assert provider_action_send(action_id=bonus.pk) == "unknown"
    assert provider_action_reconcile(action_id=bonus.pk) == "unknown"
    assert standin.state.payments == []
    later = timezone.now() + timedelta(seconds=settings.PROLIFIC_BONUS_SETTLE_SECONDS + 1)
    provider_action_reconcile(action_id=bonus.pk, now=later)  # not listed: sent again
    assert ProviderAction.objects.get(pk=bonus.pk).status == "done"
    assert [p["cents"] for p in standin.state.payments] == [75]


def test_a_sending_bonus_left_by_a_dead_worker_is_reconciled_not_resent(standin, approved):
    bonus = recorded(approved)
    provider_action_send(action_id=bonus.pk)
    # What a worker killed after the call left: the row still says sending.
    ProviderAction.objects.filter(pk=bonus.pk).update(status="sending")
    assert provider_action_send_task.delay(bonus.pk).result == "sending"
    assert provider_actions_due() == ([], [])  # the call may still be in flight
    later = timezone.now() + timedelta(minutes=5)
    assert provider_actions_due(now=later) == ([], [bonus.pk])
    assert provider_action_reconcile(action_id=bonus.pk, now=later) == "done"
    assert pay_calls(standin) == 1


def test_a_refused_pay_call_waits_and_is_sent_again_by_beat(standin, approved, settings):
    bonus = recorded(approved)
    standin.state.fail(path=PAY, status=400, count=1)
    assert provider_action_send(action_id=bonus.pk) == "pending"
    settings.PARABLE_BACKGROUND_GRACE_SECONDS = 0
    provider_actions_requeue_task()
    bonus.refresh_from_db()
    assert bonus.status == "done" and bonus.attempts == 2
    assert [p["cents"] for p in standin.state.payments] == [75]
    set_ups = [path for _, path in standin.state.requests if path.endswith("bonus-payments/")]
    assert len(set_ups) == 1  # sent again with the same set-up


def test_a_bonus_prolific_refuses_to_set_up_is_taken_back(standin, approved):
    standin.state.fail(path="submissions/bonus-payments/", status=400)
    bonus = recorded(approved)
    assert provider_action_send(action_id=bonus.pk) == "refused"
    approved.refresh_from_db()
    assert approved.bonus_cents == 0 and not approved.bonuses.exists()
    assignment_bonus(assignment=approved, cents=75, reason="A vivid story")  # may be sent again
    assert provider_calls_send() == ["done"]
    assert [p["cents"] for p in standin.state.payments] == [75]


def test_a_resent_bonus_form_pays_once(
    client, reviewer, standin, approved, django_capture_on_commit_callbacks
):
    session = ParticipantSession.objects.get()
    client.force_login(reviewer)
    changelist = reverse("admin:prolific_participantsession_changelist")
    form = {
        "action": "bonus_selected",
        "_selected_action": [session.pk],
        "amount": "0.60",
        "reason": "Thank you",
    }
    with django_capture_on_commit_callbacks(execute=True):
        client.post(changelist, form)
    with django_capture_on_commit_callbacks(execute=True):
        again = client.post(changelist, form, follow=True)
    assert "it is paid once" in again.content.decode()
    assert [p["cents"] for p in standin.state.payments] == [60]
    with pytest.raises(BonusAlreadyPaid):
        assignment_bonus(assignment=approved, cents=60, reason="Thank you")
    assert pay_calls(standin) == 1


def test_the_bonus_form_takes_an_amount_in_the_studys_currency_and_a_resend_says_it_is_queued(
    client, reviewer, standin, approved, django_capture_on_commit_callbacks
):
    session = ParticipantSession.objects.get()
    client.force_login(reviewer)
    changelist = reverse("admin:prolific_participantsession_changelist")
    selection = {"action": "bonus_selected", "_selected_action": [session.pk]}
    asked = client.post(changelist, selection).content.decode()
    assert '<label for="id_amount">Bonus (GBP):</label>' in asked  # the workspace's currency
    form = {**selection, "amount": "0.60", "reason": "Thank you"}
    with django_capture_on_commit_callbacks(execute=False):  # the pay call is not sent yet
        client.post(changelist, form)
    again = client.post(changelist, form, follow=True).content.decode()
    assert "already has this bonus of 0.60 GBP with this reason" in again
    assert "now waiting to be sent: it is paid once" in again
    assert "already paid" not in again
    assert standin.state.payments == []


def test_a_top_up_to_the_target_rate_is_paid_once_through_the_same_path(
    standin, approved, django_capture_on_commit_callbacks
):
    from crowd.models import Assignment
    from crowd.pay import batch_realised_pay, batch_target_rate_set, batch_top_up

    done = approved.submitted_at
    Assignment.objects.filter(pk=approved.pk).update(started_at=done - timedelta(minutes=30))
    batch = batch_target_rate_set(batch=approved.item.batch, target_hourly_cents=1200)
    owed = batch_realised_pay(batch=batch)["top_up"]
    assert owed == 600 - batch.reward_cents
    for _ in range(2):  # the button pressed twice
        with django_capture_on_commit_callbacks(execute=True):
            batch_top_up(batch=batch)
    assert [p["cents"] for p in standin.state.payments] == [owed]
    assert ProviderAction.objects.get(kind="bonus").status == "done"
    assert pay_calls(standin) == 1
