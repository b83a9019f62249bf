"""What model-in-the-loop rounds store: each check a writer asks for, each story's round
and outcome, and each story's rank under a round's model. A modeling run is named by its
id (`opponent_run`, `run_id`): annotation holds no key to modeling's tables.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q


class OpponentCheck(models.Model):
    """One answer of a write batch's opponent to a story text: asked from the task page
    ("page") or made at submit for the story as submitted ("submit") when no page check
    had answered for that exact text.

    The text is kept only while the check waits for the model; once answered only its
    digest stays (a submitted story's check is matched by digest), like the writing
    record, which keeps no draft."""

    class Kind(models.TextChoices):
        PAGE = "page", "Asked on the page"
        SUBMIT = "submit", "Made at submit"

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for the model"
        ANSWERED = "answered", "Answered"
        FAILED = "failed", "Failed"

    assignment = models.ForeignKey(
        "crowd.Assignment", on_delete=models.CASCADE, related_name="opponent_checks"
    )
    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.PAGE)
    run_id = models.PositiveIntegerField(help_text="The opponent: a finished modeling run.")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    text = models.TextField(
        blank=True, help_text="The story, only while the model has not answered."
    )
    text_digest = models.CharField(max_length=64)
    requested_at = models.DateTimeField()
    answered_at = models.DateTimeField(null=True, blank=True)
    candidates = models.PositiveIntegerField(
        null=True, blank=True, help_text="How many proverbs the model ranked."
    )
    proverb_rank = models.PositiveIntegerField(
        null=True, blank=True, help_text="The story's own proverb's rank (1: found)."
    )
    proverb_score = models.FloatField(null=True, blank=True)
    top_proverb = models.ForeignKey(
        "annotation.Proverb", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    top_score = models.FloatField(null=True, blank=True)
    guesses = models.JSONField(
        default=list, blank=True, help_text="The model's first three: [[proverb id, score], ...]."
    )
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(fields=["assignment", "kind"], name="opponent_check_assignment"),
            models.Index(
                fields=["requested_at"],
                condition=Q(status="pending", kind="submit"),
                name="opponent_check_waiting",
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=["pending", "answered", "failed"]),
                name="opponent_check_status_valid",
            ),
            models.CheckConstraint(
                condition=Q(kind__in=["page", "submit"]), name="opponent_check_kind_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"Check {self.pk} of assignment {self.assignment_id} ({self.status})"

    @property
    def fooled(self) -> bool | None:
        """The model did not rank the story's proverb first; None until it answered."""
        return None if self.proverb_rank is None else self.proverb_rank > 1


class NarrativeRound(models.Model):
    """A story written in a round: the round, its opponent, what the batch promised the
    writer (mode, bonus), the model's answer on the story as submitted, the checks asked
    before, the human validation of a fooling story and its bonus.

    Kept as the batch stood when the story was submitted: a later change of the batch's
    settings changes nothing promised."""

    class Validation(models.TextChoices):
        NONE = "", "Not validated"
        CONFIRMED = "confirmed", "Humans chose its proverb"
        UNMATCHED = "unmatched", "Humans did not choose its proverb"

    narrative = models.OneToOneField(
        "annotation.Narrative", on_delete=models.CASCADE, related_name="round_record"
    )
    round = models.PositiveSmallIntegerField()
    opponent_run = models.PositiveIntegerField(null=True, blank=True)
    opponent_label = models.CharField(max_length=300, blank=True)
    mode = models.CharField(max_length=8, blank=True)
    bonus_cents = models.PositiveIntegerField(default=0)
    validate = models.BooleanField(
        default=False, help_text="A fooling story counts (and is paid) once humans confirm it."
    )
    checks = models.PositiveIntegerField(default=0, help_text="Checks asked on the page.")
    submit_check = models.OneToOneField(
        OpponentCheck,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="story_round",
        help_text="The model's answer on the story as submitted.",
    )
    fooled = models.BooleanField(
        null=True, blank=True, help_text="Empty: no opponent, or its answer has not come yet."
    )
    validation = models.CharField(max_length=12, choices=Validation.choices, default="", blank=True)
    validated_at = models.DateTimeField(null=True, blank=True)
    bonus_due_since = models.DateTimeField(
        null=True,
        blank=True,
        help_text="The bonus is owed and not yet paid: beat pays it again after the grace period.",
    )
    bonus_paid_at = models.DateTimeField(null=True, blank=True)
    bonus_error = models.TextField(blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(fields=["round"], name="narrative_round_round"),
            models.Index(
                fields=["bonus_due_since"],
                condition=Q(bonus_due_since__isnull=False),
                name="narrative_round_bonus_due",
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(validation__in=["", "confirmed", "unmatched"]),
                name="narrative_round_validation_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"Round {self.round} story {self.narrative_id}"


class OpponentEvaluation(models.Model):
    """A story's rank under a round's model among the proverbs it was ranked with (their
    digest), for the table of each round's model on every round's test stories: each
    (model, story, proverbs) is ranked once."""

    run_id = models.PositiveIntegerField()
    narrative = models.ForeignKey(
        "annotation.Narrative", on_delete=models.CASCADE, related_name="opponent_evaluations"
    )
    proverbs_digest = models.CharField(max_length=64)
    rank = models.PositiveIntegerField()
    candidates = models.PositiveIntegerField()
    computed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["run_id", "narrative", "proverbs_digest"], name="opponent_evaluation_once"
            )
        ]

    def __str__(self) -> str:
        return f"Run {self.run_id} ranks story {self.narrative_id} at {self.rank}"
