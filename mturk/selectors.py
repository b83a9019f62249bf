"""Reads for the MTurk admin: a batch's HITs and assignments, what needs attention (answers
matching no MTurk assignment, work about to be auto-approved)."""

from __future__ import annotations

from datetime import timedelta

from django.db.models import Min, Prefetch, Q
from django.utils import timezone

from crowd.models import Assignment, Batch
from mturk.models import HIT, MTurkAssignment

AUTO_APPROVAL_WARNING = timedelta(days=1)


def unmatched_answers(*, batch: Batch):
    """Stored answers that no MTurk assignment (same id, HIT and worker) vouches for:
    never approved or paid; after a sync, a forged worker id or a page opened outside MTurk."""
    return (
        Assignment.objects.filter(
            item__batch=batch,
            item__mturk_hit__isnull=False,  # imported results have no live HIT to match
            status__in=Assignment.STORED,
            mturk_assignment__isnull=True,
        )
        .select_related("worker", "item__proverb")
        .order_by("id")
    )


def auto_approval_due(*, batch: Batch, now=None):
    """Submitted work that MTurk will approve on its own within a day, unreviewed."""
    now = now or timezone.now()
    return MTurkAssignment.objects.filter(
        hit__batch=batch,
        status=MTurkAssignment.Status.SUBMITTED,
        auto_approval_at__lte=now + AUTO_APPROVAL_WARNING,
    ).order_by("auto_approval_at")


def batch_hits(*, batch: Batch):
    """The batch's HITs with their assignments and linked answers, in item order, each with
    `next_auto_approval`: when MTurk approves its earliest unreviewed submission by itself."""
    assignments = MTurkAssignment.objects.select_related("answer__worker")
    return (
        HIT.objects.filter(batch=batch)
        .select_related("item__proverb", "item__narrative")
        .prefetch_related(Prefetch("assignments", queryset=assignments))
        .annotate(
            next_auto_approval=Min(
                "assignments__auto_approval_at",
                filter=Q(assignments__status=MTurkAssignment.Status.SUBMITTED),
            )
        )
        .order_by("item__position", "item_id")
    )
