"""MTurk's side of the calls review decisions owe it (crowd.outbox), and what keeps a repeat
harmless.
- approve, reject (RETRY): need MTurk's assignment linked to the answer (mturk.sync), whose
  status is read first (GetAssignment), so a repeat calls nothing more. ApproveAssignment
  takes a Submitted assignment, or a Rejected one with OverrideRejection within 30 days of
  submission; RejectAssignment only a Submitted one
  (https://docs.aws.amazon.com/goto/WebAPI/mturk-requester-2017-01-17/ApproveAssignment).
- bonus (RECONCILE): SendBonus's UniqueRequestToken stops a retry paying twice for 24 hours
  (https://docs.aws.amazon.com/AWSMechTurk/latest/AWSMechanicalTurkRequester/RequestTokens.html),
  so an unknown outcome is settled from ListBonusPayments before it is sent again.
- block, unblock (RETRY): Create/DeleteWorkerBlock and live batches' exclusion qualification,
  which leave one block whatever the calls.
- notify (ONCE): NotifyWorkers takes no token and leaves no record Parable can read.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from crowd.models import ProviderAction
from crowd.providers import ProviderError
from mturk import client
from mturk.claims import is_claim
from mturk.models import MTurkAssignment, Publication
from mturk.publishing import exclusion_set

Kind = ProviderAction.Kind
Status = ProviderAction.Status


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


def action_prepare(*, action: ProviderAction) -> bool:
    """Check the call from Parable's copy of MTurk's records and fill in what it needs;
    False when MTurk needs nothing for this decision."""
    if action.kind in (Kind.APPROVE, Kind.BONUS):
        remote = linked_assignment(action.assignment)
        action.reference = remote.assignment_id
        if action.kind == Kind.BONUS:
            if not action.payload["reason"].strip():
                raise ProviderError("MTurk needs a reason for a bonus; the worker sees it.")
            action.payload["worker_id"] = remote.worker_id
            return True
        if remote.status == MTurkAssignment.Status.APPROVED:
            return False
        if remote.override_window_passed:
            raise ProviderError(
                f"MTurk overrides a rejection only within 30 days of submission; assignment "
                f"{remote.assignment_id} was submitted on {remote.submitted_at:%Y-%m-%d}, so "
                "it stays rejected on MTurk. A bonus cannot reach it either: the worker can "
                "only be paid outside MTurk."
            )
        return True
    if action.kind == Kind.REJECT:
        remote = MTurkAssignment.objects.filter(answer=action.assignment).first()
        if remote is None or remote.status == MTurkAssignment.Status.REJECTED:
            return False  # an unmatched answer has nothing on MTurk to reject
        if remote.status == MTurkAssignment.Status.APPROVED:
            raise ProviderError("MTurk cannot reject an assignment it has approved.")
        action.reference = remote.assignment_id
        return True
    if is_claim(action.worker):
        raise ProviderError(
            f"{action.worker} holds answers under a claim MTurk has not vouched for, which "
            "anyone could have made with that worker's id: nothing is sent to MTurk about "
            "the worker for it."
        )
    action.reference = action.worker.external_id
    return True


def action_send(*, action: ProviderAction) -> str:
    """Carry the call out through the Requester API (outside any transaction)."""
    if action.kind == Kind.APPROVE:
        return _approve(action)
    if action.kind == Kind.REJECT:
        return _reject(action)
    if action.kind == Kind.BONUS:
        return _bonus(action)
    if action.kind in (Kind.BLOCK, Kind.UNBLOCK):
        blocked = action.kind == Kind.BLOCK
        if blocked:
            reason = (action.payload.get("reason") or "Blocked")[:1024]
            client.call("create_worker_block", WorkerId=action.reference, Reason=reason)
        else:
            client.call("delete_worker_block", WorkerId=action.reference, Reason="Unblocked")
        live = Publication.objects.filter(batch__status="published").exclude(
            exclusion_qualification_id=""
        )
        for publication in live:
            exclusion_set(publication=publication, worker_id=action.reference, excluded=blocked)
        return "Blocked on MTurk." if blocked else "Unblocked on MTurk."
    return _notify(action)


def _remote_status(action: ProviderAction) -> str:
    """MTurk's status of the assignment now (GetAssignment)."""
    return client.call("get_assignment", AssignmentId=action.reference)["Assignment"][
        "AssignmentStatus"
    ]


