"""Participants' sessions: entry with Prolific's parameters, several items held together,
resuming, refusing a second run, finishing with the completion code."""

import pytest

from crowd.models import Assignment, Worker
from prolific.models import ParticipantSession
from prolific.sessions import (
    EntryRefused,
    session_assignments,
    session_enter,
    session_finish,
    session_next,
)
from tests.prolific.helpers import submit_all, take_part, write_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def batch(standin):
    return write_study()


def test_entry_reserves_a_session_of_distinct_items(standin, batch):
    session, submission = take_part(standin, batch, "p1")
    assignments = list(session_assignments(session=session))
    assert len(assignments) == 3
    assert len({a.item_id for a in assignments}) == 3
    assert {a.provider_assignment_id for a in assignments} == {submission["id"]}
    assert session.worker.provider == "prolific"
    assert session.worker.external_id == "p1"


def test_returning_participant_resumes_the_same_items(standin, batch):
    session, submission = take_part(standin, batch, "p1")
    first = session_next(session=session)
    again = session_enter(
        participant_id="p1", study_id=submission["study_id"], session_id=submission["id"]
    )
    assert again.pk == session.pk
    assert session_next(session=again) == first
    assert Assignment.objects.filter(worker=session.worker).count() == 3


def test_second_start_after_finishing_is_refused(standin, batch):
    session, _ = take_part(standin, batch, "p1")
    submit_all(session)
    assert session_next(session=session) is None
    url = session_finish(session=session)
    assert url == f"{standin.url}/submissions/complete?cc={batch.prolific_study.completion_code}"
    with pytest.raises(EntryRefused, match="already completed"):
        take_part(standin, batch, "p1")
    assert ParticipantSession.objects.count() == 1


def test_items_are_shared_out_under_the_target(standin, batch):
    sessions = [take_part(standin, batch, f"p{n}")[0] for n in range(3)]
    held = Assignment.objects.filter(status=Assignment.Status.RESERVED)
    assert held.count() == 8  # 4 items x 2 workers; the third session gets the last 2
    assert len(session_assignments(session=sessions[2])) == 2
    with pytest.raises(EntryRefused, match="no tasks left"):
        take_part(standin, batch, "p4")


def test_entry_without_the_parameters_is_refused(standin, batch):
    with pytest.raises(EntryRefused, match="missing Prolific's details") as refused:
        session_enter(participant_id="", study_id=batch.prolific_study.study_id, session_id="s1")
    assert refused.value.status == 400
    with pytest.raises(EntryRefused, match="not run here"):
        session_enter(participant_id="p1", study_id="nostudy", session_id="s1")
    with pytest.raises(EntryRefused):
        session_enter(participant_id="<script>", study_id="x", session_id="s1")
    assert not Worker.objects.filter(provider="prolific").exists()


def test_blocked_participant_gets_no_items(standin, batch):
    Worker.objects.create(
        provider="prolific", external_id="p1", blocked=True, blocked_reason="Spam"
    )
    with pytest.raises(EntryRefused, match="cannot take tasks"):
        take_part(standin, batch, "p1")
