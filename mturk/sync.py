"""Bringing MTurk's records in: HITs and their assignments. An answer MTurk has an
assignment for (same id, HIT and worker) is linked, moved to the worker's own row
(mturk.claims) and confirmed: only then does it count. Decisions made on MTurk
(auto-approval, a rejection on the requester site) are mirrored into Parable's."""

from __future__ import annotations

from collections import Counter

from django.db import transaction
from django.utils import timezone

from crowd.models import Assignment, Batch
from crowd.review import assignment_approve, assignment_reject, unvouched_release
from mturk import client
from mturk.claims import answer_vouched, claim_external_id
from mturk.models import HIT, MTurkAssignment, Publication
from mturk.publishing import as_datetime, exclusion_set

STATUSES = ["Submitted", "Approved", "Rejected"]
_TIMES = {
    "accepted_at": "AcceptTime",
    "submitted_at": "SubmitTime",
    "auto_approval_at": "AutoApprovalTime",
    "approved_at": "ApprovalTime",
    "rejected_at": "RejectionTime",
}


def batch_sync(*, batch: Batch) -> int:
    """Sync every HIT of the batch that MTurk still keeps, then reject the answers MTurk
    never vouched for in time (crowd.review.unvouched_release); returns rows changed."""
    changed = 0
    for hit in batch.mturk_hits.exclude(status=HIT.Status.DISPOSED):
        changed += hit_sync(hit=hit)
    cap_enforce(batch=batch)
    return changed + unvouched_release(batch=batch)


def open_batches_sync() -> int:
    """What beat runs: every published MTurk batch."""
    batches = Batch.objects.filter(provider="mturk", status=Batch.Status.PUBLISHED)
    return sum(batch_sync(batch=batch) for batch in batches)


def hit_sync(*, hit: HIT) -> int:
    """One HIT: its status and deadline, then every assignment page by page (all statuses).
    MTurk is read first, outside any transaction; what it said is written in one short
    transaction after."""
    remote = client.call("get_hit", HITId=hit.hit_id)["HIT"]
    rows = list(
        client.pages(
            "list_assignments_for_hit",
            "Assignments",
            HITId=hit.hit_id,
            MaxResults=100,
            AssignmentStatuses=STATUSES,
        )
    )
    with transaction.atomic():
        hit = HIT.objects.select_for_update().select_related("item", "batch").get(pk=hit.pk)
        hit.status = remote["HITStatus"]
        hit.max_assignments = remote["MaxAssignments"]
        hit.expires_at = as_datetime(remote["Expiration"])
        hit.synced_at = timezone.now()
        hit.save(update_fields=["status", "max_assignments", "expires_at", "synced_at"])
        return sum(_assignment_upsert(hit=hit, row=row) for row in rows)


def _assignment_upsert(*, hit: HIT, row: dict) -> int:
    fields = {
        "hit": hit,
        "worker_id": row["WorkerId"],
        "status": row["AssignmentStatus"],
        "requester_feedback": row.get("RequesterFeedback", ""),
        **{field: as_datetime(row[key]) if row.get(key) else None for field, key in _TIMES.items()},
    }
    answer = _matching_answer(hit=hit, assignment_id=row["AssignmentId"], worker_id=row["WorkerId"])
    fields["answer"] = answer
    record, created = MTurkAssignment.objects.get_or_create(
        assignment_id=row["AssignmentId"], defaults=fields
    )
    changed = created or any(getattr(record, name) != value for name, value in fields.items())
    if changed and not created:
        for name, value in fields.items():
            setattr(record, name, value)
        record.save()
    if answer is not None:
        answer = answer_vouched(answer=answer, worker_id=row["WorkerId"])
        _mirror_decision(record=record, answer=answer)
    return int(changed)


def _matching_answer(*, hit: HIT, assignment_id: str, worker_id: str) -> Assignment | None:
    """The stored answer with this assignment id, on this HIT's item, by this worker (on
    the worker's own row, or set aside under its claim)."""
    return (
        Assignment.objects.filter(
            item=hit.item,
            provider_assignment_id=assignment_id,
            worker__provider="mturk",
            worker__external_id__in=[worker_id, claim_external_id(worker_id, assignment_id)],
            status__in=Assignment.STORED,
        )
        .select_related("item", "worker")
        .first()
    )


def _mirror_decision(*, record: MTurkAssignment, answer: Assignment) -> None:
    """MTurk approved (auto-approval) or rejected it: Parable's review follows."""
    if record.status == MTurkAssignment.Status.APPROVED and answer.status == "submitted":
        assignment_approve(assignment=answer, message=record.requester_feedback)
    elif record.status == MTurkAssignment.Status.REJECTED and answer.status == "submitted":
        assignment_reject(
            assignment=answer, message=record.requester_feedback or "Rejected on MTurk."
        )


def cap_enforce(*, batch: Batch) -> list[str]:
    """Workers at the batch's per-worker cap get the exclusion qualification."""
    publication = Publication.objects.filter(batch=batch).first()
    if publication is None or batch.per_worker_cap is None:
        return []
    counts = Counter(
        MTurkAssignment.objects.filter(hit__batch=batch).values_list("worker_id", flat=True)
    )
    at_cap = sorted(worker for worker, count in counts.items() if count >= batch.per_worker_cap)
    for worker_id in at_cap:
        exclusion_set(publication=publication, worker_id=worker_id)
    return at_cap
