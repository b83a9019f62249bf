"""Realised pay per batch and worker, the top-up to a target hourly rate (paid once), and
the payments report."""

from datetime import timedelta

import pytest
from django.utils import timezone

from crowd.assignments import assignment_reserve_next, assignment_submit
from crowd.models import Assignment, Bonus
from crowd.pay import batch_realised_pay, batch_target_rate_set, batch_top_up, payments_report
from crowd.review import assignment_approve, assignment_approve_exclude, assignment_bonus
from tests.factories import BIRDS, BIRDS_STORY, proverb_create, worker_create, write_batch_create

pytestmark = pytest.mark.django_db
PROVERBS = [BIRDS, "Time is money", "Look before you leap"]


def worked(batch, worker, minutes: float) -> Assignment:
    """A task taken `minutes` to do, an hour after the worker's previous one, approved."""
    assignment = assignment_reserve_next(batch=batch, worker=worker)
    assignment_submit(assignment=assignment, payload={"text": BIRDS_STORY})
    earlier = Assignment.objects.filter(worker=worker).exclude(pk=assignment.pk).count()
    start = timezone.now() - timedelta(hours=5) + timedelta(hours=earlier)
    Assignment.objects.filter(pk=assignment.pk).update(
        started_at=start, submitted_at=start + timedelta(minutes=minutes)
    )
    return assignment_approve(assignment=Assignment.objects.get(pk=assignment.pk))


@pytest.fixture
def batch():
    return write_batch_create(
        proverbs=[proverb_create(text) for text in PROVERBS], target_per_item=2, reward_cents=100
    )


def test_realised_pay_is_reward_plus_bonuses_over_the_time_taken(batch):
    fast, slow = worker_create(display_name="Fast"), worker_create(display_name="Slow")
    worked(batch, fast, 5)  # 100 cents in 5 minutes: 12.00 an hour
    bonus_task = worked(batch, fast, 5)
    assignment_bonus(assignment=bonus_task, cents=100, reason="Vivid")
    worked(batch, slow, 20)  # 100 cents in 20 minutes: 3.00 an hour
    pay = batch_realised_pay(batch=batch)
    assert pay["tasks"] == 3
    assert pay["median_seconds"] == pytest.approx(300, abs=5)
    by_name = {row["worker"].display_name: row for row in pay["workers"]}
    assert by_name["Fast"]["hourly"] == pytest.approx(1800, abs=20)  # 300 cents in 10 min
    assert by_name["Slow"]["hourly"] == pytest.approx(300, abs=5)
    assert by_name["Slow"]["minutes"] == pytest.approx(20, abs=0.2)  # shown in minutes
    assert pay["hourly"] == pytest.approx(400 * 60 / 30, abs=10)
    assert pay["top_up"] == 0  # no target yet


def test_top_up_brings_everyone_below_the_target_to_it_once(batch):
    slow, fast = worker_create(display_name="Slow"), worker_create(display_name="Fast")
    worked(batch, slow, 30)  # 100 cents in 30 minutes
    worked(batch, fast, 5)
    batch = batch_target_rate_set(batch=batch, target_hourly_cents=1000)
    pay = batch_realised_pay(batch=batch)
    assert pay["below_target"] == 1
    owed = pay["workers"][0]["top_up"]
    assert owed == pytest.approx(400, abs=5)  # 10.00 an hour for 30 min is 5.00; paid 1.00
    outcome = batch_top_up(batch=batch)
    assert outcome == {"paid": 1, "cents": owed, "refused": []}
    bonus = Bonus.objects.get()
    assert bonus.assignment.worker == slow and "10.00 an hour" in bonus.reason
    assert batch_top_up(batch=batch) == {"paid": 0, "cents": 0, "refused": []}
    assert batch_realised_pay(batch=batch)["below_target"] == 0


def test_a_target_is_needed_before_topping_up(batch):
    with pytest.raises(ValueError, match="target hourly rate"):
        batch_top_up(batch=batch)
    with pytest.raises(ValueError, match=r"an amount from 0\.01 to 200\.00"):
        batch_target_rate_set(batch=batch, target_hourly_cents=0)


def test_excluded_work_is_paid_and_counted_in_pay_and_the_report(batch):
    worker = worker_create(display_name="Ana")
    kept = worked(batch, worker, 10)
    other = assignment_reserve_next(batch=batch, worker=worker)
    assignment_submit(assignment=other, payload={"text": BIRDS_STORY})
    assignment_approve_exclude(assignment=other, reason="Suspicious")
    assignment_bonus(assignment=kept, cents=50, reason="Thank you")
    assert batch_realised_pay(batch=batch)["tasks"] == 2
    [row] = payments_report(batch=batch)
    assert (row["tasks"], row["rewards"], row["bonus_cents"]) == (2, 200, 50)
    assert [(bonus.reason, state) for bonus, state in row["bonuses"]] == [
        ("Thank you", "recorded for the lab to pay (Parable pays lab workers nothing)")
    ]
