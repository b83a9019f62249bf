"""Worker-facing pages: entry by invite, next task, the task page (after the batch's
pledge, if any), submit.

Security: a worker is identified only by the session a signed invite sets; every
assignment view checks the assignment is theirs (404 otherwise, so ids are not probed).
The pledge form carries a token signed for its assignment. Worker text is rendered escaped.
"""

from __future__ import annotations

from django.contrib.auth.views import redirect_to_login
from django.core import signing
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from common.checked_input import InputError
from common.request_input import query_int, request_json
from crowd import task_types
from crowd.assignments import (
    WITH_TASK,
    NoWorkAvailable,
    assignment_reserve_next,
    assignment_return,
    assignment_submit,
)
from crowd.models import Assignment, Batch, Worker
from crowd.pledges import pledge_needed, pledge_record
from crowd.previews import NothingToPreview, preview_assignment, preview_item
from crowd.providers import get_provider
from crowd.task_types import SubmissionConflict, SubmissionError
from crowd.workers import (
    WorkerBlocked,
    invite_read,
    worker_offered,
    worker_open_batches,
    worker_overview,
)
from frontend.workers import (
    session_blocked_reason,
    session_worker,
    session_worker_drop,
    session_worker_id,
    session_worker_set,
)


def invite_enter(request, token: str):
    """Open a signed invite: the worker's session is set, then on to work. A forged,
    expired or blocked worker's link is refused and any worker session here dropped."""
    try:
        worker, batch_id = invite_read(token)
    except WorkerBlocked as blocked:
        session_worker_drop(request, blocked_reason=blocked.reason)
        return _blocked(request)
    except signing.SignatureExpired:
        request.session.flush()
        return message_page(request, "This link has expired; ask for a new one.", status=404)
    except (signing.BadSignature, Worker.DoesNotExist):
        request.session.flush()
        return message_page(request, "This link is not valid.", status=404)
    session_worker_set(request, worker)
    return redirect("frontend:next", batch_id=batch_id) if batch_id else redirect("frontend:home")


def message_page(request, message: str, *, status: int = 200, **context):
    """A page that says one thing to the worker (escaped, as every worker-facing text)."""
    return render(request, "frontend/message.html", {"message": message, **context}, status=status)


def _no_worker(request):
    """403 for a browser with no worker: a blocked worker's reason, or where to start."""
    if session_blocked_reason(request):
        return _blocked(request)
    return message_page(
        request, "Open the personal link you were given to start working.", status=403
    )


def _blocked(request):
    """A blocked worker sees the researcher's reason and nothing else (no tasks, no links)."""
    return render(
        request, "frontend/blocked.html", {"reason": session_blocked_reason(request)}, status=403
    )


def worker_home(request):
    """The signed-in worker's own page: open batches and tasks, submissions with the
    reviewer's message, earnings."""
    worker = session_worker(request)
    if worker is None:
        return _no_worker(request)
    context = {"worker": worker, "batches": worker_open_batches(worker=worker)}
    return render(request, "frontend/home.html", {**context, **worker_overview(worker=worker)})


def next_task(request, batch_id: int):
    """Reserve (or resume) the worker's next item in the batch and open it: only batches
    of the worker's own provider (404 otherwise), or their provider's session."""
    if session_worker_id(request) is None:
        return _no_worker(request)
    batch = get_object_or_404(Batch, pk=batch_id)
    try:
        with transaction.atomic():
            # The worker's row lock (reservation takes it) with the session's lookup.
            worker = session_worker(request, lock=True)
            if worker is None:
                return _no_worker(request)
            if not worker_offered(worker=worker, batch=batch):
                raise Http404  # a provider's workers only take that provider's batches
            session_url = get_provider(batch.provider).session_url(batch=batch, worker=worker)
            if session_url is not None:
                return redirect(session_url)
            assignment = assignment_reserve_next(batch=batch, worker=worker, worker_locked=True)
    except NoWorkAvailable as reason:
        if reason.code == "qualification":
            return redirect("frontend:qualify", batch_id=batch.pk)
        return message_page(request, reason.reason, code=reason.code, batch=batch)
    return redirect("frontend:task", assignment_id=assignment.pk)


