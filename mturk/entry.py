"""A worker arriving from MTurk: the task page's parameters checked and bound to an answer.

The parameters (assignmentId, hitId, workerId) are claims: they pick the answer
a page stores, never who is paid. mturk.sync links the answer to MTurk's own
assignment only when id, HIT and worker all match.

The claims cannot be checked while the worker works: MTurk's GetAssignment
"retrieves an assignment with an AssignmentStatus value of Submitted, Approved,
or Rejected" (https://docs.aws.amazon.com/goto/WebAPI/mturk-requester-2017-01-17/GetAssignment),
never one just accepted. So an MTurk page's reservation holds none of the item's
slots: MTurk itself lets at most MaxAssignments workers accept the HIT, and a
made-up assignment (anyone can read a HIT id in its URLs) never locks a real
worker out.
"""

from __future__ import annotations

import re

from django.core import signing
from django.db import transaction

from crowd.assignments import assignment_reserve_next
from crowd.models import Assignment, BatchItem, Worker
from mturk.client import endpoint

PREVIEW = "ASSIGNMENT_ID_NOT_AVAILABLE"
SALT = "parable.mturk.answer"
_ID = re.compile(r"^[A-Za-z0-9]{1,64}$")


class EntryError(ValueError):
    """The page's parameters cannot be honoured; the message is shown to the worker."""


def submit_origin(turk_submit_to: str) -> str:
    """turkSubmitTo when it is the configured MTurk site (or stand-in); EntryError otherwise."""
    allowed = endpoint().submit_origin
    if turk_submit_to.rstrip("/") != allowed:
        raise EntryError("This task page was opened with a submit address that is not MTurk's.")
    return allowed


@transaction.atomic
def mturk_task_open(*, item: BatchItem, assignment_id: str, hit_id: str, worker_id: str):
    """The answer this MTurk assignment writes to: reserved now, or the one already held.

    Raises EntryError for malformed parameters or a HIT that is not this item's, and
    crowd's NoWorkAvailable when the worker may not work on it (blocked, cap reached).
    """
    hit = getattr(item, "mturk_hit", None)
    if hit is None or hit.hit_id != hit_id:
        raise EntryError("This HIT is not part of this task.")
    if not (_ID.match(assignment_id) and _ID.match(worker_id)):
        raise EntryError("This task page was opened without a valid assignment and worker.")
    worker, _ = Worker.objects.get_or_create(provider="mturk", external_id=worker_id)
    stored = Assignment.objects.filter(
        item=item, worker=worker, provider_assignment_id=assignment_id
    ).first()
    if stored is not None and stored.status in Assignment.STORED:
        return stored  # stored already: the page offers to send it to MTurk again
    answer = assignment_reserve_next(batch=item.batch, worker=worker, item=item, holds_slot=False)
    if answer.provider_assignment_id == assignment_id:
        return answer
    if answer.status != Assignment.Status.RESERVED:
        raise EntryError("You have already done this task.")
    # A new MTurk assignment for the same worker and item (returned, then accepted again).
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
