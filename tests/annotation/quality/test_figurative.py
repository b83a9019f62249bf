"""Reports of the figurative and cloze batches: lemma agreement, match rate, human accuracy."""

import math

import pytest

from annotation.quality.figurative import lemma_agreement
from annotation.quality.reports import batch_agreement
from crowd.assignments import assignment_reserve_next, assignment_submit
from tests.factories import (
    crowd_narrative_create,
    figurative_import_fixture,
    figurative_release_import,
    proverb_create,
    task_batch_create,
    worker_create,
    write_batch_create,
)


def test_lemma_agreement_is_one_minus_normalised_entropy():
    assert lemma_agreement(["go", "go", "go"]) == 1
    assert lemma_agreement(["go", "run", "eat"]) == pytest.approx(0)
    half = -2 * (0.5 * math.log(0.5))
    assert lemma_agreement(["go", "go", "run", "run"]) == pytest.approx(1 - half / math.log(4))
    assert lemma_agreement(["go"]) is None


@pytest.mark.django_db
def test_cloze_report_gives_match_rate_and_agreement_per_batch():
    write = write_batch_create(proverbs=[proverb_create("Time is money")])
    crowd_narrative_create(
        proverb=write.items.get().proverb,
        batch=write,
        text="Anna lost her keys. She searched the house. Her brother found them. They laughed.",
    )
    batch = task_batch_create(
        task_type="cloze", source_batch=write, target_per_item=3, settings={"blank": "middle"}
    )
    for text in ("Her brother found them.", "The cat found them.", "She gave up."):
        assignment = assignment_reserve_next(batch=batch, worker=worker_create())
        assignment_submit(assignment=assignment, payload={"text": text})
    report = batch_agreement(batch=batch)["cloze"]
    assert report["match_rate"] == pytest.approx(2 / 3)
    assert report["agreement"] == pytest.approx(lemma_agreement(["find", "find", "give"]))
    assert report["by_item"][0]["lemmas"] == {"find": 2, "give": 1}


@pytest.mark.django_db
def test_continuation_choice_report_gives_human_accuracy():
    figurative_import_fixture("simile")
    batch = task_batch_create(
        task_type="continue_choice", target_per_item=3, settings={"imported": {"kind": "simile"}}
    )
    for right in (True, True, False):
        assignment = assignment_reserve_next(batch=batch, worker=worker_create())
        correct = assignment.item.continuation_pair.correct
        chosen = correct if right else 3 - correct
        assignment_submit(assignment=assignment, payload={"chosen": chosen})
    report = batch_agreement(batch=batch)["continue_choice"]
    assert report["human_accuracy"] == pytest.approx(2 / 3)
    assert report["by_kind"]["simile"]["answers"] == 3
    assert report["majority_vote_accuracy"] == 1


@pytest.mark.django_db
def test_answers_to_unlabelled_pairs_count_in_no_accuracy():
    figurative_import_fixture("simile")
    figurative_release_import("idiom_test")
    batch = task_batch_create(
        task_type="continue_choice", target_per_item=1, settings={"imported": {"kind": "simile"}}
    )
    test_batch = task_batch_create(
        task_type="continue_choice",
        target_per_item=1,
        settings={"imported": {"kind": "idiom", "split": "test"}},
    )
    assignment = assignment_reserve_next(batch=batch, worker=worker_create())
    assignment_submit(
        assignment=assignment, payload={"chosen": assignment.item.continuation_pair.correct}
    )
    for _ in range(2):
        assignment = assignment_reserve_next(batch=test_batch, worker=worker_create())
        assignment_submit(assignment=assignment, payload={"chosen": 2})
    labelled = batch_agreement(batch=batch)["continue_choice"]
    unlabelled = batch_agreement(batch=test_batch)["continue_choice"]
    assert labelled["human_accuracy"] == 1
    assert (unlabelled["answers"], unlabelled["unlabelled_answers"]) == (2, 2)
    assert unlabelled["human_accuracy"] is None
    assert unlabelled["majority_vote_accuracy"] is None
