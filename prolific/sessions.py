"""Participants' sessions: entry with Prolific's three URL parameters, the items a session
holds, resuming, finishing with the completion code, and giving slots back.

The URL's participant and session ids let someone work; they never make work
count: that takes Prolific's own submission (prolific/submissions.py).
"""

from __future__ import annotations

import re
from urllib.parse import urlencode

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from crowd.assignments import NoWorkAvailable, assignments_reserve
from crowd.models import Assignment, Provider, Worker
from prolific.models import ParticipantSession, Study

PROLIFIC_ID = re.compile(r"[A-Za-z0-9]{1,64}")


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


def session_enter(*, participant_id: str, study_id: str, session_id: str) -> ParticipantSession:
    """Start or resume a participant's session; raises EntryRefused with the reason.

    A new session reserves up to the study's items per session at once. The same
    participant coming back resumes their session; one who already finished is refused.
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
            _session_fill(session=session)
    return session


def _open_filter() -> Q:
    """Assignments a session still has: live reservations or stored work."""
    return Q(status=Assignment.Status.RESERVED, expires_at__gt=timezone.now()) | Q(
        status__in=Assignment.STORED
    )


def _session_fill(*, session: ParticipantSession) -> None:
    try:
        reserved = assignments_reserve(
            batch=session.study.batch,
            worker=session.worker,
            count=session.study.items_per_session,
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
    """The session's next open item, or None when every item has been submitted."""
    now = timezone.now()
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


@transaction.atomic
def session_finish(*, session: ParticipantSession) -> str:
    """Mark the session finished; returns the Prolific completion URL with the study's code."""
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
