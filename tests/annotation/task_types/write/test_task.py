"""The write task type: settings, page context, server check with the page's messages, storage."""

import json
from pathlib import Path

import pytest

from annotation.models import Narrative
from annotation.quality.integrity import IntegritySettings, telemetry_clean
from annotation.task_types.write.task import MAX_CHARACTERS, WriteBatchForm
from annotation.text import check_overlap, load_stopwords
from crowd import task_types
from crowd.assignments import assignment_reserve_next, assignment_submit
from crowd.review import assignment_reject
from crowd.task_types import SubmissionError
from tests.factories import (
    BIRDS,
    BIRDS_STORY,
    proverb_create,
    worker_create,
    write_batch_create,
    writing_record,
)

pytestmark = pytest.mark.django_db

CASES = json.loads(
    (Path(__file__).resolve().parents[3] / "cases" / "overlap.json").read_text(encoding="utf-8")
)
WRITE = task_types.get("write")


def reserve(**batch_fields):
    batch = write_batch_create(proverbs=[proverb_create(BIRDS)], **batch_fields)
    return assignment_reserve_next(batch=batch, worker=worker_create())


def test_page_context_gives_the_meter_its_proverb_rules_and_stopwords():
    assignment = reserve(settings={"rules": {"max_words": 120}})
    config = WRITE.page_context(assignment=assignment)["task_config"]
    assert config["proverb"] == BIRDS
    assert config["rules"] == {
        "max_shared_ngram": 2,
        "max_shared_content_words": 2,
        "min_words": 20,
        "max_words": 120,
    }
    assert set(config["stopwords"]) == load_stopwords()


def test_story_echoing_the_proverb_is_refused_with_the_pages_message():
    assignment = reserve()
    story = (
        "The twins were birds of a feather: whenever the town held a fair, they would flock "
        "to the same stall and argue happily about the same old songs."
    )
    with pytest.raises(SubmissionError) as refused:
        WRITE.validate(assignment=assignment, payload={"text": story})
    violations = check_overlap(BIRDS, story)["violations"]
    assert refused.value.details == {"violations": violations}
    assert refused.value.message == " ".join(violation["message"] for violation in violations)
    assert refused.value.message.startswith(
        'Your story repeats the phrase "birds of a feather" from the proverb. Rephrase it.'
    )


@pytest.mark.parametrize("case", CASES["cases"], ids=lambda case: case["name"])
def test_server_accepts_exactly_what_the_shared_cases_accept(case):
    """The server's verdict on each shared case is the page's: its `ok` and its messages."""
    rules = {**CASES["rules"], **case.get("rules", {})}
    batch = write_batch_create(
        proverbs=[proverb_create(case["proverb"])], settings={"rules": rules}
    )
    assignment = assignment_reserve_next(batch=batch, worker=worker_create())
    text = " ".join([case["narrative"]] * case.get("repeat", 1))
    if not text.strip():
        with pytest.raises(SubmissionError, match="Write your story"):
            WRITE.validate(assignment=assignment, payload={"text": text})
    elif case["expected"]["ok"]:
        assert WRITE.validate(assignment=assignment, payload={"text": text})["check"]["ok"]
    else:
        with pytest.raises(SubmissionError) as refused:
            WRITE.validate(assignment=assignment, payload={"text": text})
        messages = [violation["message"] for violation in case["expected"]["violations"]]
        assert refused.value.message == " ".join(messages)


@pytest.mark.parametrize("payload", [{}, {"text": 12}, {"text": "   \n "}])
def test_missing_or_empty_text_is_refused(payload):
    with pytest.raises(SubmissionError, match="Write your story in the box"):
        WRITE.validate(assignment=reserve(), payload=payload)


def test_huge_text_is_refused_before_checking():
    with pytest.raises(SubmissionError, match="longer than 20,000 characters"):
        WRITE.validate(assignment=reserve(), payload={"text": "word " * MAX_CHARACTERS})


def test_batch_length_bounds_apply():
    assignment = reserve(settings={"rules": {"min_words": 40}})
    with pytest.raises(SubmissionError, match="write at least 40"):
        WRITE.validate(assignment=assignment, payload={"text": BIRDS_STORY})


