"""Participants' sessions: entry with Prolific's three URL parameters, the items a session
holds, resuming, finishing with the completion code, and giving slots back.

The URL's participant and session ids let someone work; they never make work
count: that takes Prolific's own submission (prolific/submissions.py).
"""

from __future__ import annotations

import logging
import re
from urllib.parse import urlencode

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from crowd.assignments import NoWorkAvailable, assignments_reserve
from crowd.models import Assignment, Provider, Worker
from crowd.review import assignment_reject
from prolific.client import ProlificClient, ProlificError
from prolific.models import ParticipantSession, Study, Submission

logger = logging.getLogger(__name__)

PROLIFIC_ID = re.compile(r"[A-Za-z0-9]{1,64}")
FREEING = {"RETURNED", "TIMED-OUT"}
RETURNED_MESSAGE = (
    "This study was returned or timed out on Prolific, so this task is not counted and its "
    "place has gone back to the pool for another participant. Thank you for your time."
)


class EntryRefused(Exception):
    """Why a participant cannot start or continue: shown to them as is."""

    def __init__(self, reason: str, *, status: int = 403):
        super().__init__(reason)
        self.reason = reason
        self.status = status


def session_assignments(*, session: ParticipantSession):
    return Assignment.objects.filter(
        item__batch_id=session.study.batch_id,
        worker_id=session.worker_id,
        provider_assignment_id=session.session_id,
    ).order_by("id")


def session_enter(
    *,
    participant_id: str,
    study_id: str,
    session_id: str,
    client: ProlificClient | None = None,
) -> ParticipantSession:
    """Start or resume a participant's session; raises EntryRefused with the reason.

    Prolific is asked about SESSION_ID first: one it does not know (or knows for another
    participant or study) is refused. Unreachable, the session starts unvouched with one
    item, and gets no more nor a completion code until Prolific confirms it: a forged
    session holds one slot at most. A participant who finished is refused.
    """
    if not all(
        PROLIFIC_ID.fullmatch(value or "") for value in (participant_id, study_id, session_id)
    ):
        raise EntryRefused(
            "This link is missing Prolific's details. Open the study from Prolific again.",
            status=400,
        )
    study = Study.objects.select_related("batch").filter(study_id=study_id).first()
    if study is None:
        raise EntryRefused("This study is not run here.", status=404)
    remote = _remote_submission(
        study=study, participant_id=participant_id, session_id=session_id, client=client
    )
    with transaction.atomic():
        worker, _ = Worker.objects.get_or_create(
            provider=Provider.PROLIFIC, external_id=participant_id
        )
        session = (
            ParticipantSession.objects.select_for_update()
            .filter(study=study, worker=worker)
            .first()
        )
        if session is not None and session.status == ParticipantSession.Status.FINISHED:
            raise EntryRefused(
                "You have already completed this study. Thank you! Each person takes part once."
            )
        if session is None:
            session = ParticipantSession.objects.create(
                study=study, worker=worker, session_id=session_id
            )
        elif session.session_id != session_id:
            # A new Prolific session (after a return or a time-out): the old items are gone.
            session_assignments(session=session).filter(status=Assignment.Status.RESERVED).update(
                status=Assignment.Status.RETURNED
            )
            session.session_id = session_id
            session.submission = None
            session.status = ParticipantSession.Status.ACTIVE
            session.save(update_fields=["session_id", "submission", "status"])
        if not session_assignments(session=session).filter(_open_filter()).exists():
            _session_fill(session=session, count=None if remote else 1)
        if remote is not None:
            submission_record(study=study, data=remote)
            session.refresh_from_db()
    return session


UNCONFIRMED = (
    "Prolific has not confirmed your session yet, so no more tasks or completion code can "
    "be given. Your work is saved: reload this page in a minute."
)


def session_confirm(*, session: ParticipantSession, client: ProlificClient | None = None) -> bool:
    """Whether Prolific vouches for the session, asking it again when it has not yet; a
    confirmed session gets the rest of its items."""
    if session.submission_id is not None:
        return True
    try:
        remote = _remote_submission(
            study=session.study,
            participant_id=session.worker.external_id,
            session_id=session.session_id,
            client=client,
        )
    except EntryRefused:
        return False
    if remote is None:
        return False
    submission_record(study=session.study, data=remote)
    session.refresh_from_db()
    if session.submission_id is None:
        return False
    with transaction.atomic():
        held = session_assignments(session=session).filter(_open_filter()).count()
        if held < session.study.items_per_session:
            _session_fill(session=session, count=session.study.items_per_session - held)
    return True


