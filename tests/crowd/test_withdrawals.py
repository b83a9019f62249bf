"""Rejecting approved work withdraws the chained items built on it."""

import logging

import pytest

from annotation.models import Narrative
from annotation.task_types.rate.dataset import rating_agreement
from crowd.assignments import NoWorkAvailable, assignment_reserve_next, assignment_submit
from crowd.models import Assignment, Batch, ProviderAction
from crowd.review import assignment_approve, assignment_reject
from crowd.task_types import SubmissionError
from crowd.withdrawals import RELEASE_MESSAGE, withdrawal_impact
from tests.factories import (
    BIRDS,
    BIRDS_STORY,
    proverb_create,
    provider_calls_send,
    rating_create,
    task_batch_create,
    worker_create,
    write_batch_create,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def chained():
    """An approved narrative fed into align and rate batches."""
    write = write_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=10)
    align = task_batch_create(task_type="align", source_batch=write)
    rate = task_batch_create(task_type="rate", source_batch=write, target_per_item=5)
    assignment = assignment_reserve_next(batch=write, worker=worker_create())
    assignment_submit(assignment=assignment, payload={"text": BIRDS_STORY})
    assignment_approve(assignment=assignment)
    assignment.refresh_from_db()
    return {"write": assignment, "align": align, "rate": rate}


def test_reject_after_approve_withdraws_every_chained_item(chained):
    assignment_reject(assignment=chained["write"], message="Copied from a website.")
    for batch in (chained["align"], chained["rate"]):
        item = batch.items.get()
        assert item.withdrawn_at is not None
        assert f"Assignment {chained['write'].pk} rejected" in item.withdrawn_reason


def test_a_withdrawn_item_is_served_to_no_one(chained):
    assignment_reject(assignment=chained["write"], message="Copied from a website.")
    with pytest.raises(NoWorkAvailable):
        assignment_reserve_next(batch=chained["align"], worker=worker_create())


def test_open_reservations_are_released_with_a_message(chained):
    reservation = assignment_reserve_next(batch=chained["rate"], worker=worker_create())
    assignment_reject(assignment=chained["write"], message="Copied from a website.")
    reservation.refresh_from_db()
    assert reservation.status == Assignment.Status.RETURNED
    assert reservation.review_message == RELEASE_MESSAGE
    with pytest.raises(SubmissionError, match="withdrawn"):
        assignment_submit(assignment=reservation, payload={})


def test_finished_answers_are_kept_but_left_out_of_agreement(chained):
    narrative = Narrative.objects.get(assignment=chained["write"])
    for value in (4, 5):
        rating_create(narrative=narrative, criterion="overall", value=value, batch=chained["rate"])
    assert rating_agreement(batch=chained["rate"])["forms"] == 2
    assignment_reject(assignment=chained["write"], message="Copied from a website.")
    assert narrative.ratings.count() == 2
    assert rating_agreement(batch=chained["rate"])["forms"] == 0


def test_impact_counts_items_reservations_and_answers(chained):
    narrative = Narrative.objects.get(assignment=chained["write"])
    rating_create(narrative=narrative, criterion="overall", value=4, batch=chained["rate"])
    assignment_reserve_next(batch=chained["align"], worker=worker_create())
    impact = withdrawal_impact(assignments=[chained["write"]])
    assert (impact.items, impact.reservations, impact.answers) == (2, 1, 1)


def test_rejecting_work_never_approved_touches_nothing_downstream(chained):
    write = chained["write"].item.batch
    assignment = assignment_reserve_next(batch=write, worker=worker_create())
    assignment_submit(assignment=assignment, payload={"text": BIRDS_STORY})
    assert withdrawal_impact(assignments=[assignment]).items == 0
    assignment_reject(assignment=assignment, message="Off topic.")
    assert not chained["align"].items.filter(withdrawn_at__isnull=False).exists()


def test_the_withdrawal_is_logged(chained, caplog):
    with caplog.at_level(logging.INFO, logger="parable.review"):
        assignment_reject(assignment=chained["write"], message="Copied from a website.")
    assert "2 downstream item(s) withdrawn" in caplog.text


def test_approving_again_restores_the_items(chained):
    assignment_reject(assignment=chained["write"], message="Copied from a website.")
    assignment_approve(assignment=chained["write"])
    assert not chained["align"].items.filter(withdrawn_at__isnull=False).exists()
    assert assignment_reserve_next(batch=chained["align"], worker=worker_create())


def test_released_workers_are_told_once_the_withdrawal_commits(chained, ledger):
    """The notice is recorded with the withdrawal and goes to the provider only once the
    withdrawal's row locks are released (crowd.outbox)."""
    Batch.objects.filter(pk=chained["rate"].pk).update(provider=ledger.key)
    worker = worker_create(provider=ledger.key, external_id="W7")
    assignment_reserve_next(batch=Batch.objects.get(pk=chained["rate"].pk), worker=worker)
    assignment_reject(assignment=chained["write"], message="Copied from a website.")
    notice = ProviderAction.objects.get(kind="notify")
    assert notice.worker == worker and notice.payload["message"] == RELEASE_MESSAGE
    assert ledger.calls == []
    assert provider_calls_send() == ["done"]
    assert ledger.calls == [("notify", "W7")]
