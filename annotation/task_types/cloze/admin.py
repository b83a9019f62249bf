"""The cloze type's review list: one row per sentence, the left-out original beside it."""

from __future__ import annotations

from django.contrib import admin
from django.utils.html import format_html

from annotation.task_parts.review_admin import TaskReviewAdmin
from annotation.task_types.cloze.models import ClozeResponse


@admin.register(ClozeResponse)
class ClozeReviewAdmin(TaskReviewAdmin):
    """One row per sentence: the left-out original beside the answer, and the verb lemmas."""

    task_type = "cloze"
    row_display = ("condition", "original", "answer", "matches")
    row_related = ("item",)

    @admin.display(description="Condition")
    def condition(self, response) -> str:
        return response.item.get_condition_display()

    @admin.display(description="Left-out sentence")
    def original(self, response):
        item = response.item
        return format_html(
            '{}<br><span class="quiet">verb: {}</span>',
            item.sentences[item.blank_index],
            item.original_lemma or "—",
        )

    @admin.display(description="Answer")
    def answer(self, response):
        return format_html(
            '{}<br><span class="quiet">verb: {}</span>', response.text, response.lemma
        )

    @admin.display(description="Verb matches", boolean=True)
    def matches(self, response) -> bool:
        return response.matches
