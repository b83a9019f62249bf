"""The "align spans" task: pair contiguous spans of a proverb with spans of a narrative.

Items are narratives (from an approved writing batch or drawn from the dataset).
A submission is 1 to 5 pairs (bounds per batch), stored as SpanPair rows with
character offsets and the covered strings (ePiC §3).
"""

from __future__ import annotations

from django import forms
from django.db import transaction

from annotation import spans
from annotation.models import SpanPair
from annotation.task_types.sources import (
    DrawnBatchForm,
    batch_lock,
    clean_draw_settings,
    narratives_to_add,
    source_batch_check,
)
from crowd.batches import batch_items_add
from crowd.models import Assignment, Batch
from crowd.task_types import SubmissionError, TaskType, register

INSTRUCTIONS = """Read the proverb and the story written for it. Find parts of the proverb that \
correspond to parts of the story (a role, an action, a consequence).
For each, select a stretch of words in the proverb and a stretch of words in the story, then \
press "Pair these spans". Each pair gets its own colour in both texts.
Add at least the minimum number of pairs shown and at most the maximum; remove a pair with its \
Remove button.
Select by dragging with the mouse or a finger (on a touch screen you can also tap the first \
word and then the last), or with the keyboard: Tab into a text, move with the arrow \
keys, hold Shift with the arrows to extend, press Enter to pair, Escape to clear. Your pairs are \
kept if you reload the page."""


class AlignBatchForm(DrawnBatchForm):
    """An align-spans batch: narratives from a writing batch or the dataset, pairs per item."""

    min_pairs = forms.IntegerField(min_value=1, max_value=spans.MAX_PAIRS, initial=1)
    max_pairs = forms.IntegerField(min_value=1, max_value=spans.MAX_PAIRS, initial=spans.MAX_PAIRS)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["instructions"].initial = INSTRUCTIONS
        self.fields["target_per_item"].initial = 2

    def type_settings(self) -> dict:
        return {
            "min_pairs": self.cleaned_data["min_pairs"],
            "max_pairs": self.cleaned_data["max_pairs"],
        }


class AlignTask(TaskType):
    key = "align"
    label = "Align spans"
    template = "frontend/tasks/align.html"
    batch_form = AlignBatchForm  # crowd/admin.py offers "New Align spans batch"
    review_changelist = "admin:annotation_spanpair_changelist"  # review_url links there

    def default_settings(self) -> dict:
        return {"min_pairs": 1, "max_pairs": spans.MAX_PAIRS, "sample": None, "seed": 1, "draw": []}

    def default_instructions(self) -> str:
        return INSTRUCTIONS

    def clean_settings(self, settings: dict) -> dict:
        cleaned = clean_draw_settings({**self.default_settings(), **settings})
        low, high = cleaned["min_pairs"], cleaned["max_pairs"]
        for name, value in (("min_pairs", low), ("max_pairs", high)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{name} must be a whole number.")
        if not 1 <= low <= high <= spans.MAX_PAIRS:
            raise ValueError(
                f"Pairs per item: need 1 <= min_pairs <= max_pairs <= {spans.MAX_PAIRS}."
            )
        return cleaned

    def page_context(self, *, assignment: Assignment) -> dict:
        narrative = assignment.item.narrative
        proverb = narrative.proverb
        settings = assignment.item.batch.settings
        finished = assignment.status in Assignment.STORED
        return {
            "narrative": narrative,
            "proverb": proverb,
            "task_config": {
                "proverb": {"text": proverb.text, "tokens": spans.token_bounds(proverb.text)},
                "narrative": {
                    "text": narrative.text,
                    "tokens": spans.token_bounds(narrative.text),
                },
                "min_pairs": settings.get("min_pairs", 1),
                "max_pairs": settings.get("max_pairs", spans.MAX_PAIRS),
                "palette": list(spans.PALETTE),
                "result": self.result(assignment=assignment) if finished else None,
            },
        }

    def validate(self, *, assignment: Assignment, payload: dict) -> dict:
        narrative = assignment.item.narrative
        settings = assignment.item.batch.settings
        try:
            pairs = spans.pairs_check(
                proverb=narrative.proverb.text,
                narrative=narrative.text,
                pairs=payload.get("pairs"),
                min_pairs=settings.get("min_pairs", 1),
                max_pairs=settings.get("max_pairs", spans.MAX_PAIRS),
            )
        except spans.SpanError as error:
            raise SubmissionError(
                error.message, field="pairs", details={"pair": error.pair, "side": error.side}
            ) from None
        return {"narrative": narrative, "pairs": pairs}

    def store(self, *, assignment: Assignment, cleaned: dict) -> None:
        SpanPair.objects.bulk_create(
            SpanPair(
                narrative=cleaned["narrative"],
                assignment=assignment,
                position=position,
                proverb_start=pair.proverb.start,
                proverb_end=pair.proverb.end,
                proverb_span=pair.proverb.text,
                narrative_start=pair.narrative.start,
                narrative_end=pair.narrative.end,
                narrative_span=pair.narrative.text,
            )
            for position, pair in enumerate(cleaned["pairs"], start=1)
        )

    def result(self, *, assignment: Assignment) -> dict:
        return {"pairs": [spans.pair_record(row) for row in assignment.span_pairs.all()]}

    @transaction.atomic
    def items_refresh(self, *, batch: Batch) -> int:
        batch_lock(batch)
        source_batch_check(batch, expected="write")
        return batch_items_add(
            batch=batch, items=[{"narrative": n} for n in narratives_to_add(batch=batch)]
        )

    def batch_results(self, *, batch: Batch) -> list[dict]:
        """One record per submitted alignment: narrative, proverb, worker, status, pairs."""
        rows = (
            SpanPair.objects.filter(assignment__item__batch=batch)
            .select_related("assignment__worker", "narrative__proverb")
            .order_by("assignment_id", "position")
        )
        records: dict[int, dict] = {}
        for row in rows:
            record = records.setdefault(
                row.assignment_id,
                {
                    "assignment": row.assignment_id,
                    "item": row.assignment.item_id,
                    "worker": row.assignment.worker_id,
                    "status": row.assignment.status,
                    "narrative": row.narrative_id,
                    "proverb": row.narrative.proverb.text,
                    "pairs": [],
                },
            )
            record["pairs"].append(spans.pair_record(row))
        return list(records.values())


register(AlignTask())
