"""What the choose-the-continuation task stores: each worker's choice within an option pair."""

from django.db import models
from django.db.models import Q

from annotation.models import ContinuationPair
from annotation.task_parts.rows import Row, answer_of


class ContinuationAnswer(Row):
    """A worker's choice of the plausible continuation among a pair's two options."""

    pair = models.ForeignKey(ContinuationPair, on_delete=models.CASCADE, related_name="answers")
    assignment = answer_of("continuation_answer")
    chosen = models.PositiveSmallIntegerField(help_text="1 or 2.")
    is_correct = models.BooleanField(null=True, help_text="Empty: the pair is unlabelled.")

    class Meta(Row.Meta):
        constraints = [
            models.CheckConstraint(condition=Q(chosen__in=[1, 2]), name="answer_chosen_1_or_2"),
        ]

    def __str__(self) -> str:
        return f"Answer to {self.pair}"
