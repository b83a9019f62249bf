"""A batch item's subject may be a row of a HIT template's CSV (the template task type).

Changing crowd_batchitem's constraints rebuilds the table on SQLite, which drops OpenItem's
triggers on it: they are dropped first and made again at the end (0011_openitem).
"""

from importlib import import_module

import django.db.models.deletion
from django.db import migrations, models

open_item = import_module("crowd.migrations.0011_openitem")


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0018_hit_templates"),
        ("crowd", "0012_provider_outbox"),
    ]

    operations = [
        migrations.RunPython(open_item.drop_triggers, open_item.create_triggers),
        migrations.RemoveConstraint(
            model_name="batchitem",
            name="batch_item_has_subject",
        ),
        migrations.RemoveConstraint(
            model_name="batchitem",
            name="batch_item_unique_subject",
        ),
        migrations.AddField(
            model_name="batchitem",
            name="template_row",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="annotation.templaterow",
            ),
        ),
        migrations.AddConstraint(
            model_name="batchitem",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("proverb__isnull", False),
                    ("narrative__isnull", False),
                    ("source_assignment__isnull", False),
                    ("choice_question__isnull", False),
                    ("figurative_narrative__isnull", False),
                    ("continuation_pair__isnull", False),
                    ("cloze_item__isnull", False),
                    ("template_row__isnull", False),
                    _connector="OR",
                ),
                name="batch_item_has_subject",
            ),
        ),
        migrations.AddConstraint(
            model_name="batchitem",
            constraint=models.UniqueConstraint(
                fields=(
                    "batch",
                    "proverb",
                    "narrative",
                    "source_assignment",
                    "choice_question",
                    "figurative_narrative",
                    "continuation_pair",
                    "cloze_item",
                    "template_row",
                ),
                name="batch_item_unique_subject",
                nulls_distinct=False,
            ),
        ),
        migrations.RunPython(open_item.create_triggers, open_item.drop_triggers),
    ]
