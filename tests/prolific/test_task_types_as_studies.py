"""Align and rate batches run as Prolific studies: a session of several items, vouched for,
approved on Prolific."""

import pytest

from crowd.assignments import assignment_submit
from crowd.models import Assignment
from crowd.review import assignment_approve
from prolific.sessions import session_assignments, session_next
from prolific.submissions import study_sync
from tests.factories import (
    crowd_narrative_create,
    prolific_batch_create,
    proverb_create,
    write_batch_create,
)
from tests.prolific.helpers import finish_on_prolific, take_part

pytestmark = pytest.mark.django_db

STORIES = {
    "Don't count your chickens before they hatch": (
        "Ana sold the eggs before the hens had even laid them, and lost the deal.",
        ("chickens", "eggs"),
    ),
    "Look before you leap": (
        "Tom jumped into the river without checking how deep it was.",
        ("leap", "jumped"),
    ),
}


@pytest.fixture
def source():
    write = write_batch_create(proverbs=[proverb_create(text) for text in STORIES])
    for item in write.items.all():
        crowd_narrative_create(
            proverb=item.proverb, text=STORIES[item.proverb.text][0], batch=write
        )
    return write


def span(text: str, phrase: str) -> dict:
    start = text.index(phrase)
    return {"start": start, "end": start + len(phrase), "text": phrase}


def align_payload(assignment: Assignment) -> dict:
    narrative = assignment.item.narrative
    proverb_phrase, story_phrase = STORIES[narrative.proverb.text][1]
    return {
        "pairs": [
            {
                "proverb": span(narrative.proverb.text, proverb_phrase),
                "narrative": span(narrative.text, story_phrase),
            }
        ]
    }


def rate_payload(assignment: Assignment) -> dict:
    criteria = assignment.item.batch.settings["criteria"]
    return {"ratings": {criterion["key"]: 4 for criterion in criteria}}


@pytest.mark.parametrize(
    ("task_type", "payload"), [("align", align_payload), ("rate", rate_payload)]
)
def test_a_session_of_two_items_is_done_vouched_and_approved(
    standin, source, task_type, payload, django_capture_on_commit_callbacks
):
    batch = prolific_batch_create(task_type=task_type, source_batch=source, items_per_session=2)
    session, submission = take_part(standin, batch, "p1")
    assignments = list(session_assignments(session=session))
    assert len(assignments) == 2
    for assignment in assignments:
        assignment_submit(assignment=assignment, payload=payload(assignment))
    assert session_next(session=session) is None
    finish_on_prolific(standin, submission)
    study_sync(study=batch.prolific_study)
    for assignment in assignments:
        with django_capture_on_commit_callbacks(execute=True):
            assignment_approve(assignment=assignment)
    assert standin.state.submissions[submission["id"]]["status"] == "APPROVED"
    assert Assignment.objects.filter(item__batch=batch, status="approved").count() == 2
