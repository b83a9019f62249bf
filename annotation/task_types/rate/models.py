"""What the rate task stores: one Likert judgement per criterion."""

from django.db import models
from django.db.models import Q

from annotation.models import Narrative
from annotation.task_parts.rows import Row


class Rating(Row):
    """One Likert judgement (1 to 5) of one criterion for a narrative or an alignment."""

    narrative = models.ForeignKey(Narrative, on_delete=models.CASCADE, related_name="ratings")
    alignment = models.ForeignKey(
        "crowd.Assignment",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="alignment_ratings",
        help_text="Set when the rated thing is one worker's alignment of the narrative.",
    )
    assignment = models.ForeignKey(
        "crowd.Assignment", on_delete=models.PROTECT, related_name="ratings"
    )
    criterion = models.CharField(max_length=64)
    value = models.PositiveSmallIntegerField()

    class Meta(Row.Meta):
        constraints = [
            models.CheckConstraint(
                condition=Q(value__gte=1) & Q(value__lte=5), name="rating_value_likert"
            ),
            models.UniqueConstraint(
                fields=["assignment", "criterion"], name="rating_one_per_criterion"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.criterion}={self.value} on {self.narrative}"
