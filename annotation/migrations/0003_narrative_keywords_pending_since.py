from django.db import migrations, models
from django.utils import timezone


def mark_approved_without_keywords(apps, schema_editor):
    """Approved crowd narratives that never got their keywords are pending from now."""
    Narrative = apps.get_model("annotation", "Narrative")
    Narrative.objects.filter(source="crowd", status="approved", keywords={}).update(
        keywords_pending_since=timezone.now()
    )


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0002_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="narrative",
            name="keywords_pending_since",
            field=models.DateTimeField(
                blank=True,
                db_index=True,
                help_text="Approved, keywords not extracted yet: re-queued after the grace period.",
                null=True,
            ),
        ),
        migrations.RunPython(mark_approved_without_keywords, migrations.RunPython.noop),
    ]
