"""Review of narratives in the admin: the list with overlap figures, approve, reject, block.

Worker text is data: list cells are plain strings (the admin escapes them) and the
highlighted view builds its HTML with format_html, which escapes every piece.
"""

from __future__ import annotations

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from annotation.admin.tasks import batch_filter
from annotation.models import Narrative
from annotation.quality.flags import flags_of, narrative_flags
from annotation.quality.integrity import FLAG_TITLES
from annotation.quality.submissions import duration_text, marked_pieces, overlap_lines
from config.request_input import query_int
from crowd.admin.review import ReviewActions

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


@admin.register(Narrative)
class NarrativeAdmin(ReviewActions, admin.ModelAdmin):
    list_display = (
        "id",
        "proverb",
        "excerpt",
        "status",
        "word_count",
        "overlap_summary",
        "time_taken",
        "integrity_flags",
        "worker",
        "source",
    )
    list_display_links = ("id", "excerpt")
    list_filter = ("status", "source", batch_filter("write"))
    search_fields = ("text", "proverb__text", "worker__display_name", "worker__external_id")
    list_select_related = ("proverb", "worker", "assignment__item__batch", "integrity")
    actions = (
        "approve_selected",
        "reject_selected",
        "block_workers",
        "bonus_selected",
        "exclude_selected",
    )
    change_list_template = "admin/annotation/narrative/change_list.html"
    fields = (
        "proverb",
        "highlighted_text",
        "integrity_explained",
        "status",
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

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

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

    @admin.display(description="Narrative (words shared with the proverb marked)")
    def highlighted_text(self, narrative):
        pieces = marked_pieces(narrative.proverb.text, narrative.text)
        return format_html(
            '<div class="narrative-text" style="white-space:pre-wrap;max-width:60em">{}</div>',
            format_html_join(
                "",
                "{}",
                (
                    (
                        format_html("<mark>{}</mark>", piece["text"])
                        if piece["mark"]
                        else piece["text"],
                    )
                    for piece in pieces
                ),
            ),
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
