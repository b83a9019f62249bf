"""Narratives: stories written for a proverb by the crowd, imported, or written by a model.

Crowd bookkeeping (workers, batches, assignments) lives in the crowd app; a narrative
points at the assignment that produced it, or at none when imported."""

from django.db import models
from django.db.models import Q

from annotation.models.proverbs import Proverb
from annotation.text import first_words


class Narrative(models.Model):
    class Source(models.TextChoices):
        CROWD = "crowd", "Crowd"
        IMPORTED = "imported", "Imported"
        MODEL = "model", "Model"

    class Status(models.TextChoices):
        SUBMITTED = "submitted", "Submitted"
        APPROVED = "approved", "Approved"
        REJECTED = "rejected", "Rejected"

    class Split(models.TextChoices):
        NONE = "", "None"
        TRAIN = "train", "Train"
        TEST = "test", "Test"

    proverb = models.ForeignKey(Proverb, on_delete=models.PROTECT, related_name="narratives")
    text = models.TextField()
    source = models.CharField(max_length=16, choices=Source.choices, default=Source.CROWD)
    source_label = models.CharField(
        max_length=200,
        blank=True,
        help_text='Where it came from, to compare sources ("ePiC", "model run 3", a paper).',
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.SUBMITTED)
    assignment = models.OneToOneField(
        "crowd.Assignment",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="narrative",
    )
    worker = models.ForeignKey(
        "crowd.Worker",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="narratives",
    )
    external_id = models.CharField(
        max_length=100, null=True, blank=True, unique=True, help_text='e.g. ePiC\'s "Q12N3".'
    )
    word_count = models.PositiveIntegerField(default=0)
    proverb_quote = models.CharField(
        max_length=300,
        blank=True,
        help_text="The proverb as an imported record quoted it, when that differs from the "
        "proverb's text (the export gives it back); its span pairs' proverb offsets point "
        "into it.",
    )
    overlap = models.JSONField(default=dict, blank=True)
    keywords = models.JSONField(
        default=dict, blank=True, help_text="Verbs and named entities, for generation."
    )
    keywords_pending_since = models.DateTimeField(
        null=True,
        blank=True,
        db_index=True,
        help_text="Approved, keywords not extracted yet: re-queued after the grace period.",
    )
    split_seen = models.CharField(max_length=8, choices=Split.choices, default="", blank=True)
    split_unseen = models.CharField(max_length=8, choices=Split.choices, default="", blank=True)
    # Where a split file put the narrative (0-based, within its file): exported split
    # files keep the imported order. Empty for splits drawn from a seed.
    split_seen_position = models.PositiveIntegerField(null=True, blank=True)
    split_unseen_position = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    reviewed_at = models.DateTimeField(null=True, blank=True)
    review_message = models.TextField(blank=True)

    class Meta:
        ordering = ["id"]
        permissions = [
            ("review_narrative", "Can approve or reject narratives"),
            # Granted one by one (no role has it): raw ids identify people on Prolific/MTurk.
            ("export_raw_worker_ids", "Can export raw provider worker ids"),
        ]
        constraints = [
            models.CheckConstraint(condition=~Q(text=""), name="narrative_text_not_empty"),
            models.CheckConstraint(
                condition=Q(source="crowd", assignment__isnull=False, worker__isnull=False)
                | ~Q(source="crowd"),
                name="crowd_narrative_has_assignment_and_worker",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["submitted", "approved", "rejected"]),
                name="narrative_status_valid",
            ),
        ]
        indexes = [models.Index(fields=["proverb", "status"])]

    def __str__(self) -> str:
        return f"“{first_words(self.text)}” ({self.proverb.text})"
