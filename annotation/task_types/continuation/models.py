"""What the continuation task stores: the workers' continuations (or literal-use flags)
and their attempts at a batch's qualification test."""

from django.db import models
from django.db.models import Q

from annotation.models import FigurativeNarrative


class Continuation(models.Model):
    """One worker's plausible and implausible continuation, or a literal-use flag."""

    narrative = models.ForeignKey(
        FigurativeNarrative, on_delete=models.PROTECT, related_name="continuations"
    )
    assignment = models.OneToOneField(
        "crowd.Assignment", on_delete=models.PROTECT, related_name="continuation"
    )
    plausible = models.TextField(blank=True)
    implausible = models.TextField(blank=True)
    literal_use = models.BooleanField(
        default=False, help_text="The worker says the expression is used literally here."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(literal_use=True) | (~Q(plausible="") & ~Q(implausible="")),
                name="continuation_written_or_flagged",
            ),
        ]

    def __str__(self) -> str:
        return f"Continuation of {self.narrative}"


class QualificationAttempt(models.Model):
    """A worker's one go at a batch's qualification test (option pairs with known answers)."""

    batch = models.ForeignKey("crowd.Batch", on_delete=models.CASCADE, related_name="+")
    worker = models.ForeignKey(
        "crowd.Worker", on_delete=models.PROTECT, related_name="qualification_attempts"
    )
    answers = models.JSONField(help_text="{option pair id: chosen option (1 or 2)}.")
    correct = models.PositiveIntegerField()
    passed = models.BooleanField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["batch", "worker"], name="one_qualification_attempt"),
        ]

    def __str__(self) -> str:
        return f"Qualification of worker {self.worker_id} for batch {self.batch_id}"
