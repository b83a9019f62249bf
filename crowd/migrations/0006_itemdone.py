"""ItemDone: submitted and approved assignments per item, kept by triggers.

The triggers are created for the database in use (PostgreSQL or SQLite). On SQLite,
Django rebuilds a table to alter it, and a rebuild of crowd_assignment drops its
triggers: a later migration that alters that table must create them again
(`create_triggers`); tests/crowd/test_item_done.py and the embedded default's test
check that the count follows submissions.
"""

from django.db import migrations, models

DONE = "('submitted', 'approved')"

POSTGRESQL = [
    f"""
CREATE OR REPLACE FUNCTION crowd_item_done() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' AND OLD.status IN {DONE} THEN
        UPDATE crowd_itemdone SET count = count - 1 WHERE item_id = OLD.item_id;
    END IF;
    IF TG_OP <> 'DELETE' AND NEW.status IN {DONE} THEN
        INSERT INTO crowd_itemdone (item_id, count) VALUES (NEW.item_id, 1)
        ON CONFLICT (item_id) DO UPDATE SET count = crowd_itemdone.count + 1;
    END IF;
    RETURN NULL;
END $$""",
    f"""CREATE TRIGGER crowd_assignment_done_insert AFTER INSERT ON crowd_assignment
FOR EACH ROW WHEN (NEW.status IN {DONE}) EXECUTE FUNCTION crowd_item_done()""",
    f"""CREATE TRIGGER crowd_assignment_done_update AFTER UPDATE OF status, item_id
ON crowd_assignment FOR EACH ROW
WHEN ((OLD.status IN {DONE}) <> (NEW.status IN {DONE}) OR OLD.item_id <> NEW.item_id)
EXECUTE FUNCTION crowd_item_done()""",
    f"""CREATE TRIGGER crowd_assignment_done_delete AFTER DELETE ON crowd_assignment
FOR EACH ROW WHEN (OLD.status IN {DONE}) EXECUTE FUNCTION crowd_item_done()""",
]
POSTGRESQL_DROP = [
    "DROP TRIGGER IF EXISTS crowd_assignment_done_insert ON crowd_assignment",
    "DROP TRIGGER IF EXISTS crowd_assignment_done_update ON crowd_assignment",
    "DROP TRIGGER IF EXISTS crowd_assignment_done_delete ON crowd_assignment",
    "DROP FUNCTION IF EXISTS crowd_item_done()",
]
_SQLITE_ADD = f"""INSERT INTO crowd_itemdone (item_id, count) SELECT NEW.item_id, 1
    WHERE NEW.status IN {DONE}
    ON CONFLICT (item_id) DO UPDATE SET count = count + 1;"""
_SQLITE_REMOVE = f"""UPDATE crowd_itemdone SET count = count - 1
    WHERE item_id = OLD.item_id AND OLD.status IN {DONE};"""
SQLITE = [
    f"""CREATE TRIGGER crowd_assignment_done_insert AFTER INSERT ON crowd_assignment
WHEN NEW.status IN {DONE} BEGIN {_SQLITE_ADD} END""",
    f"""CREATE TRIGGER crowd_assignment_done_update AFTER UPDATE OF status, item_id
ON crowd_assignment
WHEN (OLD.status IN {DONE}) <> (NEW.status IN {DONE}) OR OLD.item_id <> NEW.item_id
BEGIN {_SQLITE_REMOVE} {_SQLITE_ADD} END""",
    f"""CREATE TRIGGER crowd_assignment_done_delete AFTER DELETE ON crowd_assignment
WHEN OLD.status IN {DONE} BEGIN {_SQLITE_REMOVE} END""",
]
SQLITE_DROP = [
    "DROP TRIGGER IF EXISTS crowd_assignment_done_insert",
    "DROP TRIGGER IF EXISTS crowd_assignment_done_update",
    "DROP TRIGGER IF EXISTS crowd_assignment_done_delete",
]
BACKFILL = f"""INSERT INTO crowd_itemdone (item_id, count)
SELECT item_id, count(*) FROM crowd_assignment WHERE status IN {DONE} GROUP BY item_id"""


def create_triggers(apps, schema_editor) -> None:
    """Create the counting triggers for this database, and count what is there."""
    vendor = schema_editor.connection.vendor
    statements = {"postgresql": POSTGRESQL, "sqlite": SQLITE}.get(vendor)
    if statements is None:
        raise RuntimeError(f"ItemDone's triggers exist for PostgreSQL and SQLite, not {vendor}")
    drop = POSTGRESQL_DROP if vendor == "postgresql" else SQLITE_DROP
    for statement in [*drop, *statements, "DELETE FROM crowd_itemdone", BACKFILL]:
        schema_editor.execute(statement)


def drop_triggers(apps, schema_editor) -> None:
    vendor = schema_editor.connection.vendor
    for statement in POSTGRESQL_DROP if vendor == "postgresql" else SQLITE_DROP:
        schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("crowd", "0005_merge_review_figurative")]

    operations = [
        migrations.CreateModel(
            name="ItemDone",
            fields=[
                (
                    "item",
                    models.OneToOneField(
                        on_delete=models.CASCADE,
                        primary_key=True,
                        related_name="done",
                        serialize=False,
                        to="crowd.batchitem",
                    ),
                ),
                ("count", models.IntegerField(default=0)),
            ],
        ),
        migrations.RunPython(create_triggers, drop_triggers),
    ]
