"""The continuation task: overlap with the meaning refused, the two sentences must differ,
literal-use flags confirmed by approval, approved continuations become option pairs."""

import pytest

from annotation.datasets.figurative import figurative_export_lines
from annotation.models import ContinuationPair, FigurativeNarrative
from annotation.quality.reports import batch_agreement
from annotation.task_types.continuation.models import Continuation
from annotation.task_types.continuation.task import ContinuationBatchForm, continuation_check
from crowd.assignments import NoWorkAvailable, assignment_reserve_next, assignment_submit
from crowd.batches import batch_progress
from crowd.review import assignment_approve, assignment_reject
from crowd.task_types import SubmissionError
from tests.factories import (
    continuation_batch_create,
    figurative_import_fixture,
    figurative_narrative_create,
    invite_path,
    task_batch_create,
    worker_create,
)

pytestmark = pytest.mark.django_db

PLAUSIBLE = "She slept well and finished everything the next morning."
IMPLAUSIBLE = "She stayed at her desk until sunrise typing all night."
RULES = {"max_shared_ngram": 1, "max_shared_content_words": 0, "min_words": 5, "max_words": 25}


@pytest.fixture
def narrative():
    return figurative_narrative_create()


@pytest.fixture
def assignment(narrative):
    batch = continuation_batch_create(narratives=[narrative])
    return assignment_reserve_next(batch=batch, worker=worker_create())


def test_words_of_the_meaning_are_refused_with_the_sentence_named():
    problems = continuation_check(
        meaning="to stop working on something",
        plausible="She decided to stop working and went home to rest.",
        implausible=IMPLAUSIBLE,
        rules=RULES,
    )
    assert [(p["field"], p["rule"]) for p in problems] == [
        ("plausible", "ngram"),
        ("plausible", "content_words"),
    ]
    assert problems[1]["message"] == (
        "Your plausible sentence uses words of the meaning (stop, working): rephrase it."
    )


def test_the_two_sentences_must_differ_beyond_case_and_punctuation():
    problems = continuation_check(
        meaning="very light", plausible=PLAUSIBLE, implausible=PLAUSIBLE.upper() + "!", rules=RULES
    )
    assert [p["rule"] for p in problems] == ["same"]


def test_length_bounds_apply_to_each_sentence():
    problems = continuation_check(
        meaning="very light", plausible="Too short.", implausible=IMPLAUSIBLE, rules=RULES
    )
    assert problems[0]["message"] == "Your plausible sentence has 2 words; write at least 5."


def test_submit_with_the_meaning_in_it_is_refused_and_nothing_stored(assignment):
    with pytest.raises(SubmissionError, match="words of the meaning"):
        assignment_submit(
            assignment=assignment,
            payload={
                "plausible": "She went home to stop working for once.",
                "implausible": IMPLAUSIBLE,
            },
        )
    assert not Continuation.objects.exists()


def test_approved_continuation_becomes_an_option_pair_with_the_plausible_one_correct(assignment):
    assignment_submit(
        assignment=assignment, payload={"plausible": PLAUSIBLE, "implausible": IMPLAUSIBLE}
    )
    assignment_approve(assignment=assignment)
    pair = ContinuationPair.objects.get()
    assert pair.source == "crowd"
    assert (pair.option1 if pair.correct == 1 else pair.option2) == PLAUSIBLE
    assert {pair.option1, pair.option2} == {PLAUSIBLE, IMPLAUSIBLE}

    choosing = task_batch_create(
        task_type="continue_choice", target_per_item=3, source_batch=assignment.item.batch
    )
    answer = assignment_reserve_next(batch=choosing, worker=worker_create())
    assignment_submit(assignment=answer, payload={"chosen": pair.correct})
    assignment_reject(assignment=assignment, message="Copied from elsewhere.")
    pair.refresh_from_db()
    assert pair.withdrawn and pair.answers.count() == 1
    with pytest.raises(NoWorkAvailable):
        assignment_reserve_next(batch=choosing, worker=worker_create())
    assert figurative_export_lines(kind="idiom")[0].count("option1") == 0
    assert batch_agreement(batch=choosing)["continue_choice"]["answers"] == 0

    assignment_approve(assignment=assignment)
    pair.refresh_from_db()
    assert not pair.withdrawn


def test_rejecting_an_approved_literal_flag_withdraws_the_confirmation(assignment, narrative):
    assignment_submit(assignment=assignment, payload={"literal_use": True})
    assignment_approve(assignment=assignment)
    assignment_reject(assignment=assignment, message="The idiom is figurative here.")
    narrative.refresh_from_db()
    assert not narrative.literal_use_confirmed


