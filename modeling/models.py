"""Training runs of the baselines and the dataset snapshots they were run on."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Snapshot(models.Model):
    """The approved dataset narratives with their splits, frozen; equal content, one row."""

    content_hash = models.CharField(max_length=64, unique=True)
    examples = models.JSONField(help_text="modeling.examples.Example fields, by narrative id.")
    narratives = models.PositiveIntegerField()
    proverbs = models.PositiveIntegerField()
    splits = models.JSONField(help_text="setting -> part -> narratives")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"Snapshot {self.content_hash[:10]} ({self.narratives} narratives)"


RUN_STATUSES = ("queued", "running", "succeeded", "failed", "cancelled")


class Run(models.Model):
    """One baseline trained or scored on a snapshot: config, live progress, results."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    FINISHED = (Status.SUCCEEDED, Status.FAILED, Status.CANCELLED)

    task = models.CharField(max_length=32)
    setting = models.CharField(max_length=8, choices=[("seen", "seen"), ("unseen", "unseen")])
    model_name = models.CharField(
        max_length=500, help_text="A folder, a PyPI-shipped model or a hub name."
    )
    hyperparameters = models.JSONField(default=dict)
    seed = models.IntegerField(default=1)
    snapshot = models.ForeignKey(Snapshot, on_delete=models.PROTECT, related_name="runs")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    cancel_requested = models.BooleanField(default=False)
    progress = models.JSONField(default=dict, blank=True)
    metrics = models.JSONField(default=dict, blank=True)
    epochs = models.JSONField(default=list, blank=True)
    selected_epoch = models.PositiveIntegerField(null=True, blank=True)
    predictions = models.JSONField(default=list, blank=True)
    candidates = models.JSONField(default=list, blank=True, help_text="[proverb id, text] ranked")
    environment = models.JSONField(default=dict, blank=True)
    durations = models.JSONField(default=dict, blank=True)
    artifact = models.CharField(max_length=1000, blank=True)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # A queued run's last send to the broker; beat sends it again when it is still queued
    # long after (its message lost), waiting twice as long after each send.
    queued_at = models.DateTimeField(null=True, blank=True)
    sends = models.PositiveIntegerField(default=0)
    # A running run's process writes its heartbeat every PARABLE_MODELING_HEARTBEAT_SECONDS;
    # one silent for three of those is dead (killed, out of memory, its machine lost).
    worker = models.CharField(max_length=200, blank=True, help_text="host:pid running it")
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    relaunch_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="relaunches"
    )

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["status", "queued_at"], name="modeling_run_waiting")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=RUN_STATUSES),
                name="modeling_run_status_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"Run {self.pk}: {self.task} {self.setting} ({self.status})"

    @property
    def finished(self) -> bool:
        return self.status in self.FINISHED
