"""Worker-facing pages: entry by invite, next task, the task page, submit.

Security: a worker is identified only by the session set when a signed invite
is opened; every assignment view checks the assignment belongs to that worker
(404 otherwise, so ids are not probed). Worker text is rendered escaped.
"""

from __future__ import annotations

from django.core import signing
from django.http import Http404, HttpResponseForbidden, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from annotation.intake.checked_input import InputError
from config.request_input import request_json
from crowd import task_types
from crowd.assignments import (
    NoWorkAvailable,
    assignment_reserve_next,
    assignment_return,
    assignment_submit,
)
from crowd.models import Assignment, Batch, Worker
from crowd.task_types import SubmissionConflict, SubmissionError
from crowd.workers import invite_read
from frontend.workers import session_worker, session_worker_set


def invite_enter(request, token: str):
    """Open a signed invite: the worker's session is set, then on to work.

    A forged, expired or blocked worker's link is refused and any worker session in
    this browser is dropped.
    """
    try:
        worker, batch_id = invite_read(token)
    except (signing.BadSignature, Worker.DoesNotExist) as error:
        request.session.flush()
        message = (
            "This link has expired; ask for a new one."
            if isinstance(error, signing.SignatureExpired)
            else "This link is not valid."
        )
        return render(request, "frontend/message.html", {"message": message}, status=404)
    session_worker_set(request, worker)
    if batch_id is not None:
        return redirect("frontend:next", batch_id=batch_id)
    return redirect("frontend:home")


def worker_home(request):
    """Open batches for the signed-in worker; anyone else is asked for their link."""
    worker = session_worker(request)
    if worker is None:
        return render(
            request,
            "frontend/message.html",
            {"message": "Open the personal link you were given to start working."},
            status=403,
        )
    batches = Batch.objects.filter(status=Batch.Status.PUBLISHED, provider="local").order_by("id")
    return render(request, "frontend/home.html", {"worker": worker, "batches": batches})


def next_task(request, batch_id: int):
    """Reserve (or resume) the worker's next item in the batch and open it."""
    worker = session_worker(request)
    if worker is None:
        return HttpResponseForbidden("Open the personal link you were given to start working.")
    batch = get_object_or_404(Batch, pk=batch_id)
    try:
        assignment = assignment_reserve_next(batch=batch, worker=worker)
    except NoWorkAvailable as reason:
        return render(
            request,
            "frontend/message.html",
            {"message": reason.reason, "code": reason.code, "batch": batch},
        )
    return redirect("frontend:task", assignment_id=assignment.pk)


def _own_assignment(request, assignment_id: int) -> Assignment:
    worker = session_worker(request)
    if worker is None:
        raise Http404
    return get_object_or_404(
        Assignment.objects.select_related(
            "item__batch", "item__proverb", "item__narrative", "worker"
        ),
        pk=assignment_id,
        worker=worker,
    )


def task_page(request, assignment_id: int):
    """The task page of the assignment's type; a finished assignment shows its result.

    The page's JS module reads `task_config` (json_script): the task type's own
    settings plus the common ones set here (submit, next and draft keys).
    """
    assignment = _own_assignment(request, assignment_id)
    batch = assignment.item.batch
    task_type = task_types.get(batch.task_type)
    submitted = assignment.status in Assignment.STORED  # the page shows it, not the form
    common = {
        "assignment": assignment.pk,
        "submit_url": reverse("frontend:submit", args=[assignment.pk]),
        "next_url": reverse("frontend:next", args=[batch.pk]),
        "draft_key": f"parable:draft:{assignment.pk}",
        "submitted": submitted,
    }
    context = {
        "assignment": assignment,
        "batch": batch,
        "item": assignment.item,
        "seconds_left": max(0, int((assignment.expires_at - timezone.now()).total_seconds())),
        "return_url": reverse("frontend:return", args=[assignment.pk]),
        **common,
        **task_type.page_context(assignment=assignment),
    }
    context["task_config"] = {**common, **context.get("task_config", {})}
    return render(request, task_type.template, context)


@require_POST
def task_submit(request, assignment_id: int):
    """JSON submit: 200 with the stored result (also on a retry with the same key), 400
    with the reason, 409 when another window already submitted this assignment."""
    assignment = _own_assignment(request, assignment_id)
    try:
        body = request_json(request) if request.body else {}
    except InputError as error:
        return JsonResponse(
            {"error": f"The submission could not be read: {error} Nothing was stored."},
            status=400,
        )
    if not isinstance(body, dict) or not isinstance(body.get("payload", {}), dict):
        return JsonResponse({"error": "The submission could not be read; try again."}, status=400)
    try:
        outcome = assignment_submit(
            assignment=assignment,
            payload=body.get("payload", {}),
            submission_key=str(body.get("submission_key", "")),
        )
    except SubmissionError as error:
        return JsonResponse(
            {"error": error.message, "field": error.field, "details": error.details},
            status=409 if isinstance(error, SubmissionConflict) else 400,
        )
    return JsonResponse(
        {
            "status": outcome.assignment.status,
            "replayed": outcome.replayed,
            "result": outcome.result,
            "next_url": reverse("frontend:next", args=[outcome.assignment.item.batch_id]),
        }
    )


@require_POST
def task_return(request, assignment_id: int):
    """Give the task back without submitting; its slot reopens for others."""
    assignment = _own_assignment(request, assignment_id)
    assignment_return(assignment=assignment)
    return redirect("frontend:home")
