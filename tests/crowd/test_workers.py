"""Local workers, signed invite links, and per-worker statistics."""

from datetime import timedelta

import pytest
from django.core import signing
from django.test import override_settings
from django.utils import timezone

from crowd.models import Assignment, Worker
from crowd.workers import (
    WorkerBlocked,
    invite_read,
    invite_token,
    local_workers_create,
    worker_stats,
)
from tests.factories import (
    assignment_create,
    batch_create,
    batch_item_create,
    invite_token_issued_ago,
    proverb_create,
    worker_create,
)

pytestmark = pytest.mark.django_db


def test_local_workers_are_numbered_after_existing_ones():
    local_workers_create(count=2, name_prefix="Lab")
    names = [str(worker) for worker in local_workers_create(count=2, name_prefix="Lab")]
    assert names == ["Lab 3", "Lab 4"]


def test_local_workers_are_numbered_from_one_per_prefix():
    local_workers_create(count=3)
    local_workers_create(count=1, name_prefix="Lab writer ")
    worker_create(display_name="Lab writer Anna")  # named by hand: no number to follow
    names = [str(worker) for worker in local_workers_create(count=2, name_prefix="Lab writer")]
    assert names == ["Lab writer 2", "Lab writer 3"]
    assert str(local_workers_create(count=1)[0]) == "Worker 4"


def test_invite_token_names_worker_and_batch():
    worker = local_workers_create(count=1)[0]
    batch = batch_create()
    assert invite_read(invite_token(worker=worker, batch=batch)) == (worker, batch.pk)
    assert invite_read(invite_token(worker=worker)) == (worker, None)


def test_tampered_invite_token_is_refused():
    worker = local_workers_create(count=1)[0]
    token = invite_token(worker=worker)
    forged = signing.dumps({"w": worker.pk + 1, "b": None}, salt="another salt")
    with pytest.raises(signing.BadSignature):
        invite_read(token[:-2] + ("AA" if not token.endswith("AA") else "BB"))
    with pytest.raises(signing.BadSignature):
        invite_read(forged)


def test_blocked_workers_invite_is_refused_with_the_reason():
    worker = local_workers_create(count=1)[0]
    token = invite_token(worker=worker)
    Worker.objects.filter(pk=worker.pk).update(blocked=True, blocked_reason="spam")
    with pytest.raises(WorkerBlocked, match=r"^spam$"):
        invite_read(token)


def test_invite_expires_after_the_max_age_setting_only_when_set():
    worker = local_workers_create(count=1)[0]
    token = invite_token_issued_ago(worker=worker, seconds=3600)
    assert invite_read(token) == (worker, None)
    with override_settings(PARABLE_INVITE_MAX_AGE=3599), pytest.raises(signing.SignatureExpired):
        invite_read(token)
    with override_settings(PARABLE_INVITE_MAX_AGE=3601):
        assert invite_read(token) == (worker, None)


def test_stats_per_worker_count_reviews_and_median_time():
    batch = batch_create()
    fast, slow = worker_create(display_name="Fast"), worker_create(display_name="Slow")
    for status, seconds in (("approved", 60), ("approved", 120), ("rejected", 600)):
        item = batch_item_create(batch=batch, proverb=proverb_create())
        assignment = assignment_create(item=item, worker=fast)
        Assignment.objects.filter(pk=assignment.pk).update(
            status=status, submitted_at=assignment.started_at + timedelta(seconds=seconds)
        )
    item = batch_item_create(batch=batch, proverb=proverb_create())
    assignment = assignment_create(item=item, worker=slow)
    Assignment.objects.filter(pk=assignment.pk).update(
        status="submitted", submitted_at=assignment.started_at + timedelta(seconds=30)
    )
    assignment_create(item=item, worker=worker_create())  # reserved: not in the stats

    rows = {row["name"]: row for row in worker_stats(batch=batch)}
    assert set(rows) == {"Fast", "Slow"}
    assert rows["Fast"] | {"worker": 0} == {
        "worker": 0,
        "name": "Fast",
        "blocked": False,
        "submitted": 3,
        "approved": 2,
        "rejected": 1,
        "approval_rate": 0.667,
        "median_seconds": 120.0,
        "median_minutes": 2.0,
    }
    assert rows["Slow"]["approval_rate"] is None


def test_overview_lists_open_tasks_submissions_messages_and_earnings():
    from crowd.review import assignment_bonus
    from crowd.workers import worker_overview

    worker = worker_create()
    batch = batch_create(reward_cents=150)
    approved, rejected, reserved, other = (
        batch_item_create(batch=batch, proverb=proverb_create()) for _ in range(4)
    )
    done = timezone.now() + timedelta(seconds=1)
    first = assignment_create(item=approved, worker=worker, status="approved", submitted_at=done)
    assignment_bonus(assignment=first, cents=25, reason="Great story.")
    assignment_create(
        item=rejected,
        worker=worker,
        status="rejected",
        submitted_at=done,
        review_message="Too short.",
    )
    live = assignment_create(item=reserved, worker=worker)
    assignment_create(item=other, worker=worker_create(), status="approved", submitted_at=done)
    overview = worker_overview(worker=worker)
    assert overview["open_tasks"] == [live]
    assert {a.status: a.review_message for a in overview["submissions"]} == {
        "approved": "",
        "rejected": "Too short.",
    }
    assert overview["earnings"] == {
        "rewards": "1.50",
        "bonuses": "0.25",
        "total": "1.75",
        "approved": 1,
        "awaiting_review": 0,
    }
