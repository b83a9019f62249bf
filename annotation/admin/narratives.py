"""Review of narratives in the admin: the list with overlap figures, approve, reject, block.
Worker text is data: list cells are plain strings (the admin escapes them), and HTML is
built with format_html, which escapes every piece.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import Q
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from annotation.analysis.keywords import narratives_keywords_missing, narratives_keywords_queue
from annotation.models import Narrative, PilotLabel
from annotation.quality.calibration import (
    accuracy_text,
    pilot_label_set,
    writing_calibration_fit,
    writing_scores,
)
from annotation.quality.flags import flags_of, narrative_flags
from annotation.quality.integrity import FLAG_TITLES
from annotation.quality.submissions import duration_text, pledge_of
from annotation.quality.writing_score import Calibration, CalibrationError
from annotation.task_parts.overlap_rules import marked_pieces, overlap_lines
from annotation.task_parts.review_admin import batch_filter
from common.request_input import query_int
from crowd.admin.review import REVIEW_ACTIONS, ReviewActions
from crowd.models import Assignment

EXCERPT_CHARACTERS = 160


def _side_by_side(narrative, flag: dict):
    """The story beside the story it matches (similarity flags), both escaped."""
    details = flag["details"]
    if "text" not in details:
        return ""
    cell = '<td style="vertical-align:top;white-space:pre-wrap;max-width:30em">{}</td>'
    return format_html(
        '<table class="integrity-match"><tr><th>This story (#{})</th><th>Story #{} · {} · {}'
        "</th></tr><tr>" + cell + cell + "</tr></table>",
        narrative.pk,
        details["narrative"],
        details["worker"],
        details["proverb"],
        narrative.text,
        details["text"],
    )


def review_status(narrative: Narrative) -> str:
    """What review did with the story, as the worker and the payments report have it: an
    approved-and-excluded story was approved (paid) and kept out, not rejected."""
    assignment = narrative.assignment
    if assignment is not None and assignment.status == Assignment.Status.EXCLUDED:
        return f"Approved, excluded: {assignment.exclusion_reason}"
    return narrative.get_status_display()


class ReviewStatusFilter(admin.SimpleListFilter):
    """The narrative's status, with approved-and-excluded stories apart from rejected ones."""

    title = "status"
    parameter_name = "status"
    EXCLUDED = "excluded"

    def lookups(self, request, model_admin):
        return [*Narrative.Status.choices, (self.EXCLUDED, "Approved, excluded")]

    def queryset(self, request, queryset):
        excluded = Q(assignment__status=Assignment.Status.EXCLUDED)
        if self.value() == self.EXCLUDED:
            return queryset.filter(excluded)
        if self.value() in Narrative.Status.values:
            return queryset.filter(status=self.value()).exclude(excluded)
        return queryset