def test_stored_narrative_records_worker_word_count_and_overlap():
    assignment = reserve()
    assignment_submit(assignment=assignment, payload={"text": f"  {BIRDS_STORY}\n"})
    narrative = Narrative.objects.get()
    assert narrative.text == BIRDS_STORY
    assert narrative.source == Narrative.Source.CROWD
    assert narrative.status == Narrative.Status.SUBMITTED
    assert (narrative.worker, narrative.assignment) == (assignment.worker, assignment)
    assert narrative.word_count == 30
    assert narrative.overlap == {
        "1": {"shared": 1, "proverb": 6, "ratio": 0.1667},
        "2": {"shared": 0, "proverb": 5, "ratio": 0.0},
        "3": {"shared": 0, "proverb": 4, "ratio": 0.0},
        "shared_words": ["a"],
        "shared_content_words": [],
        "longest_shared_ngram": ["a"],
    }


def test_rejection_marks_the_narrative_and_keeps_the_message():
    assignment = reserve()
    assignment_submit(assignment=assignment, payload={"text": BIRDS_STORY})
    assignment_reject(assignment=assignment, message="Please write a story, not a list.")
    narrative = Narrative.objects.get()
    assert narrative.status == Narrative.Status.REJECTED
    assert narrative.review_message == "Please write a story, not a list."
    assert narrative.keywords == {}


def test_batch_form_makes_one_item_per_chosen_curated_proverb():
    chosen = [proverb_create(), proverb_create()]
    proverb_create(status="candidate")
    form = WriteBatchForm(
        data={
            "name": "Pilot",
            "proverbs": [proverb.pk for proverb in chosen],
            "target_per_item": 3,
            "per_worker_cap": 5,
            "reward": "0.50",
            "time_allowed_minutes": 20,
            "instructions": "",
            "min_words": 30,
            "max_words": 120,
            "max_shared_ngram": 2,
            "max_shared_content_words": 1,
        }
    )
    assert form.is_valid(), form.errors
    fields = form.batch_fields()
    assert fields["time_allowed_seconds"] == 1200
    assert fields["settings"] == {
        "rules": {
            "max_shared_ngram": 2,
            "max_shared_content_words": 1,
            "min_words": 30,
            "max_words": 120,
        },
        "integrity": IntegritySettings().to_dict(),
    }
    assert [item["proverb"] for item in fields["items"]] == chosen
    assert form.fields["proverbs"].queryset.count() == 2


def test_batch_form_refuses_crossed_length_bounds():
    form = WriteBatchForm(
        data={
            "name": "Pilot",
            "proverbs": [proverb_create().pk],
            "target_per_item": 3,
            "reward": "0",
            "time_allowed_minutes": 20,
            "min_words": 200,
            "max_words": 100,
            "max_shared_ngram": 2,
            "max_shared_content_words": 2,
        }
    )
    assert not form.is_valid()
    assert "must not exceed" in str(form.errors)


def test_writing_record_is_stored_with_the_narrative():
    assignment = reserve()
    record = writing_record(typed=len(BIRDS_STORY))
    assignment_submit(assignment=assignment, payload={"text": BIRDS_STORY, "telemetry": record})
    assert Narrative.objects.get().integrity.telemetry == telemetry_clean(record)


def test_malformed_writing_record_is_refused_and_nothing_is_stored():
    assignment = reserve()
    with pytest.raises(SubmissionError, match="Unknown key"):
        assignment_submit(
            assignment=assignment,
            payload={"text": BIRDS_STORY, "telemetry": {"keystrokes": "Maya and"}},
        )
    assert not Narrative.objects.exists()


def test_paste_refusing_batch_refuses_a_pasted_story():
    assignment = reserve(settings={"integrity": {"refuse_paste": True}})
    record = writing_record(typed=0, pasted=len(BIRDS_STORY), paste_events=1)
    with pytest.raises(SubmissionError, match="does not accept pasted text"):
        assignment_submit(assignment=assignment, payload={"text": BIRDS_STORY, "telemetry": record})
    with pytest.raises(SubmissionError, match="sent no record"):
        assignment_submit(assignment=assignment, payload={"text": BIRDS_STORY})
    assert not Narrative.objects.exists()
    assignment_submit(
        assignment=assignment, payload={"text": BIRDS_STORY, "telemetry": writing_record()}
    )
    assert Narrative.objects.count() == 1


def test_page_context_tells_the_page_whether_pasting_is_refused():
    assignment = reserve(settings={"integrity": {"refuse_paste": True}})
    context = WRITE.page_context(assignment=assignment)
    assert context["refuse_paste"] is True
    assert context["task_config"]["refuse_paste"] is True


def test_batch_settings_refuse_unknown_integrity_thresholds():
    with pytest.raises(ValueError, match="Unknown integrity setting"):
        WRITE.clean_settings({"integrity": {"max_paste": 0.2}})
    cleaned = WRITE.clean_settings({"integrity": {"max_pasted_share": 0.2}})
    assert cleaned["integrity"]["max_pasted_share"] == 0.2
