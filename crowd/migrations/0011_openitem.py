"""OpenItem: the items a worker may be served, with their held slots, kept by triggers.

One row per batch item that is not withdrawn, holding its batch, gold flag and position
(copied, for one index in serving order) and `held`: its assignments that are reserved,
submitted or approved. Triggers on crowd_batchitem add, move and remove the rows;
triggers on crowd_assignment keep `held`.

On SQLite a migration that rebuilds crowd_assignment (as 0008 does) fails while a trigger
on crowd_batchitem names it, and one that rebuilds either table drops its triggers: such
a migration must call `drop_triggers` first and `create_triggers` at its end (as 0008
does for 0006's). This one runs after 0008 for that reason.
"""

from django.db import migrations, models

HELD = "('reserved', 'submitted', 'approved')"
# The row of an item that is served: its subject columns and the count of held slots.
_ROW = f"""SELECT NEW.id, NEW.batch_id, NEW.is_gold, NEW.position, (
    SELECT count(*) FROM crowd_assignment a WHERE a.item_id = NEW.id AND a.status IN {HELD}
) WHERE NEW.withdrawn_at IS NULL"""
_PLACE = f"""DELETE FROM crowd_openitem WHERE item_id = OLD.id;
    INSERT INTO crowd_openitem (item_id, batch_id, is_gold, position, held) {_ROW};"""
_ADD = "UPDATE crowd_openitem SET held = held + 1 WHERE item_id = NEW.item_id;"
_REMOVE = "UPDATE crowd_openitem SET held = held - 1 WHERE item_id = OLD.item_id;"

POSTGRESQL = [
    f"""
CREATE OR REPLACE FUNCTION crowd_open_item_place() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO crowd_openitem (item_id, batch_id, is_gold, position, held) {_ROW};
    ELSE
        {_PLACE}
    END IF;
    RETURN NULL;
END $$""",
    f"""
CREATE OR REPLACE FUNCTION crowd_open_item_held() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' AND OLD.status IN {HELD} THEN
        {_REMOVE}
    END IF;
    IF TG_OP <> 'DELETE' AND NEW.status IN {HELD} THEN
        {_ADD}
    END IF;
    RETURN NULL;
END $$""",
    """CREATE TRIGGER crowd_batchitem_open_insert AFTER INSERT ON crowd_batchitem
FOR EACH ROW EXECUTE FUNCTION crowd_open_item_place()""",
    """CREATE TRIGGER crowd_batchitem_open_update
AFTER UPDATE OF withdrawn_at, is_gold, position, batch_id ON crowd_batchitem FOR EACH ROW
EXECUTE FUNCTION crowd_open_item_place()""",
    f"""CREATE TRIGGER crowd_assignment_held_insert AFTER INSERT ON crowd_assignment
FOR EACH ROW WHEN (NEW.status IN {HELD}) EXECUTE FUNCTION crowd_open_item_held()""",
    f"""CREATE TRIGGER crowd_assignment_held_update AFTER UPDATE OF status, item_id
ON crowd_assignment FOR EACH ROW
WHEN ((OLD.status IN {HELD}) <> (NEW.status IN {HELD}) OR OLD.item_id <> NEW.item_id)
EXECUTE FUNCTION crowd_open_item_held()""",
    f"""CREATE TRIGGER crowd_assignment_held_delete AFTER DELETE ON crowd_assignment
FOR EACH ROW WHEN (OLD.status IN {HELD}) EXECUTE FUNCTION crowd_open_item_held()""",
]
POSTGRESQL_DROP = [
    "DROP TRIGGER IF EXISTS crowd_batchitem_open_insert ON crowd_batchitem",
    "DROP TRIGGER IF EXISTS crowd_batchitem_open_update ON crowd_batchitem",
    "DROP TRIGGER IF EXISTS crowd_assignment_held_insert ON crowd_assignment",
    "DROP TRIGGER IF EXISTS crowd_assignment_held_update ON crowd_assignment",
    "DROP TRIGGER IF EXISTS crowd_assignment_held_delete ON crowd_assignment",
    "DROP FUNCTION IF EXISTS crowd_open_item_place()",
    "DROP FUNCTION IF EXISTS crowd_open_item_held()",
]
SQLITE = [
    f"""CREATE TRIGGER crowd_batchitem_open_insert AFTER INSERT ON crowd_batchitem
BEGIN INSERT INTO crowd_openitem (item_id, batch_id, is_gold, position, held) {_ROW}; END""",
    f"""CREATE TRIGGER crowd_batchitem_open_update
AFTER UPDATE OF withdrawn_at, is_gold, position, batch_id ON crowd_batchitem
BEGIN {_PLACE} END""",
    f"""CREATE TRIGGER crowd_assignment_held_insert AFTER INSERT ON crowd_assignment
WHEN NEW.status IN {HELD} BEGIN {_ADD} END""",
    f"""CREATE TRIGGER crowd_assignment_held_update AFTER UPDATE OF status, item_id
ON crowd_assignment
WHEN (OLD.status IN {HELD}) <> (NEW.status IN {HELD}) OR OLD.item_id <> NEW.item_id
BEGIN
    UPDATE crowd_openitem SET held = held - 1
    WHERE item_id = OLD.item_id AND OLD.status IN {HELD};
    UPDATE crowd_openitem SET held = held + 1
    WHERE item_id = NEW.item_id AND NEW.status IN {HELD};
END""",
    f"""CREATE TRIGGER crowd_assignment_held_delete AFTER DELETE ON crowd_assignment
WHEN OLD.status IN {HELD} BEGIN {_REMOVE} END""",
]
SQLITE_DROP = [
    "DROP TRIGGER IF EXISTS crowd_batchitem_open_insert",
    "DROP TRIGGER IF EXISTS crowd_batchitem_open_update",
    "DROP TRIGGER IF EXISTS crowd_assignment_held_insert",
    "DROP TRIGGER IF EXISTS crowd_assignment_held_update",
    "DROP TRIGGER IF EXISTS crowd_assignment_held_delete",
]
BACKFILL = f"""INSERT INTO crowd_openitem (item_id, batch_id, is_gold, position, held)
SELECT bi.id, bi.batch_id, bi.is_gold, bi.position, (
    SELECT count(*) FROM crowd_assignment a WHERE a.item_id = bi.id AND a.status IN {HELD}
) FROM crowd_batchitem bi WHERE bi.withdrawn_at IS NULL"""


