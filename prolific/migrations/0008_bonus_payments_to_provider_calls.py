"""Prolific's bonus payments become crowd's provider calls (crowd.ProviderAction), the one
record of what is owed to Prolific and where each call stands.

Each payment keeps its state (pending or set up: waiting to be sent, with its bulk id;
sending; unknown; paid: done). A crowd.Bonus on a Prolific batch that no payment carried
(recorded, then its payment lost before it was written) becomes an unknown call: it is
settled from Prolific's record of the submission's bonus payments before anything is paid.
"""

from django.db import migrations

STATUSES = {
    "pending": "pending",
    "set_up": "pending",
    "sending": "sending",
    "unknown": "unknown",
    "paid": "done",
}
ORPHAN_NOTE = (
    "Recorded without its pay call: settled from Prolific's record of the submission's "
    "bonus payments before it is paid."
)


def _submission(apps, assignment):
    """(Prolific's submission id, study id) of the assignment's session, or empty ones."""
    session = (
        apps.get_model("prolific", "ParticipantSession")
        .objects.filter(
            study__batch_id=assignment.item.batch_id,
            worker_id=assignment.worker_id,
            session_id=assignment.provider_assignment_id,
            submission__isnull=False,
        )
        .select_related("submission", "study")
        .first()
    )
    if session is None:
        return "", ""
    return session.submission.submission_id, session.study.study_id


def forward(apps, schema_editor):
    BonusPayment = apps.get_model("prolific", "BonusPayment")
    Bonus = apps.get_model("crowd", "Bonus")
    ProviderAction = apps.get_model("crowd", "ProviderAction")
    carried = set()
    for payment in BonusPayment.objects.select_related("assignment__item").order_by("id"):
        assignment = payment.assignment
        bonus = Bonus.objects.filter(
            assignment_id=assignment.pk, paid_before_cents=payment.sequence
        ).first()
        submission_id, study_id = _submission(apps, assignment)
        payload = {"cents": payment.cents, "reason": payment.reason, "study_id": study_id}
        if payment.bulk_id:
            payload["bulk_id"] = payment.bulk_id
        status = STATUSES[payment.status]
        action = ProviderAction.objects.create(
            provider="prolific",
            kind="bonus",
            status=status,
            assignment_id=assignment.pk,
            bonus=bonus,
            payload=payload,
            reference=payment.submission_id or submission_id,
            attempts=1 if payment.sent_at else 0,
            sent_at=payment.sent_at,
            finished_at=payment.paid_at if status == "done" else None,
            note=payment.note,
        )
        ProviderAction.objects.filter(pk=action.pk).update(created_at=payment.created_at)
        if bonus is not None:
            carried.add(bonus.pk)
    orphans = Bonus.objects.filter(assignment__item__batch__provider="prolific").exclude(
        pk__in=carried
    )
    for bonus in orphans.select_related("assignment__item"):
        submission_id, study_id = _submission(apps, bonus.assignment)
        action = ProviderAction.objects.create(
            provider="prolific",
            kind="bonus",
            status="unknown",
            assignment_id=bonus.assignment_id,
            bonus=bonus,
            payload={"cents": bonus.cents, "reason": bonus.reason, "study_id": study_id},
            reference=submission_id,
            sent_at=bonus.created_at,
            note=ORPHAN_NOTE,
        )
        ProviderAction.objects.filter(pk=action.pk).update(created_at=bonus.created_at)


class Migration(migrations.Migration):
    dependencies = [
        ("prolific", "0007_study_pause_requested"),
        ("crowd", "0012_provider_outbox"),
    ]

    operations = [
        migrations.RunPython(forward, migrations.RunPython.noop),
        migrations.DeleteModel(name="BonusPayment"),
    ]