def test_literal_flag_needs_no_sentences_and_approval_confirms_it(assignment, narrative):
    outcome = assignment_submit(assignment=assignment, payload={"literal_use": True})
    assert outcome.result["literal_use"] is True
    assignment_approve(assignment=assignment)
    narrative.refresh_from_db()
    assert narrative.literal_use_confirmed
    assert not ContinuationPair.objects.exists()
    with pytest.raises(NoWorkAvailable):
        assignment_reserve_next(batch=assignment.item.batch, worker=worker_create())


def test_a_literal_flag_withdraws_the_narratives_crowd_work_only_and_progress_says_so():
    figurative_import_fixture("idiom")
    narrative = FigurativeNarrative.objects.get(expression="call it a day")  # 2 imported pairs
    writing = continuation_batch_create(narratives=[narrative], target_per_item=3)
    written = assignment_reserve_next(batch=writing, worker=worker_create())
    assignment_submit(
        assignment=written, payload={"plausible": PLAUSIBLE, "implausible": IMPLAUSIBLE}
    )
    assignment_approve(assignment=written)  # a crowd pair of the narrative
    choosing = task_batch_create(
        task_type="continue_choice",
        target_per_item=2,
        source_batch=writing,
        settings={"imported": {"kind": "idiom", "split": "any"}},
    )
    assert choosing.items.count() == 4  # 3 imported pairs, 1 crowd pair
    flagged = assignment_reserve_next(batch=writing, worker=worker_create())
    assignment_submit(assignment=flagged, payload={"literal_use": True})
    assignment_approve(assignment=flagged)

    crowd_item = choosing.items.get(continuation_pair__source="crowd")
    progress = batch_progress(batch=choosing)
    by_item = {row["item"]: row for row in progress["items"]}
    assert by_item[crowd_item.pk]["open"] == 0 and by_item[crowd_item.pk]["withdrawn"]
    totals = progress["totals"]
    assert (totals["target"], totals["open"], totals["withdrawn_items"]) == (6, 6, 1)
    assert batch_progress(batch=writing)["totals"]["open"] == 0
    # The imported pairs, this narrative's included, are still served; the crowd pair not.
    served = set()
    for _ in range(3):
        served.add(assignment_reserve_next(batch=choosing, worker=worker_create()).item_id)
    assert served == set(choosing.items.exclude(pk=crowd_item.pk).values_list("pk", flat=True))
    exported = [line for line in figurative_export_lines(kind="idiom") if "call it a day" in line]
    assert len(exported) == 2 and not any(PLAUSIBLE in line for line in exported)

    assignment_reject(assignment=flagged, message="The idiom is figurative here.")
    crowd_item.refresh_from_db()
    assert crowd_item.withdrawn_at is None
    assert batch_progress(batch=writing)["totals"]["open"] == 2  # 3 wanted, 1 approved


def test_batch_form_takes_3_to_10_workers_and_the_narratives_of_a_kind():
    figurative_import_fixture("idiom")
    figurative_import_fixture("simile")
    data = {
        "name": "Idioms",
        "kind": "idiom",
        "split": "",
        "seed": 1,
        "target_per_item": 11,
        "reward": "0",
        "time_allowed_minutes": 10,
        "min_words": 5,
        "max_words": 25,
        "max_shared_ngram": 1,
        "max_shared_content_words": 0,
    }
    assert "target_per_item" in ContinuationBatchForm(data).errors
    form = ContinuationBatchForm({**data, "target_per_item": 3})
    assert form.is_valid(), form.errors
    kinds = {item["figurative_narrative"].kind for item in form.batch_items()}
    assert kinds == {"idiom"} and len(form.batch_items()) == 2


def test_settings_outside_the_rules_are_refused():
    from crowd import task_types

    with pytest.raises(ValueError, match="Unknown"):
        task_types.get("continue").clean_settings({"rules": {"max_sentences": 1}})


def test_page_highlights_the_expression_and_escapes_the_text(client):
    narrative = figurative_narrative_create(
        text="<script>alert(1)</script> Ana decided to call it a day."
    )
    batch = continuation_batch_create(narratives=[narrative])
    worker = worker_create()
    client.get(invite_path(worker=worker, batch=batch))
    assignment = assignment_reserve_next(batch=batch, worker=worker)
    page = client.get(f"/tasks/a/{assignment.pk}/").content.decode()
    assert '<mark class="expression" data-testid="expression">call it a day</mark>' in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "to stop working on something" in page
    assert FigurativeNarrative.objects.count() == 1
