"""The choose-the-continuation type's review list: one row per answer, the two options in
their shown order with chosen and correct marked."""

from __future__ import annotations

from django.contrib import admin
from django.utils.html import format_html, format_html_join

from annotation.task_parts.review_admin import TaskReviewAdmin, narrative_with_expression
from annotation.task_types.continuation_choice.models import ContinuationAnswer


@admin.register(ContinuationAnswer)
class ContinuationAnswerReviewAdmin(TaskReviewAdmin):
    """One row per answer: the two options in their shown order, chosen and correct marked."""

    task_type = "continue_choice"
    row_display = ("id", "batch", "pair_display", "is_correct")
    list_display_links = ("id",)
    readonly_fields = ("pair_display", "is_correct", "assignment")
    fields = readonly_fields

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .select_related("pair__narrative", "assignment__worker", "assignment__item__batch")
        )

    @admin.display(description="Narrative and options (✔ correct, ● chosen)")
    def pair_display(self, answer):
        pair = answer.pair
        options = format_html_join(
            "",
            "<li>{} {} {}</li>",
            (
                (
                    "✔" if option == pair.correct else "·",
                    "●" if option == answer.chosen else "○",
                    pair.option_text(option),
                )
                for option in pair.shown_order()
            ),
        )
        return format_html(
            '{}<ol style="list-style:none;padding:0">{}</ol>',
            narrative_with_expression(pair.narrative),
            options,
        )

    @admin.display(description="Correct", boolean=True)
    def is_correct(self, answer) -> bool:
        return answer.is_correct