def _decided(action: ProviderAction, status: str, message: str) -> None:
    """Parable's copy of MTurk's assignment takes the decision sent."""
    when = "approved_at" if status == MTurkAssignment.Status.APPROVED else "rejected_at"
    MTurkAssignment.objects.filter(assignment_id=action.reference).update(
        status=status, requester_feedback=message, **{when: timezone.now()}
    )


def _approve(action: ProviderAction) -> str:
    status = _remote_status(action)
    feedback = action.payload.get("message", "")
    if status != MTurkAssignment.Status.APPROVED:  # MTurk refuses what it cannot approve
        client.call(
            "approve_assignment",
            AssignmentId=action.reference,
            RequesterFeedback=feedback[:1024],
            OverrideRejection=status == MTurkAssignment.Status.REJECTED,
        )
    _decided(action, MTurkAssignment.Status.APPROVED, feedback)
    if status == MTurkAssignment.Status.APPROVED:
        return "MTurk had it approved already."
    return "Approved on MTurk."


def _reject(action: ProviderAction) -> str:
    status = _remote_status(action)
    message = action.payload["message"]
    if status == MTurkAssignment.Status.APPROVED:
        raise ProviderError(
            f"MTurk has assignment {action.reference} approved (approved on MTurk, or by "
            "its auto-approval): it cannot be rejected there."
        )
    if status == MTurkAssignment.Status.SUBMITTED:
        client.call(
            "reject_assignment", AssignmentId=action.reference, RequesterFeedback=message[:1024]
        )
    _decided(action, MTurkAssignment.Status.REJECTED, message)
    return "Rejected on MTurk."


def _bonus(action: ProviderAction) -> str:
    cents = action.payload["cents"]
    try:
        client.call(
            "send_bonus",
            WorkerId=action.payload["worker_id"],
            BonusAmount=f"{cents / 100:.2f}",
            AssignmentId=action.reference,
            Reason=action.payload["reason"],
            UniqueRequestToken=f"parable-bonus-call-{action.pk}",
        )
    except client.MTurkError as error:
        if not error.is_duplicate_request:
            raise
        return "Paid on MTurk (by an earlier try with the same request token)."
    return "Paid on MTurk."


def _notify(action: ProviderAction) -> str:
    response = client.call(
        "notify_workers",
        Subject=action.payload["subject"][:200] or "A message from the researcher",
        MessageText=action.payload["message"][:4096],
        WorkerIds=[action.reference],
    )
    for failure in response.get("NotifyWorkersFailureStatuses", []):
        raise ProviderError(
            f"MTurk could not notify {failure['WorkerId']}: "
            f"{failure.get('NotifyWorkersFailureMessage', failure.get('NotifyWorkersFailureCode'))}"
        )
    return "Message sent."


def action_reconcile(*, action: ProviderAction, now) -> str:
    """A bonus MTurk lists on the assignment (same amount and reason) was paid; MTurk pays
    at once, so one it does not list was not, and is sent again."""
    amount = f"{action.payload['cents'] / 100:.2f}"
    payments = client.pages(
        "list_bonus_payments", "BonusPayments", AssignmentId=action.reference, MaxResults=100
    )
    for payment in payments:
        if (
            f"{float(payment['BonusAmount']):.2f}" == amount
            and payment["Reason"] == action.payload["reason"]
        ):
            return Status.DONE
    return Status.PENDING


def action_in_flight() -> timedelta:
    """boto3's first try and its retries (MTURK_MAX_ATTEMPTS is botocore's `max_attempts`,
    its retries), each within its connect and read time-outs, with a margin."""
    return timedelta(seconds=(settings.MTURK_MAX_ATTEMPTS + 1) * 40 + 60)
