"""Factories for test rows: plain functions with sensible defaults, keyword overrides."""

from __future__ import annotations

from datetime import timedelta
from itertools import count

from django.utils import timezone

from annotation.models import ChoiceAnswer, ChoiceQuestion, Narrative, Proverb, Rating, SpanPair
from annotation.text import normalize_text
from crowd.models import Assignment, Batch, BatchItem, Worker

_sequence = count(1)


def proverb_create(text: str | None = None, **fields) -> Proverb:
    text = text or f"Proverb number {next(_sequence)} speaks of patience"
    fields.setdefault("status", Proverb.Status.CURATED)
    return Proverb.objects.create(text=text, normalized_text=normalize_text(text), **fields)


def worker_create(**fields) -> Worker:
    fields.setdefault("provider", "local")
    fields.setdefault("external_id", f"worker-{next(_sequence)}")
    return Worker.objects.create(**fields)


def batch_create(**fields) -> Batch:
    fields.setdefault("name", f"Batch {next(_sequence)}")
    fields.setdefault("task_type", "write")
    return Batch.objects.create(**fields)


def assignment_create(*, item: BatchItem, worker: Worker, **fields) -> Assignment:
    now = timezone.now()
    fields.setdefault("expires_at", now + timedelta(hours=1))
    return Assignment.objects.create(item=item, worker=worker, **fields)


def narrative_create(*, proverb: Proverb, text: str = "A story.", **fields) -> Narrative:
    fields.setdefault("source", Narrative.Source.IMPORTED)
    return Narrative.objects.create(proverb=proverb, text=text, **fields)


def _submitted_now():
    """A submission time after the assignment's start (set when it is saved)."""
    return timezone.now() + timedelta(seconds=1)


def crowd_narrative_create(
    *,
    proverb: Proverb,
    text: str = "A story.",
    batch: Batch | None = None,
    worker: Worker | None = None,
    status: str = Narrative.Status.APPROVED,
    **fields,
) -> Narrative:
    """A narrative written in a write batch: its batch item, assignment and worker."""
    batch = batch or batch_create(task_type="write")
    worker = worker or worker_create()
    item, _ = BatchItem.objects.get_or_create(batch=batch, proverb=proverb)
    assignment = assignment_create(
        item=item, worker=worker, status=status, submitted_at=_submitted_now()
    )
    return Narrative.objects.create(
        proverb=proverb,
        text=text,
        source=Narrative.Source.CROWD,
        status=status,
        assignment=assignment,
        worker=worker,
        **fields,
    )


def alignment_create(
    *,
    narrative: Narrative,
    pairs: list[tuple[int, int, int, int]],
    batch: Batch | None = None,
    worker: Worker | None = None,
    status: str = "approved",
) -> Assignment:
    """One worker's alignment of a narrative: span pairs (proverb_start, proverb_end,
    narrative_start, narrative_end) in slots 1, 2, ..."""
    batch = batch or batch_create(task_type="align")
    item, _ = BatchItem.objects.get_or_create(batch=batch, narrative=narrative)
    assignment = assignment_create(
        item=item, worker=worker or worker_create(), status=status, submitted_at=_submitted_now()
    )
    proverb_text = narrative.proverb.text
    SpanPair.objects.bulk_create(
        SpanPair(
            narrative=narrative,
            assignment=assignment,
            position=position,
            proverb_start=p_start,
            proverb_end=p_end,
            proverb_span=proverb_text[p_start:p_end],
            narrative_start=n_start,
            narrative_end=n_end,
            narrative_span=narrative.text[n_start:n_end],
        )
        for position, (p_start, p_end, n_start, n_end) in enumerate(pairs, start=1)
    )
    return assignment


def rating_create(
    *,
    narrative: Narrative,
    criterion: str,
    value: int,
    batch: Batch | None = None,
    worker: Worker | None = None,
    status: str = "approved",
) -> Rating:
    """A Likert rating of a narrative made in a rate batch by one worker."""
    batch = batch or batch_create(task_type="rate")
    item, _ = BatchItem.objects.get_or_create(batch=batch, narrative=narrative)
    worker = worker or worker_create()
    assignment = Assignment.objects.filter(item=item, worker=worker).first() or assignment_create(
        item=item, worker=worker, status=status, submitted_at=_submitted_now()
    )
    return Rating.objects.create(
        narrative=narrative, assignment=assignment, criterion=criterion, value=value
    )


