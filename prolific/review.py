"""Reviewing whole sessions at once: Prolific's bulk approval, then each item approved here;
bonuses per participant."""

from __future__ import annotations

from django.utils import timezone

from common.task_queue import queue_on_commit
from crowd.models import Assignment
from crowd.review import ReviewError, assignment_approve, assignment_bonus
from prolific.models import ParticipantSession, Submission
from prolific.sessions import session_assignments
from prolific.tasks import submissions_bulk_approve_task


def sessions_approve(*, sessions) -> dict:
    """Approve the vouched sessions' submitted items, and queue Prolific's bulk approval of
    their submissions (one task per study, sent after commit: no call to Prolific holds
    the reviewer's request; shown as "approval sent" until Prolific reports them
    approved, and sent again one by one by beat if Prolific still has them awaiting
    review after the grace period). Sessions without a Prolific submission are skipped
    and counted."""
    sessions = list(
        ParticipantSession.objects.filter(pk__in=[s.pk for s in sessions]).select_related(
            "submission", "study"
        )
    )
    vouched = [s for s in sessions if s.submission is not None]
    by_study: dict[str, list[str]] = {}
    for session in vouched:
        if session.submission.status == "AWAITING REVIEW":
            by_study.setdefault(session.study.study_id, []).append(session.submission.submission_id)
    for submission_ids in by_study.values():
        # Prolific approves asynchronously: "approval sent" until its status says approved.
        Submission.objects.filter(submission_id__in=submission_ids).update(
            approval_sent_at=timezone.now()
        )
        queue_on_commit(submissions_bulk_approve_task, submission_ids)
    approved, refused = 0, []
    for session in vouched:
        for assignment in session_assignments(session=session).filter(
            status=Assignment.Status.SUBMITTED
        ):
            try:
                assignment_approve(assignment=assignment)
                approved += 1
            except ReviewError as error:
                refused.append(str(error))
    return {"approved": approved, "unvouched": len(sessions) - len(vouched), "refused": refused}


def sessions_bonus(*, sessions, cents: int, reason: str) -> dict:
    """A bonus per participant, recorded on their session's first approved item and paid on
    Prolific after commit. Sessions with no approved item get none."""
    paid, refused = 0, []
    for session in sessions:
        assignment = (
            session_assignments(session=session).filter(status=Assignment.Status.APPROVED).first()
        )
        if assignment is None:
            refused.append(f"{session}: nothing approved yet, so no bonus.")
            continue
        try:
            assignment_bonus(assignment=assignment, cents=cents, reason=reason)
            paid += 1
        except ReviewError as error:
            refused.append(str(error))
    return {"paid": paid, "refused": refused}
