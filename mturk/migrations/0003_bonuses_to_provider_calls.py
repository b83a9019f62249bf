"""MTurk's bonus records become crowd's provider calls (crowd.ProviderAction), the one
record of what is owed to MTurk and where each call stands.

A recorded MTurk bonus is a done call. A crowd.Bonus on an MTurk batch that no MTurk
bonus record carried (recorded, then its call or its record lost) becomes an unknown
call: it is settled from MTurk's list of the assignment's bonus payments before anything
is paid.
"""

import re

from django.db import migrations

TOKEN = re.compile(r"^parable-bonus-(\d+)-(\d+)$")
ORPHAN_NOTE = (
    "Recorded without an MTurk bonus record: settled from MTurk's list of the "
    "assignment's bonus payments before it is paid."
)


def forward(apps, schema_editor):
    MTurkBonus = apps.get_model("mturk", "Bonus")
    MTurkAssignment = apps.get_model("mturk", "MTurkAssignment")
    Bonus = apps.get_model("crowd", "Bonus")
    ProviderAction = apps.get_model("crowd", "ProviderAction")
    carried = set()
    for paid in MTurkBonus.objects.select_related("assignment").order_by("id"):
        match = TOKEN.match(paid.request_token)
        bonus = None
        if match:
            bonus = Bonus.objects.filter(
                assignment_id=int(match.group(1)), paid_before_cents=int(match.group(2))
            ).first()
        answer_id = bonus.assignment_id if bonus else paid.assignment.answer_id
        if answer_id is None:
            continue  # an MTurk payment with no answer here: nothing of Parable's owes it
        action = ProviderAction.objects.create(
            provider="mturk",
            kind="bonus",
            status="done",
            assignment_id=answer_id,
            bonus=bonus,
            payload={"cents": paid.cents, "reason": paid.reason, "worker_id": paid.worker_id},
            reference=paid.assignment.assignment_id,
            attempts=1,
            sent_at=paid.paid_at,
            finished_at=paid.paid_at,
            note=f"Paid on MTurk (request token {paid.request_token}).",
        )
        ProviderAction.objects.filter(pk=action.pk).update(created_at=paid.paid_at)
        if bonus is not None:
            carried.add(bonus.pk)
    orphans = Bonus.objects.filter(assignment__item__batch__provider="mturk").exclude(
        pk__in=carried
    )
    for bonus in orphans:
        remote = MTurkAssignment.objects.filter(answer_id=bonus.assignment_id).first()
        action = ProviderAction.objects.create(
            provider="mturk",
            kind="bonus",
            status="unknown",
            assignment_id=bonus.assignment_id,
            bonus=bonus,
            payload={
                "cents": bonus.cents,
                "reason": bonus.reason,
                "worker_id": remote.worker_id if remote else "",
            },
            reference=remote.assignment_id if remote else "",
            sent_at=bonus.created_at,
            note=ORPHAN_NOTE,
        )
        ProviderAction.objects.filter(pk=action.pk).update(created_at=bonus.created_at)


class Migration(migrations.Migration):
    dependencies = [
        ("mturk", "0002_admin_names"),
        ("crowd", "0012_provider_outbox"),
    ]

    operations = [
        migrations.RunPython(forward, migrations.RunPython.noop),
        migrations.DeleteModel(name="Bonus"),
    ]
