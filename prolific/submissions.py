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
import logging
import math
import re
import time

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from crowd.batches import batch_close
from crowd.models import Batch
from crowd.review import unvouched_release
from prolific.client import ProlificClient, ProlificError
from prolific.models import REVIEWABLE, Study, Submission, WebhookEvent, WebhookRefusal
from prolific.sessions import submission_record
from prolific.signatures import signature
from prolific.studies import study_status_record

ID = re.compile(r"[A-Za-z0-9_.:-]{1,128}")
EVENT_TYPE = re.compile(r"[a-z][a-z0-9_.]{0,63}")
# Refused deliveries kept for the admin: the newest this many (anyone can post refusals).
REFUSALS_KEPT = 200
logger = logging.getLogger(__name__)


def study_sync(*, study: Study, client: ProlificClient | None = None, now=None) -> int:
    """Poll Prolific for the study and every submission (all pages); returns submissions seen.
    Sessions with no submission long after their time are rejected here, freeing their slots."""
    client = client or ProlificClient()
    now = now or timezone.now()
    if not study.study_id:
        return 0
    remote = client.study_get(study_id=study.study_id)
    rows = client.study_submissions(study_id=study.study_id)
    for data in rows:
        submission_record(study=study, data=data)
    study_status_record(study=study, status=str(remote.get("status") or ""))
    Study.objects.filter(pk=study.pk).update(synced_at=now)
    unvouched_release(batch=study.batch, now=now)
    return len(rows)


# What Prolific has a submission as once a transition is done.
TRANSITIONED = {"APPROVE": "APPROVED", "REJECT": "REJECTED"}


def submission_transition(
    *, submission_pk: int, action: str, client: ProlificClient | None = None
) -> str:
    """Send a submission's "APPROVE" or "REJECT" (with its message and
    PROLIFIC_REJECTION_CATEGORY) to Prolific, outside any transaction; returns its status
    then. Safe to repeat: an approved one, or one no longer awaiting review, is left alone."""
    submission = Submission.objects.get(pk=submission_pk)
    if submission.status == "APPROVED" or (action == "REJECT" and submission.status != REVIEWABLE):
        return submission.status
    client = client or ProlificClient()
    status = client.submission_get(submission_id=submission.submission_id)["status"]
    done = TRANSITIONED[action]
    if status == REVIEWABLE:
        client.submission_transition(
            submission_id=submission.submission_id,
            action=action,
            message=submission.rejection_message,
            rejection_category=settings.PROLIFIC_REJECTION_CATEGORY,
        )
        status = done
    else:
        logger.warning("prolific: %s not %s: Prolific has it as %s", submission, done, status)
    Submission.objects.filter(pk=submission_pk).update(status=status)
    return status


def webhook_refusal(*, body: bytes, timestamp: str, signature_header: str, now=None) -> str:
    """Why a delivery is not accepted as Prolific's ("" when it is): it must carry the
    workspace secret's signature over timestamp + body, and a timestamp (UNIX seconds, or
    milliseconds) within PROLIFIC_WEBHOOK_MAX_SKEW_SECONDS of our clock either way, so a
    captured delivery cannot be replayed for ever. Prolific documents no window, and
    repeats are caught by their X-Event-ID anyway, so the window is wide."""
    secret = settings.PROLIFIC_WEBHOOK_SECRET
    if not secret:
        return "PROLIFIC_WEBHOOK_SECRET is not set"
    if not (timestamp and signature_header):
        return "no signature or timestamp header"
    try:
        sent = float(timestamp)
    except ValueError:
        return f"timestamp {timestamp[:40]!r} is not a number"
    if sent > 1e11:  # milliseconds
        sent /= 1000
    now = time.time() if now is None else now
    skew = now - sent
    if not math.isfinite(sent) or abs(skew) > settings.PROLIFIC_WEBHOOK_MAX_SKEW_SECONDS:
        return f"timestamp {abs(skew):.0f} s {'behind' if skew > 0 else 'ahead of'} our clock"
    expected = signature(secret=secret, timestamp=timestamp, body=body)
    if not hmac.compare_digest(expected.encode(), signature_header.encode()):
        return "signature does not match the workspace secret"
    return ""


