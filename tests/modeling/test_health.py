"""The health check of generated narratives: word salad is not like the references, stories
written by people are (real English from tests/fixtures/generation, MIT licence)."""

import json
from pathlib import Path

import pytest

from modeling.training.figures import generation_figures, generation_summary, health_text
from modeling.training.generation import generation_metrics
from modeling.training.health import Parsed, english_pipeline, text_health

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "generation"


def rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (FIXTURES / name).read_text().splitlines() if line]


def health(generated, references, keywords) -> dict:
    words = [word for group in keywords for word in group]
    parsed = Parsed(english_pipeline(), generated, references, words)
    return text_health(generated, references, keywords, parsed=parsed)


def test_word_salad_is_not_like_the_references_and_the_failed_figures_are_named():
    salad = rows("word_salad.jsonl")
    result = health(
        [row["generated"] for row in salad],
        [row["reference"] for row in salad],
        [row["keywords"] for row in salad],
    )
    assert result["passed"] is False
    failed = set(result["failed"])
    assert {"vocabulary", "distinct_2", "distinct_3", "top_trigram", "recall_verbs"} <= failed
    vocabulary = result["measures"]["vocabulary"]
    assert vocabulary["outputs"] < vocabulary["limit"] < vocabulary["references"]
    trigram = result["measures"]["top_trigram"]
    assert trigram["outputs"] > trigram["limit"] > trigram["references"]
    assert result["top_trigram"]["outputs"] == "the man was"  # 3.4% of its trigrams
    verbs = result["measures"]["recall_verbs"]
    assert verbs["outputs"] < 0.1 and verbs["references"] > 0.9
    # "she was a time." has a subject and a finite verb: sentence shape alone passes salad.
    assert result["measures"]["sentence_shape"]["passed"]


def test_stories_written_by_people_pass_against_other_stories_written_by_people():
    stories = rows("figurative_stories.jsonl")
    outputs = [row for row in stories if row["seen"] == "train"]
    references = [row for row in stories if row["seen"] == "test"]
    result = health(
        [row["narrative"] for row in outputs],
        [row["narrative"] for row in references],
        [row["keywords"] for row in outputs],  # each story's own keywords, as extracted
    )
    assert result["passed"] is True and result["failed"] == []
    assert set(result["measures"]) == {
        "vocabulary",
        "distinct_2",
        "distinct_3",
        "top_trigram",
        "sentence_shape",
        "recall_verbs",
        "recall_entities",
    }
    assert result["measures"]["recall_entities"]["outputs"] > 0.9


def test_a_run_not_like_the_references_is_marked_in_its_figures_and_its_summary():
    salad = rows("word_salad.jsonl")
    test = generation_metrics(
        [row["generated"] for row in salad],
        [row["reference"] for row in salad],
        [row["keywords"] for row in salad],
        nlp=english_pipeline(),
    )
    assert test["distinct"] == 1.0 and not test["degenerate"]  # distinct, and still salad
    figures = generation_figures(test)
    assert figures["health"] == "not like the references"
    assert figures["bleu"].endswith("(not like the references)")
    assert any(
        line.startswith("vocabulary (word types): 50 vs the references' 855")
        for line in figures["unlike"]
    )
    assert generation_summary(test).startswith("NOT LIKE THE REFERENCES (vocabulary")


def test_without_a_spacy_pipeline_the_check_is_unknown_never_passed():
    test = generation_metrics(["He ran home."], ["She ran home."], [["run"]])
    assert test["health"] is None and test["keyword_recall_lemmas"] is None
    assert health_text(test) == "unknown"
    assert generation_figures(test)["unlike"] == []


@pytest.mark.parametrize("kind", ["recall_verbs", "recall_entities"])
def test_keyword_recall_is_counted_by_kind_on_lemmas(kind):
    # "Maya" is a named entity in the reference; "run" and "sing" are verbs ("ran" counts).
    result = health(
        ["Maya ran to the river. She stayed there."],
        ["Maya ran home and sang."],
        [["run", "sing", "Maya"]],
    )
    expected = {"recall_verbs": 0.5, "recall_entities": 1.0}
    assert result["measures"][kind]["outputs"] == pytest.approx(expected[kind])
    assert result["measures"][kind]["references"] == pytest.approx(1.0)
