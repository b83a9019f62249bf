"""The align type's review list: one row per alignment, drawn in its pair colours."""

from __future__ import annotations

from django.contrib import admin

from annotation.task_parts.review_admin import TaskReviewAdmin, alignment_html
from annotation.task_types.align.dataset import drawing
from annotation.task_types.align.models import SpanPair


@admin.register(SpanPair)
class AlignmentReviewAdmin(TaskReviewAdmin):
    """One row per submitted alignment (its first pair stands for it)."""

    task_type = "align"
    row_display = ("alignment",)
    row_related = ("narrative__proverb",)
    readonly_fields = ("alignment", "narrative", "assignment")

    def get_queryset(self, request):
        return super().get_queryset(request).filter(assignment__isnull=False, position=1)

    @admin.display(description="Alignment (pairs in matching colours)")
    def alignment(self, row):
        return alignment_html(drawing(row.assignment))
