"""Reviewing whole sessions at once: each vouched session's items approved here (Prolific's
submission is approved with the first, after the review commits); bonuses per participant."""

from __future__ import annotations

from crowd.models import Assignment
from crowd.review import ReviewError, assignment_approve, assignment_bonus
from prolific.models import ParticipantSession
from prolific.sessions import session_assignments


def sessions_approve(*, sessions) -> dict:
    """Approve the vouched sessions' submitted items; each approval's call to Prolific is
    sent after it commits (crowd.outbox: once per submission, shown as "approval sent"
    until Prolific reports it approved), so no call holds the reviewer's request.
    Sessions without a Prolific submission are skipped and counted."""
    sessions = list(
        ParticipantSession.objects.filter(pk__in=[s.pk for s in sessions]).select_related(
            "submission", "study"
        )
    )
    vouched = [s for s in sessions if s.submission is not None]
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