def webhook_refusal_record(*, reason: str, event_id: str, timestamp: str, body: bytes) -> None:
    """Log a refused delivery and keep it for the admin (Prolific › Webhook refusals): the
    newest REFUSALS_KEPT only, since anyone can post one."""
    logger.warning("prolific: webhook delivery %r refused: %s", event_id[:128], reason)
    WebhookRefusal.objects.create(
        reason=reason[:500],
        event_id=_printable(event_id)[:128],
        timestamp=_printable(timestamp)[:64],
        body=body[:2000].decode("utf-8", "replace").replace("\x00", ""),
    )
    kept = WebhookRefusal.objects.order_by("-id").values_list("id", flat=True)
    oldest_kept = list(kept[REFUSALS_KEPT - 1 : REFUSALS_KEPT])
    if oldest_kept:
        WebhookRefusal.objects.filter(id__lt=oldest_kept[0]).delete()


def _printable(text: str) -> str:
    return "".join(char for char in text if char.isprintable())


class WebhookRejected(ValueError):
    """A verified delivery that cannot be used (not JSON, no or malformed ids): 400."""


STUDY_EVENTS = ("study.status.change", "study.has_high_return_rate")
EVENTS = ("submission.status.change", *STUDY_EVENTS)


def webhook_receive(
    *, body: bytes, event_id: str = "", client: ProlificClient | None = None
) -> str:
    """Handle a verified delivery once per X-Event-ID (kept across Prolific's redeliveries):
    "repeat", "ignored", "unknown" or "recorded". A delivery only says what changed; its state
    is read from Prolific's API (outside any transaction), so a delivery alone never makes
    work count. A resource Prolific does not know is logged and acknowledged."""
    try:
        event = json.loads(body)
    except ValueError:
        raise WebhookRejected("The delivery is not JSON.") from None
    if not isinstance(event, dict):
        raise WebhookRejected("The delivery is not a JSON object.")
    resource_id = event.get("resource_id")
    if not isinstance(resource_id, str) or not ID.fullmatch(resource_id):
        raise WebhookRejected("The delivery names no valid resource id.")
    event_id = event_id or hashlib.sha256(body).hexdigest()
    if not ID.fullmatch(event_id):
        raise WebhookRejected("The X-Event-ID header is not a valid id.")
    event_type = event.get("event_type", "")
    if not isinstance(event_type, str) or not (
        event_type == "" or EVENT_TYPE.fullmatch(event_type)
    ):
        raise WebhookRejected("The delivery's event_type is not an event type.")
    if WebhookEvent.objects.filter(event_id=event_id).exists():
        return "repeat"
    client = client or ProlificClient()
    study_event = event_type in STUDY_EVENTS
    try:
        if study_event:
            data = client.study_get(study_id=resource_id)
        else:
            data = client.submission_get(submission_id=resource_id)
    except ProlificError as error:
        if error.status != 404:
            raise  # not recorded: Prolific delivers again, and polling catches up
        logger.warning("prolific: webhook %s names unknown %s", event_id, resource_id)
        data = None
    try:
        with transaction.atomic():
            WebhookEvent.objects.create(
                event_id=event_id, event_type=event_type, resource_id=resource_id
            )
            if data is None:
                return "unknown"
            study_id = resource_id if study_event else str(data.get("study_id", ""))
            study = Study.objects.filter(study_id=study_id).select_related("batch").first()
            if study is None:
                return "ignored"
            if study_event:
                study_event_record(study=study, event_type=event_type, data=data)
            else:
                submission_record(study=study, data=data)
    except IntegrityError:
        return "repeat"
    return "recorded"


def study_event_record(*, study: Study, event_type: str, data: dict) -> None:
    """Prolific's study changed: its status is kept, a study Prolific completed closes its
    batch, and a high return rate is flagged for the researcher (who may pause it)."""
    status = str(data.get("status") or study.status)
    study_status_record(study=study, status=status)
    if event_type == "study.has_high_return_rate":
        Study.objects.filter(pk=study.pk).update(high_return_rate_at=timezone.now())
    if status == "COMPLETED" and study.batch.status == Batch.Status.PUBLISHED:
        batch_close(batch=study.batch)
