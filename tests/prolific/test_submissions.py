"""Prolific's submissions: polling and webhooks link them to sessions; only a linked
submission makes work count; RETURNED and TIMED-OUT give slots back."""

import json
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from crowd.assignments import assignment_submit
from crowd.batches import batch_progress
from crowd.models import Assignment
from prolific.models import ParticipantSession, Submission, WebhookEvent
from prolific.sessions import EntryRefused, session_assignments, session_enter
from prolific.signatures import signature
from prolific.submissions import study_sync, webhook_receive, webhook_refusal
from tests.factories import BIRDS_STORY
from tests.prolific.conftest import WEBHOOK_SECRET
from tests.prolific.helpers import (
    enter_unchecked,
    finish_on_prolific,
    submit_all,
    take_part,
    write_study,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def batch(standin):
    return write_study()


def test_polling_links_the_submission_to_its_session(standin, batch):
    session, submission = take_part(standin, batch, "p1")
    submit_all(session)
    finish_on_prolific(standin, submission)
    assert study_sync(study=batch.prolific_study) == 1
    session.refresh_from_db()
    assert session.submission.submission_id == submission["id"]
    assert session.submission.status == "AWAITING REVIEW"
    batch.prolific_study.refresh_from_db()
    assert batch.prolific_study.status == "ACTIVE" and batch.prolific_study.synced_at


def test_forged_participant_id_is_refused_at_entry(standin, batch):
    _, real = take_part(standin, batch, "p1")
    # Someone else types a participant id and the real session id into the URL.
    with pytest.raises(EntryRefused, match="belongs to someone else"):
        session_enter(participant_id="forged", study_id=real["study_id"], session_id=real["id"])
    with pytest.raises(EntryRefused, match="no such session"):
        session_enter(participant_id="forged", study_id=real["study_id"], session_id="madeup")
    assert list(ParticipantSession.objects.values_list("worker__external_id", flat=True)) == ["p1"]
    assert Assignment.objects.count() == 3


def test_entry_links_the_session_to_prolifics_submission_at_once(standin, batch):
    session, submission = take_part(standin, batch, "p1")
    assert session.submission.submission_id == submission["id"]
    assert session.submission.status == "ACTIVE"


def test_session_unchecked_at_entry_is_never_linked_to_another_submission(standin, batch):
    _, real = take_part(standin, batch, "p1")
    fake = enter_unchecked(standin, batch, participant_id="forged", session_id=real["id"])
    submit_all(fake)
    finish_on_prolific(standin, real)
    study_sync(study=batch.prolific_study)
    fake.refresh_from_db()
    assert fake.submission is None
    genuine = ParticipantSession.objects.get(worker__external_id="p1")
    assert genuine.submission.status == "AWAITING REVIEW"


def test_returned_submission_gives_its_slots_back(standin, batch):
    session, submission = take_part(standin, batch, "p1")
    first = session_assignments_list(session)[0]
    assignment_submit(assignment=first, payload={"text": BIRDS_STORY})
    standin.state.submission_set_status(submission_id=submission["id"], status="RETURNED")
    study_sync(study=batch.prolific_study)
    statuses = sorted(a.status for a in session_assignments_list(session))
    assert statuses == ["rejected", "returned", "returned"]
    assert batch_progress(batch=batch)["totals"]["open"] == 8
    session.refresh_from_db()
    assert session.status == ParticipantSession.Status.RETURNED


def test_timed_out_submission_gives_its_slots_back(standin, batch):
    session, submission = take_part(standin, batch, "p1")
    standin.state.submission_set_status(submission_id=submission["id"], status="TIMED-OUT")
    study_sync(study=batch.prolific_study)
    assert {a.status for a in session_assignments_list(session)} == {"returned"}


def test_session_never_vouched_for_is_released_after_its_time(standin, batch):
    fake = enter_unchecked(standin, batch, participant_id="nobody")
    submit_all(fake)
    study_sync(study=batch.prolific_study)
    assert {a.status for a in session_assignments_list(fake)} == {"submitted"}
    later = timezone.now() + timedelta(hours=2)
    study_sync(study=batch.prolific_study, now=later)
    assert {a.status for a in session_assignments_list(fake)} == {"rejected"}
    assert Assignment.objects.filter(status="approved").count() == 0


def session_assignments_list(session):
    return list(session_assignments(session=session))


def signed(body: bytes, *, secret: str = WEBHOOK_SECRET, timestamp: str | None = None):
    timestamp = timestamp or str(int(time.time()))
    return timestamp, signature(secret=secret, timestamp=timestamp, body=body)


def test_signature_is_checked_against_the_secret_and_a_tolerant_clock(settings):
    settings.PROLIFIC_WEBHOOK_SECRET = WEBHOOK_SECRET
    settings.PROLIFIC_WEBHOOK_MAX_SKEW_SECONDS = 3600
    body = b'{"resource_id": "abc"}'
    timestamp, good = signed(body)
    assert webhook_refusal(body=body, timestamp=timestamp, signature_header=good) == ""
    assert "signature" in webhook_refusal(
        body=body + b" ", timestamp=timestamp, signature_header=good
    )
    _, wrong_key = signed(body, secret="guess")
    assert webhook_refusal(body=body, timestamp=timestamp, signature_header=wrong_key)
    skewed, skewed_signature = signed(body, timestamp=str(int(time.time()) - 600))
    assert webhook_refusal(body=body, timestamp=skewed, signature_header=skewed_signature) == ""
    millis, millis_signature = signed(body, timestamp=str(int(time.time() * 1000)))
    assert webhook_refusal(body=body, timestamp=millis, signature_header=millis_signature) == ""
    old, old_signature = signed(body, timestamp=str(int(time.time()) - 7200))
    assert "behind our clock" in webhook_refusal(
        body=body, timestamp=old, signature_header=old_signature
    )
    settings.PROLIFIC_WEBHOOK_SECRET = ""
    assert webhook_refusal(body=body, timestamp=timestamp, signature_header=good)


def test_webhook_reads_the_submission_from_prolific_and_ignores_repeats(standin, batch):
    session, submission = take_part(standin, batch, "p1")
    submit_all(session)
    finish_on_prolific(standin, submission)
    body = json.dumps(
        {
            "resource_id": submission["id"],
            "event_type": "submission.status.change",
            "participant_id": submission["participant_id"],
            "status": "AWAITING REVIEW",
        }
    ).encode()
    assert webhook_receive(body=body, event_id="ev1") == "recorded"
    assert webhook_receive(body=body, event_id="ev1") == "repeat"
    assert WebhookEvent.objects.count() == 1
    session.refresh_from_db()
    assert session.submission.status == "AWAITING REVIEW"
    assert Submission.objects.count() == 1
