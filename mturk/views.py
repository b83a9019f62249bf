"""The ExternalQuestion task page MTurk frames, and its cookie-free JSON submit.

Security: MTurk's URL parameters are claims (mturk.entry). The page keeps the site's
Content-Security-Policy with frame-ancestors and form-action widened to MTurk's worker site
(no X-Frame-Options); the submit URL carries a signed reference to the answer, no cookie.
Worker text is rendered escaped.
"""

from __future__ import annotations

from csp.constants import SELF
from django.core import signing
from django.http import Http404
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from crowd.assignments import NoWorkAvailable
from crowd.models import Assignment, BatchItem
from frontend.views import message_page, render_task_page, submit_response
from mturk.client import endpoint
from mturk.entry import (
    PREVIEW,
    EntryError,
    answer_from_token,
    answer_token,
    mturk_task_open,
    submit_origin,
)


def _framed_by_mturk(response):
    # django-csp's per-response replacement (what its csp_replace decorator sets): the
    # site's policy, with frame-ancestors and form-action (externalSubmit) widened to the
    # configured endpoint's worker site.
    origin = endpoint().origin
    response._csp_replace = {"frame-ancestors": [SELF, origin], "form-action": [SELF, origin]}
    return response


@xframe_options_exempt
@require_GET
def task(request, item_id: int):
    """The item's task page under MTurk: a read-only preview until the HIT is accepted."""
    item = get_object_or_404(
        BatchItem.objects.select_related("batch", "proverb", "narrative", "mturk_hit"),
        pk=item_id,
        batch__provider="mturk",
    )
    params = request.GET
    assignment_id = params.get("assignmentId", "")
    if assignment_id in ("", PREVIEW):
        return _framed_by_mturk(
            render(request, "mturk/preview.html", {"batch": item.batch, "item": item})
        )
    try:
        submit_to = submit_origin(params.get("turkSubmitTo", ""))
        answer = mturk_task_open(
            item=item,
            assignment_id=assignment_id,
            hit_id=params.get("hitId", ""),
            worker_id=params.get("workerId", ""),
        )
    except EntryError as error:
        return _framed_by_mturk(message_page(request, str(error), status=400))
    except NoWorkAvailable as reason:
        return _framed_by_mturk(message_page(request, reason.reason, status=200))
    external_submit = {
        "url": f"{submit_to}/mturk/externalSubmit",
        "fields": {"assignmentId": assignment_id, "parableAnswer": answer.pk},
    }
    if answer.status in Assignment.STORED:
        # Stored here, but MTurk may not have the assignment yet (the post was lost).
        return _framed_by_mturk(
            render(request, "mturk/stored.html", {"batch": item.batch, "form": external_submit})
        )
    response = render_task_page(
        request,
        answer,
        submit_url=reverse("mturk:submit", args=[answer_token(answer)]),
        next_url="",
        return_url="",
        external_submit=external_submit,
    )
    return _framed_by_mturk(response)


@csrf_exempt
@require_POST
def submit(request, token: str):
    """JSON submit for an MTurk page: the signed token names the answer (no cookie)."""
    try:
        answer = answer_from_token(token)
    except (signing.BadSignature, Assignment.DoesNotExist):
        raise Http404 from None
    return submit_response(request, answer, next_url="")
