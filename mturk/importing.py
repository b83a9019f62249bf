"""Bringing a lab's past MTurk batch results into the dataset: each row becomes an answer
of a closed MTurk import batch, stored through its task type's validate and store as live
answers are. A row that fails is reported by line and left out; one whose AssignmentId is
in Parable already changes nothing; with no row imported, nothing is."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from crowd import task_types
from crowd.batches import batch_create
from crowd.models import Assignment, Batch, BatchItem, Worker
from crowd.task_types import SubmissionError
from mturk.results import ResultRow, ResultsFileError, parse_mapping, parse_results


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


def importable_type(key: str) -> task_types.TaskType:
    """The task type of that key if its answers can be imported; ResultsFileError if not."""
    task_type = task_types.registered().get(key)
    if task_type is None or not task_type.import_fields:
        keys = ", ".join(task_types.keys_importable())
        raise ResultsFileError(f"Unknown batch type {key!r}: use {keys}.")
    return task_type


def mapping_help() -> str:
    """What a mapping may name, per importable task type (for forms and commands)."""
    listed = []
    for key in task_types.keys_importable():
        task_type = task_types.get(key)
        optional = task_type.import_optional_fields
        also = f" (also {optional[0]} … {optional[-1]})" if optional else ""
        listed.append(f"{key}: {', '.join(task_type.import_fields)}{also}")
    example = "proverb=Input.proverb,narrative=Answer.story"
    return f"field=Column, comma separated. {'; '.join(listed)}. E.g. {example}"


def mturk_results_import(
    *, content: bytes, batch_type: str, mapping: str, batch_name: str, created_by=None
) -> ResultsImportReport:
    """Import a batch results CSV; ResultsFileError (nothing written) when the file or the
    mapping cannot be used at all."""
    fields = parse_mapping(mapping, task_type=importable_type(batch_type))
    parsed = parse_results(content, mapping=fields)
    report = ResultsImportReport(rows=len(parsed.rows) + len(parsed.errors))
    report.errors.extend(parsed.errors)
    if not batch_name.strip():
        raise ResultsFileError("The import needs a batch name.")
    with transaction.atomic():
        batch, new = _import_batch(batch_type=batch_type, name=batch_name, created_by=created_by)
        report.batch = batch.pk
        for row in parsed.rows:
            try:
                with transaction.atomic():
                    _row_import(batch=batch, row=row, report=report)
            except SubmissionError as error:
                report.errors.append({"line": row.line, "message": error.message})
            except IntegrityError:
                report.errors.append(
                    {
                        "line": row.line,
                        "message": f"Worker {row.worker_id} already has an answer for this item.",
                    }
                )
        if not report.created:
            transaction.set_rollback(True)  # nothing imported: not even the batch is kept
            report.batch = None if new else batch.pk
    report.errors.sort(key=lambda error: error["line"])
    return report


def _import_batch(*, batch_type: str, name: str, created_by) -> tuple[Batch, bool]:
    """The import batch of this name, and whether it is new."""
    existing = Batch.objects.filter(name=name.strip(), task_type=batch_type, provider="mturk")
    batch = existing.order_by("id").first()
    if batch is not None:
        return batch, False
    batch = batch_create(
        name=name,
        task_type=batch_type,
        provider="mturk",
        target_per_item=1000,
        settings=task_types.get(batch_type).import_settings(),
        created_by=created_by,
    )
    batch.status = Batch.Status.CLOSED
    batch.closed_at = timezone.now()
    batch.save(update_fields=["status", "closed_at"])
    return batch, True


def _row_import(*, batch: Batch, row: ResultRow, report: ResultsImportReport) -> None:
    if Assignment.objects.filter(
        provider_assignment_id=row.assignment_id, worker__provider="mturk"
    ).exists():
        report.unchanged += 1
        return
    task_type = task_types.get(batch.task_type)
    item = _item(batch=batch, subject=task_type.import_subject(batch=batch, fields=row.fields))
    worker, worker_created = Worker.objects.get_or_create(
        provider="mturk", external_id=row.worker_id
    )
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
    payload = task_type.import_payload(item=item, fields=row.fields)
    cleaned = task_type.validate(assignment=answer, payload=payload)
    task_type.store(assignment=answer, cleaned=cleaned)
    answer.status = row.status
    answer.submitted_at = submitted_at
    answer.reviewed_at = submitted_at if row.status != "submitted" else None
    answer.save(update_fields=["status", "submitted_at", "reviewed_at"])
    if row.status != "submitted":
        task_type.on_reviewed(assignment=answer, approved=row.status == "approved")
    report.workers_created += int(worker_created)  # counted once the row is kept
    report.created += 1


def _item(*, batch: Batch, subject: dict) -> BatchItem:
    item = BatchItem.objects.filter(batch=batch, **subject).first()
    if item is None:
        position = batch.items.count() + 1
        item = BatchItem.objects.create(batch=batch, position=position, **subject)
    return item