def _remote_submission(
    *, study: Study, participant_id: str, session_id: str, client: ProlificClient | None
) -> dict | None:
    """Prolific's submission for SESSION_ID, checked against the participant and study;
    None when Prolific cannot be asked (the session then starts unvouched)."""
    client = client or ProlificClient(retries=1)
    try:
        remote = client.submission_get(submission_id=session_id)
    except ProlificError as error:
        if error.status == 404:
            raise EntryRefused(
                "Prolific has no such session. Open the study from Prolific to take part."
            ) from None
        logger.warning("prolific: session %s not checked at entry: %s", session_id, error)
        return None
    owner = str(remote.get("participant_id") or remote.get("participant") or "")
    if owner != participant_id or str(remote.get("study_id", "")) != study.study_id:
        raise EntryRefused(
            "This Prolific session belongs to someone else. Open the study from your own "
            "Prolific account."
        )
    if remote.get("status") in FREEING:
        raise EntryRefused("This session was returned or timed out on Prolific.")
    return remote


def _open_filter() -> Q:
    """Assignments a session still has: live reservations or stored work."""
    return Q(status=Assignment.Status.RESERVED, expires_at__gt=timezone.now()) | Q(
        status__in=Assignment.STORED
    )


def _session_fill(*, session: ParticipantSession, count: int | None = None) -> None:
    try:
        reserved = assignments_reserve(
            batch=session.study.batch,
            worker=session.worker,
            count=count or session.study.items_per_session,
        )
    except NoWorkAvailable as reason:
        raise EntryRefused(
            f"{reason.reason} Please return this study on Prolific so that your place goes "
            "to someone else."
        ) from None
    Assignment.objects.filter(pk__in=[a.pk for a in reserved]).update(
        provider_assignment_id=session.session_id
    )


def session_next(*, session: ParticipantSession) -> Assignment | None:
    """The session's next open item, or None when every item has been submitted. An
    unconfirmed session asks Prolific again once its one item is done."""
    now = timezone.now()
    assignments = list(session_assignments(session=session))
    open_items = [
        a for a in assignments if a.status == Assignment.Status.RESERVED and a.expires_at > now
    ]
    if (
        not open_items
        and session.submission_id is None
        and any(a.status in Assignment.STORED for a in assignments)
    ):
        if not session_confirm(session=session):
            raise EntryRefused(UNCONFIRMED, status=503)
        assignments = list(session_assignments(session=session))
    for assignment in assignments:
        if assignment.status == Assignment.Status.RESERVED and assignment.expires_at > now:
            return assignment
    if not any(a.status in Assignment.STORED for a in assignments):
        raise EntryRefused(
            "The time allowed for this study ran out before any task was submitted. "
            "Please return the study on Prolific."
        )
    return None


def session_finish(*, session: ParticipantSession) -> str:
    """Mark the session finished; returns the Prolific completion URL with the study's code,
    which only a session Prolific has confirmed gets (EntryRefused otherwise)."""
    if session.submission_id is None and not session_confirm(session=session):
        raise EntryRefused(UNCONFIRMED, status=503)
    return _session_finished(session=session)


@transaction.atomic
def _session_finished(*, session: ParticipantSession) -> str:
    session = (
        ParticipantSession.objects.select_for_update().select_related("study").get(pk=session.pk)
    )
    if session.status != ParticipantSession.Status.FINISHED:
        session.status = ParticipantSession.Status.FINISHED
        session.finished_at = timezone.now()
        session.save(update_fields=["status", "finished_at"])
    return completion_url(study=session.study)


def completion_url(*, study: Study) -> str:
    return f"{settings.PROLIFIC_COMPLETION_URL}?{urlencode({'cc': study.completion_code})}"


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
                # One submission's record says entered_code; the study's listing study_code.
                "study_code": str(data.get("entered_code") or data.get("study_code") or ""),
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
