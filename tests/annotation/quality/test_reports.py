"""Agreement and aggregation of a batch from the database, against small cases done by hand."""

from fractions import Fraction as F

import pytest

from annotation.quality.reports import batch_agreement
from annotation.task_types.choose.models import ChoiceAnswer, ChoiceQuestion
from crowd.models import BatchItem
from tests.factories import (
    _submitted_now,
    alignment_create,
    assignment_create,
    narrative_create,
    proverb_create,
    rating_create,
    task_batch_create,
    worker_create,
)

pytestmark = pytest.mark.django_db


def approx(value):
    return pytest.approx(float(value), abs=1e-9)


def test_span_agreement_is_token_prf_between_annotators():
    proverb = proverb_create("Time is money")
    narrative = narrative_create(proverb=proverb, text="a b c d e f")
    batch = task_batch_create(task_type="align", publish=False, settings={"draw": []})
    first, second = worker_create(), worker_create()
    # Proverb: first marks "Time" and "is", second "Time". Narrative: first marks
    # tokens {a, b} and {e}, second {b, c}.
    alignment_create(
        narrative=narrative, batch=batch, worker=first, pairs=[(0, 4, 0, 3), (5, 7, 8, 9)]
    )
    alignment_create(narrative=narrative, batch=batch, worker=second, pairs=[(0, 4, 2, 5)])
    alignment_create(
        narrative=narrative,
        batch=batch,
        worker=worker_create(),
        pairs=[(8, 13, 10, 11)],
        status="rejected",
    )
    report = batch_agreement(batch=batch)["align"]
    assert report["alignments"] == 2
    assert report["pairs_per_alignment"] == approx(F(3, 2))
    # Narrative: P(first|second) = 1/3, R = 1/2, F1 = 2/5; the reverse order swaps P and R.
    assert report["narrative"]["precision"] == approx(F(5, 12))
    assert report["narrative"]["recall"] == approx(F(5, 12))
    assert report["narrative"]["f1"] == approx(F(2, 5))
    assert (report["narrative"]["pairs"], report["narrative"]["items"]) == (2, 1)
    # Proverb: P(first|second) = 1/2, R = 1, F1 = 2/3 and the reverse.
    assert report["proverb"]["precision"] == approx(F(3, 4))
    assert report["proverb"]["f1"] == approx(F(2, 3))


def rating_batch():
    return task_batch_create(
        task_type="rate",
        publish=False,
        settings={"criteria": [{"key": "overall", "label": "Overall"}]},
    )


def test_rating_agreement_binarizes_at_three_and_uses_ordinal_alpha():
    proverb = proverb_create("Time is money")
    batch = rating_batch()
    first, second = worker_create(), worker_create()
    stories = [narrative_create(proverb=proverb, text=f"Story {n}") for n in range(3)]
    for narrative, (a, b) in zip(stories, [(4, 4), (4, 2), (2, 2)], strict=True):
        rating_create(narrative=narrative, criterion="overall", value=a, batch=batch, worker=first)
        rating_create(narrative=narrative, criterion="overall", value=b, batch=batch, worker=second)
    rating_create(
        narrative=stories[0],
        criterion="overall",
        value=1,
        batch=batch,
        worker=worker_create(),
        status="rejected",
    )
    overall = batch_agreement(batch=batch)["rate"]["criteria"]["overall"]
    assert overall["label"] == "Overall"
    assert (overall["items"], overall["ratings"]) == (3, 6)
    assert overall["mean"] == approx(3)
    # Good/good, good/poor, poor/poor: 1, 0, 1.
    assert overall["pairwise_agreement"] == approx(F(2, 3))
    # Two values only, so ordinal alpha equals nominal: n = 6 (three 4s, three 2s),
    # D_o = 2/6, D_e = 2*3*3/(6*5) = 3/5, alpha = 1 - (1/3)/(3/5) = 4/9.
    assert overall["alpha"] == approx(F(4, 9))


def test_ratings_are_compared_by_source_of_the_narratives():
    proverb = proverb_create("Time is money")
    batch = rating_batch()
    ours = narrative_create(proverb=proverb, text="Ours", source_label="")
    theirs = narrative_create(proverb=proverb, text="Theirs", source_label="Tan et al. 2015")
    for value, narrative in ((5, ours), (3, ours), (2, theirs)):
        rating_create(narrative=narrative, criterion="overall", value=value, batch=batch)
    by_source = batch_agreement(batch=batch)["rate"]["by_source"]
    assert by_source == {
        "imported": {"overall": {"mean": 4, "ratings": 2}},
        "imported: Tan et al. 2015": {"overall": {"mean": 2, "ratings": 1}},
    }


