"""Review of alignments, ratings and choices in the admin: approve, reject, block.

One row per submission: an alignment drawn with its pair colours in both texts,
a rating form's values, a choice among the options; each with the worker's review
figures and gold accuracy in the batch (flagged workers marked). Worker text is
data: every cell is built with format_html, which escapes each piece.
"""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Min
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from annotation import spans
from annotation.models import Proverb
from annotation.quality.reports import quality_report
from annotation.task_types.align.models import SpanPair
from annotation.task_types.choose.models import ChoiceAnswer
from annotation.task_types.rate.models import Rating
from common.request_input import query_int
from crowd.admin.review import REVIEW_ACTIONS, ReviewActions
from crowd.models import Batch

EXCERPT_CHARACTERS = 140


def _excerpt(text: str) -> str:
    return text if len(text) <= EXCERPT_CHARACTERS else text[:EXCERPT_CHARACTERS] + "…"


def batch_filter(task_type: str) -> type[admin.SimpleListFilter]:
    """A list filter by the batches of one task type (?batch=id)."""

    class BatchFilter(admin.SimpleListFilter):
        title = "batch"
        parameter_name = "batch"

        def lookups(self, request, model_admin):
            batches = Batch.objects.filter(task_type=task_type).order_by("-id")
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
    """Text pieces (annotation.spans.segments) as HTML, each span in its pair's colour."""
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


def alignment_html(*, proverb: str, narrative: str, pairs: list[SpanPair]):
    """An alignment: the proverb and narrative with coloured spans, then the pair list."""
    drawing = spans.drawing(proverb=proverb, narrative=narrative, pairs=pairs)
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


class TaskReviewAdmin(ReviewActions, admin.ModelAdmin):
    """Shared by the three review lists: read-only rows, review actions, worker figures."""

    task_type = ""
    actions = REVIEW_ACTIONS
    change_list_template = "admin/annotation/review/change_list.html"
    list_per_page = 50

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
        return (*self.row_display, worker, "review_status", "submitted_at")

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


@admin.register(SpanPair)
class AlignmentReviewAdmin(TaskReviewAdmin):
    """One row per submitted alignment (its first pair stands for it)."""

    task_type = "align"
    row_display = ("id", "batch", "alignment")
    list_display_links = ("id",)
    readonly_fields = ("alignment", "narrative", "assignment")
    fields = readonly_fields

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .filter(assignment__isnull=False, position=1)
            .select_related("narrative__proverb", "assignment__worker", "assignment__item__batch")
        )

    @admin.display(description="Alignment (pairs in matching colours)")
    def alignment(self, row):
        narrative = row.narrative
        pairs = list(SpanPair.objects.filter(assignment_id=row.assignment_id))
        return alignment_html(proverb=narrative.proverb.text, narrative=narrative.text, pairs=pairs)


@admin.register(Rating)
class RatingReviewAdmin(TaskReviewAdmin):
    """One row per submitted rating form (its first rating stands for it)."""

    task_type = "rate"
    row_display = ("id", "batch", "target", "values", "gold")
    list_display_links = ("id",)
    readonly_fields = ("target", "values", "gold", "assignment")
    fields = readonly_fields

    def get_queryset(self, request):
        first_of_each = Rating.objects.values("assignment").annotate(first=Min("id"))
        return (
            super()
            .get_queryset(request)
            .filter(pk__in=first_of_each.values("first"))
            .select_related("narrative__proverb", "assignment__worker", "assignment__item__batch")
        )

    @admin.display(description="Rated")
    def target(self, row):
        narrative = row.narrative
        if row.alignment_id is not None:
            pairs = list(SpanPair.objects.filter(assignment_id=row.alignment_id))
            return alignment_html(
                proverb=narrative.proverb.text, narrative=narrative.text, pairs=pairs
            )
        return format_html(
            '<strong>{}</strong><br><span style="white-space:pre-wrap">{}</span>'
            '<br><span class="quiet">{}</span>',
            narrative.proverb.text,
            _excerpt(narrative.text),
            f"{narrative.source} {narrative.source_label}".strip(),
        )

    @admin.display(description="Ratings")
    def values(self, row):
        labels = {
            c["key"]: c.get("label", c["key"])
            for c in row.assignment.item.batch.settings.get("criteria", [])
        }
        ratings = row.assignment.ratings.order_by("id")
        return format_html_join(
            "",
            "{}: <strong>{}</strong><br>",
            ((labels.get(r.criterion, r.criterion), r.value) for r in ratings),
        )

    @admin.display(description="Gold")
    def gold(self, row) -> str:
        from annotation.task_types.rate.criteria import gold_passes

        item = row.assignment.item
        if not item.is_gold:
            return ""
        given = {r.criterion: r.value for r in row.assignment.ratings.all()}
        return "pass" if gold_passes(item.gold_answer, given) else "FAIL"


@admin.register(ChoiceAnswer)
class ChoiceReviewAdmin(TaskReviewAdmin):
    """One row per answer: the story and its options, the chosen one and the correct one."""

    task_type = "choose"
    row_display = ("id", "batch", "question_display", "is_correct", "gold")
    list_display_links = ("id",)
    readonly_fields = ("question_display", "is_correct", "gold", "assignment")
    fields = readonly_fields

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .select_related("question__narrative", "assignment__worker", "assignment__item__batch")
        )

    @admin.display(description="Story and options (✔ correct, ● chosen)")
    def question_display(self, answer):
        question = answer.question
        texts = Proverb.objects.in_bulk(question.options)
        options = format_html_join(
            "",
            "<li>{} {} {}</li>",
            (
                (
                    "✔" if pk == question.correct_id else "·",
                    "●" if pk == answer.chosen_id else "○",
                    texts[pk].text if pk in texts else pk,
                )
                for pk in question.options
            ),
        )
        return format_html(
            '<span style="white-space:pre-wrap">{}</span><ol style="list-style:none;padding:0">'
            "{}</ol>",
            _excerpt(question.narrative.text),
            options,
        )

    @admin.display(description="Correct", boolean=True)
    def is_correct(self, answer) -> bool:
        return answer.is_correct

    @admin.display(description="Gold")
    def gold(self, answer) -> str:
        item = answer.assignment.item
        if not item.is_gold:
            return ""
        return "pass" if answer.chosen_id == (item.gold_answer or {}).get("chosen") else "FAIL"
