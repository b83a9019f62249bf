"""Bringing a lab's past MTurk batch results into the dataset (service).

Each row becomes an answer of an MTurk import batch (closed, provider mturk):
its worker (provider mturk, MTurk's WorkerId), its item (the proverb, or the
narrative for align and rate, matched or created), an assignment carrying
MTurk's AssignmentId and status, and the task type's own records (narrative,
span pairs, ratings), stored through the task type's validate and store as live
answers are. A row that fails is reported by line and left out; the others are
kept. A row whose AssignmentId is already in Parable changes nothing, so
importing the same file again changes nothing.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.datasets.epic_files import resolve_span
from annotation.models import Narrative, Proverb
from annotation.quality.similarity_scan import imported_similarity_check_queue
from annotation.text import normalize_text
from crowd import task_types
from crowd.batches import batch_create
from crowd.models import Assignment, Batch, BatchItem, Worker
from crowd.task_types import SubmissionError
from mturk.results import (
    MAX_PAIRS,
    ResultRow,
    ResultsFileError,
    parse_mapping,
    parse_results,
)

# Past collections were held to their own rules when they ran: a write import takes
# every story as written and still records its overlap figures.
PERMISSIVE_WRITE_RULES = {
    "rules": {
        "max_shared_ngram": 10_000,
        "max_shared_content_words": 10_000,
        "min_words": 1,
        "max_words": 100_000,
    }
}


@dataclass
class ResultsImportReport:
    batch: int | None = None
    rows: int = 0
    created: int = 0
    unchanged: int = 0
    workers_created: int = 0
    errors: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


class _RowError(Exception):
    pass


def mturk_results_import(
    *, content: bytes, batch_type: str, mapping: str, batch_name: str, created_by=None
) -> ResultsImportReport:
    """Import a batch results CSV; ResultsFileError (nothing written) when the file or the
    mapping cannot be used at all."""
    fields = parse_mapping(mapping, batch_type=batch_type)
    parsed = parse_results(content, mapping=fields)
    report = ResultsImportReport(rows=len(parsed.rows) + len(parsed.errors))
    report.errors.extend(parsed.errors)
    if not batch_name.strip():
        raise ResultsFileError("The import needs a batch name.")
    with transaction.atomic():
        batch = _import_batch(batch_type=batch_type, name=batch_name, created_by=created_by)
        report.batch = batch.pk
        for row in parsed.rows:
            try:
                with transaction.atomic():
                    _row_import(batch=batch, row=row, report=report)
            except _RowError as error:
                report.errors.append({"line": row.line, "message": str(error)})
            except SubmissionError as error:
                report.errors.append({"line": row.line, "message": error.message})
            except IntegrityError:
                report.errors.append(
                    {
                        "line": row.line,
                        "message": f"Worker {row.worker_id} already has an answer for this item.",
                    }
                )
    report.errors.sort(key=lambda error: error["line"])
    return report


def _import_batch(*, batch_type: str, name: str, created_by) -> Batch:
    existing = Batch.objects.filter(name=name.strip(), task_type=batch_type, provider="mturk")
    batch = existing.order_by("id").first()
    if batch is not None:
        return batch
    batch = batch_create(
        name=name,
        task_type=batch_type,
        provider="mturk",
        target_per_item=1000,
        settings=PERMISSIVE_WRITE_RULES if batch_type == "write" else {},
        created_by=created_by,
    )
    batch.status = Batch.Status.CLOSED
    batch.closed_at = timezone.now()
    batch.save(update_fields=["status", "closed_at"])
    return batch


def _row_import(*, batch: Batch, row: ResultRow, report: ResultsImportReport) -> None:
    if Assignment.objects.filter(
        provider_assignment_id=row.assignment_id, worker__provider="mturk"
    ).exists():
        report.unchanged += 1
        return
    proverb = _proverb(row.fields.get("proverb", ""))
    item = _item(batch=batch, proverb=proverb, row=row)
    worker, created = Worker.objects.get_or_create(provider="mturk", external_id=row.worker_id)
    report.workers_created += int(created)
    submitted_at = row.submitted_at or timezone.now()
    started_at = submitted_at - timedelta(seconds=row.work_seconds or 0)
    answer = Assignment.objects.create(
        item=item,
        worker=worker,
        expires_at=timezone.now() + timedelta(days=1),
        provider_assignment_id=row.assignment_id,
        provider_submission_id=row.hit_id,
    )
    # The times MTurk recorded, written after create (started_at is set on insert).
    Assignment.objects.filter(pk=answer.pk).update(
        started_at=started_at, expires_at=submitted_at + timedelta(seconds=1)
    )
    answer.refresh_from_db()
    kind = task_types.get(batch.task_type)
    cleaned = kind.validate(assignment=answer, payload=_payload(batch=batch, item=item, row=row))
    kind.store(assignment=answer, cleaned=cleaned)
    answer.status = row.status
    answer.submitted_at = submitted_at
    answer.reviewed_at = submitted_at if row.status != "submitted" else None
    answer.save(update_fields=["status", "submitted_at", "reviewed_at"])
    if row.status != "submitted":
        kind.on_reviewed(assignment=answer, approved=row.status == "approved")
    report.created += 1


def _proverb(text: str) -> Proverb:
    if not text:
        raise _RowError("The proverb is empty.")
    key = normalize_text(text)
    proverb = Proverb.objects.filter(normalized_text=key).first()
    if proverb is None:
        proverb = Proverb.objects.create(
            text=text, normalized_text=key, source="mturk", status=Proverb.Status.CURATED
        )
    return proverb


def _item(*, batch: Batch, proverb: Proverb, row: ResultRow) -> BatchItem:
    if batch.task_type == "write":
        subject = {"proverb": proverb}
    else:
        text = row.fields.get("narrative", "")
        if not text:
            raise _RowError("The narrative is empty.")
        narrative = Narrative.objects.filter(proverb=proverb, text=text).order_by("id").first()
        if narrative is None:
            narrative = Narrative.objects.create(
                proverb=proverb,
                text=text,
                source=Narrative.Source.IMPORTED,
                source_label=batch.name,
                status=Narrative.Status.APPROVED,
            )
            imported_similarity_check_queue(narratives=[narrative])
        subject = {"narrative": narrative}
    item = BatchItem.objects.filter(batch=batch, **subject).first()
    if item is None:
        position = batch.items.count() + 1
        item = BatchItem.objects.create(batch=batch, position=position, **subject)
    return item


def _payload(*, batch: Batch, item: BatchItem, row: ResultRow) -> dict:
    if batch.task_type == "write":
        return {"text": row.fields.get("narrative", "")}
    if batch.task_type == "rate":
        ratings = {}
        for name, value in row.fields.items():
            if name.startswith("rating."):
                if not value.isdigit():
                    raise _RowError(f"Rating {name[7:]} {value!r} is not a number from 1 to 5.")
                ratings[name[7:]] = int(value)
        return {"ratings": ratings}
    narrative = item.narrative
    pairs = []
    for number in range(1, MAX_PAIRS + 1):
        proverb_span = row.fields.get(f"proverb_span_{number}", "")
        narrative_span = row.fields.get(f"narrative_span_{number}", "")
        if not proverb_span and not narrative_span:
            continue
        pairs.append(
            {
                "proverb": _span(narrative.proverb.text, proverb_span, "proverb", number),
                "narrative": _span(narrative.text, narrative_span, "narrative", number),
            }
        )
    return {"pairs": pairs}


def _span(text: str, span: str, side: str, number: int) -> dict:
    found = resolve_span(text, span)
    if found is None:
        raise _RowError(f"The {side} span of pair {number} ({span!r}) is not in the {side}.")
    start, end, _ = found
    return {"start": start, "end": end, "text": text[start:end]}
