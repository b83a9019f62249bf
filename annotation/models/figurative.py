"""The figurative narratives benchmark: narratives with an idiom or a simile, and their
option pairs (two candidate continuations, one plausible)."""

from django.db import models
from django.db.models import F, Q

from annotation.text import first_words


class FigurativeNarrative(models.Model):
    """A narrative containing an idiom or a simile (the figurative narratives benchmark).

    The expression is located by offsets into `text` ([start, end)); the text holds no
    markup. `meaning` is the idiom's meaning or the simile's property.
    """

    class Kind(models.TextChoices):
        IDIOM = "idiom", "Idiom"
        SIMILE = "simile", "Simile"

    class Split(models.TextChoices):
        NONE = "", "None"
        TRAIN = "train", "Train"
        DEV = "dev", "Dev"
        TEST = "test", "Test"

    kind = models.CharField(max_length=8, choices=Kind.choices)
    text = models.TextField()
    expression = models.CharField(max_length=300)
    expression_start = models.PositiveIntegerField(null=True, blank=True)
    expression_end = models.PositiveIntegerField(null=True, blank=True)
    meaning = models.TextField(
        blank=True, help_text="The idiom's meaning or the simile's property (empty: none given)."
    )
    split = models.CharField(
        max_length=8,
        choices=Split.choices,
        default="",
        blank=True,
        help_text="The split of the file that first brought the narrative; option pairs "
        "carry their own split.",
    )
    source_values = models.JSONField(
        null=True,
        blank=True,
        help_text="The narrative, expression and meaning fields as published, kept only where "
        "they cannot be rebuilt from the text and span (markup twice or missing, spaces, "
        "false): the export gives them back as they were.",
    )
    content_key = models.CharField(
        max_length=64,
        unique=True,
        help_text="Hash of kind, text and expression: re-imports find the same row, and a "
        "narrative published with two glosses is one row.",
    )
    source_line = models.TextField(
        blank=True,
        help_text="The line that brought it without an option pair, as published (option "
        "pairs keep their own lines).",
    )
    source_state = models.CharField(
        max_length=64,
        blank=True,
        help_text="Digest of what the export rebuilds the line from, when it was imported: "
        "while it still matches, the export writes the line as published.",
    )
    literal_use_confirmed = models.BooleanField(
        default=False,
        help_text="A reviewer confirmed the expression is used literally: left out of new work.",
    )
    similarity = models.JSONField(
        null=True,
        blank=True,
        help_text="The dataset check against the stories of the same expression "
        "(annotation/quality/similarity_scan.py); empty until it has run.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(condition=~Q(text=""), name="figurative_text_not_empty"),
            models.CheckConstraint(
                condition=Q(kind__in=["idiom", "simile"]), name="figurative_kind_valid"
            ),
            models.CheckConstraint(
                condition=Q(expression_start__isnull=True, expression_end__isnull=True)
                | Q(expression_end__gt=F("expression_start")),
                name="figurative_span_nonempty",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} “{self.expression}”: “{first_words(self.text)}”"

    def segments(self) -> list[dict]:
        """The text as pieces, the expression's piece marked (pages render them escaped)."""
        if self.expression_start is None:
            return [{"text": self.text, "mark": False}]
        start, end = self.expression_start, self.expression_end
        pieces = [
            {"text": self.text[:start], "mark": False},
            {"text": self.text[start:end], "mark": True},
            {"text": self.text[end:], "mark": False},
        ]
        return [piece for piece in pieces if piece["text"]]


class ContinuationPair(models.Model):
    """Two candidate continuations of a figurative narrative, one of them the plausible one.

    Imported from the benchmark's option1/option2/correctanswer, or made from an approved
    crowd continuation. `shown_first` (1 or 2) is the stored random order of display.
    """

    class Source(models.TextChoices):
        IMPORTED = "imported", "Imported"
        CROWD = "crowd", "Crowd"

    narrative = models.ForeignKey(
        FigurativeNarrative, on_delete=models.CASCADE, related_name="option_pairs"
    )
    option1 = models.TextField()
    option2 = models.TextField()
    correct = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="1 or 2: the plausible option; empty when the labels are withheld (a test "
        "split): answers to such a pair count in no accuracy.",
    )
    split = models.CharField(
        max_length=8,
        choices=FigurativeNarrative.Split.choices,
        default="",
        blank=True,
        help_text="The split of the question (the pair): one narrative may have pairs in train "
        "and in dev.",
    )
    published_answer = models.CharField(
        max_length=16,
        blank=True,
        help_text="correctanswer as the imported file gave it (a placeholder where the labels "
        "are withheld), given back by the export.",
    )
    shown_first = models.PositiveSmallIntegerField(default=1)
    source = models.CharField(max_length=16, choices=Source.choices, default=Source.IMPORTED)
    continuation = models.OneToOneField(
        "Continuation",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="option_pair",
    )
    withdrawn = models.BooleanField(
        default=False,
        help_text="Its continuation was rejected after approval: no new items, not exported.",
    )
    source_line = models.TextField(
        blank=True,
        help_text="The imported line this pair came from, as published (its escapes, its "
        "gloss, its spacing): the export writes it while `source_state` still matches.",
    )
    source_state = models.CharField(
        max_length=64,
        blank=True,
        help_text="Digest of what the export rebuilds the line from (narrative and pair), "
        "when it was imported.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(correct__in=[1, 2]) | Q(correct__isnull=True),
                name="pair_correct_1_2_or_unlabelled",
            ),
            models.CheckConstraint(
                condition=Q(shown_first__in=[1, 2]), name="pair_shown_first_1_or_2"
            ),
            models.UniqueConstraint(
                fields=["narrative", "option1", "option2"], name="pair_unique_options"
            ),
        ]

    def __str__(self) -> str:
        first, second = first_words(self.option1), first_words(self.option2)
        return f"{self.narrative.expression}: “{first}” / “{second}”"

    def shown_order(self) -> list[int]:
        """The options (1, 2) in the order the pair shows them."""
        return [1, 2] if self.shown_first == 1 else [2, 1]

    def option_text(self, option: int) -> str:
        return self.option1 if option == 1 else self.option2
