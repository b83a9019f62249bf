"""Migrations that move the providers' bonus records into crowd's provider calls
(prolific 0008, mturk 0003): each record keeps its state, and a bonus recorded with no
record of its payment (a lost write) becomes an unknown call, settled from the provider's
own records before anything is paid."""

from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from crowd.models import ProviderAction

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [
    ("crowd", "0011_openitem"),
    ("prolific", "0007_study_pause_requested"),
    ("mturk", "0002_admin_names"),
]


@pytest.fixture
def old_schema():
    """The models as they were before the provider calls, with the database migrated back
    to them; migrated forward again afterwards."""
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    others = [node for node in executor.loader.graph.leaf_nodes() if node[0] not in dict(BEFORE)]
    yield executor.loader.project_state([*others, *BEFORE]).apps
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


def _paid_assignment(apps, provider: str, worker_id: str, assignment_id: str):
    Proverb = apps.get_model("annotation", "Proverb")
    proverb = Proverb.objects.create(
        text=f"Proverb of {worker_id}", normalized_text=f"proverb of {worker_id}", status="curated"
    )
    batch = apps.get_model("crowd", "Batch").objects.create(
        name=f"{provider} batch", task_type="write", provider=provider, status="published"
    )
    item = apps.get_model("crowd", "BatchItem").objects.create(batch=batch, proverb=proverb)
    worker = apps.get_model("crowd", "Worker").objects.create(
        provider=provider, external_id=worker_id
    )
    now = timezone.now()
    assignment = apps.get_model("crowd", "Assignment").objects.create(
        item=item,
        worker=worker,
        status="approved",
        expires_at=now + timedelta(hours=1),
        submitted_at=now + timedelta(minutes=1),  # after its start (now, auto_now_add)
        provider_assignment_id=assignment_id,
        bonus_cents=170,
    )
    Bonus = apps.get_model("crowd", "Bonus")
    bonuses = [
        Bonus.objects.create(
            assignment=assignment,
            cents=cents,
            reason=reason,
            reason_digest=reason,
            paid_before_cents=before,
        )
        for cents, reason, before in ((50, "first", 0), (70, "second", 50), (50, "third", 120))
    ]
    return assignment, bonuses


def test_prolific_bonus_payments_become_calls_and_a_lost_one_is_reconciled(old_schema):
    apps = old_schema
    assignment, (paid, unknown, lost) = _paid_assignment(apps, "prolific", "p1", "SUB1")
    study = apps.get_model("prolific", "Study").objects.create(
        batch=assignment.item.batch, study_id="STUDY1"
    )
    submission = apps.get_model("prolific", "Submission").objects.create(
        submission_id="SUB1", study=study, participant_id="p1", status="APPROVED"
    )
    apps.get_model("prolific", "ParticipantSession").objects.create(
        study=study, worker=assignment.worker, session_id="SUB1", submission=submission
    )
    BonusPayment = apps.get_model("prolific", "BonusPayment")
    sent = timezone.now() - timedelta(hours=2)
    recorded = (
        (0, 50, "first", {"status": "paid", "bulk_id": "BULK1", "paid_at": sent}),
        (50, 70, "second", {"status": "unknown", "bulk_id": "BULK2", "note": "No answer"}),
    )
    for sequence, cents, reason, state in recorded:
        BonusPayment.objects.create(
            assignment=assignment,
            sequence=sequence,
            cents=cents,
            reason=reason,
            submission_id="SUB1",
            sent_at=sent,
            **state,
        )
    MigrationExecutor(connection).migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
    calls = {call.bonus_id: call for call in ProviderAction.objects.filter(provider="prolific")}
    assert calls[paid.pk].status == "done" and calls[paid.pk].payload["bulk_id"] == "BULK1"
    assert calls[unknown.pk].status == "unknown" and calls[unknown.pk].note == "No answer"
    assert calls[lost.pk].status == "unknown" and "without its pay call" in calls[lost.pk].note
    assert {call.reference for call in calls.values()} == {"SUB1"}
    assert {call.payload["study_id"] for call in calls.values()} == {"STUDY1"}
    assert calls[lost.pk].payload == {"cents": 50, "reason": "third", "study_id": "STUDY1"}


def test_mturk_bonuses_become_calls_and_a_lost_one_is_reconciled(old_schema):
    apps = old_schema
    assignment, (paid, second, lost) = _paid_assignment(apps, "mturk", "A1WORKER", "ASG1")
    now = timezone.now()
    hit = apps.get_model("mturk", "HIT").objects.create(
        hit_id="HIT1",
        batch=assignment.item.batch,
        item=assignment.item,
        hit_type_id="TYPE1",
        max_assignments=2,
        expires_at=now + timedelta(days=1),
        auto_approval_delay_seconds=3600,
    )
    remote = apps.get_model("mturk", "MTurkAssignment").objects.create(
        assignment_id="ASG1", hit=hit, worker_id="A1WORKER", status="Approved", answer=assignment
    )
    MTurkBonus = apps.get_model("mturk", "Bonus")
    for bonus in (paid, second):
        MTurkBonus.objects.create(
            assignment=remote,
            worker_id="A1WORKER",
            cents=bonus.cents,
            reason=bonus.reason,
            request_token=f"parable-bonus-{assignment.pk}-{bonus.paid_before_cents}",
        )
    MigrationExecutor(connection).migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
    calls = {call.bonus_id: call for call in ProviderAction.objects.filter(provider="mturk")}
    assert calls[paid.pk].status == calls[second.pk].status == "done"
    assert calls[lost.pk].status == "unknown" and "without an MTurk bonus" in calls[lost.pk].note
    assert {call.reference for call in calls.values()} == {"ASG1"}
    assert calls[lost.pk].payload == {"cents": 50, "reason": "third", "worker_id": "A1WORKER"}
