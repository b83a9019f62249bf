"""What the continuation task stores: the workers' continuations (or literal-use flags)
and their attempts at a batch's qualification test."""

from django.db import models
from django.db.models import Q

from annotation.models import FigurativeNarrative
from annotation.task_parts.rows import Row, answer_of


class Continuation(Row):
    """One worker's plausible and implausible continuation, or a literal-use flag."""

    narrative = models.ForeignKey(
        FigurativeNarrative, on_delete=models.PROTECT, related_name="continuations"
    )
    assignment = answer_of("continuation")
    plausible = models.TextField(blank=True)
    implausible = models.TextField(blank=True)
    literal_use = models.BooleanField(
        default=False, help_text="The worker says the expression is used literally here."
    )

    class Meta(Row.Meta):
        constraints = [
            models.CheckConstraint(
                condition=Q(literal_use=True) | (~Q(plausible="") & ~Q(implausible="")),
                name="continuation_written_or_flagged",
            ),
        ]

    def __str__(self) -> str:
        return f"Continuation of {self.narrative}"


class QualificationAttempt(Row):
    """A worker's one go at a batch's qualification test (option pairs with known answers)."""

    batch = models.ForeignKey("crowd.Batch", on_delete=models.CASCADE, related_name="+")
    worker = models.ForeignKey(
        "crowd.Worker", on_delete=models.PROTECT, related_name="qualification_attempts"
    )
    answers = models.JSONField(help_text="{option pair id: chosen option (1 or 2)}.")
    correct = models.PositiveIntegerField()
    passed = models.BooleanField()

    class Meta(Row.Meta):
        constraints = [
            models.UniqueConstraint(fields=["batch", "worker"], name="one_qualification_attempt"),
        ]

    def __str__(self) -> str:
        return f"Qualification of worker {self.worker_id} for batch {self.batch_id}"
