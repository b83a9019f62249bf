"""What the task types' review lists in the admin share: rows with the worker's figures,
review actions, filters, and the HTML of an alignment, options and a figurative narrative.
Worker text is data: every cell is built with format_html, which escapes each piece.
"""

from __future__ import annotations

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from annotation.models import FigurativeNarrative
from annotation.quality.reports import quality_report
from common.request_input import query_int
from crowd import task_types
from crowd.admin.review import REVIEW_ACTIONS, ReviewActions
from crowd.models import Batch

EXCERPT_CHARACTERS = 140


def excerpt(text: str) -> str:
    """The text, cut at EXCERPT_CHARACTERS."""
    return text if len(text) <= EXCERPT_CHARACTERS else text[:EXCERPT_CHARACTERS] + "…"


def batch_filter(task_type: str = "", *, makes: str = "") -> type[admin.SimpleListFilter]:
    """A list filter by the batches of one task type, or of the type that `makes` something
    (TaskType.produces) (?batch=id)."""

    class BatchFilter(admin.SimpleListFilter):
        title = "batch"
        parameter_name = "batch"

        def lookups(self, request, model_admin):
            key = task_type or task_types.producing(makes).key
            batches = Batch.objects.filter(task_type=key).order_by("-id")
            return [(batch.pk, batch.name) for batch in batches]

        def queryset(self, request, queryset):
            batch_id = query_int(request, self.parameter_name)
            if batch_id is not None:
                return queryset.filter(assignment__item__batch_id=batch_id)
            return queryset

    return BatchFilter


class StatusFilter(admin.SimpleListFilter):
    title = "review status"
    parameter_name = "status"

    def lookups(self, request, model_admin):
        return [
            ("submitted", "Awaiting review"),
            ("approved", "Approved"),
            ("rejected", "Rejected"),
        ]

    def queryset(self, request, queryset):
        if self.value():
            return queryset.filter(assignment__status=self.value())
        return queryset


def drawn_text(pieces: list[dict]):
    """Text pieces (task_parts.spans.segments) as HTML, each span in its pair's colour."""
    return format_html_join(
        "",
        "{}",
        (
            (
                format_html(
                    '<span style="background:{};border-radius:3px" data-pairs="{}">{}</span>',
                    piece["colour"],
                    " ".join(map(str, piece["positions"])),
                    piece["text"],
                )
                if piece["colour"]
                else piece["text"],
            )
            for piece in pieces
        ),
    )


def alignment_html(drawing: dict):
    """An alignment (spans.drawing's dict): the proverb and narrative with coloured spans,
    then the pair list."""
    pair_rows = format_html_join(
        "",
        '<li><span style="display:inline-block;width:.9em;height:.9em;background:{};'
        'border-radius:2px;vertical-align:middle"></span> “{}” ↔ “{}”</li>',
        (
            (pair["colour"], pair["proverb"]["text"], pair["narrative"]["text"])
            for pair in drawing["pairs"]
        ),
    )
    return format_html(
        '<div class="alignment" style="max-width:60em"><p style="font-weight:600">{}</p>'
        '<p style="white-space:pre-wrap;line-height:1.7">{}</p><ol>{}</ol></div>',
        drawn_text(drawing["proverb"]),
        drawn_text(drawing["narrative"]),
        pair_rows,
    )


def options_html(story, options):
    """A story (HTML) and its options, from (text, correct, chosen) triples: ✔ marks the
    correct one, ● the chosen one."""
    rows = format_html_join(
        "",
        "<li>{} {} {}</li>",
        (
            ("✔" if correct else "·", "●" if chosen else "○", text)
            for text, correct, chosen in options
        ),
    )
    return format_html('{}<ol style="list-style:none;padding:0">{}</ol>', story, rows)


def gold_text(passed: bool | None) -> str:
    """A gold item's outcome as its column shows it ("" for a regular item)."""
    return "" if passed is None else "pass" if passed else "FAIL"


class TaskReviewAdmin(ReviewActions, admin.ModelAdmin):
    """Shared by the task types' review lists: read-only rows, review actions, worker
    figures. A subclass names its `task_type`, the columns its rows show after their id
    and batch (`row_display`), the relations they read (`row_related`), and what a row's
    page shows when it is more than those columns and the assignment (`readonly_fields`)."""

    task_type = ""
    row_display: tuple[str, ...] = ()
    row_related: tuple[str, ...] = ()
    actions = REVIEW_ACTIONS
    change_list_template = "admin/annotation/review/change_list.html"
    list_per_page = 50
    list_display_links = ("id",)

    def get_readonly_fields(self, request, obj=None):
        return self.readonly_fields or (*self.row_display, "assignment")

    def get_fields(self, request, obj=None):
        return self.get_readonly_fields(request, obj)

    def get_queryset(self, request):
        rows = super().get_queryset(request)
        return rows.select_related(
            "assignment__worker", "assignment__item__batch", *self.row_related
        )

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False  # submissions are records; review goes through the actions

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def get_list_filter(self, request):
        return (StatusFilter, batch_filter(self.task_type))

    def get_list_display(self, request):
        quality: dict[int, dict] = {}

        def worker(row):
            assignment = row.assignment
            batch_id = assignment.item.batch_id
            if batch_id not in quality:
                report = quality_report(batch=assignment.item.batch)
                quality[batch_id] = {entry["worker"]: entry for entry in report["workers"]}
            stats = quality[batch_id].get(assignment.worker_id, {})
            rate = stats.get("approval_rate")
            gold = (
                f"gold {stats['gold_correct']}/{stats['gold_total']}"
                if stats.get("gold_total")
                else "no gold yet"
            )
            return format_html(
                '{}<br><span class="quiet">{} · {}</span>{}',
                assignment.worker,
                "not reviewed yet" if rate is None else f"{rate:.0%} approved",
                gold,
                format_html(' <strong style="color:#b42318">⚑ flagged</strong>')
                if stats.get("flagged")
                else "",
            )

        worker.short_description = "Worker (this batch)"
        return ("id", "batch", *self.row_display, worker, "review_status", "submitted_at")

    @admin.display(description="Status")
    def review_status(self, row) -> str:
        return row.assignment.get_status_display()

    @admin.display(description="Submitted", ordering="assignment__submitted_at")
    def submitted_at(self, row):
        return row.assignment.submitted_at

    @admin.display(description="Batch")
    def batch(self, row) -> str:
        return row.assignment.item.batch.name

    def changelist_view(self, request, extra_context=None):
        batch_id = query_int(request, "batch")
        extra_context = {
            **(extra_context or {}),
            "report_url": reverse("agreement:report", args=[batch_id]) if batch_id else "",
            "reports_url": reverse("agreement:index"),
            "queue_url": reverse("review_queue:queue", args=[batch_id]) if batch_id else "",
        }
        return super().changelist_view(request, extra_context=extra_context)


def narrative_with_expression(narrative: FigurativeNarrative, *, limit: bool = True):
    """The narrative with its expression in bold (escaped), then its meaning."""
    if narrative.expression_start is None:
        body = format_html("{}", excerpt(narrative.text) if limit else narrative.text)
    else:
        start, end = narrative.expression_start, narrative.expression_end
        body = format_html(
            "{}<strong>{}</strong>{}",
            narrative.text[:start],
            narrative.text[start:end],
            narrative.text[end:],
        )
    return format_html(
        '<div style="white-space:pre-wrap;max-width:50em">{}</div>'
        '<span class="quiet">{}: {}</span>',
        body,
        "meaning" if narrative.kind == "idiom" else "property",
        narrative.meaning,
    )
