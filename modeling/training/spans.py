"""Span pairs of the alignment baselines (ePiC Tables 8 and 9), with no heavy imports.

No Django, no torch: one item per span pair (narratives without one left out and counted),
the parts of aligned narratives only, a character span on a fast tokenizer's tokens, and the
pipeline (Table 9): a test span pair keeps its scores only where the proverb run ranked its
narrative's proverb first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from modeling.training.examples import Example, Parts, SnapshotError, split_parts

# Aligned narratives an alignment run needs in the setting's train part (the dev slice
# takes one of a proverb with two, and training needs two proverbs) and in its test part.
MIN_ALIGNED_TRAIN = 3
MIN_ALIGNED_TEST = 1


@dataclass(frozen=True)
class SpanItem:
    """One span pair to predict: given the narrative, the proverb and a proverb span,
    the narrative characters [start, end)."""

    narrative_id: int
    narrative: str
    proverb_id: int
    proverb: str
    proverb_span: str
    start: int
    end: int


def span_items(examples: Sequence[Example]) -> list[SpanItem]:
    """The span pairs of the examples' alignments, in order; pairs whose offsets do not
    fit their narrative are left out."""
    return [
        SpanItem(e.narrative_id, e.narrative, e.proverb_id, e.proverb, span, start, end)
        for e in examples
        for span, start, end in e.alignments
        if 0 <= start < end <= len(e.narrative)
    ]


def aligned_parts(examples: Sequence[Example], *, setting: str, seed: int) -> Parts:
    """Train (less dev), dev and test of the aligned narratives; SnapshotError when the
    snapshot has too few of them, saying how many are needed and how many there are."""
    aligned = [e for e in examples if span_items([e])]
    train = sum(getattr(e, setting) == "train" for e in aligned)
    test = sum(getattr(e, setting) == "test" for e in aligned)
    if train < MIN_ALIGNED_TRAIN or test < MIN_ALIGNED_TEST:
        raise SnapshotError(
            f"The alignment task needs aligned narratives: at least {MIN_ALIGNED_TRAIN} in "
            f"{setting} train and {MIN_ALIGNED_TEST} in {setting} test; the snapshot has "
            f"{train} and {test} ({len(aligned)} of its {len(examples)} narratives have an "
            "alignment). Import a dataset with its alignments or approve align assignments."
        )
    try:
        return split_parts(aligned, setting=setting, seed=seed)
    except SnapshotError as error:
        raise SnapshotError(f"Among the {len(aligned)} aligned narratives: {error}") from None


def token_span(
    offsets: Sequence[tuple[int, int]],
    sequence_ids: Sequence[int | None],
    text: str,
    start: int,
    end: int,
) -> tuple[int, int] | None:
    """First and last token of the narrative (sequence 1) overlapping characters
    [start, end) of `text`, from a fast tokenizer's offset mapping.

    None when the span reaches text that truncation left out (or covers no token).
    """
    narrative = [
        index
        for index, sequence in enumerate(sequence_ids)
        if sequence == 1 and offsets[index][1] > offsets[index][0]
    ]
    if not narrative:
        return None
    kept_until = offsets[narrative[-1]][1]
    if end > kept_until and text[kept_until:end].strip():
        return None
    inside = [i for i in narrative if offsets[i][0] < end and start < offsets[i][1]]
    if not inside:
        return None
    return inside[0], inside[-1]


@dataclass(frozen=True)
class SourceRun:
    """A finished run another baseline combines (the pipeline's proverb and alignment runs)."""

    id: int
    task: str
    status: str
    snapshot: int
    setting: str
    predictions: list


def pipeline_check(proverb: SourceRun, alignment: SourceRun, *, proverb_tasks: list[str]) -> None:
    """ValueError unless the pipeline can combine these runs: a succeeded run of one of
    `proverb_tasks` and a succeeded alignment run, on the same snapshot and setting."""
    if proverb.task not in proverb_tasks:
        raise ValueError(
            f"Run {proverb.id} is a {proverb.task} run; the proverb run is one of "
            f"{', '.join(proverb_tasks)}."
        )
    if alignment.task != "alignment":
        raise ValueError(f"Run {alignment.id} is a {alignment.task} run, not an alignment run.")
    for source in (proverb, alignment):
        if source.status != "succeeded":
            raise ValueError(f"Run {source.id} has not succeeded (it is {source.status}).")
    if proverb.snapshot != alignment.snapshot:
        raise ValueError(
            f"Runs {proverb.id} and {alignment.id} used different snapshots: run both on "
            "the same data."
        )
    if proverb.setting != alignment.setting:
        raise ValueError(
            f"Run {proverb.id} is {proverb.setting} and run {alignment.id} is "
            f"{alignment.setting}: both need the same setting."
        )


def pipeline_combine(proverb_predictions: list[dict], span_predictions: list[dict]) -> dict:
    """Table 9 from stored predictions: span scores where the proverb was ranked first,
    zero elsewhere. Raises ValueError when a span pair's narrative has no proverb
    prediction (the runs were not scored on the same test narratives)."""
    # numpy loads with the metrics, in the process that scores, never in a web process.
    from modeling.training.metrics import SPAN_MEASURES, span_metrics

    rank = {p["narrative_id"]: p["rank"] for p in proverb_predictions}
    missing = sorted({s["narrative_id"] for s in span_predictions} - rank.keys())
    if missing:
        raise ValueError(
            f"{len(missing)} narrative(s) of the alignment run's test part have no prediction "
            f"in the proverb run (first: {missing[0]}); the runs must share their test part."
        )
    rows = []
    for prediction in span_predictions:
        correct = rank[prediction["narrative_id"]] == 1
        scores = {name: prediction[name] if correct else 0.0 for name in SPAN_MEASURES}
        rows.append({**prediction, **scores, "proverb_correct": correct})
    aligned = {prediction["narrative_id"] for prediction in span_predictions}
    proverb_correct = sum(p["rank"] == 1 for p in proverb_predictions)
    aligned_correct = sum(rank[narrative] == 1 for narrative in aligned)
    return {
        "metrics": {
            "test": span_metrics(rows),
            "proverb": {
                "accuracy": proverb_correct / len(proverb_predictions)
                if proverb_predictions
                else None,
                "correct": proverb_correct,
                "total": len(proverb_predictions),
                "aligned_accuracy": aligned_correct / len(aligned) if aligned else None,
                "aligned_correct": aligned_correct,
                "aligned_total": len(aligned),
            },
            "alignment_alone": span_metrics(span_predictions),
        },
        "predictions": rows,
    }
