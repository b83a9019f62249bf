"""What the cloze task stores: the cloze items (a story with one sentence left out) and
the workers' sentences."""

from django.db import models
from django.db.models import Q

from annotation.models import Narrative
from annotation.task_parts.rows import Row, answer_of
from annotation.text import first_words


class ClozeItem(Row):
    """A story with one sentence left out: `sentences` as written, `shown` as the condition
    shows them (the left-out one null), and the left-out one's main-verb lemma."""

    class Condition(models.TextChoices):
        FULL = "full", "Full sentences"
        ARGUMENTS = "arguments", "Main verb and its arguments"
        SUBJECT_VERB = "subject_verb", "Subject and verb"

    narrative = models.ForeignKey(Narrative, on_delete=models.PROTECT, related_name="cloze_items")
    condition = models.CharField(max_length=16, choices=Condition.choices)
    blank_index = models.PositiveSmallIntegerField()
    sentences = models.JSONField()
    shown = models.JSONField()
    original_lemma = models.CharField(max_length=100, blank=True)

    class Meta(Row.Meta):
        constraints = [
            models.UniqueConstraint(
                fields=["narrative", "condition", "blank_index"], name="cloze_item_unique"
            ),
            models.CheckConstraint(
                condition=Q(condition__in=["full", "arguments", "subject_verb"]),
                name="cloze_condition_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"Cloze ({self.condition}, sentence {self.blank_index + 1}) of {self.narrative}"


class ClozeResponse(Row):
    """A worker's sentence for a cloze item, with its main-verb lemma (spaCy)."""

    item = models.ForeignKey(ClozeItem, on_delete=models.CASCADE, related_name="responses")
    assignment = answer_of("cloze_response")
    text = models.TextField()
    lemma = models.CharField(max_length=100)
    matches = models.BooleanField(help_text="Its main-verb lemma is the original's.")

    def __str__(self) -> str:
        return f"“{first_words(self.text)}” (cloze answer)"
