"""Imports of uploads: in the request, or for a large one (over PARABLE_IMPORT_BACKGROUND_LINES
lines or PARABLE_IMPORT_BACKGROUND_BYTES bytes) as an ImportJob a Celery task runs with
progress, storing its report or why nothing was imported. Keywords are extracted after the
import commits (on failure left null for beat to re-queue), and beat queues a lost job again
(`annotation.import_jobs_requeue`)."""

from __future__ import annotations

import base64
import logging
from collections.abc import Mapping
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from annotation.analysis.jobs import progress_writer
from annotation.analysis.keywords import narratives_keywords_fill, narratives_keywords_queue
from annotation.curation.proverb_files import line_count
from annotation.curation.services import (
    ImportReport,
    ProverbFileError,
    proverb_file_check_lines,
    proverbs_import,
)
from annotation.datasets.epic import EpicImportReport, EpicPrepared, epic_prepare, epic_write
from annotation.datasets.epic_files import EpicFileError
from annotation.models import ImportJob
from common.task_queue import queue_on_commit, waiting_past_grace

logger = logging.getLogger(__name__)

# The permission that starting a job of each kind needs; reading the job needs it too.
IMPORT_PERMISSIONS = {
    ImportJob.Kind.PROVERBS: "annotation.add_proverb",
    ImportJob.Kind.EPIC: "annotation.add_narrative",
}


def import_runs_in_background(*, content: bytes) -> bool:
    """Whether a file is large enough to be imported as a job rather than in the request."""
    return (
        len(content) > settings.PARABLE_IMPORT_BACKGROUND_BYTES
        or line_count(content) > settings.PARABLE_IMPORT_BACKGROUND_LINES
    )


@dataclass(frozen=True)
class UploadImport:
    """What importing an upload did: ran in the request (`report`, the import's report), or
    became a background job (`job`, whose page and API status hold the report when done)."""

    report: ImportReport | EpicImportReport | None = None
    job: ImportJob | None = None


def upload_import(
    *,
    kind: str,
    content: bytes,
    filename: str = "",
    options: Mapping | None = None,
    splits: Mapping[str, bytes] | None = None,
    created_by=None,
) -> UploadImport:
    """Import an upload now, or as a background job when it is large (the one decision the
    admin pages and the API share; arguments as `import_job_create` takes them). Now, a
    refused file raises its error (ProverbFileError, EpicFileError) and nothing is written."""
    options = dict(options or {})
    if import_runs_in_background(content=content):
        job = import_job_create(
            kind=kind,
            content=content,
            filename=filename,
            options=options,
            splits=splits,
            created_by=created_by,
        )
        return UploadImport(job=job)
    _kind_check(kind)
    prepared = _prepare(kind, content, filename, splits)
    report = _write(kind, content, filename, options, prepared)
    if kind == ImportJob.Kind.EPIC:
        # Keywords (for the generation baseline) are extracted by a task, not in the request.
        narratives_keywords_queue(narrative_ids=report.keyword_narratives)
    return UploadImport(report=report)


def _kind_check(kind: str) -> None:
    if kind not in ImportJob.Kind.values:
        raise ValueError(f"Unknown import kind {kind!r}; use {', '.join(ImportJob.Kind.values)}.")


@transaction.atomic
def import_job_create(
    *,
    kind: str,
    content: bytes,
    filename: str = "",
    options: Mapping | None = None,
    splits: Mapping[str, bytes] | None = None,
    created_by=None,
) -> ImportJob:
    """Store an upload as a queued job and queue its import once this transaction commits.
    `options`: `source` for a proverb list, `source_label` for an ePiC file; `splits`: an
    ePiC file's split files by name. A proverb list over PARABLE_IMPORT_MAX_LINES is
    refused at once (ProverbFileError)."""
    _kind_check(kind)
    if kind == ImportJob.Kind.PROVERBS:
        proverb_file_check_lines(content=content)
    job = ImportJob.objects.create(
        kind=kind,
        filename=filename[:255],
        content=content,
        split_files={
            name: base64.b64encode(data).decode("ascii") for name, data in (splits or {}).items()
        },
        options=dict(options or {}),
        progress_total=1,
        progress_stage="Waiting for a worker",
        created_by=created_by,
    )
    queue_on_commit("annotation.import_job_run", job.pk)
    return job


