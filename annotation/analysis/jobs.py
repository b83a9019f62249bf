"""The dataset analysis as a background job: kept per scope, recomputed when the data changes.

`analysis_request` queues `annotation.dataset_analysis_compute` on commit when the scope's
result was computed on other data (the data state key: a digest of counts, highest ids and
latest times of the rows the analysis reads) or a refresh is forced. A job whose task was
lost is queued again by beat's `annotation.analyses_requeue` after the grace period.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Sequence

from django.db import transaction
from django.db.models import Count, Max, Q, Sum
from django.db.models.functions import Length
from django.utils import timezone

from annotation.models import DatasetAnalysis, Narrative, NarrativeRound
from common.task_queue import queue_on_commit, waiting_past_grace
from crowd import task_types
from crowd.models import Assignment, BatchItem

logger = logging.getLogger(__name__)

SOURCES = tuple(Narrative.Source.values)
# Progress is written at most this often (seconds): the analysis reports per chunk.
PROGRESS_EVERY = 0.5


def analysis_scope(
    *,
    batches: Sequence[int] | None = None,
    sources: Sequence[str] | None = None,
    approved_only: bool = False,
    seed: int = 0,
) -> dict:
    """A scope in its one normal form (sorted, no duplicates), as stored and keyed."""
    unknown = sorted(set(sources or ()) - set(SOURCES))
    if unknown:
        raise ValueError(f"Unknown source(s): {', '.join(unknown)}; use {', '.join(SOURCES)}.")
    return {
        "batches": sorted(set(batches or ())),
        "sources": sorted(set(sources or ())),
        "approved_only": bool(approved_only),
        "seed": int(seed or 0),
    }


def scope_key(scope: dict) -> str:
    return json.dumps(scope, sort_keys=True, separators=(",", ":"))


def dataset_state_key() -> str:
    """A digest that changes whenever anything the analysis reads changes."""
    figures = [
        Narrative.objects.aggregate(
            n=Count("id"),
            last=Max("id"),
            reviewed=Max("reviewed_at"),
            approved=Count("id", filter=Q(status=Narrative.Status.APPROVED)),
            rejected=Count("id", filter=Q(status=Narrative.Status.REJECTED)),
            seen_train=Count("id", filter=Q(split_seen="train")),
            unseen_train=Count("id", filter=Q(split_unseen="train")),
            characters=Sum(Length("text")),
        ),
        # The rows the task types give the analysis (span pairs, ratings, answers).
        *(
            figure
            for _, type_ in sorted(task_types.registered().items())
            for figure in type_.dataset_state()
        ),
        Assignment.objects.aggregate(
            reviewed=Max("reviewed_at"),
            submitted=Max("submitted_at"),
            counted=Count("id", filter=Q(status__in=["submitted", "approved"])),
        ),
        BatchItem.objects.aggregate(withdrawn=Count("id", filter=Q(withdrawn_at__isnull=False))),
        # A round's story answered by its opponent, validated or paid its bonus.
        NarrativeRound.objects.aggregate(n=Count("id"), changed=Max("updated_at")),
    ]
    text = json.dumps(figures, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def analysis_fresh(analysis: DatasetAnalysis, *, state: str | None = None) -> bool:
    """Whether the stored result was computed on the data as it is now."""
    state = state or dataset_state_key()
    return analysis.result is not None and analysis.result_state == state


@transaction.atomic
def analysis_request(*, scope: dict, force: bool = False) -> DatasetAnalysis:
    """Make sure a result for the data as it is now exists or is on its way.

    Nothing is queued when the stored result is fresh (unless `force`) or a job for the
    same data state is already queued or running.
    """
    analysis, _ = DatasetAnalysis.objects.select_for_update().get_or_create(
        scope_key=scope_key(scope), defaults={"scope": scope}
    )
    state = dataset_state_key()
    if not force and analysis_fresh(analysis, state=state):
        return analysis
    busy = analysis.status in (DatasetAnalysis.Status.QUEUED, DatasetAnalysis.Status.RUNNING)
    if busy and analysis.job_state == state:
        return analysis
    analysis.status = DatasetAnalysis.Status.QUEUED
    analysis.job_state = state
    analysis.requested_at = timezone.now()
    analysis.progress_done = analysis.progress_total = 0
    analysis.progress_stage = ""
    analysis.error = ""
    analysis.save()
    queue_on_commit("annotation.dataset_analysis_compute", analysis.pk)
    return analysis


def analyses_waiting(*, now=None, limit: int = 20) -> list[int]:
    """Ids of analysis jobs queued longer than the grace period, oldest first: their task was
    lost (a broker outage), so beat queues them again; a job runs once however queued."""
    queued = DatasetAnalysis.objects.filter(status=DatasetAnalysis.Status.QUEUED)
    return waiting_past_grace(queued, since="requested_at", limit=limit, now=now)


def progress_writer(job_id: int, *, model=DatasetAnalysis, clock=time.monotonic):
    """A progress callback that writes to a job's row (DatasetAnalysis, ImportJob) at most
    every PROGRESS_EVERY s, and always a stage's last step and a new stage at once."""
    last = {"at": float("-inf"), "stage": None}

    def write(done: int, total: int, stage: str) -> None:
        now = clock()
        if now - last["at"] < PROGRESS_EVERY and done < total and stage == last["stage"]:
            return
        last.update(at=now, stage=stage)
        model.objects.filter(pk=job_id).update(
            progress_done=max(done, 0), progress_total=max(total, 0), progress_stage=stage[:100]
        )

    return write


