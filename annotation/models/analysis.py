"""The dataset's analysis, kept per scope with the job that computes a fresh one."""

from django.db import models
from django.db.models import Q


class DatasetAnalysis(models.Model):
    """The last analysis of the dataset in one scope (computed on the data whose state key
    is `result_state`), and the job computing a fresh one when the data's key differs."""

    class Status(models.TextChoices):
        IDLE = "idle", "Idle"
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        FAILED = "failed", "Failed"

    scope_key = models.CharField(max_length=500, unique=True)
    scope = models.JSONField(help_text="batches, sources, approved_only, seed")
    result = models.JSONField(null=True, blank=True)
    plots = models.JSONField(default=dict, blank=True, help_text="SVG text by plot name.")
    result_state = models.CharField(max_length=64, blank=True)
    computed_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.IDLE)
    job_state = models.CharField(max_length=64, blank=True)
    requested_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    progress_stage = models.CharField(max_length=100, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        verbose_name_plural = "dataset analyses"
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=["idle", "queued", "running", "failed"]),
                name="dataset_analysis_valid_status",
            )
        ]

    def __str__(self) -> str:
        return f"Analysis of {self.scope_key}"


class TextScores(models.Model):
    """A text's VADER compound, Flesch reading ease (the paper's rules) and sentence count
    (the sentencizer), kept for the next analysis under `key`, which names the text and the
    rules together (annotation.analysis.text_scores)."""

    key = models.CharField(max_length=32, primary_key=True)
    compound = models.FloatField()
    flesch = models.FloatField()
    sentences = models.PositiveIntegerField()

    class Meta:
        verbose_name_plural = "text scores"

    def __str__(self) -> str:
        return f"Scores {self.key}"
