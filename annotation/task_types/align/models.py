"""What the align task stores: span pairs, a proverb span aligned with a narrative span
(imported with an ePiC file, or one worker's alignment)."""

from django.db import models
from django.db.models import F, Q

from annotation.models import Narrative


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
