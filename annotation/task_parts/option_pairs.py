"""Option pairs of figurative narratives (two candidate continuations, one plausible): made
once per pair of options, with their stored random display order. The benchmark's import
and approved crowd continuations both make them here."""

from __future__ import annotations

import random

from django.db import transaction

from annotation.models import ContinuationPair, FigurativeNarrative


def shown_first_for(pair_id: int) -> int:
    """Which option (1 or 2) a pair shows first: random, fixed by the pair's id."""
    return random.Random(f"continuation-pair:{pair_id}").choice((1, 2))


@transaction.atomic
def continuation_pair_create(
    *,
    narrative: FigurativeNarrative,
    option1: str,
    option2: str,
    correct: int | None,
    source: str = ContinuationPair.Source.IMPORTED,
    continuation=None,
    split: str = "",
    published_answer: str = "",
) -> tuple[ContinuationPair, bool]:
    """The pair of these options (created when new, with its stored display order).

    An existing pair keeps its split and answer."""
    pair, created = ContinuationPair.objects.get_or_create(
        narrative=narrative,
        option1=option1,
        option2=option2,
        defaults={
            "correct": correct,
            "source": source,
            "continuation": continuation,
            "split": split,
            "published_answer": published_answer,
        },
    )
    if created:
        pair.shown_first = shown_first_for(pair.pk)
        pair.save(update_fields=["shown_first"])
    return pair, created
