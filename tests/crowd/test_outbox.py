"""The outbox of provider calls (crowd.outbox), driven with a provider defined in the tests
(the ledger): a decision and its call commit together, a call is claimed before it goes
out, the last decision is the one sent, calls about one subject go in order, and what a
dead process or a lost answer leaves is settled by the provider's rule for the call."""

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from crowd.assignments import assignment_reserve_next, assignment_submit
from crowd.models import Assignment, Bonus, ProviderAction
from crowd.outbox import provider_action_reconcile, provider_action_send, provider_actions_due
from crowd.providers import CallNotSent, ProviderError
from crowd.review import (
    ReviewError,
    assignment_approve,
    assignment_bonus,
    assignment_reject,
    worker_block,
    workers_notify,
)
from tests.crowd.test_providers import submitted
from tests.factories import (
    BIRDS,
    BIRDS_STORY,
    proverb_create,
    provider_calls_send,
    worker_create,
    write_batch_create,
)

pytestmark = pytest.mark.django_db

LATER = timedelta(hours=2)


class NoAnswer(ProviderError):
    refused = False


@pytest.fixture
def answer(ledger, ledger_batch):
    """Work the ledger vouches for."""
    answer = submitted(ledger_batch, "W1")
    ledger.check_in(answer.worker)
    ledger.sync(batch=ledger_batch)
    return answer


def test_a_decision_and_its_call_are_written_together_or_not_at_all(ledger, answer):
    with pytest.raises(RuntimeError), transaction.atomic():
        assignment_approve(assignment=answer)
        raise RuntimeError("the request dies before its transaction commits")
    assert Assignment.objects.get(pk=answer.pk).status == "submitted"
    assert not ProviderAction.objects.exists()
    assignment_approve(assignment=answer)
    call = ProviderAction.objects.get()
    assert (call.kind, call.status, call.assignment_id) == ("approve", "pending", answer.pk)


def test_a_call_the_provider_refuses_as_it_is_recorded_leaves_nothing_decided(ledger, answer):
    assignment_approve(assignment=answer)
    with pytest.raises(ReviewError, match="refuses this reason"):
        assignment_bonus(assignment=answer, cents=40, reason="refused here")
    assert not Bonus.objects.exists()
    assert Assignment.objects.get(pk=answer.pk).bonus_cents == 0
    assert not ProviderAction.objects.filter(kind="bonus").exists()


def test_a_call_is_sent_once_however_often_its_task_runs(ledger, answer):
    assignment_approve(assignment=answer)
    call = ProviderAction.objects.get()
    assert [provider_action_send(action_id=call.pk) for _ in range(3)] == ["done"] * 3
    assert ledger.calls.count(("approve", answer.pk)) == 1
    call.refresh_from_db()
    assert call.attempts == 1 and call.sent_at and call.finished_at


def test_the_last_decision_is_the_one_sent(ledger, answer):
    assignment_approve(assignment=answer)
    assignment_reject(assignment=answer, message="Copied text")
    assert provider_calls_send() == ["done"]
    assert ledger.calls[-1] == ("reject", answer.pk, "Copied text")
    assert ("approve", answer.pk) not in ledger.calls
    approve = ProviderAction.objects.get(kind="approve")
    assert approve.status == "superseded" and "later decision" in approve.note


def test_calls_about_one_subject_go_in_the_order_they_were_decided(ledger, answer):
    assignment_approve(assignment=answer)
    approve = ProviderAction.objects.get()
    # Another process has claimed the approval and is sending it.
    ProviderAction.objects.filter(pk=approve.pk).update(status="sending", sent_at=timezone.now())
    assignment_reject(assignment=answer, message="Copied text")
    reject = ProviderAction.objects.get(kind="reject")
    assert provider_action_send(action_id=reject.pk) == "pending"  # waits its turn
    assert ledger.calls == [("publish", answer.item.batch_id)]
    provider_actions_due(now=timezone.now() + LATER)  # the approval's sender died: again
    assert provider_calls_send() == ["done", "done"]
    assert ledger.calls[1:] == [("approve", answer.pk), ("reject", answer.pk, "Copied text")]


