"""The choose task type: questions and their stored order, answers, gold items, review."""

from datetime import timedelta

import pytest
from django.utils.html import escape

from annotation.models import Proverb
from annotation.quality.gold import gold_items_add, worker_gold_report
from annotation.task_types.choose.models import ChoiceAnswer, ChoiceQuestion
from annotation.task_types.choose.task import choice_question_create, shuffled_options
from crowd import task_types
from crowd.assignments import NoWorkAvailable, assignment_reserve_next, assignment_submit
from crowd.models import Assignment
from crowd.review import assignment_approve, assignment_reject
from crowd.task_types import SubmissionError
from tests.factories import (
    crowd_narrative_create,
    invite_path,
    narrative_create,
    proverb_create,
    task_batch_create,
    worker_create,
    write_batch_create,
)

pytestmark = pytest.mark.django_db

CHOOSE = task_types.get("choose")
PROVERBS = [
    "Don't count your chickens before they hatch",
    "Time is money",
    "A penny saved is a penny earned",
    "Birds of a feather flock together",
    "The early bird catches the worm",
    "Actions speak louder than words",
    "Haste makes waste",
]


@pytest.fixture
def proverbs():
    return [proverb_create(text) for text in PROVERBS]


@pytest.fixture
def write(proverbs):
    return write_batch_create(proverbs=proverbs[:2])


def story(write, proverb_index=0, **fields):
    proverb = write.items.order_by("id")[proverb_index].proverb
    return crowd_narrative_create(
        proverb=proverb, batch=write, text="Ana sold the eggs before they were laid.", **fields
    )


def test_question_has_the_correct_proverb_and_four_curated_distractors(proverbs):
    proverb_create("A candidate proverb", status="candidate")
    narrative = narrative_create(proverb=proverbs[0], text="Ana sold the eggs too early.")
    question = choice_question_create(narrative=narrative, source="lexical")
    assert len(question.options) == len(set(question.options)) == 5
    assert question.correct == proverbs[0]
    assert proverbs[0].pk in question.options
    assert set(question.options) <= {p.pk for p in proverbs}
    assert question.distractor_source == "lexical"


def test_option_order_is_fixed_by_the_question_id():
    options = [11, 12, 13, 14, 15]
    assert shuffled_options(options, question_id=7) == shuffled_options(
        list(reversed(options)), question_id=7
    )
    orders = {tuple(shuffled_options(options, question_id=n)) for n in range(1, 9)}
    assert len(orders) > 1


def test_stored_order_is_the_shuffle_of_the_question(proverbs):
    narrative = narrative_create(proverb=proverbs[0])
    question = choice_question_create(narrative=narrative, source="random", seed=4)
    question.refresh_from_db()
    assert question.options == shuffled_options(question.options, question_id=question.pk)


def test_questions_are_created_for_approved_narratives_only(write):
    approved = story(write)
    story(write, status="submitted")
    batch = task_batch_create(task_type="choose", source_batch=write, settings={"options": 4})
    item = batch.items.get()
    assert item.narrative == approved
    assert item.choice_question.narrative == approved
    assert len(item.choice_question.options) == 4


def test_answer_is_stored_with_its_correctness_which_the_worker_is_not_told(write):
    narrative = story(write)
    batch = task_batch_create(task_type="choose", source_batch=write)
    assignment = assignment_reserve_next(batch=batch, worker=worker_create())
    question = assignment.item.choice_question
    wrong = next(pk for pk in question.options if pk != narrative.proverb_id)
    outcome = assignment_submit(assignment=assignment, payload={"chosen": wrong})
    answer = ChoiceAnswer.objects.get(assignment=assignment)
    assert (answer.chosen_id, answer.is_correct) == (wrong, False)
    assert outcome.result == {"chosen": wrong}


@pytest.mark.parametrize("chosen", [None, "1", True, 999_999])
def test_a_choice_outside_the_options_is_refused(write, chosen):
    story(write)
    batch = task_batch_create(task_type="choose", source_batch=write)
    assignment = assignment_reserve_next(batch=batch, worker=worker_create())
    with pytest.raises(SubmissionError):
        assignment_submit(assignment=assignment, payload={"chosen": chosen})
    assert not ChoiceAnswer.objects.exists()


