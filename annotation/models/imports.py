"""Imports of dataset files: background import jobs and the files an import read."""

from django.conf import settings
from django.db import models
from django.db.models import Q


class ImportJob(models.Model):
    """A large proverb list or ePiC file imported in the background, with its progress:
    the upload's bytes are kept until the job has run, then its `report`, or the `error`
    that left nothing imported."""

    class Kind(models.TextChoices):
        PROVERBS = "proverbs", "Proverb list"
        EPIC = "epic", "ePiC dataset"

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"

    kind = models.CharField(max_length=16, choices=Kind.choices)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    filename = models.CharField(max_length=255, blank=True)
    content = models.BinaryField(editable=False)
    split_files = models.JSONField(
        default=dict, blank=True, help_text="ePiC split files: base64 bytes by file name."
    )
    options = models.JSONField(default=dict, blank=True, help_text="source or source_label")
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    progress_stage = models.CharField(max_length=100, blank=True)
    report = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=["queued", "running", "succeeded", "failed"]),
                name="import_job_valid_status",
            ),
            models.CheckConstraint(
                condition=Q(kind__in=["proverbs", "epic"]), name="import_job_valid_kind"
            ),
        ]

    def __str__(self) -> str:
        return f"Import job {self.pk} ({self.kind}, {self.filename or 'no name'})"


class ImportedFile(models.Model):
    """A dataset file as it was imported: its name and fields, for the methods section, and
    its layout, for the export to give it back byte for byte (annotation.datasets.layouts).
    One row per file an export writes back (`key`); importing it again replaces the row.
    """

    class Kind(models.TextChoices):
        EPIC = "epic", "ePiC dataset"
        EPIC_SPLIT = "epic_split", "ePiC split file"
        FIGURATIVE = "figurative", "Figurative narratives"

    kind = models.CharField(max_length=16, choices=Kind.choices)
    key = models.CharField(
        max_length=300,
        unique=True,
        help_text="What the export writes back: epic:<source label>, "
        "epic_split:<setting>:<part>, figurative:<kind>:<split>.",
    )
    filename = models.CharField(max_length=255, blank=True)
    fields = models.JSONField(
        default=list, blank=True, help_text="The fields the file's records hold, in order."
    )
    records = models.PositiveIntegerField(default=0, help_text="Records or lines read.")
    layout = models.JSONField(
        null=True,
        blank=True,
        help_text="How the file was written (indent, escapes, key order, final newline); "
        "empty when no json.dumps layout writes it: its export gives the values back, not "
        "the bytes.",
    )
    imported_at = models.DateTimeField()

    class Meta:
        ordering = ["kind", "key"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.filename or self.key}"