def analysis_compute(*, analysis_id: int) -> DatasetAnalysis:
    """Run a queued analysis job (idempotent: a finished one is left as it is).

    Progress is written as the analysis runs, outside any transaction, so the dashboard
    sees it; the result and its plots are stored at the end.
    """
    from annotation.analysis import plots
    from annotation.analysis.cards import analysis_sections
    from annotation.analysis.selectors import dataset_analysis

    waiting = (DatasetAnalysis.Status.QUEUED, DatasetAnalysis.Status.RUNNING)
    started = DatasetAnalysis.objects.filter(pk=analysis_id, status__in=waiting).update(
        status=DatasetAnalysis.Status.RUNNING, started_at=timezone.now()
    )
    analysis = DatasetAnalysis.objects.get(pk=analysis_id)
    if not started:
        return analysis
    state = dataset_state_key()
    scope = analysis.scope
    try:
        result = dataset_analysis(
            batches=scope["batches"],
            sources=scope["sources"] or None,
            approved_only=scope["approved_only"],
            seed=scope["seed"],
            progress=progress_writer(analysis_id),
        )
        drawn = {
            name: getattr(plots, name)(result)
            for section in analysis_sections(result)
            for name in section.plots
        }
    except Exception as error:  # recorded and shown on the dashboard, with a retry button
        logger.exception("Analysis %s failed", analysis_id)
        DatasetAnalysis.objects.filter(pk=analysis_id).update(
            status=DatasetAnalysis.Status.FAILED, error=f"{type(error).__name__}: {error}"
        )
        return DatasetAnalysis.objects.get(pk=analysis_id)
    analysis.refresh_from_db()
    analysis.result = result
    analysis.plots = drawn
    analysis.result_state = state
    analysis.computed_at = timezone.now()
    # A newer request (the data changed while this ran) keeps its queued job.
    if analysis.job_state == state or analysis.status == DatasetAnalysis.Status.RUNNING:
        analysis.status = DatasetAnalysis.Status.IDLE
    analysis.save()
    return analysis


def analysis_progress(analysis: DatasetAnalysis) -> dict:
    """The job's state as the dashboard polls it (JSON-ready)."""
    return {
        "id": analysis.pk,
        "status": analysis.status,
        "done": analysis.progress_done,
        "total": analysis.progress_total,
        "stage": analysis.progress_stage,
        "error": analysis.error,
        "computed_at": analysis.computed_at.isoformat() if analysis.computed_at else None,
        "fresh": analysis_fresh(analysis),
    }
