"""Prolific's submissions reach Parable by polling (all pages of a study's listing) and by
verified webhooks; each is recorded and linked by prolific.sessions.submission_record.

Work counts only through a linked submission: a session with none (Prolific was
unreachable at entry and never vouched since) stays flagged in the admin, is never
approved, and its submitted work is rejected here once its time has passed.
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

from crowd.models import Assignment
from crowd.review import assignment_reject
from prolific.client import ProlificClient
from prolific.models import ParticipantSession, Study, WebhookEvent
from prolific.sessions import session_assignments, submission_record
from prolific.signatures import signature

SIGNATURE_MAX_AGE_SECONDS = 300
UNVOUCHED_MESSAGE = (
    "Prolific has no submission from this participant for this session, so this work cannot "
    "be counted or paid. If you took part through Prolific, please contact the researcher."
)


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