def answer(*, batch, question, worker, chosen, status="approved", gold=False):
    item, _ = BatchItem.objects.get_or_create(
        batch=batch,
        choice_question=question,
        defaults={
            "is_gold": gold,
            "gold_answer": {"chosen": question.correct_id} if gold else None,
        },
    )
    assignment = assignment_create(
        item=item, worker=worker, status=status, submitted_at=_submitted_now()
    )
    return ChoiceAnswer.objects.create(
        question=question,
        assignment=assignment,
        chosen=chosen,
        is_correct=chosen == question.correct,
    )


def test_choice_accuracy_agreement_and_aggregation():
    right = proverb_create("Time is money")
    wrong = proverb_create("Haste makes waste")
    batch = task_batch_create(task_type="choose", publish=False)
    first, second = worker_create(), worker_create()
    questions = [
        ChoiceQuestion.objects.create(
            narrative=narrative_create(proverb=right, text=f"Story {n}"),
            correct=right,
            options=[right.pk, wrong.pk],
            distractor_source="test",
        )
        for n in range(4)
    ]
    for question, (a, b) in zip(
        questions, [(right, right), (right, wrong), (wrong, wrong)], strict=False
    ):
        answer(batch=batch, question=question, worker=first, chosen=a)
        answer(batch=batch, question=question, worker=second, chosen=b)
    answer(
        batch=batch, question=questions[0], worker=worker_create(), chosen=wrong, status="rejected"
    )
    answer(batch=batch, question=questions[3], worker=first, chosen=wrong, gold=True)
    report = batch_agreement(batch=batch)["choose"]
    assert (report["answers"], report["questions"]) == (6, 3)
    assert report["human_accuracy"] == approx(F(1, 2))
    assert report["pairwise_agreement"] == approx(F(2, 3))
    assert report["alpha"] == approx(F(4, 9))  # the same 2-value pattern as the ratings case
    aggregated = {row["question"]: row for row in report["aggregated"]}
    # Majority: right, a tie broken toward the smaller label (right's id), wrong.
    assert [aggregated[q.pk]["majority_vote"] for q in questions[:3]] == [
        right.pk,
        right.pk,
        wrong.pk,
    ]
    assert report["majority_vote_accuracy"] == approx(F(2, 3))
    # ...and the tie is shown as a tie.
    assert report["majority_vote_ties"] == 1
    assert aggregated[questions[1].pk]["majority_vote_tie"] == [
        "Time is money",
        "Haste makes waste",
    ]
    assert aggregated[questions[0].pk]["majority_vote_tie"] == []
    assert aggregated[questions[0].pk]["dawid_skene"] == right.pk
    assert aggregated[questions[2].pk]["dawid_skene"] == wrong.pk
    assert aggregated[questions[0].pk]["correct_text"] == "Time is money"


def test_quality_report_lists_gold_accuracy_and_flags():
    right = proverb_create("Time is money")
    wrong = proverb_create("Haste makes waste")
    batch = task_batch_create(task_type="choose", publish=False, settings={"gold_min_answers": 2})
    careful, careless = (
        worker_create(display_name="Careful"),
        worker_create(display_name="Careless"),
    )
    for n in range(2):
        question = ChoiceQuestion.objects.create(
            narrative=narrative_create(proverb=right, text=f"Gold {n}"),
            correct=right,
            options=[right.pk, wrong.pk],
            distractor_source="test",
        )
        answer(batch=batch, question=question, worker=careful, chosen=right, gold=True)
        answer(
            batch=batch, question=question, worker=careless, chosen=wrong if n else right, gold=True
        )
    quality = batch_agreement(batch=batch)["quality"]
    rows = {row["name"]: row for row in quality["workers"]}
    assert (rows["Careful"]["gold_correct"], rows["Careful"]["gold_total"]) == (2, 2)
    assert rows["Careless"]["gold_accuracy"] == approx(F(1, 2))
    assert quality["flagged_workers"] == [careless.pk]
    assert quality["gold_items"] == 2