def test_a_refused_bonus_is_taken_back_and_may_be_paid_later(ledger, answer):
    assignment_approve(assignment=answer)
    provider_calls_send()
    ledger.fail_next(ProviderError("No such worker on the ledger."))
    assignment_bonus(assignment=answer, cents=40, reason="Vivid")
    assert Assignment.objects.get(pk=answer.pk).bonus_cents == 40
    assert provider_calls_send() == ["refused"]
    refused = ProviderAction.objects.get(kind="bonus")
    assert refused.bonus is None and refused.payload["cents"] == 40
    assert "No such worker" in refused.note
    assert Assignment.objects.get(pk=answer.pk).bonus_cents == 0
    assert not Bonus.objects.exists()
    assignment_bonus(assignment=answer, cents=40, reason="Vivid")
    assert provider_calls_send() == ["done"]
    assert Assignment.objects.get(pk=answer.pk).bonus_cents == 40


def test_a_call_certainly_not_sent_waits_for_beat(ledger, answer, settings):
    worker_block(worker=answer.worker, reason="Copied text")
    ledger.fail_next(CallNotSent("throttled"))
    assert provider_calls_send() == ["pending"]
    assert provider_actions_due() == ([], [])  # within the grace period
    settings.PARABLE_BACKGROUND_GRACE_SECONDS = 0
    to_send, _ = provider_actions_due()
    assert [provider_action_send(action_id=pk) for pk in to_send] == ["done"]
    assert ledger.calls.count(("block", "W1")) == 1


def test_a_bonus_whose_answer_was_lost_is_reconciled_never_sent_blind(ledger, answer):
    assignment_approve(assignment=answer)
    provider_calls_send()
    ledger.fail_next(NoAnswer("time-out"), after=True)
    assignment_bonus(assignment=answer, cents=40, reason="Vivid")
    assert provider_calls_send() == ["unknown"]
    bonus = ProviderAction.objects.get(kind="bonus")
    assert provider_actions_due() == ([], [bonus.pk])
    assert provider_action_reconcile(action_id=bonus.pk) == "done"
    assert ledger.calls.count(("bonus", answer.pk, 40, "Vivid")) == 1


def test_a_bonus_the_provider_never_received_is_sent_again_after_reconciling(ledger, answer):
    assignment_approve(assignment=answer)
    provider_calls_send()
    ledger.fail_next(NoAnswer("connection reset"))
    assignment_bonus(assignment=answer, cents=40, reason="Vivid")
    assert provider_calls_send() == ["unknown"]
    bonus = ProviderAction.objects.get(kind="bonus")
    provider_action_reconcile(action_id=bonus.pk)  # not in the ledger: sent again at once
    assert ProviderAction.objects.get(pk=bonus.pk).status == "done"
    assert ledger.calls.count(("bonus", answer.pk, 40, "Vivid")) == 1


def test_calls_left_sending_by_a_dead_process_follow_their_rules(ledger, answer):
    assignment_approve(assignment=answer)
    workers_notify(workers=[answer.worker], subject="", message="Thanks")
    assignment_bonus(assignment=answer, cents=40, reason="Vivid")
    # The process that claimed them died before any answer was written.
    ProviderAction.objects.update(status="sending", sent_at=timezone.now())
    assert provider_actions_due() == ([], [])  # they may still be in flight
    to_send, to_reconcile = provider_actions_due(now=timezone.now() + LATER)
    approve, notify, bonus = ProviderAction.objects.order_by("pk")
    assert to_send == [approve.pk]  # a decision, judged from the provider's state: again
    assert to_reconcile == [bonus.pk]  # a payment: from the provider's record first
    notify.refresh_from_db()
    assert notify.status == "unknown" and "not sent again" in notify.note  # a message: once
    assert provider_actions_due(now=timezone.now() + 2 * LATER)[0] == [approve.pk]


def test_the_local_provider_records_no_calls():
    batch = write_batch_create(proverbs=[proverb_create(BIRDS)])
    assignment = assignment_reserve_next(batch=batch, worker=worker_create())
    assignment_submit(assignment=assignment, payload={"text": BIRDS_STORY})
    assignment_approve(assignment=assignment)
    assignment_bonus(assignment=assignment, cents=30, reason="Thanks")
    worker_block(worker=assignment.worker, reason="Done for the day")
    assert not ProviderAction.objects.exists()
    assert Assignment.objects.get(pk=assignment.pk).bonus_cents == 30
