"""The choose-the-continuation type's review list: one row per answer, the two options in
their shown order with chosen and correct marked."""

from __future__ import annotations

from django.contrib import admin

from annotation.task_parts.review_admin import (
    TaskReviewAdmin,
    narrative_with_expression,
    options_html,
)
from annotation.task_types.continuation_choice.models import ContinuationAnswer


@admin.register(ContinuationAnswer)
class ContinuationAnswerReviewAdmin(TaskReviewAdmin):
    """One row per answer: the two options in their shown order, chosen and correct marked."""

    task_type = "continue_choice"
    row_display = ("pair_display", "is_correct")
    row_related = ("pair__narrative",)

    @admin.display(description="Narrative and options (✔ correct, ● chosen)")
    def pair_display(self, answer):
        pair = answer.pair
        options = [
            (pair.option_text(option), option == pair.correct, option == answer.chosen)
            for option in pair.shown_order()
        ]
        return options_html(narrative_with_expression(pair.narrative), options)

    @admin.display(description="Correct", boolean=True)
    def is_correct(self, answer) -> bool:
        return answer.is_correct
