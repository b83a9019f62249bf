"""Shared steps of the Prolific tests: a participant starting on the stand-in and working."""

from crowd.assignments import assignment_submit
from prolific.sessions import session_assignments, session_enter
from tests.factories import BIRDS, BIRDS_STORY, prolific_batch_create, proverb_create

PROVERBS = [BIRDS, "Time is money", "Look before you leap", "Still waters run deep"]


def write_study(**fields):
    """A published write batch of four proverbs run as a study of 3-item sessions."""
    fields.setdefault("target_per_item", 2)
    return prolific_batch_create(proverbs=[proverb_create(text) for text in PROVERBS], **fields)


def take_part(standin, batch, participant_id: str = ""):
    """The participant starts the study on Prolific, then enters Parable with its parameters."""
    submission = standin.state.submission_start(
        study_id=batch.prolific_study.study_id, participant_id=participant_id
    )
    session = session_enter(
        participant_id=submission["participant_id"],
        study_id=submission["study_id"],
        session_id=submission["id"],
    )
    return session, submission


def submit_all(session):
    for assignment in session_assignments(session=session):
        assignment_submit(assignment=assignment, payload={"text": BIRDS_STORY})


def finish_on_prolific(standin, submission):
    """The participant lands on Prolific's completion page with the study's code."""
    study = standin.state.studies[submission["study_id"]]
    code = study["completion_codes"][0]["code"]
    standin.state.submission_set_status(
        submission_id=submission["id"], status="AWAITING REVIEW", code=code
    )


def enter_unchecked(standin, batch, participant_id: str = "forged", session_id: str = "madeup"):
    """An entry Prolific could not be asked about (down at that moment): the session starts
    unvouched, as a forged participant or session id would if Prolific were unreachable."""
    standin.state.fail(path="/submissions/", status=503, count=2)  # the entry check's 2 tries
    try:
        return session_enter(
            participant_id=participant_id,
            study_id=batch.prolific_study.study_id,
            session_id=session_id,
        )
    finally:
        standin.state.failures.clear()
