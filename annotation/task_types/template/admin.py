"""The template type's review list (an answer's fields as a table, its page the template's
own layout in a sandboxed, read-only frame) and the batch's downloads. Worker text is
escaped: every cell is built with format_html."""

from __future__ import annotations

import io
import json

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import path
from django.utils.html import format_html, format_html_join

from annotation.task_parts.review_admin import TaskReviewAdmin, excerpt
from annotation.task_types.template import results
from annotation.task_types.template.frames import frame_url
from annotation.task_types.template.models import TemplateAnswer
from annotation.task_types.template.task import away_text
from crowd.models import Batch

DOWNLOADS = {  # kind: (what writes it on a stream, its type, its file's name)
    "csv": (results.results_csv, "text/csv", "results.csv"),
    "jsonl": (results.results_jsonl, "application/x-ndjson", "results.jsonl"),
    "card": (
        lambda *, batch, stream: stream.write(results.results_card(batch=batch)),
        "text/markdown",
        "README.md",
    ),
    "agreement": (  # with the majority answer of each item
        lambda *, batch, stream: json.dump(results.agreement_report(batch=batch), stream, indent=1),
        "application/json",
        "agreement.json",
    ),
}


def pairs_table(pairs) -> str:
    rows = format_html_join("", "<tr><th>{}</th><td>{}</td></tr>", pairs)
    return format_html('<table class="template-fields">{}</table>', rows)


@admin.register(TemplateAnswer)
class TemplateReviewAdmin(TaskReviewAdmin):
    task_type = "template"
    row_display = ("inputs", "answer_table", "time_away")
    row_related = ("row__template",)
    readonly_fields = ("layout", "answer_table", "inputs", "time_away", "assignment")

    @admin.display(description="CSV row (Input.*)")
    def inputs(self, answer):
        return pairs_table((name, excerpt(value)) for name, value in answer.row.values.items())

    @admin.display(description="Answer (Answer.*)")
    def answer_table(self, answer):
        return pairs_table(answer.pairs())

    @admin.display(description="Time away")
    def time_away(self, answer) -> str:
        return away_text(answer.away)

    @admin.display(description="In the template's layout")
    def layout(self, answer):
        if not answer.row.template.segments:
            return "Unknown: these answers were imported from MTurk's results file."
        url = frame_url(mode="review", item=answer.assignment.item, assignment=answer.assignment)
        return format_html(
            '<iframe sandbox="allow-scripts" src="{}" title="The answer in the template" '
            'style="width:100%;min-height:32rem;border:1px solid #ccc" '
            'data-testid="review-frame"></iframe>',
            url,
        )

    def get_urls(self):
        download = self.admin_site.admin_view(self.results_view)
        name = "annotation_templateanswer_results"
        return [
            path("results/<int:batch_id>/<str:kind>/", download, name=name),
            *super().get_urls(),
        ]

    def results_view(self, request, batch_id: int, kind: str):
        """A template batch's results as a file (view-batch permission)."""
        if not request.user.has_perm("crowd.view_batch"):
            raise PermissionDenied
        if kind not in DOWNLOADS:
            raise Http404
        batch = get_object_or_404(Batch, pk=batch_id, task_type=self.task_type)
        write, content_type, filename = DOWNLOADS[kind]
        stream = io.StringIO()
        write(batch=batch, stream=stream)
        response = HttpResponse(stream.getvalue(), content_type=f"{content_type}; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="batch-{batch.pk}-{filename}"'
        return response
