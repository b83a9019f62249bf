"""Prolific's side of the calls review decisions owe it (crowd.outbox), and what keeps a
repeat harmless.
- approve, reject (RETRY): a transition of the session's submission, judged from
  Prolific's status first, so a repeat sends nothing. Items are reviewed one by one: the
  submission is approved with the first approved item, and rejected once every item of
  the session is (a message of 100 characters or more, PROLIFIC_REJECTION_CATEGORY).
- bonus (RECONCILE): prolific.bonuses, the pay call not being idempotent.
- block, unblock (RETRY): the participant joins or leaves the blocklist group every study
  excludes (a participant is in a group once, whatever the calls).
- notify (ONCE): a message about their latest study; POST /messages/ takes no id that
  would make a repeat safe (https://docs.prolific.com/api-reference/messages/send-message).
"""

from __future__ import annotations

from django.utils import timezone

from crowd.models import Assignment, ProviderAction
from crowd.providers import ProviderError
from prolific.bonuses import bonus_prepare, bonus_reconcile, bonus_send
from prolific.client import ProlificClient, ProlificError
from prolific.models import REVIEWABLE, STILL_PROCESSING, ParticipantSession, Study, Submission
from prolific.sessions import session_assignments
from prolific.submissions import TRANSITIONED, submission_transition
from prolific.vouching import session_of, vouched_submission

Kind = ProviderAction.Kind
MIN_REJECTION_MESSAGE = 100


def action_prepare(*, action: ProviderAction) -> bool:
    """Check the call from Parable's copy of Prolific's records and fill in what it needs;
    False when Prolific needs nothing for this decision."""
    if action.kind == Kind.APPROVE:
        return _approval_prepare(action)
    if action.kind == Kind.REJECT:
        return _rejection_prepare(action)
    if action.kind == Kind.BONUS:
        bonus_prepare(action=action)
    elif action.kind == Kind.NOTIFY:
        _message_prepare(action)
    return True


def _approval_prepare(action: ProviderAction) -> bool:
    # Each approved item carries its own call: the first one sent approves the submission,
    # the others then find it approved (here or on Prolific) and send nothing, and an
    # item rejected before its call went out takes only its own call back.
    submission = vouched_submission(action.assignment)
    if submission.status == "APPROVED":
        return False
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
    action.reference = submission.submission_id
    action.payload["submission"] = submission.pk
    # Shown as "approval sent" until Prolific reports it approved.
    Submission.objects.filter(pk=submission.pk).update(
        approval_sent_at=timezone.now(), rejection_sent_at=None
    )
    return True


def _rejection_prepare(action: ProviderAction) -> bool:
    session = session_of(action.assignment)
    if session is None or session.submission is None:
        return False  # nothing on Prolific to reject: the work was never vouched for
    submission = session.submission
    if submission.status != REVIEWABLE:
        return False
    others = session_assignments(session=session).exclude(pk=action.assignment_id)
    if others.exclude(status=Assignment.Status.REJECTED).exists():
        return False  # the submission stands while any of its items does
    message = action.payload["message"]
    if len(message) < MIN_REJECTION_MESSAGE:
        raise ProviderError(
            f"Prolific needs a rejection message of at least {MIN_REJECTION_MESSAGE} "
            f"characters (this one has {len(message)}): say what was wrong and why."
        )
    action.reference = submission.submission_id
    action.payload["submission"] = submission.pk
    Submission.objects.filter(pk=submission.pk).update(
        rejection_sent_at=timezone.now(), rejection_message=message, approval_sent_at=None
    )
    return True


def _message_prepare(action: ProviderAction) -> None:
    session = (
        ParticipantSession.objects.filter(worker=action.worker)
        .exclude(study__study_id="")
        .select_related("study")
        .order_by("-id")
        .first()
    )
    if session is None:
        raise ProviderError(f"{action.worker} has taken no Prolific study to message them about.")
    subject, message = action.payload["subject"], action.payload["message"]
    action.reference = action.worker.external_id
    action.payload["study_id"] = session.study.study_id
    action.payload["body"] = f"{subject}\n\n{message}" if subject else message


def action_send(*, action: ProviderAction, client: ProlificClient) -> str:
    """Carry the call out on Prolific (outside any transaction); a note on what was done."""
    if action.kind in (Kind.APPROVE, Kind.REJECT):
        return _transition(action, client, "APPROVE" if action.kind == Kind.APPROVE else "REJECT")
    if action.kind == Kind.BONUS:
        return bonus_send(action=action, client=client)
    if action.kind in (Kind.BLOCK, Kind.UNBLOCK):
        groups = _blocklist(action.worker.external_id, add=action.kind == Kind.BLOCK, client=client)
        return f"Blocklist groups changed: {groups}."
    client.message_send(
        recipient_id=action.reference,
        study_id=action.payload["study_id"],
        body=action.payload["body"],
    )
    return "Message sent."


def _transition(action: ProviderAction, client: ProlificClient, transition: str) -> str:
    """Approve or reject the submission unless Prolific has it so already; a transition
    refused because another call got there first reads the status again."""
    submission_pk, wanted = action.payload["submission"], TRANSITIONED[transition]
    try:
        status = submission_transition(
            submission_pk=submission_pk, action=transition, client=client
        )
    except ProlificError as error:
        if not error.refused:
            raise
        status = client.submission_get(submission_id=action.reference)["status"]
        Submission.objects.filter(pk=submission_pk).update(status=status)
    if status != wanted:
        raise ProviderError(f"Prolific has this submission as {status}: it was not {wanted}.")
    return f"Prolific has the submission as {status}."


def _blocklist(participant_id: str, *, add: bool, client: ProlificClient) -> int:
    """Blocked participants sit in the participant group every study excludes."""
    groups = set(
        Study.objects.exclude(blocklist_group_id="").values_list("blocklist_group_id", flat=True)
    )
    change = client.participant_group_add if add else client.participant_group_remove
    for group_id in sorted(groups):
        change(group_id=group_id, participant_ids=[participant_id])
    return len(groups)


def action_reconcile(*, action: ProviderAction, client: ProlificClient, now) -> str:
    return bonus_reconcile(action=action, client=client, now=now)
