"""Data migrations of the dataset: what each does to rows made before it."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from annotation.datasets.figurative import content_key

BEFORE = ("annotation", "0013_merge_0011_figurative_similarity_0012_merge_reli")
AFTER = ("annotation", "0014_truthful_imports")


@pytest.mark.django_db(transaction=True)
def test_a_figurative_narrative_stored_once_per_gloss_is_merged_with_its_pairs():
    executor = MigrationExecutor(connection)
    executor.migrate([BEFORE])
    old = executor.loader.project_state([BEFORE]).apps
    narratives = old.get_model("annotation", "FigurativeNarrative")
    pairs = old.get_model("annotation", "ContinuationPair")
    text = "After a long week she decided to call it a day."
    first, second = (
        narratives.objects.create(
            kind="idiom", text=text, expression="call it a day", meaning=meaning, content_key=key
        )
        for meaning, key in (("to stop working", "a" * 64), ("to rest for now", "b" * 64))
    )
    other = narratives.objects.create(
        kind="idiom", text="Another story.", expression="call it a day", content_key="c" * 64
    )
    pairs.objects.create(narrative=first, option1="Slept.", option2="Worked.", correct=1)
    pairs.objects.create(narrative=second, option1="Slept.", option2="Worked.", correct=1)
    pairs.objects.create(narrative=second, option1="Rested.", option2="Ran.", correct=1)

    executor = MigrationExecutor(connection)
    executor.migrate([AFTER])
    new = executor.loader.project_state([AFTER]).apps
    kept = new.get_model("annotation", "FigurativeNarrative").objects.order_by("id")
    assert [narrative.pk for narrative in kept] == [first.pk, other.pk]
    assert kept[0].meaning == "to stop working"
    options = new.get_model("annotation", "ContinuationPair").objects.order_by("id")
    assert [(pair.narrative_id, pair.option1) for pair in options] == [
        (first.pk, "Slept."),
        (first.pk, "Rested."),
    ]
    # The key the imports compute from now on: a re-import finds the merged narrative.
    assert kept[0].content_key == content_key(kind="idiom", text=text, expression="call it a day")

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
