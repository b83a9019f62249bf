"""The rate type's review list: one row per rating form, its target and values."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Min
from django.utils.html import format_html, format_html_join

from annotation.task_parts.review_admin import (
    TaskReviewAdmin,
    alignment_html,
    excerpt,
    gold_text,
)
from annotation.task_parts.sources import source_drawing
from annotation.task_types.rate.criteria import gold_passes
from annotation.task_types.rate.models import Rating
from annotation.task_types.rate.task import labelled


@admin.register(Rating)
class RatingReviewAdmin(TaskReviewAdmin):
    """One row per submitted rating form (its first rating stands for it)."""

    task_type = "rate"
    row_display = ("target", "values", "gold")
    row_related = ("narrative__proverb",)

    def get_queryset(self, request):
        first_of_each = Rating.objects.values("assignment").annotate(first=Min("id"))
        return super().get_queryset(request).filter(pk__in=first_of_each.values("first"))

    @admin.display(description="Rated")
    def target(self, row):
        narrative = row.narrative
        if row.alignment_id is not None:
            return alignment_html(source_drawing(row.alignment))
        return format_html(
            '<strong>{}</strong><br><span style="white-space:pre-wrap">{}</span>'
            '<br><span class="quiet">{}</span>',
            narrative.proverb.text,
            excerpt(narrative.text),
            f"{narrative.source} {narrative.source_label}".strip(),
        )

    @admin.display(description="Ratings")
    def values(self, row):
        given = {rating.criterion: rating.value for rating in row.assignment.ratings.order_by("id")}
        ratings = labelled(row.assignment.item.batch, given)
        return format_html_join("", "{}: <strong>{}</strong><br>", ratings)

    @admin.display(description="Gold")
    def gold(self, row) -> str:
        item = row.assignment.item
        given = {r.criterion: r.value for r in row.assignment.ratings.all()}
        return gold_text(gold_passes(item.gold_answer, given) if item.is_gold else None)
