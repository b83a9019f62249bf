"""Distractors from a trained model's probabilities, and the choose batch answered by the model."""

import pytest

from annotation.models import Narrative
from annotation.quality.reports import batch_agreement
from annotation.task_parts.distractors import Candidate, get_source
from annotation.task_types.choose.task import ChooseBatchForm
from modeling.runs.distractors import choose_batch_from_run
from tests.factories import (
    choice_answer_create,
    finished_run_create,
    narrative_create,
    proverb_create,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def question_setup():
    # Seven distinct proverbs (A to G): none is too close to another to be a distractor.
    proverbs = [
        proverb_create(text)
        for text in (
            "Time is money",
            "Haste makes waste",
            "Look before you leap",
            "Actions speak louder than words",
            "Birds of a feather flock together",
            "A stitch in time saves nine",
            "Every cloud has a silver lining",
        )
    ]
    narrative = narrative_create(
        proverb=proverbs[0], text="A story of A.", status=Narrative.Status.APPROVED
    )
    # Correct A has 0.20; the most probable wrong ones are B (0.30) and C (0.25);
    # closest to 0.20 are D (0.19) and E (0.21); F and G are far below.
    values = [0.20, 0.30, 0.25, 0.19, 0.21, 0.01, 0.0]
    run = finished_run_create(
        probabilities={narrative: {p.pk: v for p, v in zip(proverbs, values, strict=True)}}
    )
    return run, narrative, proverbs


def test_model_source_mixes_most_probable_and_closest_to_the_answer(question_setup):
    run, narrative, proverbs = question_setup
    source = get_source(f"model:{run.pk}")
    picked = source.pick(
        narrative=narrative.text,
        correct=Candidate(proverbs[0].pk, proverbs[0].text),
        candidates=[Candidate(p.pk, p.text) for p in proverbs],
        count=4,
        seed=1,
    )
    by_id = dict(zip([p.pk for p in proverbs], "ABCDEFG", strict=True))
    assert [by_id[c.id] for c in picked] == ["B", "E", "C", "D"]


def test_model_source_refuses_a_narrative_it_did_not_predict(question_setup):
    run, _, proverbs = question_setup
    with pytest.raises(ValueError, match="only its test narratives"):
        get_source(f"model:{run.pk}").pick(
            narrative="Another story.",
            correct=Candidate(proverbs[0].pk, proverbs[0].text),
            candidates=[Candidate(p.pk, p.text) for p in proverbs],
            count=4,
            seed=1,
        )


def test_unknown_or_unfinished_run_is_no_source(question_setup):
    run, *_ = question_setup
    with pytest.raises(LookupError, match="No finished run 999"):
        get_source("model:999")
    run.status = "failed"
    run.save()
    with pytest.raises(LookupError):
        get_source(f"model:{run.pk}")


def test_choose_form_offers_finished_runs(question_setup):
    run, *_ = question_setup
    keys = [key for key, _ in ChooseBatchForm().fields["distractors"].choices]
    assert {"lexical", "random", f"model:{run.pk}"} <= set(keys)


def test_batch_from_run_stores_model_answers_beside_human_accuracy(question_setup):
    run, narrative, proverbs = question_setup
    batch = choose_batch_from_run(run=run, sample=10, options=5, seed=3)
    assert batch.task_type == "choose" and batch.settings["distractors"] == f"model:{run.pk}"
    item = batch.items.get()
    question = item.choice_question
    assert question.distractor_source == f"model:{run.pk}"
    assert set(question.options) == {p.pk for p in proverbs[:5]}
    assert question.model_chosen == proverbs[1]  # B, the most probable option: wrong
    assert f"run {run.pk}" in question.model_label
    choice_answer_create(narrative=narrative, correct=True, batch=batch, question=question)
    report = batch_agreement(batch=batch)["choose"]
    assert report["human_accuracy"] == 1.0
    assert report["model_accuracy"] == 0.0 and report["model_questions"] == 1


def test_batch_from_run_samples_at_most_the_narratives_asked(question_setup):
    run, narrative, proverbs = question_setup
    others = [
        narrative_create(proverb=proverbs[1], text=f"Story {n}.", status="approved")
        for n in range(4)
    ]
    values = dict.fromkeys((p.pk for p in proverbs), 0.1)
    run = finished_run_create(probabilities=dict.fromkeys([narrative, *others], values))
    batch = choose_batch_from_run(run=run, sample=3)
    assert batch.items.count() == 3
    again = choose_batch_from_run(run=run, sample=3)
    assert sorted(again.items.values_list("narrative_id", flat=True)) == sorted(
        batch.items.values_list("narrative_id", flat=True)
    )
