"""The HIT template's frame: a document of its own origin, and its one channel to Parable.

Security: the template is someone else's code. Its document is served at a URL that
carries a signed capability for one thing (the worker's assignment, which a staff preview
borrows, or a reviewer's look at an answer), with a Content-Security-Policy whose `sandbox`
allows scripts and forms but not the same origin: the template runs in an opaque origin,
so it cannot read Parable's cookies, session, storage, CSRF token or the page around it,
and Parable refuses its posts (CSRF: no token, no trusted origin). It cannot navigate the
top window (no allow-top-navigation). Its own scripts, styles and fonts may come from the
web; Parable's pages keep their strict policy. `form-action 'none'`: its form never
leaves the frame. The runtime (static/frame.js, first in its head) stops the submit and
hands the form's fields to the page around it by postMessage; that page (static/page.js)
submits its own assignment, once (crowd.assignments stores one submission per assignment;
a replay returns the stored one). The frame sees only its row's values; the worker is named
by a salted hash, as exports name them; `Referrer-Policy: no-referrer` keeps the
capability out of the requests the template makes.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.staticfiles import finders
from django.core import signing
from django.http import Http404, HttpResponse
from django.urls import reverse
from django.views.decorators.clickjacking import xframe_options_sameorigin
from django.views.decorators.http import require_GET

from annotation.task_types.template.models import HitTemplate, TemplateAnswer
from annotation.task_types.template.parsing import FREE_TEXT, render, script_json
from common.pseudonyms import WorkerPseudonyms, export_salt
from crowd.models import Assignment, BatchItem

SALT = "parable.template.frame"
MAX_AGE = 7 * 24 * 3600
SANDBOX = ["allow-scripts", "allow-forms", "allow-modals", "allow-popups"]
WEB = ["*", "data:", "blob:", "'unsafe-inline'", "'unsafe-eval'"]
POLICY = {
    "default-src": WEB,
    **dict.fromkeys(("script-src", "style-src", "img-src", "font-src", "connect-src")),
    "base-uri": ["*"],
    "object-src": ["'none'"],
    "form-action": ["'none'"],
    "frame-ancestors": ["'self'"],
    "sandbox": SANDBOX,
}


def frame_url(*, mode: str, item: BatchItem, assignment: Assignment) -> str:
    """The frame's URL ("work" or "review"): the capability, then MTurk's parameters, which
    a template reads from its own address (assignmentId, hitId, workerId, turkSubmitTo)."""
    token = signing.dumps({"m": mode, "i": item.pk, "a": assignment.pk}, salt=SALT, compress=True)
    worker = assignment.worker
    worker_id = WorkerPseudonyms(export_salt())(f"{worker.provider}:{worker.external_id}")
    query = {"assignmentId": str(assignment.pk), "hitId": str(item.pk), "workerId": worker_id}
    url = reverse("template_frame", args=[token])
    return f"{url}?{urlencode({**query, 'turkSubmitTo': settings.PARABLE_PUBLIC_URL or ''})}"


@functools.cache
def runtime_code() -> str:
    """The writing record (frontend/telemetry.js, an ES module, made plain script) and the
    frame runtime, in one function scope: a module could not load in an opaque origin
    without CORS, and nothing of it lands among the template's globals."""
    telemetry = Path(finders.find("frontend/telemetry.js")).read_text(encoding="utf-8")
    telemetry = re.sub(r"^import .*$", "", telemetry, flags=re.M)
    telemetry = re.sub(r"^export ", "", telemetry, flags=re.M)
    runtime = Path(finders.find("task_types/template/frame.js")).read_text(encoding="utf-8")
    return f"(function () {{\n{telemetry}\n{runtime}\n}})();"


def frame_document(*, template: HitTemplate, values: dict, config: dict) -> str:
    """The template with the row's values, and the runtime configured for this frame."""
    runtime = f"<script>window.parableFrame = {script_json(config)};\n{runtime_code()}</script>"
    return render(template.segments, values, runtime=runtime)


@xframe_options_sameorigin
@require_GET
def frame_view(request, token: str):
    """The frame's document: 404 for a forged or expired capability, and for a review
    without the reviewer's permission (a worker's capability shows their row's HIT, whatever
    became of the assignment: a staff preview's is rolled back with it)."""
    try:
        claim = signing.loads(token, salt=SALT, max_age=MAX_AGE)
    except signing.BadSignature:
        raise Http404 from None
    mode = claim["m"]
    if mode == "review" and not (
        request.user.is_staff and request.user.has_perm("crowd.review_batch")
    ):
        raise Http404
    items = BatchItem.objects.select_related("template_row__template")
    item = items.defer("template_row__template__source").filter(pk=claim["i"]).first()
    row = item.template_row if item else None
    if row is None or not row.template.segments:
        raise Http404
    config = {"mode": mode, "free_text": row.template.field_names(FREE_TEXT)}
    if mode == "review":
        answer = TemplateAnswer.objects.filter(assignment_id=claim["a"], row=row).first()
        if answer is None:
            raise Http404
        config["answers"] = answer.answers
    response = HttpResponse(frame_document(template=row.template, values=row.values, config=config))
    response._csp_replace = POLICY  # django-csp's per-response policy
    response["Cache-Control"] = "no-store"
    response["Referrer-Policy"] = "no-referrer"
    return response
