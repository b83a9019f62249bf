"""Prolific bonuses, paid at most once: the pay call is not idempotent on Prolific (the
stand-in pays again each time, as Prolific documents), so it is sent once, and an
unanswered call is settled from Prolific's record of the submission's bonus payments."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from crowd.review import BonusAlreadyPaid, assignment_approve, assignment_bonus
from prolific.bonuses import bonus_payment_pay, bonus_payment_reconcile
from prolific.client import ProlificClient, ProlificError
from prolific.models import BonusPayment, ParticipantSession
from prolific.sessions import session_assignments
from prolific.submissions import study_sync
from prolific.tasks import bonus_pay_task, studies_sync_task
from tests.prolific.helpers import finish_on_prolific, submit_all, take_part, write_study

pytestmark = pytest.mark.django_db
PAY = "/pay/"


@pytest.fixture
def approved(standin):
    """An approved item of a finished session Prolific vouches for."""
    batch = write_study()
    session, submission = take_part(standin, batch, "p1")
    submit_all(session)
    finish_on_prolific(standin, submission)
    study_sync(study=batch.prolific_study)
    assignment = session_assignments(session=session).first()
    return assignment_approve(assignment=assignment)


def pay_calls(standin) -> int:
    return sum(1 for method, path in standin.state.requests if path.endswith(PAY))


def recorded(approved, cents=75, reason="A vivid story") -> BonusPayment:
    """The bonus recorded by the review service; its task left to the test to run."""
    assignment_bonus(assignment=approved, cents=cents, reason=reason)
    return BonusPayment.objects.get(cents=cents)


def test_the_standin_pays_twice_when_asked_twice_as_prolific_documents(standin, approved):
    bonus = recorded(approved)
    bonus_payment_pay(bonus_id=bonus.pk)
    ProlificClient().bonus_pay(bulk_id=BonusPayment.objects.get().bulk_id)
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


def test_a_redelivered_or_repeated_task_pays_once(standin, approved):
    bonus = recorded(approved)
    assert bonus_pay_task.delay(bonus.pk).result == "paid"
    assert bonus_pay_task.delay(bonus.pk).result == "paid"
    studies_sync_task()
    assert pay_calls(standin) == 1
    assert [p["cents"] for p in standin.state.payments] == [75]


def test_a_5xx_leaves_the_bonus_unknown_and_the_task_does_not_send_it_again(standin, approved):
    bonus = recorded(approved)
    standin.state.fail(path=PAY, status=503, count=5, after=True)
    assert bonus_pay_task.delay(bonus.pk).result == "unknown"
    assert bonus_pay_task.delay(bonus.pk).result == "unknown"
    assert pay_calls(standin) == 1
    standin.state.failures.clear()
    studies_sync_task()  # beat reconciles: Prolific lists the payment
    bonus.refresh_from_db()
    assert bonus.status == BonusPayment.Status.PAID
    assert "Prolific lists this payment" in bonus.note
    studies_sync_task()
    assert pay_calls(standin) == 1 and len(standin.state.payments) == 1


def test_a_time_out_after_prolific_paid_is_reconciled_without_paying_again(
    standin, approved, settings
):
    settings.PROLIFIC_TIMEOUT_SECONDS = 0.5
    bonus = recorded(approved)
    standin.state.fail(path=PAY, status=200, count=1, after=True, delay=1.5)
    assert bonus_payment_pay(bonus_id=bonus.pk).status == BonusPayment.Status.UNKNOWN
    assert "No answer" in BonusPayment.objects.get().note
    assert bonus_payment_reconcile(bonus_id=bonus.pk).status == BonusPayment.Status.PAID
    studies_sync_task()
    assert pay_calls(standin) == 1
    assert [p["cents"] for p in standin.state.payments] == [75]


def test_an_unanswered_call_prolific_never_received_is_sent_again_only_after_settling(
    standin, approved, settings
):
    bonus = recorded(approved)
    standin.state.fail(path=PAY, status=503, count=1)  # refused before paying
    assert bonus_payment_pay(bonus_id=bonus.pk).status == BonusPayment.Status.UNKNOWN
    assert bonus_payment_reconcile(bonus_id=bonus.pk).status == BonusPayment.Status.UNKNOWN
    assert standin.state.payments == []
    later = timezone.now() + timedelta(seconds=settings.PROLIFIC_BONUS_SETTLE_SECONDS + 1)
    assert bonus_payment_reconcile(bonus_id=bonus.pk, now=later).status == "set_up"
    assert bonus_payment_pay(bonus_id=bonus.pk).status == BonusPayment.Status.PAID
    assert [p["cents"] for p in standin.state.payments] == [75]


def test_a_sending_bonus_left_by_a_dead_worker_is_reconciled_not_resent(standin, approved):
    bonus = recorded(approved)
    bonus_payment_pay(bonus_id=bonus.pk)
    # What a worker killed after the call left: the row still says sending.
    BonusPayment.objects.filter(pk=bonus.pk).update(status=BonusPayment.Status.SENDING)
    assert bonus_pay_task.delay(bonus.pk).result == "sending"
    assert bonus_payment_reconcile(bonus_id=bonus.pk).status == "sending"  # may be in flight
    later = timezone.now() + timedelta(minutes=5)
    assert bonus_payment_reconcile(bonus_id=bonus.pk, now=later).status == "paid"
    assert pay_calls(standin) == 1


def test_a_refused_pay_call_stays_set_up_and_is_sent_again_by_beat(standin, approved):
    bonus = recorded(approved)
    standin.state.fail(path=PAY, status=400, count=1)
    assert bonus_payment_pay(bonus_id=bonus.pk).status == BonusPayment.Status.SET_UP
    studies_sync_task()
    assert BonusPayment.objects.get().status == BonusPayment.Status.PAID
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
        "cents": "60",
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


def test_a_top_up_to_the_target_rate_is_paid_once_through_the_same_path(
    standin, approved, django_capture_on_commit_callbacks
):
    from datetime import timedelta

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
    assert BonusPayment.objects.get().status == BonusPayment.Status.PAID
    assert pay_calls(standin) == 1