def _prepare(
    kind: str, content: bytes, filename: str, splits, progress=None
) -> EpicPrepared | None:
    """The part of an ePiC import that needs no database (reading, checking, resolving
    spans), with progress; a proverb list is small and read inside the write."""
    if kind == ImportJob.Kind.PROVERBS:
        return None
    return epic_prepare(
        content=content, splits=splits or None, progress=progress, filename=filename
    )


def _write(
    kind: str, content: bytes, filename: str, options: Mapping, prepared: EpicPrepared | None
) -> ImportReport | EpicImportReport:
    if kind == ImportJob.Kind.PROVERBS:
        return proverbs_import(content=content, filename=filename, source=options.get("source", ""))
    return epic_write(prepared, source_label=options.get("source_label", "ePiC"))


def _keywords(narrative_ids: list[int], job_id: int) -> int | None:
    """Extract the keywords with progress on the job; None when that fails (the model cannot
    be loaded, say): the import stands and the narratives stay marked for the re-queue."""
    try:
        return narratives_keywords_fill(
            narrative_ids=narrative_ids, progress=progress_writer(job_id, model=ImportJob)
        )
    except Exception:  # the import is committed: a keyword failure must not undo its report
        logger.exception("Import job %s: keywords not extracted", job_id)
        return None


def import_job_run(*, job_id: int) -> ImportJob:
    """Run a queued import job (idempotent: one running or finished is left alone). An ePiC
    file is read, checked and resolved first, outside any transaction, with progress; then
    the import and its report commit together. Any failure writes nothing and leaves the
    job failed with the reason."""
    claimed = ImportJob.objects.filter(pk=job_id, status=ImportJob.Status.QUEUED).update(
        status=ImportJob.Status.RUNNING,
        started_at=timezone.now(),
        progress_done=0,
        progress_total=1,
        progress_stage="Importing",
    )
    job = ImportJob.objects.get(pk=job_id)
    if not claimed:
        return job
    try:
        content = bytes(job.content)
        splits = {name: base64.b64decode(data) for name, data in job.split_files.items()}
        progress = progress_writer(job_id, model=ImportJob)
        prepared = _prepare(job.kind, content, job.filename, splits, progress)
        ImportJob.objects.filter(pk=job_id).update(
            progress_done=0, progress_total=1, progress_stage="Writing"
        )
        with transaction.atomic():
            imported = _write(job.kind, content, job.filename, job.options, prepared)
            report = imported.as_dict()
            ImportJob.objects.filter(pk=job_id).update(report=report, content=b"", split_files={})
        if job.kind == ImportJob.Kind.EPIC:
            report["keywords_extracted"] = _keywords(imported.keyword_narratives, job_id)
        ImportJob.objects.filter(pk=job_id).update(
            status=ImportJob.Status.SUCCEEDED,
            report=report,
            progress_done=1,
            progress_total=1,
            progress_stage="Done",
            finished_at=timezone.now(),
        )
    except (ProverbFileError, EpicFileError) as error:
        _fail(job_id, f"Nothing was imported: {error}")
    except Exception as error:  # recorded on the job, shown on its page and by the API
        logger.exception("Import job %s failed", job_id)
        _fail(job_id, f"Nothing was imported: {type(error).__name__}: {error}")
    return ImportJob.objects.get(pk=job_id)


def _fail(job_id: int, message: str) -> None:
    ImportJob.objects.filter(pk=job_id).update(
        status=ImportJob.Status.FAILED,
        error=message,
        content=b"",
        split_files={},
        progress_stage="Failed",
        finished_at=timezone.now(),
    )


def import_jobs_waiting(*, now=None, limit: int = 100) -> list[int]:
    """Ids of jobs still queued longer than the grace period (PARABLE_BACKGROUND_GRACE_SECONDS),
    oldest first: their task was lost (a broker outage), so beat queues them again."""
    queued = ImportJob.objects.filter(status=ImportJob.Status.QUEUED)
    return waiting_past_grace(queued, since="created_at", limit=limit, now=now)


def import_job_progress(job: ImportJob) -> dict:
    """The job's state as the API and the admin's job page show it (JSON-ready)."""
    return {
        "id": job.pk,
        "kind": job.kind,
        "filename": job.filename,
        "status": job.status,
        "progress": {
            "done": job.progress_done,
            "total": job.progress_total,
            "stage": job.progress_stage,
        },
        "report": job.report,
        "error": job.error,
        "created_at": job.created_at.isoformat(),
        "started_at": job.started_at.isoformat() if job.started_at else None,
        "finished_at": job.finished_at.isoformat() if job.finished_at else None,
    }
