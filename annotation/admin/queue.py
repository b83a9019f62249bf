"""The review queue: one submission at a time, reviewed with the keyboard, no page reloads.

Under /admin/review/: every view needs review_batch. The page's script
(annotation/review_queue.js) gets `next/` as JSON and posts each decision to `decide/`.
Worker text travels as JSON strings and is written with textContent.
"""

from __future__ import annotations

from django import forms
from django.db import transaction
from django.db.models import Count, Q
from django.http import JsonResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from annotation.admin.pages import admin_page, page_urls, require_permission
from annotation.quality.flags import flag_drift
from annotation.quality.integrity import FLAG_TITLES
from annotation.quality.submissions import submission_counts, submission_next, submission_review
from crowd import task_types
from crowd.admin.review import REVIEW_PERMISSION, withdrawal_summary
from crowd.models import Assignment, Batch, Bonus, SavedReviewMessage
from crowd.money import AmountField, money_text
from crowd.pay import bonus_state_text
from crowd.providers import batch_currency
from crowd.review import (
    ReviewError,
    assignment_approve,
    assignment_approve_exclude,
    assignment_bonus,
    assignment_reject,
    reason_digest,
    worker_block,
)
from crowd.withdrawals import withdrawal_impact

MAX_SKIPPED = 500
SAVED_SHOWN = 9  # picked with the keys 1-9


DECISIONS = ("approve", "reject", "block", "bonus", "exclude")


class DecisionForm(forms.Form):
    decision = forms.ChoiceField(choices=[(d, d) for d in DECISIONS])
    message = forms.CharField(required=False, max_length=5_000)
    amount = AmountField(required=False)


def index_view(request):
    """Batches with their submissions awaiting review, each linking to its queue."""
    require_permission(request, REVIEW_PERMISSION)
    batches = Batch.objects.annotate(
        awaiting=Count("items__assignments", filter=Q(items__assignments__status="submitted"))
    ).order_by("-awaiting", "-id")
    return admin_page(request, "admin/annotation/queue/index.html", "Review queue", batches=batches)


def queue_view(request, batch_id: int):
    """The queue page of one batch (its script loads the submissions), with the batch's
    share of each integrity flag over its submissions (drift), drawn and tabled."""
    from annotation.analysis.plots import integrity_drift  # matplotlib: only when drawn

    require_permission(request, REVIEW_PERMISSION)
    batch = get_object_or_404(Batch, pk=batch_id)
    review_url = task_types.get(batch.task_type).review_url(batch=batch)
    drift = flag_drift(batch=batch)
    return admin_page(
        request,
        "admin/annotation/queue/queue.html",
        f"Review: {batch.name}",
        batch=batch,
        counts=submission_counts(batch=batch),
        saved_messages=SavedReviewMessage.objects.all()[:SAVED_SHOWN],
        bonus_reasons=bonus_reasons_used(batch=batch),
        currency=batch_currency(batch),
        list_url=f"{review_url}&status=submitted" if review_url else "",
        next_url=reverse("review_queue:next", args=[batch.pk]),
        decide_url=reverse("review_queue:decide", args=[batch.pk, 0]),
        drift=drift,
        drift_titles=[FLAG_TITLES[code] for code in drift["codes"]],
        drift_rows=[
            [window["until"][:16].replace("T", " "), window["stories"]]
            + [f"{window['shares'][code]:.0%}" for code in drift["codes"]]
            for window in drift["windows"]
        ],
        drift_svg=integrity_drift(drift) if drift["codes"] else "",
    )


def bonus_reasons_used(*, batch: Batch) -> list[str]:
    """The reasons of the batch's bonuses so far, latest first: what the bonus dialog offers
    (saved review messages are rejection messages, never bonus reasons)."""
    reasons = Bonus.objects.filter(assignment__item__batch=batch).order_by("-id")
    return list(dict.fromkeys(reasons.values_list("reason", flat=True)[:200]))[:SAVED_SHOWN]