def choice_answer_create(
    *,
    narrative: Narrative,
    correct: bool,
    batch: Batch | None = None,
    worker: Worker | None = None,
    question: ChoiceQuestion | None = None,
) -> ChoiceAnswer:
    """A worker's answer to a multiple-choice question about a narrative."""
    question = question or ChoiceQuestion.objects.create(
        narrative=narrative,
        correct=narrative.proverb,
        options=[narrative.proverb_id],
        distractor_source="test",
    )
    batch = batch or batch_create(task_type="choose")
    item, _ = BatchItem.objects.get_or_create(batch=batch, choice_question=question)
    assignment = assignment_create(
        item=item,
        worker=worker or worker_create(),
        status="approved",
        submitted_at=_submitted_now(),
    )
    chosen = narrative.proverb if correct else proverb_create()
    return ChoiceAnswer.objects.create(
        question=question, assignment=assignment, chosen=chosen, is_correct=correct
    )


def batch_item_create(*, batch: Batch, **fields) -> BatchItem:
    fields.setdefault("position", next(_sequence))
    return BatchItem.objects.create(batch=batch, **fields)


def write_batch_create(*, proverbs: list[Proverb], **fields) -> Batch:
    """A published write batch with one item per proverb, through the crowd services."""
    from crowd.batches import batch_create as batch_create_service
    from crowd.batches import batch_publish

    fields.setdefault("name", f"Write batch {next(_sequence)}")
    batch = batch_create_service(
        task_type="write", items=[{"proverb": proverb} for proverb in proverbs], **fields
    )
    return batch_publish(batch=batch)


def written_batch_create(
    *, proverb: str = "Time is money", text: str = "He billed hours."
) -> Batch:
    """A published write batch of one proverb with one approved crowd narrative for it."""
    batch = write_batch_create(proverbs=[proverb_create(proverb)])
    crowd_narrative_create(proverb=batch.items.get().proverb, batch=batch, text=text)
    return batch


# A story for "Birds of a feather flock together" that passes the default rules (30 words).
BIRDS = "Birds of a feather flock together"
BIRDS_STORY = (
    "Maya and Leo met at a chess club and soon discovered they both loved old jazz records, "
    "spicy noodles and long walks before dawn. Within a month they were inseparable."
)


def task_batch_create(
    *, task_type: str, source_batch: Batch | None = None, publish: bool = True, **fields
) -> Batch:
    """An align, rate or choose batch through the crowd services; its items are drawn at once."""
    from crowd.batches import batch_create as batch_create_service
    from crowd.batches import batch_publish

    fields.setdefault("name", f"{task_type.capitalize()} batch {next(_sequence)}")
    batch = batch_create_service(task_type=task_type, source_batch=source_batch, **fields)
    return batch_publish(batch=batch) if publish else batch


def invite_path(*, worker: Worker, batch: Batch | None = None) -> str:
    """The path of a local worker's signed invite link (opening it signs the worker in)."""
    from django.urls import reverse

    from crowd.workers import invite_token

    return reverse("frontend:invite", args=[invite_token(worker=worker, batch=batch)])


def writing_record(**counts) -> dict:
    """A writing record as the task page sends it: a story of `typed` characters typed key
    by key at a human pace with a few revisions and pauses, unless `counts` say otherwise."""
    typed = counts.get("typed", 160)
    record = {
        "version": 1,
        "typed": typed,
        "pasted": 0,
        "pasted_internal": 0,
        "dropped": 0,
        "inserted_without_keys": 0,
        "deleted": 6,
        "synthetic_events": 0,
        "synthetic": 0,
        "unexplained": 0,
        "keys": typed + 6,
        "pauses": 4,
        "paste_events": 0,
        "focused_ms": 90_000,
        "hidden_ms": 0,
        "composition_ms": 95_000,
        "burst_interval_ms_sum": 180 * (typed + 1),
        "burst_intervals": typed + 1,
        "intervals": [2, 10, 60, 70, 20, 4, 4, 0],
        "hidden_returns": [],
    }
    record.update(counts)
    return record
