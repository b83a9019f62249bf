"""spaCy's parser on the cloze: full sentences told from fragments, and the three conditions."""

import pytest

from annotation.task_types.cloze.parsing import sentence_check, story_shown

STORY = (
    "Anna lost her keys on Monday. Just to spite him, we remained at our table for nearly "
    "3 hours. The cake was eaten by the boys."
)


@pytest.mark.parametrize(
    ("text", "missing"),
    [
        ("the dog", ["verb", "subject"]),
        ("Running quickly", ["subject"]),
        ("Go home now!", ["subject"]),
        ("", ["text"]),
        ("It rained. Then it snowed.", ["one sentence"]),
    ],
)
def test_fragments_are_refused_with_what_they_miss(text, missing):
    verdict = sentence_check(text)
    assert not verdict["ok"]
    assert verdict["missing"] == missing
    assert verdict["message"]


@pytest.mark.parametrize(
    ("text", "lemma"),
    [("He went to the store.", "go"), ("She is happy.", "be"), ("The cake was eaten.", "eat")],
)
def test_a_full_sentence_is_accepted_with_its_main_verb_lemma(text, lemma):
    assert sentence_check(text) == {"ok": True, "missing": [], "message": "", "lemma": lemma}


def test_an_answer_longer_than_the_bound_is_refused_before_parsing():
    verdict = sentence_check("The old fisherman mended his nets. " * 20)
    assert verdict["missing"] == ["one sentence"]
    assert "at most 500 characters" in verdict["message"]


def test_the_three_conditions_show_full_reduced_and_subject_verb_sentences():
    sentences, full, lemma = story_shown(STORY, blank=0, condition="full")
    assert full == [None, sentences[1], sentences[2]]
    assert lemma == "lose"
    _, arguments, _ = story_shown(STORY, blank=0, condition="arguments")
    assert arguments[1:] == ["We remain at table for hours.", "Cake eaten by boys."]
    _, subject_verb, _ = story_shown(STORY, blank=0, condition="subject_verb")
    assert subject_verb[1:] == ["We remain.", "Cake eaten."]


def test_a_blank_outside_the_story_is_refused():
    with pytest.raises(ValueError, match="3 sentence"):
        story_shown(STORY, blank=3, condition="full")
