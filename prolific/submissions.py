"""Prolific's submissions: recorded from its listing (polling) and from verified webhooks,
linked to the session whose SESSION_ID they carry, and acted on.

Work counts only through a linked submission: a session with none (a forged
participant id, a made-up session id) is left unlinked, flagged in the admin and
never approved. A RETURNED or TIMED-OUT submission gives the session's slots back.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from crowd.models import Assignment
from crowd.review import assignment_reject
from prolific.client import ProlificClient
from prolific.models import ParticipantSession, Study, Submission, WebhookEvent
from prolific.sessions import session_assignments
from prolific.signatures import signature

FREEING = {"RETURNED", "TIMED-OUT"}
SIGNATURE_MAX_AGE_SECONDS = 300
RETURNED_MESSAGE = (
    "This study was returned or timed out on Prolific, so this task is not counted and its "
    "place has gone back to the pool for another participant. Thank you for your time."
)
UNVOUCHED_MESSAGE = (
    "Prolific has no submission from this participant for this session, so this work cannot "
    "be counted or paid. If you took part through Prolific, please contact the researcher."
)


def _parse_time(value):
    return parse_datetime(value) if isinstance(value, str) else None


def submission_record(*, study: Study, data: dict) -> Submission:
    """Store what Prolific says about one submission and act on it."""
    participant_id = str(data.get("participant_id") or data.get("participant") or "")
    with transaction.atomic():
        submission, _ = Submission.objects.update_or_create(
            submission_id=str(data["id"]),
            defaults={
                "study": study,
                "participant_id": participant_id,
                "status": str(data.get("status", "")),
                "study_code": str(data.get("study_code") or ""),
                "started_at": _parse_time(data.get("started_at")),
                "completed_at": _parse_time(data.get("completed_at")),
            },
        )
        # Only the session that this participant opened with this SESSION_ID is vouched for.
        session = (
            ParticipantSession.objects.select_for_update()
            .filter(
                study=study,
                session_id=submission.submission_id,
                worker__external_id=participant_id,
            )
            .first()
        )
        if session is None:
            return submission
        if session.submission_id != submission.pk:
            session.submission = submission
            session.save(update_fields=["submission"])
        if submission.status in FREEING:
            _session_release(session=session)
    return submission


def _session_release(*, session: ParticipantSession) -> None:
    """Give a returned or timed-out session's slots back; its stored work is not counted."""
    session.status = ParticipantSession.Status.RETURNED
    session.save(update_fields=["status"])
    assignments = session_assignments(session=session)
    assignments.filter(status=Assignment.Status.RESERVED).update(status=Assignment.Status.RETURNED)
    for assignment in assignments.filter(status=Assignment.Status.SUBMITTED):
        assignment_reject(assignment=assignment, message=RETURNED_MESSAGE)


def study_sync(*, study: Study, client: ProlificClient | None = None, now=None) -> int:
    """Poll Prolific for the study and every submission (all pages); returns submissions seen.

    Sessions still without a submission long after their time ran out are rejected
    locally (never on Prolific: there is nothing there), which frees their slots.
    """
    client = client or ProlificClient()
    now = now or timezone.now()
    if not study.study_id:
        return 0
    remote = client.study_get(study_id=study.study_id)
    rows = client.study_submissions(study_id=study.study_id)
    for data in rows:
        submission_record(study=study, data=data)
    Study.objects.filter(pk=study.pk).update(
        status=remote.get("status", study.status), synced_at=now
    )
    unvouched_release(study=study, now=now)
    return len(rows)


def unvouched_release(*, study: Study, now=None) -> int:
    """Reject, locally, submitted work of sessions Prolific never vouched for in time."""
    now = now or timezone.now()
    grace = timedelta(seconds=study.batch.time_allowed_seconds + settings.PROLIFIC_SYNC_SECONDS)
    stale = ParticipantSession.objects.filter(
        study=study, submission__isnull=True, started_at__lt=now - grace
    ).select_related("study")
    released = 0
    for session in stale:
        for assignment in session_assignments(session=session).filter(
            status=Assignment.Status.SUBMITTED
        ):
            assignment_reject(assignment=assignment, message=UNVOUCHED_MESSAGE)
            released += 1
    return released


def webhook_verified(*, body: bytes, timestamp: str, signature_header: str, now=None) -> bool:
    """Whether a delivery is Prolific's: the workspace secret's signature over timestamp +
    body, and a timestamp within five minutes (so old deliveries cannot be replayed)."""
    secret = settings.PROLIFIC_WEBHOOK_SECRET
    if not (secret and timestamp and signature_header and timestamp.isdigit()):
        return False
    now = time.time() if now is None else now
    if abs(now - int(timestamp)) > SIGNATURE_MAX_AGE_SECONDS:
        return False
    expected = signature(secret=secret, timestamp=timestamp, body=body)
    return hmac.compare_digest(expected.encode(), signature_header.encode())


class WebhookRejected(ValueError):
    """A verified delivery that cannot be used (not JSON, no submission id)."""


def webhook_receive(*, body: bytes, timestamp: str, client: ProlificClient | None = None) -> str:
    """Handle a verified delivery once: "repeat", "ignored" or "recorded".

    The delivery only says which submission changed; its state is read from
    Prolific's API, so a delivery can never make work count on its own.
    """
    try:
        event = json.loads(body)
    except ValueError:
        raise WebhookRejected("The delivery is not JSON.") from None
    if not isinstance(event, dict) or not event.get("resource_id"):
        raise WebhookRejected("The delivery names no submission.")
    event_id = str(event.get("event_id") or hashlib.sha256(timestamp.encode() + body).hexdigest())
    client = client or ProlificClient()
    try:
        with transaction.atomic():
            WebhookEvent.objects.create(
                event_id=event_id[:128],
                event_type=str(event.get("event_type", ""))[:64],
                resource_id=str(event["resource_id"])[:64],
            )
            data = client.submission_get(submission_id=str(event["resource_id"]))
            study = Study.objects.filter(study_id=str(data.get("study_id", ""))).first()
            if study is None:
                return "ignored"
            submission_record(study=study, data=data)
    except IntegrityError:
        return "repeat"
    return "recorded"
