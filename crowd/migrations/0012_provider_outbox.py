"""The outbox of provider calls (crowd.ProviderAction), and the status of work stored under
a provider's claim it has not confirmed yet (MTurk). Neither touches crowd_assignment's
table on SQLite: a status's choices are not in the database."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("crowd", "0011_openitem"),
    ]

    operations = [
        migrations.AlterField(
            model_name="assignment",
            name="status",
            field=models.CharField(
                choices=[
                    ("reserved", "Reserved"),
                    ("submitted", "Submitted"),
                    ("approved", "Approved"),
                    ("rejected", "Rejected"),
                    ("expired", "Expired"),
                    ("returned", "Returned"),
                    ("excluded", "Approved and excluded"),
                    ("unconfirmed", "Stored, awaiting the provider's confirmation"),
                ],
                default="reserved",
                max_length=16,
            ),
        ),
        migrations.CreateModel(
            name="ProviderAction",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "provider",
                    models.CharField(
                        choices=[
                            ("local", "Local (in-lab)"),
                            ("prolific", "Prolific"),
                            ("mturk", "Amazon Mechanical Turk"),
                        ],
                        max_length=16,
                    ),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("approve", "Approve"),
                            ("reject", "Reject"),
                            ("bonus", "Pay a bonus"),
                            ("block", "Block"),
                            ("unblock", "Unblock"),
                            ("notify", "Message"),
                        ],
                        max_length=16,
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("pending", "Waiting to be sent"),
                            ("sending", "Being sent"),
                            ("unknown", "Outcome unknown"),
                            ("done", "Done"),
                            ("refused", "Refused by the provider"),
                            ("superseded", "Superseded by a later decision before it was sent"),
                        ],
                        default="pending",
                        max_length=16,
                    ),
                ),
                (
                    "payload",
                    models.JSONField(
                        blank=True,
                        default=dict,
                        help_text="What the call carries, and the provider's progress.",
                    ),
                ),
                (
                    "reference",
                    models.CharField(
                        blank=True,
                        help_text="The provider's id the call acts on (a submission, an MTurk assignment).",
                        max_length=128,
                    ),
                ),
                ("attempts", models.PositiveIntegerField(default=0)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "sent_at",
                    models.DateTimeField(blank=True, help_text="When it was last sent.", null=True),
                ),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                (
                    "note",
                    models.TextField(
                        blank=True, help_text="The provider's answer or the last failure."
                    ),
                ),
                (
                    "assignment",
                    models.ForeignKey(
                        blank=True,
                        help_text="The work the call is about (approve, reject, bonus).",
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="provider_actions",
                        to="crowd.assignment",
                    ),
                ),
                (
                    "bonus",
                    models.OneToOneField(
                        blank=True,
                        help_text="The bonus the call pays; none once a refusal took the bonus back.",
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="provider_action",
                        to="crowd.bonus",
                    ),
                ),
                (
                    "worker",
                    models.ForeignKey(
                        blank=True,
                        help_text="The worker the call is about (block, unblock, message).",
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="provider_actions",
                        to="crowd.worker",
                    ),
                ),
            ],
            options={
                "verbose_name": "provider call",
                "ordering": ["id"],
                "indexes": [
                    models.Index(
                        condition=models.Q(("status__in", ["pending", "sending", "unknown"])),
                        fields=["status", "created_at"],
                        name="provider_action_unfinished",
                    )
                ],
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(
                            models.Q(("assignment__isnull", False), ("worker__isnull", True)),
                            models.Q(("assignment__isnull", True), ("worker__isnull", False)),
                            _connector="OR",
                        ),
                        name="provider_action_one_subject",
                    )
                ],
            },
        ),
    ]
