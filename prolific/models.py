"""Prolific's side of a batch: the study, participants' sessions, submissions as Prolific
reports them, and webhook events seen. (Bonuses and the other calls to Prolific are
crowd.ProviderAction rows: crowd.outbox, prolific.actions.)
"""

from django.db import models
from django.db.models import Q

# Prolific's submission statuses Parable acts on.
REVIEWABLE = "AWAITING REVIEW"
STILL_PROCESSING = {"ACTIVE", "PROCESSING", "RESERVED"}


class Study(models.Model):
    """A batch run as one Prolific study; each participant takes one session of several items."""

    batch = models.OneToOneField(
        "crowd.Batch", on_delete=models.CASCADE, related_name="prolific_study"
    )
    study_id = models.CharField(max_length=64, blank=True, help_text="Prolific's study id.")
    status = models.CharField(
        max_length=32, blank=True, help_text="Prolific's status (UNPUBLISHED, ACTIVE, ...)."
    )
    items_per_session = models.PositiveIntegerField(default=3)
    estimated_minutes = models.PositiveIntegerField(default=10)
    description = models.TextField(blank=True)
    countries = models.JSONField(
        default=list, blank=True, help_text="Country choice ids of Prolific's country filter."
    )
    first_languages = models.JSONField(default=list, blank=True)
    filter_ids = models.JSONField(
        default=dict,
        blank=True,
        help_text="Prolific's filter id of each eligibility setting, as GET /filters/ listed it.",
    )
    min_approval_rate = models.PositiveIntegerField(null=True, blank=True)
    device_compatibility = models.JSONField(default=list, blank=True)
    completion_code = models.CharField(max_length=32, blank=True)
    total_available_places = models.PositiveIntegerField(default=0)
    cost_cents = models.PositiveIntegerField(
        null=True, blank=True, help_text="Prolific's total cost (rewards, fees, VAT) last quoted."
    )
    currency = models.CharField(
        max_length=3, blank=True, help_text="The workspace's currency, read with the cost."
    )
    cost_confirmed_at = models.DateTimeField(
        null=True, blank=True, help_text="When a researcher saw the cost and confirmed publishing."
    )
    blocklist_group_id = models.CharField(max_length=64, blank=True)
    high_return_rate_at = models.DateTimeField(
        null=True, blank=True, help_text="When Prolific said many participants return it."
    )
    pause_requested_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When Parable asked Prolific to pause it (cleared once it runs again).",
    )
    synced_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        verbose_name_plural = "studies"
        constraints = [
            models.CheckConstraint(
                condition=Q(items_per_session__gte=1), name="prolific_session_min_1_item"
            ),
            models.UniqueConstraint(
                fields=["study_id"], condition=~Q(study_id=""), name="prolific_study_id_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.batch.name} ({self.study_id or 'not on Prolific yet'})"

    @property
    def paused_on_prolific(self) -> bool:
        """Paused, and not at Parable's request: Prolific paused it on its own (a full study
        pauses when a submission is rejected or returned) or someone did on Prolific's site."""
        return self.status == "PAUSED" and self.pause_requested_at is None


class ParticipantSession(models.Model):
    """One participant's run through a study: the items reserved for them at entry."""

    class Status(models.TextChoices):
        ACTIVE = "active", "Working"
        FINISHED = "finished", "Finished (sent to Prolific)"
        RETURNED = "returned", "Returned or timed out"

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="sessions")
    worker = models.ForeignKey("crowd.Worker", on_delete=models.PROTECT, related_name="+")
    session_id = models.CharField(max_length=64, help_text="SESSION_ID from the entry URL.")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    submission = models.ForeignKey(
        "prolific.Submission",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="sessions",
        help_text="Prolific's submission vouching for this session; none: not counted or paid.",
    )
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["study", "worker"], name="prolific_one_session_each")
        ]

    def __str__(self) -> str:
        return f"Session {self.session_id} of {self.worker.external_id}"


class Submission(models.Model):
    """A submission as Prolific reports it (from its listing, a lookup or a webhook)."""

    submission_id = models.CharField(max_length=64, unique=True)
    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="submissions")
    participant_id = models.CharField(max_length=64)
    status = models.CharField(max_length=32)
    study_code = models.CharField(max_length=64, blank=True)
    approval_sent_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When Parable asked Prolific to approve it; Prolific's status says when it has.",
    )
    rejection_sent_at = models.DateTimeField(
        null=True, blank=True, help_text="When Parable asked Prolific to reject it."
    )
    rejection_message = models.TextField(blank=True, help_text="The message sent with it.")
    started_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    seen_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.submission_id} ({self.status_shown})"

    @property
    def status_shown(self) -> str:
        """Prolific's status, or "approval sent" while Prolific has not approved it yet."""
        if self.approval_sent_at and self.status == REVIEWABLE:
            return "approval sent"
        if self.rejection_sent_at and self.status == REVIEWABLE:
            return "rejection sent"
        return self.status


class WebhookEvent(models.Model):
    """A webhook delivery already handled: repeats with the same event id are ignored."""

    event_id = models.CharField(max_length=128, unique=True)
    event_type = models.CharField(max_length=64)
    resource_id = models.CharField(max_length=64, blank=True)
    received_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.event_type} {self.resource_id}"


class WebhookRefusal(models.Model):
    """A webhook delivery refused (bad signature, timestamp out of the window): kept so the
    admin shows why deliveries fail before Prolific disables the subscription."""

    reason = models.CharField(max_length=500)
    event_id = models.CharField(max_length=128, blank=True)
    timestamp = models.CharField(max_length=64, blank=True)
    body = models.TextField(blank=True)
    received_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.received_at:%Y-%m-%d %H:%M}: {self.reason}"