def qualify(request, batch_id: int):
    """The batch's qualification test: GET shows it (or the outcome), POST scores it once;
    only a batch offered to the session's worker (404 otherwise). Answers: q<pair id>."""
    worker = session_worker(request)
    if worker is None:
        return _no_worker(request)
    batch = get_object_or_404(Batch, pk=batch_id, status=Batch.Status.PUBLISHED)
    if not worker_offered(worker=worker, batch=batch):
        raise Http404  # another provider's (or the demo's) batch: not even its name
    task_type = task_types.get(batch.task_type)
    error = ""
    if request.method == "POST":
        answers = {key[1:]: value for key, value in request.POST.items() if key.startswith("q")}
        try:
            task_type.qualification_submit(batch=batch, worker=worker, answers=answers)
        except SubmissionError as refusal:
            error = refusal.message
        except LookupError:
            raise Http404 from None
        else:
            return redirect("frontend:next", batch_id=batch.pk)
    context = task_type.qualification_context(batch=batch, worker=worker)
    if not context:
        raise Http404
    return render(request, "frontend/qualify.html", {"batch": batch, "error": error, **context})


def _own_assignment(request, assignment_id: int) -> Assignment:
    """The session worker's assignment, with its item, batch, subject and worker, in one
    statement; 404 for anyone else's (and a blocked worker's session is dropped)."""
    worker_id = session_worker_id(request)
    if worker_id is None:
        raise Http404
    mine = Assignment.objects.filter(worker_id=worker_id, worker__blocked=False)
    assignment = mine.select_related(*WITH_TASK).filter(pk=assignment_id).first()
    if assignment is None:
        session_worker(request)  # drops the session of a blocked or deleted worker
        raise Http404
    return assignment


def task_page(request, assignment_id: int):
    """The task page of the assignment's type; a finished assignment shows its result."""
    try:
        assignment = _own_assignment(request, assignment_id)
    except Http404:
        if session_blocked_reason(request):
            return _blocked(request)
        raise
    return render_task_page(
        request,
        assignment,
        submit_url=reverse("frontend:submit", args=[assignment.pk]),
        next_url=get_provider(assignment.item.batch.provider).next_url(assignment=assignment),
        return_url=reverse("frontend:return", args=[assignment.pk]),
    )


def render_task_page(
    request,
    assignment: Assignment,
    *,
    submit_url: str,
    next_url: str,
    return_url: str,
    preview: bool = False,
    **extra,
):
    """Render the assignment's task-type page, for any way a worker arrives (after the
    batch's pledge). Its JS module reads `task_config`: the type's settings plus the
    common ones set here and `extra` (e.g. a provider's form to post once stored).
    `return_url` or `next_url` "" leave out their link; a `preview` keeps its own draft.
    """
    batch = assignment.item.batch
    task_type = task_types.get(batch.task_type)
    submitted = assignment.status in Assignment.STORED  # the page shows it, not the form
    if not preview and not submitted and pledge_needed(batch=batch, worker=assignment.worker):
        return _pledge_page(request, assignment)
    common = {
        "assignment": assignment.pk,
        "submit_url": submit_url,
        "check_url": reverse("frontend:check", args=[assignment.pk]),
        "next_url": next_url,
        "draft_key": f"parable:preview:{batch.pk}" if preview else f"parable:draft:{assignment.pk}",
        "submitted": submitted,
        **extra,
    }
    context = {
        "preview": preview,
        "assignment": assignment,
        "batch": batch,
        "item": assignment.item,
        "seconds_left": max(0, int((assignment.expires_at - timezone.now()).total_seconds())),
        "return_url": return_url,
        **common,
        **task_type.page_context(assignment=assignment),
    }
    context["task_config"] = {**common, **context.get("task_config", {})}
    return render(request, task_type.template, context)


PLEDGE_SALT = "parable.pledge"


def _pledge_page(request, assignment: Assignment):
    """The batch's pledge, with a token signed for this assignment: only whoever reached
    the page through the provider's entry checks may agree for its worker."""
    token = signing.dumps({"a": assignment.pk, "w": assignment.worker_id}, salt=PLEDGE_SALT)
    return render(
        request,
        "frontend/pledge.html",
        {
            "batch": assignment.item.batch,
            "token": token,
            "back": request.get_full_path(),
            "pledge_url": reverse("frontend:pledge"),
        },
    )


@csrf_exempt  # the signed token is the authority (MTurk frames the page: no CSRF cookie)
@require_POST
def pledge_agree(request):
    """Record the agreement the token signed by `_pledge_page` names (400 for a forged or
    altered one), then back to the task page (a path on this site only)."""
    try:
        data = signing.loads(request.POST.get("token", ""), salt=PLEDGE_SALT, max_age=86_400)
        assignment = Assignment.objects.select_related("item__batch", "worker").get(
            pk=data["a"], worker_id=data["w"], worker__blocked=False
        )
    except (signing.BadSignature, KeyError, TypeError, Assignment.DoesNotExist):
        return message_page(
            request, "This page has expired; open your task link again.", status=400
        )
    if request.POST.get("agree") != "yes":
        return message_page(
            request, "This batch's tasks need your agreement first; you can close the page."
        )
    pledge_record(batch=assignment.item.batch, worker=assignment.worker)
    back = request.POST.get("back", "")
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
        back = reverse("frontend:home")
    return redirect(back)


