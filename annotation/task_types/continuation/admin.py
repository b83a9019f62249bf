"""The continuation type's admin: its review list (both continuations, or the literal-use
flag: approving a flag confirms it) and the workers' qualification attempts."""

from __future__ import annotations

from django.contrib import admin
from django.utils.html import format_html

from annotation.task_parts.review_admin import TaskReviewAdmin, narrative_with_expression
from annotation.task_types.continuation.models import Continuation, QualificationAttempt


class LiteralUseFilter(admin.SimpleListFilter):
    title = "literal use"
    parameter_name = "literal"

    def lookups(self, request, model_admin):
        return [("flagged", "Flagged literal"), ("written", "Continuations written")]

    def queryset(self, request, queryset):
        if self.value():
            return queryset.filter(literal_use=self.value() == "flagged")
        return queryset


@admin.register(QualificationAttempt)
class QualificationAttemptAdmin(admin.ModelAdmin):
    """Workers' attempts at continuation batches' qualification tests (records, read only)."""

    list_display = ("id", "batch", "worker", "correct", "passed", "created_at")
    list_filter = ("passed", "batch")
    readonly_fields = ("batch", "worker", "answers", "correct", "passed", "created_at")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Continuation)
class ContinuationReviewAdmin(TaskReviewAdmin):
    """One row per submission: the narrative, both continuations, or the literal-use flag."""

    task_type = "continue"
    row_display = ("narrative_display", "continuations", "literal_flag")
    row_related = ("narrative",)

    def get_list_filter(self, request):
        return (*super().get_list_filter(request), LiteralUseFilter)

    @admin.display(description="Narrative")
    def narrative_display(self, continuation):
        return narrative_with_expression(continuation.narrative)

    @admin.display(description="Continuations")
    def continuations(self, continuation):
        if continuation.literal_use:
            return "—"
        return format_html(
            "<strong>plausible</strong>: {}<br><strong>implausible</strong>: {}",
            continuation.plausible,
            continuation.implausible,
        )

    @admin.display(description="Literal use")
    def literal_flag(self, continuation):
        if not continuation.literal_use:
            return ""
        confirmed = continuation.narrative.literal_use_confirmed
        return format_html(
            '<strong style="color:#b42318" data-testid="literal-flag">⚑ {}</strong>',
            "literal use confirmed" if confirmed else "flagged literal: approve to confirm",
        )
