"""The MTurk crowd provider: crowd review decisions become Requester API calls.

Approve and bonus need the answer to be linked to MTurk's assignment (same id,
HIT and worker, see mturk.sync): an unlinked answer, such as one sent under a
forged worker id, is refused. Bonuses carry a UniqueRequestToken derived from
what was paid before, so a retried call never pays twice.
"""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from crowd.providers import CrowdProvider, ProviderError
from mturk import client
from mturk.hits import hit_expire
from mturk.models import Bonus, MTurkAssignment, Publication
from mturk.publishing import exclude_worker, hits_create, include_worker
from mturk.sync import batch_sync

NOTIFY_GROUP = 100


def linked_assignment(answer) -> MTurkAssignment:
    """MTurk's assignment behind a stored answer, or ProviderError when there is none."""
    remote = MTurkAssignment.objects.filter(answer=answer).first()
    if remote is None:
        raise ProviderError(
            f"Assignment {answer.pk} matches no MTurk assignment (same id, HIT and worker): "
            "sync the batch; if it stays unmatched, its worker id was not MTurk's and it "
            "is never approved or paid."
        )
    return remote


class MTurkProvider(CrowdProvider):
    key = "mturk"
    unvouched_message = (
        "No MTurk assignment with this assignment id, HIT and worker was submitted: "
        "this answer is not counted or paid."
    )

    def vouched(self, *, assignment) -> bool:
        return MTurkAssignment.objects.filter(answer=assignment).exists()

    def unvouched_among(self, *, assignments):
        return assignments.filter(mturk_assignment__isnull=True)

    def unvouched_grace(self, *, batch) -> timedelta:
        """Within the time allowed and ten minutes more, an answer may be waiting for
        MTurk's own submit."""
        return timedelta(minutes=10)

    def bonus_state(self, *, bonus) -> str:
        token = f"parable-bonus-{bonus.assignment_id}-{bonus.paid_before_cents}"
        return "paid" if Bonus.objects.filter(request_token=token).exists() else "not paid"

    def publish(self, *, batch) -> dict:
        return hits_create(batch=batch)

    def sync(self, *, batch) -> int:
        return batch_sync(batch=batch)

    def approve(self, *, assignment) -> None:
        remote = linked_assignment(assignment)
        if remote.status == MTurkAssignment.Status.APPROVED:
            return
        if remote.override_window_passed:
            raise ProviderError(
                f"MTurk overrides a rejection only within 30 days of submission; assignment "
                f"{remote.assignment_id} was submitted on {remote.submitted_at:%Y-%m-%d}, so "
                "it stays rejected on MTurk. A bonus cannot reach it either: the worker can "
                "only be paid outside MTurk."
            )
        client.call(
            "approve_assignment",
            AssignmentId=remote.assignment_id,
            RequesterFeedback=assignment.review_message[:1024],
            OverrideRejection=remote.status == MTurkAssignment.Status.REJECTED,
        )
        remote.status = MTurkAssignment.Status.APPROVED
        remote.approved_at = timezone.now()
        remote.requester_feedback = assignment.review_message
        remote.save(update_fields=["status", "approved_at", "requester_feedback", "synced_at"])

    def reject(self, *, assignment, message: str) -> None:
        remote = MTurkAssignment.objects.filter(answer=assignment).first()
        if remote is None or remote.status == MTurkAssignment.Status.REJECTED:
            return  # an unmatched answer has nothing on MTurk to reject
        if remote.status == MTurkAssignment.Status.APPROVED:
            raise ProviderError("MTurk cannot reject an assignment it has approved.")
        client.call(
            "reject_assignment", AssignmentId=remote.assignment_id, RequesterFeedback=message[:1024]
        )
        remote.status = MTurkAssignment.Status.REJECTED
        remote.rejected_at = timezone.now()
        remote.requester_feedback = message
        remote.save(update_fields=["status", "rejected_at", "requester_feedback", "synced_at"])

    def pay_bonus(self, *, assignment, cents: int, reason: str) -> None:
        remote = linked_assignment(assignment)
        if not reason.strip():
            raise ProviderError("MTurk needs a reason for a bonus; the worker sees it.")
        # The same assignment with the same amount paid before: the same token.
        token = f"parable-bonus-{assignment.pk}-{assignment.bonus_cents}"
        if Bonus.objects.filter(request_token=token).exists():
            return
        try:
            client.call(
                "send_bonus",
                WorkerId=remote.worker_id,
                BonusAmount=f"{cents / 100:.2f}",
                AssignmentId=remote.assignment_id,
                Reason=reason,
                UniqueRequestToken=token,
            )
        except client.MTurkError as error:
            if not error.is_duplicate_request:
                raise
        Bonus.objects.create(
            assignment=remote,
            worker_id=remote.worker_id,
            cents=cents,
            reason=reason,
            request_token=token,
        )

    def block(self, *, worker, reason: str) -> None:
        client.call("create_worker_block", WorkerId=worker.external_id, Reason=reason[:1024])
        for publication in _live_publications():
            exclude_worker(publication=publication, worker_id=worker.external_id)

    def unblock(self, *, worker) -> None:
        client.call("delete_worker_block", WorkerId=worker.external_id, Reason="Unblocked")
        for publication in _live_publications():
            include_worker(publication=publication, worker_id=worker.external_id)

    def notify(self, *, workers, subject: str, message: str) -> None:
        """MTurk takes at most 100 workers per call: every group of 100 is sent, and the
        workers MTurk could not notify, in any group, are reported together at the end."""
        worker_ids = [worker.external_id for worker in workers]
        failures = []
        for start in range(0, len(worker_ids), NOTIFY_GROUP):
            response = client.call(
                "notify_workers",
                Subject=subject[:200],
                MessageText=message[:4096],
                WorkerIds=worker_ids[start : start + NOTIFY_GROUP],
            )
            failures += response.get("NotifyWorkersFailureStatuses", [])
        if failures:
            names = ", ".join(failure["WorkerId"] for failure in failures)
            raise ProviderError(
                f"MTurk notified {len(worker_ids) - len(failures)} of {len(worker_ids)} "
                f"worker(s); it could not notify: {names}."
            )

    def close(self, *, batch) -> None:
        for hit in batch.mturk_hits.all():
            hit_expire(hit=hit)


def _live_publications():
    return Publication.objects.filter(batch__status="published").exclude(
        exclusion_qualification_id=""
    )
