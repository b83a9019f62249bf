"""Writing integrity of narratives: how each was written and how it compares with the
dataset, and a batch's calibrated writing-process score."""

from django.db import models
from django.db.models import Q

from annotation.models.narratives import Narrative


class PilotLabel(models.TextChoices):
    """How a pilot story is known to have been written (annotation/quality/calibration.py)."""

    COMPOSED = "composed", "Composed on the page"
    TRANSCRIBED = "transcribed", "Transcribed from another text"


class NarrativeIntegrity(models.Model):
    """How a narrative was written and how it compares with the dataset: `telemetry`, the
    task page's content-blind writing record (counts and times, no keystrokes); `embedding`,
    its sentence embedding (float16 bytes); `similarity`, the nearest story of the same
    proverb and the worker's nearest earlier story."""

    narrative = models.OneToOneField(
        Narrative, on_delete=models.CASCADE, related_name="integrity", primary_key=True
    )
    telemetry = models.JSONField(null=True, blank=True)
    embedding = models.BinaryField(null=True, blank=True)
    embedding_model = models.CharField(max_length=300, blank=True)
    similarity = models.JSONField(default=dict, blank=True)
    checked_at = models.DateTimeField(null=True, blank=True)
    canary = models.JSONField(
        null=True,
        blank=True,
        help_text="Set when the story uses the word of the task page's hidden canary "
        'instruction: {"word", "instruction"} as the page carried them.',
    )
    pilot_label = models.CharField(
        max_length=16,
        choices=PilotLabel.choices,
        blank=True,
        help_text="A researcher's label for calibrating the writing-process score.",
    )

    class Meta:
        verbose_name = "narrative integrity"
        verbose_name_plural = "narrative integrity"
        indexes = [
            # The stories waiting for their check: a check's pass and beat's re-queue read
            # these few rows, not the whole table.
            models.Index(
                fields=["narrative"],
                condition=Q(checked_at__isnull=True),
                name="integrity_waiting",
            )
        ]

    def __str__(self) -> str:
        return f"Integrity of narrative {self.narrative_id}"


class WritingCalibration(models.Model):
    """A batch's writing-process score calibrated on its labelled pilot stories
    (annotation/quality/calibration.py): the fitted figures (writing_score.Calibration)
    and their cross-validated accuracy. The batch's unlabelled stories are scored with it."""

    batch = models.OneToOneField(
        "crowd.Batch", on_delete=models.CASCADE, related_name="writing_calibration"
    )
    fitted = models.JSONField()
    cv_accuracy = models.FloatField()
    fitted_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"Writing calibration of batch {self.batch_id}"