def task_preview(request, batch_id: int):
    """A batch's task page as a worker sees it, on a sample item (?item=<id> for another),
    with nothing stored. Staff with view_batch only; others go to the admin login."""
    if not request.user.is_authenticated or not request.user.is_staff:
        return redirect_to_login(request.get_full_path(), reverse("admin:login"))
    if not request.user.has_perm("crowd.view_batch"):
        raise PermissionDenied
    batch = get_object_or_404(Batch, pk=batch_id)
    try:
        item = preview_item(batch=batch, item_id=query_int(request, "item"))
    except NothingToPreview as reason:
        return message_page(request, str(reason))
    with preview_assignment(item=item) as assignment:
        return render_task_page(
            request,
            assignment,
            submit_url=reverse("frontend:preview_submit"),
            next_url="",
            return_url="",
            preview=True,
        )


@require_POST
def preview_submit(request):
    """A preview's Submit: the page shows that nothing is stored."""
    return JsonResponse(
        {"error": "This is a preview: the submission passed the page's checks; nothing is stored."},
        status=400,
    )


@require_POST
def task_submit(request, assignment_id: int):
    """JSON submit: 200 with the stored result (also on a retry with the same key), 400
    with the reason, 409 when another window already submitted this assignment."""
    worker_id = session_worker_id(request)
    if worker_id is None:
        raise Http404
    # The submit's locked read of the assignment is also its ownership check.
    return submit_response(request, Assignment(pk=assignment_id), worker_id=worker_id)


def submit_response(
    request,
    assignment: Assignment,
    *,
    next_url: str | None = None,
    worker_id: int | None = None,
) -> JsonResponse:
    """Store the JSON body's payload once (assignment_submit) and answer with the result;
    `next_url` None: the provider's. With `worker_id`, 404 for anyone else's assignment."""
    body, refusal = _json_object(request, "The submission", " Nothing was stored.", "payload")
    if refusal is not None:
        return refusal
    try:
        outcome = assignment_submit(
            assignment=assignment,
            payload=body.get("payload", {}),
            submission_key=str(body.get("submission_key", "")),
            worker_id=worker_id,
        )
    except Assignment.DoesNotExist:
        session_worker(request)  # drops the session of a blocked or deleted worker
        raise Http404 from None
    except SubmissionError as error:
        return JsonResponse(
            {"error": error.message, "field": error.field, "details": error.details},
            status=409 if isinstance(error, SubmissionConflict) else 400,
        )
    if next_url is None:
        provider = get_provider(outcome.assignment.item.batch.provider)
        next_url = provider.next_url(assignment=outcome.assignment)
    return JsonResponse(
        {
            "status": outcome.assignment.status,
            "replayed": outcome.replayed,
            "result": outcome.result,
            "next_url": next_url,
        }
    )


def _json_object(
    request, what: str, after: str = "", *objects: str
) -> tuple[dict, JsonResponse | None]:
    """The request's JSON object (empty body: {}) whose `objects` keys, where present, hold
    objects too; or a 400 saying why it cannot be read."""
    try:
        body = request_json(request) if request.body else {}
    except InputError as error:
        return {}, JsonResponse({"error": f"{what} could not be read: {error}{after}"}, status=400)
    if not isinstance(body, dict) or any(
        not isinstance(body.get(key, {}), dict) for key in objects
    ):
        return {}, JsonResponse({"error": f"{what} could not be read; try again."}, status=400)
    return body, None


@require_POST
def task_check(request, assignment_id: int):
    """JSON live check of a draft (the cloze parser's verdict) by the assignment's own
    worker; stores nothing. 404 for task types without a live check."""
    assignment = _own_assignment(request, assignment_id)
    body, refusal = _json_object(request, "The draft")
    if refusal is not None:
        return refusal
    task_type = task_types.get(assignment.item.batch.task_type)
    try:
        return JsonResponse(task_type.live_check(assignment=assignment, payload=body))
    except LookupError:
        raise Http404 from None


@require_POST
def task_return(request, assignment_id: int):
    """Give the task back without submitting; its slot reopens for others."""
    assignment = _own_assignment(request, assignment_id)
    assignment_return(assignment=assignment)
    return redirect("frontend:home")
