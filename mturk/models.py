"""What Parable keeps of MTurk: a batch's HIT type and qualifications, one HIT per item,
and assignments as MTurk reports them, linked to the stored answer when id, HIT and
worker all match (the calls to MTurk are crowd.ProviderAction rows)."""

from datetime import timedelta

from django.db import models
from django.db.models import Q
from django.utils import timezone


class Publication(models.Model):
    """A batch's MTurk settings: the HIT type and the qualification requirements."""

    batch = models.OneToOneField("crowd.Batch", on_delete=models.CASCADE, related_name="mturk")
    title = models.CharField(max_length=128)
    description = models.CharField(max_length=2000)
    keywords = models.CharField(max_length=1000, blank=True)
    auto_approval_delay_seconds = models.PositiveIntegerField(default=3 * 24 * 3600)
    lifetime_seconds = models.PositiveIntegerField(default=7 * 24 * 3600)
    locales = models.CharField(
        max_length=200, blank=True, help_text="Country codes workers must be in, e.g. US,GB."
    )
    min_approval_rate = models.PositiveIntegerField(null=True, blank=True)
    min_approved_hits = models.PositiveIntegerField(null=True, blank=True)
    test_xml = models.TextField(blank=True, help_text="A QuestionForm: the qualification test.")
    answer_key_xml = models.TextField(blank=True, help_text="Its AnswerKey, scored by MTurk.")
    test_min_score = models.PositiveIntegerField(null=True, blank=True)
    hit_type_id = models.CharField(max_length=64, blank=True)
    exclusion_qualification_id = models.CharField(max_length=64, blank=True)
    test_qualification_id = models.CharField(max_length=64, blank=True)
    excluded_worker_ids = models.JSONField(
        default=list, blank=True, help_text="Workers given the exclusion qualification."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "MTurk settings"
        verbose_name_plural = "MTurk settings"
        constraints = [
            models.CheckConstraint(
                condition=Q(test_xml="") | ~Q(answer_key_xml=""),
                name="mturk_test_has_answer_key",
            ),
            models.CheckConstraint(
                condition=Q(min_approval_rate__isnull=True) | Q(min_approval_rate__lte=100),
                name="mturk_approval_rate_percent",
            ),
        ]

    def __str__(self) -> str:
        return f"MTurk settings of {self.batch}"


class HIT(models.Model):
    class Status(models.TextChoices):
        ASSIGNABLE = "Assignable"
        UNASSIGNABLE = "Unassignable"
        REVIEWABLE = "Reviewable"
        REVIEWING = "Reviewing"
        DISPOSED = "Disposed"

    hit_id = models.CharField(max_length=64, unique=True)
    batch = models.ForeignKey("crowd.Batch", on_delete=models.CASCADE, related_name="mturk_hits")
    item = models.OneToOneField(
        "crowd.BatchItem", on_delete=models.CASCADE, related_name="mturk_hit"
    )
    hit_type_id = models.CharField(max_length=64)
    max_assignments = models.PositiveIntegerField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ASSIGNABLE)
    expires_at = models.DateTimeField()
    auto_approval_delay_seconds = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)
    synced_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["batch_id", "item_id"]
        verbose_name = "HIT"

    def __str__(self) -> str:
        return self.hit_id


class MTurkAssignment(models.Model):
    """An assignment as MTurk reports it (ListAssignmentsForHIT)."""

    class Status(models.TextChoices):
        SUBMITTED = "Submitted"
        APPROVED = "Approved"
        REJECTED = "Rejected"

    assignment_id = models.CharField(max_length=64, unique=True)
    hit = models.ForeignKey(HIT, on_delete=models.CASCADE, related_name="assignments")
    worker_id = models.CharField(max_length=64)
    status = models.CharField(max_length=16, choices=Status.choices)
    accepted_at = models.DateTimeField(null=True, blank=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    auto_approval_at = models.DateTimeField(null=True, blank=True)
    approved_at = models.DateTimeField(null=True, blank=True)
    rejected_at = models.DateTimeField(null=True, blank=True)
    requester_feedback = models.TextField(blank=True)
    answer = models.OneToOneField(
        "crowd.Assignment",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="mturk_assignment",
        help_text="The stored answer with the same assignment id, HIT and worker.",
    )
    synced_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["hit_id", "accepted_at", "id"]
        verbose_name = "MTurk assignment"

    def __str__(self) -> str:
        return self.assignment_id

    @property
    def override_window_passed(self) -> bool:
        """Rejected, and submitted more than 30 days ago: MTurk no longer overrides the
        rejection (ApproveAssignment, Requester API 2017-01-17)."""
        return (
            self.status == self.Status.REJECTED
            and self.submitted_at is not None
            and self.submitted_at < timezone.now() - timedelta(days=30)
        )
