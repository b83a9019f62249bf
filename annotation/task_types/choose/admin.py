"""The choose type's review list: one row per answer, the options with chosen and correct."""

from __future__ import annotations

from django.contrib import admin
from django.utils.html import format_html, format_html_join

from annotation.models import Proverb
from annotation.task_parts.review_admin import TaskReviewAdmin, excerpt
from annotation.task_types.choose.models import ChoiceAnswer


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
            excerpt(question.narrative.text),
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
