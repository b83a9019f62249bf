"""Prolific participants' pages and Prolific's webhook.

Security: the entry's PROLIFIC_PID / STUDY_ID / SESSION_ID only let a participant work;
work counts and is paid only through Prolific's submission for that session. The session
cookie set at entry identifies the participant afterwards. The webhook accepts only
deliveries signed with the workspace secret and recent timestamps.
"""

from __future__ import annotations

from django.http import HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from frontend.views import message_page
from frontend.workers import session_worker, session_worker_set
from prolific.client import ProlificError
from prolific.models import ParticipantSession
from prolific.sessions import EntryRefused, session_enter, session_finish, session_next
from prolific.submissions import (
    WebhookRejected,
    webhook_receive,
    webhook_refusal,
    webhook_refusal_record,
)

SESSION_KEY = "parable_prolific_session"


def _refused(request, reason: EntryRefused):
    return message_page(request, reason.reason, status=reason.status)


@require_GET
def enter(request):
    """Prolific sends participants here with their three parameters; on to their first item."""
    try:
        session = session_enter(
            participant_id=request.GET.get("PROLIFIC_PID", ""),
            study_id=request.GET.get("STUDY_ID", ""),
            session_id=request.GET.get("SESSION_ID", ""),
        )
    except EntryRefused as reason:
        return _refused(request, reason)
    session_worker_set(request, session.worker)
    request.session[SESSION_KEY] = session.pk
    return redirect("prolific:session_continue")


@require_GET
def continue_session(request):
    """The participant's next item, or, when all are submitted, back to Prolific with the code."""
    worker = session_worker(request)
    session = (
        ParticipantSession.objects.select_related("study__batch", "worker")
        .filter(pk=request.session.get(SESSION_KEY), worker=worker)
        .first()
        if worker is not None
        else None
    )
    try:
        if session is None:
            raise EntryRefused("Open this study from Prolific to take part.")
        if session.status == ParticipantSession.Status.RETURNED:
            raise EntryRefused("This study was returned on Prolific.")
        assignment = session_next(session=session)
        if assignment is not None:
            return redirect("frontend:task", assignment_id=assignment.pk)
        return redirect(session_finish(session=session))
    except EntryRefused as reason:
        return _refused(request, reason)


@csrf_exempt
@require_POST
def webhook(request):
    """Prolific's deliveries: 403 unless signed within the time window (refusals logged and
    kept for the admin); 400 when malformed; 503 (not recorded, so a redelivery is handled)
    when Prolific cannot be asked about it; otherwise 200, once per X-Event-ID."""
    body = request.body
    timestamp = request.headers.get("X-Prolific-Request-Timestamp", "")
    event_id = request.headers.get("X-Event-ID", "")
    refusal = webhook_refusal(
        body=body,
        timestamp=timestamp,
        signature_header=request.headers.get("X-Prolific-Request-Signature", ""),
    )
    if refusal:
        webhook_refusal_record(reason=refusal, event_id=event_id, timestamp=timestamp, body=body)
        return HttpResponse("Signature not valid.", status=403, content_type="text/plain")
    try:
        outcome = webhook_receive(body=body, event_id=event_id)
    except WebhookRejected as error:
        return JsonResponse({"error": str(error)}, status=400)
    except ProlificError as error:
        # Not recorded: Prolific delivers again later, and polling catches up regardless.
        return JsonResponse({"error": str(error)}, status=503)
    return JsonResponse({"outcome": outcome})
