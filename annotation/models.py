"""The dataset: proverbs and their curation, narratives, span pairs, ratings, choice questions.

Crowd bookkeeping (workers, batches, assignments) lives in the crowd app; the rows
here point at the assignment that produced them, or at none when imported.
"""

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
    overlap = models.JSONField(default=dict, blank=True)
    keywords = models.JSONField(
        default=dict, blank=True, help_text="Verbs and named entities, for generation."
    )
    split_seen = models.CharField(max_length=8, choices=Split.choices, default="", blank=True)
    split_unseen = models.CharField(max_length=8, choices=Split.choices, default="", blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    reviewed_at = models.DateTimeField(null=True, blank=True)
    review_message = models.TextField(blank=True)

    class Meta:
        ordering = ["id"]
        permissions = [("review_narrative", "Can approve or reject narratives")]
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
        return f"Narrative {self.pk} for proverb {self.proverb_id}"


class SpanPair(models.Model):
    """A contiguous proverb span aligned with a contiguous narrative span ([start, end))."""

    narrative = models.ForeignKey(Narrative, on_delete=models.CASCADE, related_name="span_pairs")
    assignment = models.ForeignKey(
        "crowd.Assignment",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="span_pairs",
    )
    position = models.PositiveSmallIntegerField(help_text="1 to 5, the slot in its alignment.")
    proverb_start = models.PositiveIntegerField()
    proverb_end = models.PositiveIntegerField()
    proverb_span = models.CharField(max_length=300)
    narrative_start = models.PositiveIntegerField()
    narrative_end = models.PositiveIntegerField()
    narrative_span = models.TextField()
    ambiguous = models.BooleanField(
        default=False, help_text="Imported string occurred more than once; first match taken."
    )

    class Meta:
        ordering = ["narrative_id", "assignment_id", "position"]
        constraints = [
            models.CheckConstraint(
                condition=Q(proverb_end__gt=F("proverb_start")), name="span_pair_proverb_nonempty"
            ),
            models.CheckConstraint(
                condition=Q(narrative_end__gt=F("narrative_start")),
                name="span_pair_narrative_nonempty",
            ),
            models.CheckConstraint(
                condition=Q(position__gte=1) & Q(position__lte=5), name="span_pair_position_range"
            ),
            models.UniqueConstraint(
                fields=["narrative", "assignment", "position"],
                name="span_pair_unique_position",
                nulls_distinct=False,
            ),
        ]

    def __str__(self) -> str:
        return f"{self.proverb_span!r} ~ {self.narrative_span[:40]!r}"


class Rating(models.Model):
    """One Likert judgement (1 to 5) of one criterion for a narrative or an alignment."""

    narrative = models.ForeignKey(Narrative, on_delete=models.CASCADE, related_name="ratings")
    alignment = models.ForeignKey(
        "crowd.Assignment",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="alignment_ratings",
        help_text="Set when the rated thing is one worker's alignment of the narrative.",
    )
    assignment = models.ForeignKey(
        "crowd.Assignment", on_delete=models.PROTECT, related_name="ratings"
    )
    criterion = models.CharField(max_length=64)
    value = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(value__gte=1) & Q(value__lte=5), name="rating_value_likert"
            ),
            models.UniqueConstraint(
                fields=["assignment", "criterion"], name="rating_one_per_criterion"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.criterion}={self.value} on narrative {self.narrative_id}"


class ChoiceQuestion(models.Model):
    """Which proverb does this narrative illustrate: the answer and 4 distractors, in order."""

    narrative = models.ForeignKey(
        Narrative, on_delete=models.CASCADE, related_name="choice_questions"
    )
    correct = models.ForeignKey(Proverb, on_delete=models.PROTECT, related_name="+")
    options = models.JSONField(
        help_text="Proverb ids in the order shown, the correct one included."
    )
    distractor_source = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"Question {self.pk} on narrative {self.narrative_id}"


class ChoiceAnswer(models.Model):
    question = models.ForeignKey(ChoiceQuestion, on_delete=models.CASCADE, related_name="answers")
    assignment = models.OneToOneField(
        "crowd.Assignment", on_delete=models.PROTECT, related_name="choice_answer"
    )
    chosen = models.ForeignKey(Proverb, on_delete=models.PROTECT, related_name="+")
    is_correct = models.BooleanField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"Answer to question {self.question_id}"


class NarrativeIntegrity(models.Model):
    """How a narrative was written and how it compares with the dataset (writing integrity).

    `telemetry` is the task page's content-blind writing record (counts and times, no
    keystrokes); `embedding` is the story's sentence embedding as float16 bytes; `similarity`
    holds the nearest story of the same proverb and the worker's nearest earlier story.
    """

    narrative = models.OneToOneField(
        Narrative, on_delete=models.CASCADE, related_name="integrity", primary_key=True
    )
    telemetry = models.JSONField(null=True, blank=True)
    embedding = models.BinaryField(null=True, blank=True)
    embedding_model = models.CharField(max_length=300, blank=True)
    similarity = models.JSONField(default=dict, blank=True)
    checked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "narrative integrity"
        verbose_name_plural = "narrative integrity"

    def __str__(self) -> str:
        return f"Integrity of narrative {self.narrative_id}"
