"""The Prolific crowd provider: a batch is a study, an assignment belongs to a participant's
session, and Prolific's submission for that session is what approval, rejection and
bonuses act on.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from common.task_queue import queue_on_commit
from crowd.models import Assignment
from crowd.providers import CrowdProvider, ProviderError
from prolific.client import ProlificClient
from prolific.models import (
    REVIEWABLE,
    STILL_PROCESSING,
    BonusPayment,
    ParticipantSession,
    Study,
    Submission,
)
from prolific.selectors import workspace_currency
from prolific.sessions import session_assignments
from prolific.studies import study_publish, study_stop
from prolific.submissions import study_sync
from prolific.tasks import (
    bonus_pay_task,
    message_send_task,
    submission_approve_task,
    submission_reject_task,
)
from prolific.vouching import session_of, unvouched, vouched_submission

MIN_REJECTION_MESSAGE = 100


def _study(batch) -> Study:
    study = Study.objects.filter(batch=batch).first()
    if study is None:
        raise ProviderError(
            "This batch has no Prolific study settings yet: prepare it under Prolific › Studies."
        )
    return study


class ProlificProvider(CrowdProvider):
    key = "prolific"
    unvouched_message = (
        "Prolific has no submission from this participant for this session, so this work "
        "cannot be counted or paid. If you took part through Prolific, please contact the "
        "researcher."
    )

    def __init__(self, client_factory=ProlificClient):
        self.client_factory = client_factory

    def vouched(self, *, assignment) -> bool:
        session = session_of(assignment)
        return session is not None and session.submission_id is not None

    def unvouched_among(self, *, assignments):
        return unvouched(assignments)

    def unvouched_grace(self, *, batch) -> timedelta:
        """One polling interval: Prolific's submission may still be on its way."""
        return timedelta(seconds=settings.PROLIFIC_SYNC_SECONDS)

    def review_state(self, *, assignment) -> dict:
        """The session's state on Prolific as last synced: approvable only once Prolific
        has the submission awaiting review (or already approved)."""
        session = session_of(assignment)
        if session is None or session.submission is None:
            return {"label": "No Prolific submission: not counted or paid", "approvable": False}
        submission = session.submission
        if submission.status in STILL_PROCESSING:
            return {
                "label": "Still working on Prolific (not submitted there yet)",
                "approvable": False,
            }
        if submission.status == REVIEWABLE:
            label = f"Prolific: {submission.status_shown}"
            return {"label": label[:1].upper() + label[1:], "approvable": True}
        return {
            "label": f"Prolific: {submission.status.lower()}",
            "approvable": submission.status == "APPROVED",
        }

    def reward_recommendation(self, *, batch) -> dict | None:
        """Prolific's minimum and recommended hourly rewards in the account's currency."""
        if not settings.PROLIFIC_WORKSPACE_ID:
            raise ProviderError("Set PROLIFIC_WORKSPACE_ID to ask Prolific for its reward rates.")
        client = self.client_factory()
        currency = workspace_currency(client=client) or "GBP"
        rates = client.reward_recommendations(
            workspace_id=settings.PROLIFIC_WORKSPACE_ID, currency=currency
        )
        return rates[0] if rates else None

    def bonus_state(self, *, bonus) -> str:
        payment = BonusPayment.objects.filter(
            assignment_id=bonus.assignment_id, sequence=bonus.paid_before_cents
        ).first()
        return payment.get_status_display() if payment else "not recorded on Prolific"

    def publish(self, *, batch) -> dict:
        return {"prolific_study": study_publish(study=_study(batch), client=self.client_factory())}

    def sync(self, *, batch) -> int:
        return study_sync(study=_study(batch), client=self.client_factory())

    def approve(self, *, assignment) -> None:
        """Approve the session's submission on Prolific once (it pays the session's reward):
        judged from Parable's copy of Prolific's status, recorded ("approval sent") and sent
        by a task (prolific.submissions.submission_approve), so the review answers at once
        and no call runs inside a transaction. Not awaiting review yet: refused at once."""
        submission = vouched_submission(assignment)
        if submission.status == "APPROVED" or submission.approval_sent_at:
            return  # approved, or its approval is on its way
        if submission.status in STILL_PROCESSING:
            raise ProviderError(
                f"The participant's Prolific submission is {submission.status} (still working "
                "or being processed by Prolific): it can be approved once it is awaiting "
                "review. Sync the study if they have just finished."
            )
        if submission.status != REVIEWABLE:
            raise ProviderError(
                f"Prolific has this submission as {submission.status}: it cannot be approved."
            )
        Submission.objects.filter(pk=submission.pk).update(approval_sent_at=timezone.now())
        queue_on_commit(submission_approve_task, submission.pk)

    def reject(self, *, assignment, message: str) -> None:
        """Items are rejected here one by one; the Prolific submission is rejected only when
        every item of the session is, with Prolific's category and a 100-character message."""
        session = session_of(assignment)
        if session is None or session.submission is None:
            return  # Nothing on Prolific to reject: the work was never vouched for.
        if session.submission.status != REVIEWABLE:
            return
        others = session_assignments(session=session).exclude(pk=assignment.pk)
        if others.exclude(status=Assignment.Status.REJECTED).exists():
            return  # (this item is rejected once Prolific has been told)
        if len(message) < MIN_REJECTION_MESSAGE:
            raise ProviderError(
                f"Prolific needs a rejection message of at least {MIN_REJECTION_MESSAGE} "
                f"characters (this one has {len(message)}): say what was wrong and why."
            )
        # Recorded and sent by a task, as approvals are: the review answers at once.
        Submission.objects.filter(pk=session.submission.pk).update(
            rejection_sent_at=timezone.now(), rejection_message=message
        )
        queue_on_commit(submission_reject_task, session.submission.pk)

    def pay_bonus(self, *, assignment, cents: int, reason: str) -> None:
        """Record the bonus, then pay it in Prolific's two steps in a task (after commit)."""
        vouched_submission(assignment)
        bonus, _ = BonusPayment.objects.get_or_create(
            assignment=assignment,
            sequence=assignment.bonus_cents,
            defaults={"cents": cents, "reason": reason},
        )
        queue_on_commit(bonus_pay_task, bonus.pk)

    def block(self, *, worker, reason: str) -> None:
        self._blocklist(worker, add=True)

    def unblock(self, *, worker) -> None:
        self._blocklist(worker, add=False)

    def _blocklist(self, worker, *, add: bool) -> None:
        """Blocked participants sit in the participant group every study excludes; before
        any study has one, the group is made with the blocked workers in it."""
        client = self.client_factory()
        groups = set(
            Study.objects.exclude(blocklist_group_id="").values_list(
                "blocklist_group_id", flat=True
            )
        )
        change = client.participant_group_add if add else client.participant_group_remove
        for group_id in groups:
            change(group_id=group_id, participant_ids=[worker.external_id])

    def notify(self, *, workers, subject: str, message: str) -> None:
        """Queue a message to each worker (Prolific's POST /messages/, one per participant,
        about their latest study), sent after the caller's transaction commits: a review
        inside a transaction may notify, and a reviewer's click never waits for the calls.
        A worker with no Prolific study is refused before anything is queued."""
        body = f"{subject}\n\n{message}" if subject else message
        sends = []
        for worker in workers:
            session = (
                ParticipantSession.objects.filter(worker=worker)
                .exclude(study__study_id="")
                .select_related("study")
                .order_by("-id")
                .first()
            )
            if session is None:
                raise ProviderError(f"{worker} has taken no Prolific study to message them about.")
            sends.append((worker.external_id, session.study.study_id))
        for recipient_id, study_id in sends:
            queue_on_commit(message_send_task, recipient_id, study_id, body)

    def close(self, *, batch) -> None:
        """Stop the study if Prolific still has it recruiting: read from Prolific, since it
        may be PUBLISHING still, or paused by Prolific on its own."""
        study_stop(study=_study(batch), client=self.client_factory())

    def session_url(self, *, batch, worker) -> str:
        return reverse("prolific:continue")

    def next_url(self, *, assignment) -> str:
        return reverse("prolific:continue")