def _skipped(raw: str) -> list[int]:
    return [int(value) for value in raw.split(",") if value.isdigit()][:MAX_SKIPPED]


@require_GET
def next_view(request, batch_id: int):
    """JSON: the next submission awaiting review (none: null) and the batch's counts."""
    require_permission(request, REVIEW_PERMISSION)
    batch = get_object_or_404(Batch, pk=batch_id)
    assignment = submission_next(batch=batch, skip=_skipped(request.GET.get("skip", "")))
    return JsonResponse(
        {
            "counts": submission_counts(batch=batch),
            "submission": submission_review(assignment=assignment) if assignment else None,
        }
    )


@require_POST
def decide_view(request, batch_id: int, assignment_id: int):
    """JSON: approve, reject (with a message), block the worker (with a reason), approve and
    pay a bonus (amount and reason), or approve and exclude (with a reason)."""
    require_permission(request, REVIEW_PERMISSION)
    assignment = get_object_or_404(
        Assignment.objects.select_related("item__batch", "worker"),
        pk=assignment_id,
        item__batch_id=batch_id,
    )
    form = DecisionForm(request.POST)
    if not form.is_valid():
        said = " ".join(form.errors.get("amount", []))
        return JsonResponse(
            {"error": said or "Choose approve, reject, block, bonus (with an amount) or exclude."},
            status=400,
        )
    decision, message = form.cleaned_data["decision"], form.cleaned_data["message"]
    notes = []
    try:
        if decision == "approve":
            assignment_approve(assignment=assignment)
            done = "Approved."
        elif decision == "reject":
            impact = withdrawal_impact(assignments=[assignment])
            assignment_reject(assignment=assignment, message=message)
            done = "Rejected; the worker sees your message."
            if impact.items:
                notes.append(withdrawal_summary(impact))
        elif decision == "bonus":
            done = _approve_and_pay(assignment, cents=form.cleaned_data["amount"], reason=message)
        elif decision == "exclude":
            assignment_approve_exclude(assignment=assignment, reason=message)
            done = "Approved and excluded: paid, kept out of the dataset; its slot reopens."
        else:
            if not message.strip():
                raise ReviewError("Blocking a worker needs a reason.")
            if assignment.status == Assignment.Status.SUBMITTED:
                assignment_reject(assignment=assignment, message=message)
            worker_block(worker=assignment.worker, reason=message)
            done = f"{assignment.worker} blocked and this submission rejected."
    except ReviewError as error:
        return JsonResponse({"error": str(error)}, status=409)
    return JsonResponse({"done": " ".join([done, *notes]), "assignment": assignment.pk})


def _approve_and_pay(assignment: Assignment, *, cents: int | None, reason: str) -> str:
    """Approve (if still awaiting review) and pay a bonus through the provider, in one
    transaction with the calls they owe it (sent once it commits): a bonus refused as it is
    recorded leaves the submission as it was."""
    if not cents:
        raise ReviewError("Give the bonus as an amount (0.25).")
    with transaction.atomic():
        if assignment.status == Assignment.Status.SUBMITTED:
            assignment_approve(assignment=assignment)
        given = assignment_bonus(assignment=assignment, cents=cents, reason=reason)
    bonus = Bonus.objects.get(
        assignment=given, cents=cents, reason_digest=reason_digest(reason.strip())
    )
    return (
        f"Approved; bonus of {money_text(cents, batch_currency(assignment.item.batch))} for "
        f"{given.worker}: {bonus_state_text(bonus)} "
        f"(reason: {reason.strip()})."
    )


urls = (
    page_urls(
        ("", index_view, "index"),
        ("<int:batch_id>/", queue_view, "queue"),
        ("<int:batch_id>/next/", next_view, "next"),
        ("<int:batch_id>/<int:assignment_id>/decide/", decide_view, "decide"),
    ),
    "review_queue",
)
