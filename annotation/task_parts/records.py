"""The plain records the dataset analysis reads (narratives with their span pairs, ratings,
human and model choices), which the task types give (`TaskType.analysis_records`). No
Django: the analysis' worker processes read them without it."""

from __future__ import annotations

from dataclasses import dataclass


def rating_source(source: str, label: str) -> str:
    """The source a narrative's ratings are compared under: dataset (written here: the
    source "crowd"), imported:X, model:X."""
    if source == "crowd":
        return "dataset"
    return f"{source}:{label or 'unlabelled'}"


@dataclass(frozen=True, slots=True)
class SpanPairRecord:
    """One aligned pair: a span of the proverb and the narrative span it matches."""

    proverb_span: str
    narrative_span: str


@dataclass(frozen=True, slots=True)
class NarrativeRecord:
    """A narrative written (or imported, or generated) for a proverb."""

    narrative_id: int
    proverb_id: int
    proverb: str
    text: str
    status: str  # "submitted" | "approved" | "rejected"
    worker: str | None  # None for imported/model narratives
    source: str = "dataset"
    span_pairs: tuple[SpanPairRecord, ...] = ()


@dataclass(frozen=True, slots=True)
class RatingRecord:
    """One Likert rating (1..5) of one narrative on one criterion by one worker."""

    narrative_id: int
    source: str
    criterion: str
    worker: str
    value: int


@dataclass(frozen=True, slots=True)
class ChoiceRecord:
    """One worker's answer to a multiple-choice "which proverb" question."""

    question_id: int
    worker: str
    correct: bool


@dataclass(frozen=True, slots=True)
class ModelChoiceRecord:
    """A model's answer to a multiple-choice question."""

    question_id: int
    correct: bool


@dataclass(frozen=True, slots=True)
class IntegrityRecord:
    """A narrative's writing-integrity flags, with the batch and worker they count under."""

    batch: int | None  # None for imported narratives
    batch_name: str
    worker: str | None
    flags: tuple[str, ...]
    has_record: bool  # the task page sent a writing record
    checked: bool  # the dataset similarity check has run