def test_page_shows_the_options_in_the_stored_order(client, write):
    story(write)
    batch = task_batch_create(task_type="choose", source_batch=write)
    assignment = assignment_reserve_next(batch=batch, worker=worker_create())
    client.get(invite_path(worker=assignment.worker))
    page = client.get(f"/tasks/a/{assignment.pk}/").content.decode()
    texts = Proverb.objects.in_bulk(assignment.item.choice_question.options)
    positions = [
        page.index(escape(texts[pk].text)) for pk in assignment.item.choice_question.options
    ]
    assert positions == sorted(positions)


def test_gold_items_go_to_every_worker_beyond_the_target(write, proverbs):
    story(write)
    batch = task_batch_create(
        task_type="choose",
        source_batch=write,
        target_per_item=1,
        settings={"gold_min_answers": 1, "gold_min_accuracy": 1.0},
    )
    control = narrative_create(proverb=proverbs[3], text="The twins liked the same things.")
    assert gold_items_add(batch=batch, narratives=[control]) == 1
    gold = batch.items.get(is_gold=True)
    assert gold.gold_answer == {"chosen": proverbs[3].pk}
    workers = [worker_create() for _ in range(3)]
    for worker in workers:
        assignment = assignment_reserve_next(batch=batch, worker=worker)
        assert assignment.item == gold
        question = gold.choice_question
        chosen = (
            proverbs[3].pk
            if worker != workers[2]
            else next(pk for pk in question.options if pk != proverbs[3].pk)
        )
        assignment_submit(assignment=assignment, payload={"chosen": chosen})
    report = worker_gold_report(batch=batch)
    assert [report[w.pk]["flagged"] for w in workers] == [False, False, True]
    # The regular item still takes only one worker.
    assert assignment_reserve_next(batch=batch, worker=workers[0]).item.is_gold is False
    with pytest.raises(NoWorkAvailable):
        assignment_reserve_next(batch=batch, worker=workers[1])


def test_review_list_marks_the_chosen_and_the_correct_option(client, researcher, write):
    narrative = story(write)
    batch = task_batch_create(task_type="choose", source_batch=write)
    assignment = assignment_reserve_next(batch=batch, worker=worker_create())
    assignment_submit(assignment=assignment, payload={"chosen": narrative.proverb_id})
    client.force_login(researcher)
    html = client.get(f"/admin/annotation/choiceanswer/?batch={batch.pk}").content.decode()
    assert f"✔ ● {escape(narrative.proverb.text)}" in html
    assert ChoiceQuestion.objects.count() == 1


def test_results_list_every_answer_with_its_options(write):
    narrative = story(write)
    batch = task_batch_create(task_type="choose", source_batch=write)
    assignment = assignment_reserve_next(batch=batch, worker=worker_create())
    assignment_submit(assignment=assignment, payload={"chosen": narrative.proverb_id})
    [record] = CHOOSE.batch_results(batch=batch)
    assert record["options"] == assignment.item.choice_question.options
    assert (record["correct"], record["chosen"], record["is_correct"]) == (
        narrative.proverb_id,
        narrative.proverb_id,
        True,
    )


def gold_batch(write, proverbs):
    story(write)
    batch = task_batch_create(task_type="choose", source_batch=write, target_per_item=1)
    control = narrative_create(proverb=proverbs[3], text="The twins liked the same things.")
    gold_items_add(batch=batch, narratives=[control])
    return batch, proverbs[3].pk


def test_a_late_answer_to_a_gold_item_is_kept_whoever_else_answered(write, proverbs):
    batch, answer = gold_batch(write, proverbs)
    late = assignment_reserve_next(batch=batch, worker=worker_create())
    other = assignment_reserve_next(batch=batch, worker=worker_create())
    assignment_submit(assignment=other, payload={"chosen": answer})
    Assignment.objects.filter(pk=late.pk).update(expires_at=late.started_at + timedelta(seconds=1))
    late.refresh_from_db()
    assignment_submit(assignment=late, payload={"chosen": answer})
    assert ChoiceAnswer.objects.filter(assignment__item__is_gold=True).count() == 2


def test_a_rejected_gold_answer_can_be_approved_later(write, proverbs):
    batch, answer = gold_batch(write, proverbs)
    first = assignment_reserve_next(batch=batch, worker=worker_create())
    assignment_submit(assignment=first, payload={"chosen": answer})
    assignment_reject(assignment=first, message="Too fast.")
    second = assignment_reserve_next(batch=batch, worker=worker_create())
    assignment_submit(assignment=second, payload={"chosen": answer})
    assert assignment_approve(assignment=first).status == "approved"
