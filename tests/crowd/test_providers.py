"""The provider unit: a provider defined entirely here, registered with crowd, is driven
through publish, sync, approve, bonus and block by crowd's services alone, and crowd's
shared rules hold for it: only vouched work is approved or paid, unvouched work is
rejected after the provider's grace, a bonus is paid once, and each call a decision owes
the provider goes out once the decision has committed."""

from datetime import timedelta

import pytest
from django.utils import timezone

from crowd.assignments import assignment_reserve_next, assignment_submit
from crowd.batches import batch_close
from crowd.models import Assignment, Bonus
from crowd.review import (
    BonusAlreadyPaid,
    ReviewError,
    assignment_approve,
    assignment_bonus,
    unvouched_release,
    worker_block,
)
from tests.factories import (
    BIRDS_STORY,
    provider_calls_send,
    worker_create,
)

pytestmark = pytest.mark.django_db


def submitted(batch, external_id: str) -> Assignment:
    worker = worker_create(provider="ledger", external_id=external_id)
    assignment = assignment_reserve_next(batch=batch, worker=worker)
    assignment_submit(assignment=assignment, payload={"text": BIRDS_STORY})
    return Assignment.objects.select_related("worker").get(pk=assignment.pk)


@pytest.fixture
def batch(ledger_batch):
    return ledger_batch


def test_publish_and_close_go_through_the_provider(ledger, batch):
    assert batch.provider_ids == {"ledger": f"L-{batch.pk}"}
    batch_close(batch=batch)
    assert ledger.calls == [("publish", batch.pk), ("close", batch.pk)]


def test_only_vouched_work_is_approved_or_paid(ledger, batch):
    answer = submitted(batch, "W1")
    with pytest.raises(ReviewError, match="ledger has no record confirming"):
        assignment_approve(assignment=answer)
    ledger.check_in(answer.worker)
    assert ledger.sync(batch=batch) == 1
    assignment_approve(assignment=answer)
    assert ("approve", answer.pk) not in ledger.calls  # sent once the review commits
    assert provider_calls_send() == ["done"]
    ledger.vouched_ids.clear()  # the provider withdraws its record
    with pytest.raises(ReviewError, match="is not paid"):
        assignment_bonus(assignment=answer, cents=50, reason="Vivid")
    assert ("approve", answer.pk) in ledger.calls
    assert not any(call[0] == "bonus" for call in ledger.calls)


def test_unvouched_work_is_rejected_after_its_grace_and_its_slot_reopens(ledger, batch):
    answer = submitted(batch, "W1")
    vouched = submitted(batch, "W2")
    ledger.check_in(vouched.worker)
    ledger.sync(batch=batch)
    assert unvouched_release(batch=batch) == 0  # within the time allowed
    later = timezone.now() + timedelta(seconds=batch.time_allowed_seconds + 61)
    assert unvouched_release(batch=batch, now=later) == 1
    answer.refresh_from_db()
    assert answer.status == Assignment.Status.REJECTED
    assert answer.review_message == "The ledger never saw this work."
    assert Assignment.objects.get(pk=vouched.pk).status == Assignment.Status.SUBMITTED
    third = submitted(batch, "W3")  # the reopened slot
    assert third.status == Assignment.Status.SUBMITTED


def test_a_resent_bonus_is_paid_once_and_a_new_reason_pays_again(ledger, batch):
    answer = submitted(batch, "W1")
    ledger.check_in(answer.worker)
    ledger.sync(batch=batch)
    assignment_approve(assignment=answer)
    assignment_bonus(assignment=answer, cents=50, reason="Vivid")
    with pytest.raises(BonusAlreadyPaid, match="it is paid once"):
        assignment_bonus(assignment=answer, cents=50, reason=" Vivid ")
    assignment_bonus(assignment=answer, cents=50, reason="Second round")
    assert provider_calls_send() == ["done", "done", "done"]
    bonuses = [call for call in ledger.calls if call[0] == "bonus"]
    assert bonuses == [
        ("bonus", answer.pk, 50, "Vivid"),
        ("bonus", answer.pk, 50, "Second round"),
    ]
    assert Assignment.objects.get(pk=answer.pk).bonus_cents == 100
    assert list(Bonus.objects.values_list("paid_before_cents", flat=True)) == [0, 50]


def test_block_goes_through_the_provider(ledger, batch):
    answer = submitted(batch, "W1")
    worker_block(worker=answer.worker, reason="Copied text")
    assert provider_calls_send() == ["done"]
    assert ("block", "W1") in ledger.calls
