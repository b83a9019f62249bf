"""Merge of the payments, open-items, pledge and saved-message migrations.

0008_approve_exclude_target_rate rebuilds crowd_assignment on SQLite, which drops every
trigger on it: ItemDone's (0006) and OpenItem's (0007_openitem). Whatever order the
branches ran in, both sets are created again here, and both tables recounted.
"""

from importlib import import_module

from django.db import migrations

item_done = import_module("crowd.migrations.0006_itemdone")
open_item = import_module("crowd.migrations.0007_openitem")


def create_triggers(apps, schema_editor) -> None:
    item_done.create_triggers(apps, schema_editor)
    open_item.create_triggers(apps, schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("crowd", "0008_approve_exclude_target_rate"),
        ("crowd", "0009_merge_saved_message_length"),
    ]

    operations = [migrations.RunPython(create_triggers, migrations.RunPython.noop)]
