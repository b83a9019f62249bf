"""Which of Prolific's records vouches for an assignment: the submission of the session the
participant opened with this SESSION_ID. Read by the provider and the bonus payments."""

from __future__ import annotations

from django.db.models import Exists, OuterRef

from crowd.models import Assignment
from crowd.providers import ProviderError
from prolific.models import ParticipantSession, Submission


def session_of(assignment: Assignment) -> ParticipantSession | None:
    return (
        ParticipantSession.objects.select_related("submission", "study")
        .filter(
            study__batch_id=assignment.item.batch_id,
            worker_id=assignment.worker_id,
            session_id=assignment.provider_assignment_id,
        )
        .first()
    )


def vouched_sessions():
    """Sessions with a Prolific submission, matched to an assignment by OuterRef."""
    return ParticipantSession.objects.filter(
        study__batch_id=OuterRef("item__batch_id"),
        worker_id=OuterRef("worker_id"),
        session_id=OuterRef("provider_assignment_id"),
        submission__isnull=False,
    )


def unvouched(assignments):
    """The assignments of a queryset that no Prolific submission vouches for."""
    return assignments.exclude(Exists(vouched_sessions()))


def vouched_submission(assignment: Assignment) -> Submission:
    """Prolific's submission for the assignment's session; ProviderError when there is none."""
    session = session_of(assignment)
    if session is None or session.submission is None:
        raise ProviderError(
            f"Prolific has no submission for assignment {assignment.pk}'s session "
            "(participant id or session not confirmed by Prolific): it is not approved, "
            "counted or paid. Sync the study if the participant has just finished."
        )
    return session.submission