def create_triggers(apps, schema_editor) -> None:
    """Create the triggers for this database, and fill the table from what is there."""
    vendor = schema_editor.connection.vendor
    statements = {"postgresql": POSTGRESQL, "sqlite": SQLITE}.get(vendor)
    if statements is None:
        raise RuntimeError(f"OpenItem's triggers exist for PostgreSQL and SQLite, not {vendor}")
    drop = POSTGRESQL_DROP if vendor == "postgresql" else SQLITE_DROP
    for statement in [*drop, *statements, "DELETE FROM crowd_openitem", BACKFILL]:
        schema_editor.execute(statement)


def drop_triggers(apps, schema_editor) -> None:
    vendor = schema_editor.connection.vendor
    for statement in POSTGRESQL_DROP if vendor == "postgresql" else SQLITE_DROP:
        schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("crowd", "0010_batch_pledge")]

    operations = [
        migrations.CreateModel(
            name="OpenItem",
            fields=[
                (
                    "item",
                    models.OneToOneField(
                        on_delete=models.CASCADE,
                        primary_key=True,
                        related_name="open_slots",
                        serialize=False,
                        to="crowd.batchitem",
                    ),
                ),
                (
                    "batch",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=models.CASCADE,
                        related_name="+",
                        to="crowd.batch",
                    ),
                ),
                ("is_gold", models.BooleanField()),
                ("position", models.PositiveIntegerField()),
                ("held", models.IntegerField(default=0)),
            ],
            options={
                "indexes": [
                    models.Index(
                        fields=["batch", "is_gold", "held", "position", "item"],
                        name="open_item_serving_order",
                    )
                ],
            },
        ),
        migrations.AddIndex(
            model_name="assignment",
            index=models.Index(
                condition=models.Q(("status", "reserved")),
                fields=["expires_at"],
                name="assignment_reservation_expiry",
            ),
        ),
        migrations.RunPython(create_triggers, drop_triggers),
    ]
