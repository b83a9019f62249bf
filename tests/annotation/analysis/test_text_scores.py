"""Scores kept between analyses: taken when the text and the rules are the same, never
for an edited text or the newer rules, and the figures equal a fresh run's."""

import pytest

from annotation.analysis.selectors import dataset_analysis
from annotation.analysis.text_scores import scores_rules, stored_scores, text_key
from annotation.models import TextScores
from tests.factories import crowd_narrative_create, proverb_create

pytestmark = pytest.mark.django_db

STORIES = [
    "Raj lost customers every minute. He never opened late again!",
    "The shop was quiet. Nobody came, and the baker wept over cold bread.",
    "Mina saved every coin. Years later she bought the orchard she loved.",
]


def _dataset():
    proverb = proverb_create("Time is money")
    narratives = [crowd_narrative_create(proverb=proverb, text=text) for text in STORIES]
    crowd_narrative_create(proverb=proverb, text="A rejected story.", status="rejected")
    return narratives


def test_an_analysis_keeps_each_approved_texts_scores_and_the_next_gives_the_same_figures():
    _dataset()
    first = dataset_analysis(seed=3)
    assert TextScores.objects.count() == len(STORIES)  # approved texts only
    assert all(stored_scores(STORIES))
    assert stored_scores(["A rejected story."]) == [None]
    again = dataset_analysis(seed=3)
    assert again == first


def test_kept_scores_are_read_back_not_computed_again():
    _dataset()
    first = dataset_analysis()
    TextScores.objects.update(compound=0.5, flesch=10.0, sentences=7)
    kept = dataset_analysis()
    assert kept["sentiment"]["narrative_compound_mean"] == 0.5
    assert kept["readability"]["flesch_mean"] == 10.0
    assert kept["sentences_per_narrative"] == 7
    # The newer rules' Flesch asks for every score afresh, and keeps none.
    fresh = dataset_analysis(newer_flesch=True)
    assert fresh["sentiment"] == first["sentiment"]
    assert fresh["readability"]["flesch_mean"] == first["readability"]["flesch_mean"]
    assert fresh["sentences_per_narrative"] == first["sentences_per_narrative"]


def test_an_edited_text_or_other_rules_find_no_kept_scores():
    narratives = _dataset()
    dataset_analysis()
    edited = narratives[0]
    edited.text = STORIES[0] + " The end."
    edited.save(update_fields=["text"])
    assert stored_scores([edited.text]) == [None]
    dataset_analysis()
    assert stored_scores([edited.text]) != [None]
    assert text_key(STORIES[1]) == text_key(STORIES[1], scores_rules())
    assert text_key(STORIES[1]) != text_key(STORIES[1], scores_rules() + " (another spaCy)")
    assert "vaderSentiment 3.3.2" in scores_rules() and "textstat 0.7.2" in scores_rules()


def test_the_keywords_task_of_an_approval_keeps_the_scores_an_export_then_reads():
    from annotation.analysis.keywords import narratives_keywords_fill
    from annotation.tasks import narrative_keywords_extract_task

    narratives = _dataset()
    narrative_keywords_extract_task.delay(narratives[0].pk).get()
    first, *rest = stored_scores(STORIES)
    assert first is not None and rest == [None, None]
    narratives_keywords_fill(narrative_ids=[n.pk for n in narratives[1:]])  # an import's
    kept = stored_scores(STORIES)
    assert all(kept)
    analysis = dataset_analysis()
    assert TextScores.objects.count() == len(STORIES)
    TextScores.objects.all().delete()
    assert dataset_analysis() == analysis  # the kept scores are the analysis' own


def test_kept_scores_are_found_by_key_when_far_more_are_kept_than_analysed():
    from annotation.analysis.text_scores import KeptScores, scores_keep

    _dataset()
    first = dataset_analysis()
    scores_keep([(f"Another study's story {i}.", 0.0, 50.0, 1) for i in range(1_000)])
    by_key = KeptScores(expected=len(STORIES))
    assert by_key._all is None  # 1,003 kept for 3 texts: looked up by key
    assert by_key.of(STORIES) == stored_scores(STORIES) and all(by_key.of(STORIES))
    TextScores.objects.filter(key=text_key(STORIES[0])).update(sentences=9)
    assert dataset_analysis()["sentences_per_narrative"] != first["sentences_per_narrative"]
    assert KeptScores(expected=5_000)._all is not None  # a scan when they are few
