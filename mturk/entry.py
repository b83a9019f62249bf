"""A worker arriving from MTurk: the task page's parameters checked and bound to an answer.

The parameters (assignmentId, hitId, workerId) are claims anyone can make up: an answer
stored under them waits UNCONFIRMED, holding no slot, counting for nothing and never paid,
until mturk.sync finds MTurk's assignment with the same id, HIT and worker (GetAssignment
never returns one just accepted:
https://docs.aws.amazon.com/goto/WebAPI/mturk-requester-2017-01-17/GetAssignment). Its
reservation counts against no cap (MTurk's MaxAssignments and exclusion qualification keep
those), and another unvouched claim's answer is set aside (mturk.claims): a made-up
assignment never locks the real worker out, nor takes their answer.
"""

from __future__ import annotations

import re

from django.core import signing
from django.db import transaction
from django.utils import timezone

from crowd.assignments import assignment_reserve_next
from crowd.models import Assignment, BatchItem, Worker
from mturk.claims import answer_set_aside, claim_external_id
from mturk.client import endpoint
from mturk.models import MTurkAssignment

PREVIEW = "ASSIGNMENT_ID_NOT_AVAILABLE"
SALT = "parable.mturk.answer"
_ID = re.compile(r"^[A-Za-z0-9]{1,64}$")
_GIVEN_BACK = (Assignment.Status.EXPIRED, Assignment.Status.RETURNED)


class EntryError(ValueError):
    """The page's parameters cannot be honoured; the message is shown to the worker."""


def submit_origin(turk_submit_to: str) -> str:
    """turkSubmitTo when it is the configured MTurk site (or stand-in); EntryError otherwise."""
    allowed = endpoint().origin
    if turk_submit_to.rstrip("/") != allowed:
        raise EntryError("This task page was opened with a submit address that is not MTurk's.")
    return allowed


@transaction.atomic
def mturk_task_open(*, item: BatchItem, assignment_id: str, hit_id: str, worker_id: str):
    """The answer this MTurk assignment writes to: the one it has, or one reserved now for
    the claimed worker. EntryError for malformed parameters, another item's HIT, or a worker
    MTurk vouches for on this item under another assignment; NoWorkAvailable when the
    worker may not work on it."""
    hit = getattr(item, "mturk_hit", None)
    if hit is None or hit.hit_id != hit_id:
        raise EntryError("This HIT is not part of this task.")
    if not (_ID.match(assignment_id) and _ID.match(worker_id)):
        raise EntryError("This task page was opened without a valid assignment and worker.")
    worker, _ = Worker.objects.get_or_create(provider="mturk", external_id=worker_id)
    worker = Worker.objects.select_for_update().get(pk=worker.pk)  # one claim at a time
    claimed = Assignment.objects.filter(
        item=item,
        provider_assignment_id=assignment_id,
        worker__provider="mturk",
        worker__external_id__in=[worker_id, claim_external_id(worker_id, assignment_id)],
    ).first()
    if claimed is not None and (
        claimed.status in Assignment.STORED
        or (claimed.status == Assignment.Status.RESERVED and claimed.expires_at > timezone.now())
    ):
        return claimed  # stored already (the page offers to send it to MTurk again) or open
    held = (
        Assignment.objects.filter(item=item, worker=worker)
        .exclude(status__in=_GIVEN_BACK)
        .exclude(provider_assignment_id=assignment_id)
        .select_related("worker")
        .first()
    )
    if held is not None:
        if MTurkAssignment.objects.filter(answer=held).exists():
            raise EntryError("You have already done this task.")
        answer_set_aside(answer=held)
    answer = assignment_reserve_next(
        batch=item.batch, worker=worker, item=item, holds_slot=False, worker_locked=True
    )
    if answer.provider_assignment_id != assignment_id:
        answer.provider_assignment_id = assignment_id
        answer.save(update_fields=["provider_assignment_id"])
    return answer


def answer_token(answer: Assignment) -> str:
    """Signed reference to the answer and its MTurk assignment id: the submit URL's key."""
    return signing.dumps({"a": answer.pk, "m": answer.provider_assignment_id}, salt=SALT)


def answer_from_token(token: str) -> Assignment:
    """The answer a token names; signing.BadSignature or Assignment.DoesNotExist otherwise."""
    data = signing.loads(token, salt=SALT)
    return Assignment.objects.select_related("item__batch", "worker").get(
        pk=data["a"], provider_assignment_id=data["m"], worker__provider="mturk"
    )