@admin.register(Narrative)
class NarrativeAdmin(ReviewActions, admin.ModelAdmin):
    list_display = (
        "id",
        "proverb",
        "excerpt",
        "status_shown",
        "word_count",
        "overlap_summary",
        "time_taken",
        "integrity_flags",
        "worker",
        "source",
    )
    list_display_links = ("id", "excerpt")
    list_filter = (ReviewStatusFilter, "source", batch_filter(makes="narratives"))
    search_fields = ("text", "proverb__text", "worker__display_name", "worker__external_id")
    list_select_related = ("proverb", "worker", "assignment__item__batch", "integrity")
    actions = (
        *REVIEW_ACTIONS,
        "mark_composed",
        "mark_transcribed",
        "clear_pilot_label",
        "calibrate_writing_score",
        "extract_keywords",
    )
    change_list_template = "admin/annotation/narrative/change_list.html"
    fields = (
        "proverb",
        "highlighted_text",
        "integrity_explained",
        "writing_process",
        "pledge",
        "status_shown",
        "review_message",
        "reviewed_at",
        "word_count",
        "overlap_table",
        "time_taken",
        "worker",
        "assignment",
        "source",
        "source_label",
        "external_id",
        "keyword_list",
        "split_seen",
        "split_unseen",
        "created_at",
    )
    readonly_fields = tuple(name for name in fields if name not in ("split_seen", "split_unseen"))

    def has_add_permission(self, request) -> bool:
        return False  # narratives come from crowd work, import or models

    def has_delete_permission(self, request, obj=None) -> bool:
        if obj is not None and obj.source == Narrative.Source.CROWD:
            return False  # a crowd narrative is its assignment's record
        return super().has_delete_permission(request, obj)

    @admin.action(
        description="Extract missing keywords (approved narratives without them)",
        permissions=["change"],
    )
    def extract_keywords(self, request, queryset):
        """Queue the extraction for the selected approved narratives that have no keywords
        (the generation baseline needs them); the rest are left as they are."""
        missing = set(narratives_keywords_missing())
        chosen = [pk for pk in queryset.values_list("pk", flat=True) if pk in missing]
        narratives_keywords_queue(narrative_ids=chosen)
        self.message_user(
            request,
            f"Keyword extraction queued for {len(chosen)} approved narrative(s) without keywords.",
        )

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    @admin.display(description="Status", ordering="status")
    def status_shown(self, narrative) -> str:
        return review_status(narrative)

    @admin.display(description="Narrative")
    def excerpt(self, narrative) -> str:
        text = narrative.text
        return text if len(text) <= EXCERPT_CHARACTERS else text[:EXCERPT_CHARACTERS] + "…"

    @admin.display(description="Shared 1/2/3-grams")
    def overlap_summary(self, narrative) -> str:
        figures = [narrative.overlap.get(str(n)) for n in (1, 2, 3)]
        if not all(isinstance(figure, dict) for figure in figures):
            return "—"
        return " · ".join(f"{figure['shared']}/{figure['proverb']}" for figure in figures)

    @admin.display(description="Time taken")
    def time_taken(self, narrative) -> str:
        assignment = narrative.assignment
        if assignment is None or assignment.submitted_at is None:
            return "—"
        return duration_text((assignment.submitted_at - assignment.started_at).total_seconds())

    @admin.display(description="Integrity flags")
    def integrity_flags(self, narrative):
        flags = flags_of(narrative)
        if not flags:
            return "—"
        return format_html_join(
            "",
            '<div class="integrity-flag" data-flag="{}" title="{}">⚑ {}</div>',
            ((flag.code, flag.explanation, FLAG_TITLES[flag.code]) for flag in flags),
        )

    @admin.display(description="Writing integrity")
    def integrity_explained(self, narrative):
        flags = narrative_flags(narrative)
        if not flags:
            return "No flags: typed in the task page, unlike the other stories checked."
        return format_html_join(
            "",
            '<div class="integrity-flag" data-flag="{}"><strong>⚑ {}</strong>: {}{}</div>',
            (
                (flag["code"], flag["title"], flag["explanation"], _side_by_side(narrative, flag))
                for flag in flags
            ),
        )

    @admin.display(description="Writing-process score")
    def writing_process(self, narrative):
        score = writing_scores(Narrative.objects.filter(pk=narrative.pk)).get(narrative.pk)
        if score is None:
            return "— (no writing record: imported, or sent without one)"
        label = PilotLabel(score["pilot_label"]).label if score["pilot_label"] else ""
        return format_html(
            '<div data-testid="writing-score"><strong>{}</strong> (1 looks composed on the '
            "page, 0 transcribed or inserted){}<br>{}<br><span class=help>{}</span></div>",
            f"{score['value']:.2f}",
            f"; pilot label: {label}" if label else "",
            score["source_text"],
            score["meaning"],
        )

    @admin.display(description="Pledge")
    def pledge(self, narrative) -> str:
        if narrative.assignment is None:
            return "—"
        return pledge_of(assignment=narrative.assignment)["text"]

    def _label(self, request, queryset, label: str, done: str) -> None:
        marked = pilot_label_set(
            narrative_ids=list(queryset.values_list("pk", flat=True)), label=label
        )
        skipped = queryset.count() - marked
        note = f" {skipped} without a writing record left as they were." if skipped else ""
        self.message_user(request, f"{marked} {done}.{note}")

    @admin.action(description="Pilot: mark as composed on the page", permissions=["review"])
    def mark_composed(self, request, queryset):
        self._label(request, queryset, PilotLabel.COMPOSED, "marked composed")

    @admin.action(description="Pilot: mark as transcribed from a text", permissions=["review"])
    def mark_transcribed(self, request, queryset):
        self._label(request, queryset, PilotLabel.TRANSCRIBED, "marked transcribed")

    @admin.action(description="Pilot: clear the label", permissions=["review"])
    def clear_pilot_label(self, request, queryset):
        self._label(request, queryset, "", "pilot labels cleared")

    @admin.action(
        description="Calibrate the writing-process score of these stories' batches on their "
        "labelled pilot",
        permissions=["review"],
    )
    def calibrate_writing_score(self, request, queryset):
        batches = {
            narrative.assignment.item.batch
            for narrative in queryset.select_related("assignment__item__batch")
            if narrative.assignment is not None
        }
        if not batches:
            self.message_user(request, "None of these stories is crowd work.", messages.ERROR)
        for batch in sorted(batches, key=lambda batch: batch.pk):
            try:
                calibration = writing_calibration_fit(batch=batch)
            except CalibrationError as error:
                self.message_user(request, f"{batch}: {error}", messages.ERROR)
                continue
            fitted = Calibration.from_dict(calibration.fitted)
            self.message_user(
                request,
                f"{batch}: calibrated; {accuracy_text(fitted)}. The batch's stories are now "
                "scored with it.",
            )

    @admin.display(description="Narrative (words shared with the proverb marked)")
    def highlighted_text(self, narrative):
        marked = (
            (format_html("<mark>{}</mark>", piece["text"]) if piece["mark"] else piece["text"],)
            for piece in marked_pieces(narrative.proverb.text, narrative.text)
        )
        return format_html(
            '<div class="narrative-text" style="white-space:pre-wrap;max-width:60em">{}</div>',
            format_html_join("", "{}", marked),
        )

    @admin.display(description="Overlap with the proverb")
    def overlap_table(self, narrative) -> str:
        return "; ".join(overlap_lines(narrative.overlap or {})) or "—"

    @admin.display(description="Keywords")
    def keyword_list(self, narrative) -> str:
        keywords = narrative.keywords or {}
        if not keywords:
            return "— (extracted when approved)"
        verbs = ", ".join(keywords.get("verbs", [])) or "none"
        entities = ", ".join(
            f"{entity['text']} ({entity['label']})" for entity in keywords.get("entities", [])
        )
        return f"verbs: {verbs}; entities: {entities or 'none'}"

    def changelist_view(self, request, extra_context=None):
        batch_id = query_int(request, "batch")
        stats_url = reverse("admin:crowd_worker_stats")
        extra_context = {
            **(extra_context or {}),
            "worker_stats_url": f"{stats_url}?batch={batch_id}" if batch_id else stats_url,
            "queue_url": reverse("review_queue:queue", args=[batch_id])
            if batch_id
            else reverse("review_queue:index"),
        }
        return super().changelist_view(request, extra_context=extra_context)
