"""Proverbs and their curation: the proverbs, groups of proposed lexical variants,
and how many curated proverbs the researcher aims for."""

from django.db import models
from django.db.models import F, Q


class Proverb(models.Model):
    class Status(models.TextChoices):
        CANDIDATE = "candidate", "Candidate"
        CURATED = "curated", "Curated"
        REJECTED = "rejected", "Rejected"

    text = models.CharField(max_length=300)
    normalized_text = models.CharField(
        max_length=300,
        unique=True,
        help_text="Case, punctuation, whitespace and quote style folded: the duplicate key.",
    )
    source = models.CharField(max_length=200, blank=True)
    meaning = models.TextField(blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.CANDIDATE)
    variant_of = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="variants",
        help_text="The canonical proverb this one was merged into.",
    )
    is_demo = models.BooleanField(
        default=False, help_text="Loaded by the demo set-up; removable in one action."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(variant_of=F("id")), name="proverb_not_variant_of_itself"
            ),
            models.CheckConstraint(condition=~Q(text=""), name="proverb_text_not_empty"),
            models.CheckConstraint(
                condition=Q(status__in=["candidate", "curated", "rejected"]),
                name="proverb_status_valid",
            ),
        ]

    def __str__(self) -> str:
        return self.text


class VariantGroup(models.Model):
    """Proverbs proposed as lexical variants of one another, awaiting a decision."""

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        MERGED = "merged", "Merged"
        DISMISSED = "dismissed", "Dismissed"

    proverbs = models.ManyToManyField(Proverb, related_name="variant_groups")
    score = models.FloatField(help_text="Strongest pairwise similarity in the group (0 to 1).")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    canonical = models.ForeignKey(
        Proverb, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    member_key = models.CharField(
        max_length=500,
        unique=True,
        help_text="Sorted member ids: the same group is never proposed twice.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-score", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(score__gte=0) & Q(score__lte=1), name="variant_group_score_range"
            ),
        ]

    def __str__(self) -> str:
        return f"Variant group {self.pk} ({self.get_status_display()})"


class CurationTarget(models.Model):
    """How many curated proverbs the researcher is aiming for (one row)."""

    curated_target = models.PositiveIntegerField(default=250)

    class Meta:
        constraints = [models.CheckConstraint(condition=Q(id=1), name="curation_target_singleton")]

    def __str__(self) -> str:
        return f"Target: {self.curated_target} curated proverbs"
