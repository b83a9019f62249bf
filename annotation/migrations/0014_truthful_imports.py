"""Imported files' names, fields and layouts; a figurative narrative's published lines; and
one figurative narrative per kind, text and expression (a narrative published with two
glosses was stored twice: the copies are merged into the first, their option pairs with it)."""

import hashlib

from django.db import migrations, models


def _key(kind: str, text: str, expression: str) -> str:
    # annotation.datasets.figurative.content_key, as it is from this migration on.
    return hashlib.sha256("\x1f".join([kind, text, expression]).encode()).hexdigest()


def _repoint(model, old, new, *, skip=()) -> None:
    """Every row that refers to `old` refers to `new` instead."""
    for relation in model._meta.related_objects:
        if relation.related_name in skip or relation.many_to_many:
            continue
        relation.related_model.objects.filter(**{relation.field.name: old}).update(
            **{relation.field.name: new}
        )


def merge_glosses(apps, schema_editor):
    FigurativeNarrative = apps.get_model("annotation", "FigurativeNarrative")
    ContinuationPair = apps.get_model("annotation", "ContinuationPair")
    first: dict[str, object] = {}
    for narrative in FigurativeNarrative.objects.order_by("id"):
        key = _key(narrative.kind, narrative.text, narrative.expression)
        keeper = first.setdefault(key, narrative)
        if keeper.pk == narrative.pk:
            continue
        for pair in ContinuationPair.objects.filter(narrative=narrative).order_by("id"):
            same = ContinuationPair.objects.filter(
                narrative=keeper, option1=pair.option1, option2=pair.option2
            ).first()
            if same is None:
                pair.narrative = keeper
                pair.save(update_fields=["narrative"])
            else:
                _repoint(ContinuationPair, pair, same)
                pair.delete()
        _repoint(FigurativeNarrative, narrative, keeper, skip=("option_pairs",))
        narrative.delete()
    for key, narrative in first.items():
        FigurativeNarrative.objects.filter(pk=narrative.pk).update(content_key=key)


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0013_merge_0011_figurative_similarity_0012_merge_reli"),
    ]

    operations = [
        migrations.CreateModel(
            name="ImportedFile",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("epic", "ePiC dataset"),
                            ("epic_split", "ePiC split file"),
                            ("figurative", "Figurative narratives"),
                        ],
                        max_length=16,
                    ),
                ),
                (
                    "key",
                    models.CharField(
                        help_text="What the export writes back: epic:<source label>, epic_split:<setting>:<part>, figurative:<kind>:<split>.",
                        max_length=300,
                        unique=True,
                    ),
                ),
                ("filename", models.CharField(blank=True, max_length=255)),
                (
                    "fields",
                    models.JSONField(
                        blank=True,
                        default=list,
                        help_text="The fields the file's records hold, in order.",
                    ),
                ),
                (
                    "records",
                    models.PositiveIntegerField(default=0, help_text="Records or lines read."),
                ),
                (
                    "layout",
                    models.JSONField(
                        blank=True,
                        help_text="How the file was written (indent, escapes, key order, final newline); empty when no json.dumps layout writes it: its export gives the values back, not the bytes.",
                        null=True,
                    ),
                ),
                ("imported_at", models.DateTimeField()),
            ],
            options={
                "ordering": ["kind", "key"],
            },
        ),
        migrations.AddField(
            model_name="continuationpair",
            name="source_line",
            field=models.TextField(
                blank=True,
                help_text="The imported line this pair came from, as published (its escapes, its gloss, its spacing): the export writes it while `source_state` still matches.",
            ),
        ),
        migrations.AddField(
            model_name="continuationpair",
            name="source_state",
            field=models.CharField(
                blank=True,
                help_text="Digest of what the export rebuilds the line from (narrative and pair), when it was imported.",
                max_length=64,
            ),
        ),
        migrations.AddField(
            model_name="figurativenarrative",
            name="source_line",
            field=models.TextField(
                blank=True,
                help_text="The line that brought it without an option pair, as published (option pairs keep their own lines).",
            ),
        ),
        migrations.AddField(
            model_name="figurativenarrative",
            name="source_state",
            field=models.CharField(
                blank=True,
                help_text="Digest of what the export rebuilds the line from, when it was imported: while it still matches, the export writes the line as published.",
                max_length=64,
            ),
        ),
        migrations.AlterField(
            model_name="figurativenarrative",
            name="content_key",
            field=models.CharField(
                help_text="Hash of kind, text and expression: re-imports find the same row, and a narrative published with two glosses is one row.",
                max_length=64,
                unique=True,
            ),
        ),
        migrations.RunPython(merge_glosses, migrations.RunPython.noop),
    ]
