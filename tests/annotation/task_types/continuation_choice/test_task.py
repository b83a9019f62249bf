"""Choose the continuation: items from imported option pairs and from approved continuations,
the stored display order, answers scored against the known answer."""

import json

import pytest
from django.utils.html import escape

from annotation.models import ContinuationPair
from annotation.quality.reports import batch_agreement
from annotation.task_parts.option_pairs import shown_first_for
from annotation.task_types.continuation_choice.models import ContinuationAnswer
from crowd.assignments import NoWorkAvailable, assignment_reserve_next, assignment_submit
from crowd.review import assignment_approve
from crowd.task_types import SubmissionError
from tests.factories import (
    FIGURATIVE_RELEASE,
    continuation_batch_create,
    figurative_import_fixture,
    figurative_narrative_create,
    figurative_release_import,
    invite_path,
    task_batch_create,
    worker_create,
)

pytestmark = pytest.mark.django_db


def choice_batch(**fields):
    return task_batch_create(task_type="continue_choice", target_per_item=3, **fields)


def test_imported_pairs_of_a_kind_become_items():
    figurative_import_fixture("idiom")
    figurative_import_fixture("simile")
    batch = choice_batch(settings={"imported": {"kind": "idiom", "split": "any"}})
    pairs = [item.continuation_pair for item in batch.items.all()]
    assert len(pairs) == 3 and {pair.narrative.kind for pair in pairs} == {"idiom"}


def test_answers_are_scored_against_the_known_answer():
    figurative_import_fixture("simile")
    batch = choice_batch(settings={"imported": {"kind": "simile"}})
    assignment = assignment_reserve_next(batch=batch, worker=worker_create())
    pair = assignment.item.continuation_pair
    wrong = 3 - pair.correct
    assert assignment_submit(assignment=assignment, payload={"chosen": wrong}).result == {
        "chosen": wrong
    }
    answer = ContinuationAnswer.objects.get()
    assert (answer.chosen, answer.is_correct) == (wrong, False)


@pytest.mark.parametrize("chosen", [None, 0, 3, "1", True])
def test_a_choice_that_is_not_1_or_2_is_refused(chosen):
    figurative_import_fixture("simile")
    batch = choice_batch(settings={"imported": {"kind": "simile"}})
    assignment = assignment_reserve_next(batch=batch, worker=worker_create())
    with pytest.raises(SubmissionError):
        assignment_submit(assignment=assignment, payload={"chosen": chosen})


def test_approved_continuations_feed_the_chained_batch_but_never_their_author():
    narrative = figurative_narrative_create()
    writing = continuation_batch_create(narratives=[narrative])
    choosing = choice_batch(source_batch=writing)
    assert choosing.items.count() == 0
    author = worker_create()
    assignment = assignment_reserve_next(batch=writing, worker=author)
    assignment_submit(
        assignment=assignment,
        payload={
            "plausible": "She slept well and finished everything the next morning.",
            "implausible": "She stayed at her desk until sunrise typing all night.",
        },
    )
    assignment_approve(assignment=assignment)
    assert choosing.items.get().continuation_pair == ContinuationPair.objects.get()
    with pytest.raises(NoWorkAvailable):
        assignment_reserve_next(batch=choosing, worker=author)
    assert assignment_reserve_next(batch=choosing, worker=worker_create())


def test_page_shows_the_options_in_the_stored_order(client):
    figurative_import_fixture("idiom")
    batch = choice_batch(settings={"imported": {"kind": "idiom"}})
    worker = worker_create()
    client.get(invite_path(worker=worker, batch=batch))
    assignment = assignment_reserve_next(batch=batch, worker=worker)
    pair = assignment.item.continuation_pair
    page = client.get(f"/tasks/a/{assignment.pk}/").content.decode()
    positions = [page.index(escape(pair.option_text(option))) for option in pair.shown_order()]
    assert positions == sorted(positions)
    values = [page.index(f'value="{option}"') for option in pair.shown_order()]
    assert values == sorted(values)


def test_stored_orders_differ_between_pairs():
    narrative = figurative_narrative_create()
    for number in range(12):
        ContinuationPair.objects.create(
            narrative=narrative, option1=f"a{number}", option2=f"b{number}", correct=1
        )
    orders = {shown_first_for(pk) for pk in ContinuationPair.objects.values_list("pk", flat=True)}
    assert orders == {1, 2}


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


def test_a_batch_from_the_dev_split_holds_exactly_the_dev_files_pairs():
    figurative_release_import("idiom_train")
    figurative_release_import("idiom_dev")
    batch = choice_batch(settings={"imported": {"kind": "idiom", "split": "dev"}})
    options = sorted(item.continuation_pair.option1 for item in batch.items.all())
    published = (FIGURATIVE_RELEASE / "idiom_dev.jsonl").read_text().splitlines()
    assert options == sorted(json.loads(line)["option1"] for line in published)


def test_an_answer_to_an_unlabelled_pair_has_no_correctness():
    figurative_release_import("idiom_test")
    batch = choice_batch(settings={"imported": {"kind": "idiom", "split": "test"}})
    assignment = assignment_reserve_next(batch=batch, worker=worker_create())
    assignment_submit(assignment=assignment, payload={"chosen": 1})
    assert ContinuationAnswer.objects.get().is_correct is None


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
