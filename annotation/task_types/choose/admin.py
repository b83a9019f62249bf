"""The choose type's review list: one row per answer, the options with chosen and correct."""

from __future__ import annotations

from django.contrib import admin
from django.utils.html import format_html

from annotation.task_parts.review_admin import TaskReviewAdmin, excerpt, gold_text, options_html
from annotation.task_types.choose.models import ChoiceAnswer
from annotation.task_types.choose.task import gold_passed, option_rows


@admin.register(ChoiceAnswer)
class ChoiceReviewAdmin(TaskReviewAdmin):
    """One row per answer: the story and its options, the chosen one and the correct one."""

    task_type = "choose"
    row_display = ("question_display", "is_correct", "gold")
    row_related = ("question__narrative",)

    @admin.display(description="Story and options (✔ correct, ● chosen)")
    def question_display(self, answer):
        story = format_html(
            '<span style="white-space:pre-wrap">{}</span>', excerpt(answer.question.narrative.text)
        )
        return options_html(story, option_rows(answer.question, chosen=answer.chosen_id))

    @admin.display(description="Correct", boolean=True)
    def is_correct(self, answer) -> bool:
        return answer.is_correct

    @admin.display(description="Gold")
    def gold(self, answer) -> str:
        return gold_text(gold_passed(answer.assignment.item, answer.chosen_id))
