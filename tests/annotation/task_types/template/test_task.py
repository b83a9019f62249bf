"""The template type: an answer stored once as MTurk records it, each free-text field's
writing record and the time away, the batch's rules (paste, canary) held, and review."""

import pytest

from annotation.task_types.template.models import TemplateAnswer
from crowd import task_types
from crowd.assignments import assignment_reserve_next, assignment_submit
from crowd.batches import batch_create, batch_publish
from crowd.task_types import SubmissionConflict, SubmissionError
from tests.annotation.task_types.template.helpers import template_batch
from tests.factories import worker_create, writing_record

pytestmark = pytest.mark.django_db

AWAY = {"tab_switches": 2, "hidden_ms": 41_000, "blurs": 3, "blurred_ms": 5_200}


def reserved(**settings):
    batch = batch_publish(batch=template_batch(**settings))
    return assignment_reserve_next(batch=batch, worker=worker_create())


def payload(**extra):
    fields = [
        ["sentiment", "positive"],
        ["aspects", "price"],
        ["aspects", " quality "],
        ["explanation", "  Quick delivery, weak battery. "],
        ["read_seconds", "12"],
    ]
    return {"fields": fields, "writing": {"explanation": writing_record(version=3)}, **extra}


def test_the_answer_is_stored_as_mturk_records_it():
    assignment = reserved()
    outcome = assignment_submit(assignment=assignment, payload=payload(away=AWAY))
    answer = TemplateAnswer.objects.get()
    assert answer.answers == {
        "sentiment": "positive",
        "aspects": "price|quality",  # several values of a name, joined as MTurk joins them
        "explanation": "Quick delivery, weak battery.",
        "read_seconds": "12",
    }
    assert answer.row == assignment.item.template_row
    assert answer.writing["explanation"]["typed"] == 160
    assert answer.away == AWAY
    assert outcome.result == {"answer": answer.pk, "answers": answer.answers}


def test_a_replayed_submit_returns_the_stored_answer_and_another_changes_nothing():
    assignment = reserved()
    first = assignment_submit(assignment=assignment, payload=payload(), submission_key="k1")
    again = assignment_submit(assignment=assignment, payload=payload(), submission_key="k1")
    assert again.replayed and again.result == first.result
    forged = {"fields": [["sentiment", "negative"]]}
    with pytest.raises(SubmissionConflict):
        assignment_submit(assignment=assignment, payload=forged, submission_key="k2")
    assert TemplateAnswer.objects.get().answers["sentiment"] == "positive"


def test_a_field_without_a_writing_record_or_time_away_is_stored_as_unknown():
    assignment_submit(assignment=reserved(), payload={"fields": [["explanation", "ok"]]})
    answer = TemplateAnswer.objects.get()
    assert answer.writing == {} and answer.away is None


@pytest.mark.parametrize(
    ("sent", "reason"),
    [
        ({"fields": "sentiment=positive"}, "could not be read"),
        ({"fields": [["sentiment"]]}, "could not be read"),
        ({"fields": [["sentiment", 3]]}, "could not be read"),
        ({"fields": [["n", "x" * 1_000_001]]}, "too long"),
        ({"fields": [], "writing": {"explanation": {"typed": -1}}}, "out of range"),
        ({"fields": [], "away": {"tab_switches": "many"}}, "must be a number"),
    ],
)
def test_an_answer_the_page_would_not_send_is_refused_and_nothing_stored(sent, reason):
    with pytest.raises(SubmissionError, match=reason):
        assignment_submit(assignment=reserved(), payload=sent)
    assert not TemplateAnswer.objects.exists()


def test_a_paste_refusing_batch_refuses_pasted_text_in_a_free_text_field():
    assignment = reserved(integrity={"refuse_paste": True})
    pasted = payload()
    pasted["writing"]["explanation"] = writing_record(typed=5, pasted=150, paste_events=1)
    with pytest.raises(SubmissionError, match="does not accept pasted text"):
        assignment_submit(assignment=assignment, payload=pasted)


def test_review_shows_the_layout_the_fields_and_what_the_records_say():
    assignment = reserved(integrity={"canary_word": "quixotic"})
    sent = payload(away=AWAY)
    sent["fields"][3] = ["explanation", "A quixotic battery."]
    sent["writing"]["explanation"] = writing_record(typed=10, pasted=150, paste_events=1)
    assignment_submit(assignment=assignment, payload=sent)
    display = task_types.get("template").review_display(assignment=assignment)
    assert display["kind"] == "frame" and display["frame_url"].startswith("/tasks/frame/")
    assert display["fields"][1] == ["aspects", "price|quality"]
    assert display["notes"][0] == (
        "Left the page 2 time(s) for another tab and lost its focus 3 time(s); away 46 s in all."
    )
    assert any(note.startswith("explanation: 150 of the story's") for note in display["notes"])
    assert "explanation: uses the hidden canary word." in display["notes"]


def test_a_batch_on_an_uploaded_template_takes_its_rows_as_items():
    first = template_batch()
    again = batch_create(
        name="The same HITs again",
        task_type="template",
        settings={"template": first.settings["template"]},
    )
    assert again.items.count() == first.items.count() == 5
    with pytest.raises(ValueError, match="No HIT template 999"):
        batch_create(name="x", task_type="template", settings={"template": 999})
