"""The "align spans" task (ePiC §3): a drawn narrative's 1 to 5 pairs (bounds per batch) of
a proverb span and a narrative span, stored as SpanPair rows with offsets and strings.
"""

from __future__ import annotations

from collections import defaultdict
from statistics import mean

from django import forms

from annotation.models import Narrative
from annotation.quality.agreement import span_agreement
from annotation.quality.reports import counted
from annotation.task_parts import spans
from annotation.task_parts.imported import imported_narrative, imported_span
from annotation.task_parts.sources import (
    DRAW_DEFAULTS,
    DRAW_SETTINGS_SCHEMA,
    DrawnBatchForm,
    DrawnTaskType,
    clean_draw_settings,
    settings_object,
)
from annotation.task_types.align import dataset
from annotation.task_types.align.models import SpanPair
from common.prose import figure_text
from crowd.models import Assignment, Batch, BatchItem
from crowd.task_types import SubmissionError

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

    instructions_initial = INSTRUCTIONS

    min_pairs = forms.IntegerField(min_value=1, max_value=spans.MAX_PAIRS, initial=1)
    max_pairs = forms.IntegerField(min_value=1, max_value=spans.MAX_PAIRS, initial=spans.MAX_PAIRS)

    def type_settings(self) -> dict:
        return {
            "min_pairs": self.cleaned_data["min_pairs"],
            "max_pairs": self.cleaned_data["max_pairs"],
        }


class AlignTask(DrawnTaskType):
    key = "align"
    instructions = INSTRUCTIONS
    label = "Align spans"
    target_per_item = 2
    template = "task_types/align/page.html"
    batch_form = AlignBatchForm  # crowd/admin/batches.py offers "New Align spans batch"
    review_changelist = "admin:annotation_spanpair_changelist"  # review_url links there
    agreement_template = "task_types/align/agreement.html"
    import_fields = ("proverb", "narrative", "proverb_span_1", "narrative_span_1")
    import_optional_fields = tuple(
        f"{side}_span_{n}"
        for n in range(2, spans.MAX_PAIRS + 1)
        for side in ("proverb", "narrative")
    )
    produces = "alignments"
    narrative_parts = (dataset.SPAN_PAIRS,)

    def default_settings(self) -> dict:
        return {"min_pairs": 1, "max_pairs": spans.MAX_PAIRS, **DRAW_DEFAULTS}

    def settings_schema(self) -> dict:
        pairs = {"type": "integer", "minimum": 1, "maximum": spans.MAX_PAIRS}
        return {
            **settings_object({"min_pairs": pairs, "max_pairs": pairs, **DRAW_SETTINGS_SCHEMA}),
            # min_pairs <= max_pairs (max_pairs defaults to the most, min_pairs to 1)
            "anyOf": [
                {"properties": {"min_pairs": {"enum": [low]}, "max_pairs": {"minimum": low}}}
                for low in range(1, spans.MAX_PAIRS + 1)
            ],
        }

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

    def result_records(self, *, batch: Batch, assignments: list[Assignment]) -> dict[int, dict]:
        """Per alignment: its narrative, the proverb and the pairs in order."""
        rows = (
            SpanPair.objects.filter(assignment__item__batch=batch)
            .select_related("narrative__proverb")
            .order_by("assignment_id", "position")
        )
        records: dict[int, dict] = {}
        for row in rows:
            record = records.setdefault(
                row.assignment_id,
                {"narrative": row.narrative_id, "proverb": row.narrative.proverb.text, "pairs": []},
            )
            record["pairs"].append(spans.pair_record(row))
        return records

    def agreement(self, *, batch: Batch) -> dict:
        return alignment_agreement(batch=batch)

    def agreement_display(self, *, report: dict) -> dict:
        return {
            "span_rows": [
                {"side": side, **{key: figure_text(value) for key, value in report[side].items()}}
                for side in ("proverb", "narrative")
            ]
        }

    def review_display(self, *, assignment: Assignment) -> dict:
        return {"kind": "align", **spans.review_drawing(dataset.drawing(assignment))}

    def output_drawing(self, *, assignment: Assignment) -> dict:
        return dataset.drawing(assignment)

    def narrative_parts_of(self, *, narrative_ids: list[int]) -> dict[str, dict[int, list]]:
        return {dataset.SPAN_PAIRS.name: dataset.span_pairs_of(narrative_ids)}

    def narrative_parts_store(self, *, part: str, rows) -> int:
        return dataset.span_pairs_store(rows)

    def dataset_state(self) -> list:
        return dataset.state()

    def methods_sentences(self, *, batch: Batch | None = None, imported=None) -> list[str]:
        return dataset.imported_sentences(imported) if imported is not None else []

    def import_subject(self, *, batch: Batch, fields: dict[str, str]) -> dict:
        return {"narrative": imported_narrative(batch=batch, fields=fields)}

    def import_payload(self, *, item: BatchItem, fields: dict[str, str]) -> dict:
        """Pairs from the fields proverb_span_N and narrative_span_N (N from 1)."""
        narrative = item.narrative
        pairs = []
        for number in range(1, spans.MAX_PAIRS + 1):
            proverb_span = fields.get(f"proverb_span_{number}", "")
            narrative_span = fields.get(f"narrative_span_{number}", "")
            if not proverb_span and not narrative_span:
                continue
            pairs.append(
                {
                    "proverb": imported_span(
                        narrative.proverb.text, proverb_span, side="proverb", number=number
                    ),
                    "narrative": imported_span(
                        narrative.text, narrative_span, side="narrative", number=number
                    ),
                }
            )
        return {"pairs": pairs}


def alignment_agreement(*, batch: Batch) -> dict:
    """Span agreement between annotators (token P/R/F1), proverb and narrative sides apart."""
    rows = counted(SpanPair, batch).values_list(
        "assignment__item_id",
        "assignment__worker_id",
        "assignment_id",
        "narrative_id",
        "proverb_start",
        "proverb_end",
        "narrative_start",
        "narrative_end",
    )
    proverb_side: dict = defaultdict(lambda: defaultdict(list))
    narrative_side: dict = defaultdict(lambda: defaultdict(list))
    narrative_of: dict[int, int] = {}
    pairs_per_alignment: dict[int, int] = defaultdict(int)
    for item, worker, assignment, narrative, p_start, p_end, n_start, n_end in rows:
        proverb_side[item][worker].append((p_start, p_end))
        narrative_side[item][worker].append((n_start, n_end))
        narrative_of[item] = narrative
        pairs_per_alignment[assignment] += 1
    narratives = Narrative.objects.select_related("proverb").in_bulk(set(narrative_of.values()))
    proverb_texts = {item: narratives[n].proverb.text for item, n in narrative_of.items()}
    narrative_texts = {item: narratives[n].text for item, n in narrative_of.items()}
    return {
        "alignments": len(pairs_per_alignment),
        "items": len(narrative_of),
        "pairs_per_alignment": mean(pairs_per_alignment.values()) if pairs_per_alignment else None,
        "proverb": span_agreement(proverb_side, proverb_texts),
        "narrative": span_agreement(narrative_side, narrative_texts),
    }


task_type = AlignTask()
