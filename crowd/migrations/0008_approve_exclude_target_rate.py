"""Approve-and-exclude (a status and its reason) and a batch's target hourly rate.

Altering crowd_assignment rebuilds the table on SQLite, which drops ItemDone's counting
triggers: they are created again at the end (see 0006_itemdone).
"""

from importlib import import_module

from django.db import migrations, models

create_triggers = import_module("crowd.migrations.0006_itemdone").create_triggers


class Migration(migrations.Migration):
    dependencies = [
        ("crowd", "0007_bonus_paid_once"),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="assignment",
            name="submitted_assignment_has_time",
        ),
        migrations.AddField(
            model_name="assignment",
            name="exclusion_reason",
            field=models.TextField(
                blank=True,
                help_text="Why approved work is kept out of the dataset (not shown to them).",
            ),
        ),
        migrations.AddField(
            model_name="batch",
            name="target_hourly_cents",
            field=models.PositiveIntegerField(
                blank=True,
                help_text="The hourly pay this batch aims at (reward plus bonuses), in cents.",
                null=True,
            ),
        ),
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
                ],
                default="reserved",
                max_length=16,
            ),
        ),
        migrations.AddConstraint(
            model_name="assignment",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(
                        ("status__in", ["submitted", "approved", "rejected", "excluded"]),
                        _negated=True,
                    ),
                    ("submitted_at__isnull", False),
                    _connector="OR",
                ),
                name="submitted_assignment_has_time",
            ),
        ),
        migrations.RunPython(create_triggers, migrations.RunPython.noop),
    ]
