"""Agreement, aggregation and quality control of one batch as JSON-safe dicts (the admin's
and the API's): what every batch shares and the type's own figures (`TaskType.agreement`),
over submitted and approved work on regular items not withdrawn (`counted`).
"""

from __future__ import annotations

from annotation.quality.gold import GOLD_DEFAULTS, worker_gold_report
from crowd import task_types
from crowd.models import Assignment, Batch
from crowd.workers import worker_stats

COUNTED = (Assignment.Status.SUBMITTED, Assignment.Status.APPROVED)


def counted(model, batch: Batch):
    """The batch's rows of `model` (a model with an `assignment`) that agreement counts."""
    return model.objects.filter(
        assignment__item__batch=batch,
        assignment__status__in=COUNTED,
        assignment__item__is_gold=False,
        assignment__item__withdrawn_at__isnull=True,
    )


def quality_report(*, batch: Batch) -> dict:
    """Each worker's review figures and gold accuracy, and who is flagged for review."""
    settings = {**GOLD_DEFAULTS, **(batch.settings or {})}
    gold = worker_gold_report(batch=batch)
    workers = []
    for row in worker_stats(batch=batch):
        outcome = gold.get(row["worker"])
        workers.append(
            {
                **row,
                "gold_correct": outcome["correct"] if outcome else 0,
                "gold_total": outcome["total"] if outcome else 0,
                "gold_accuracy": outcome["accuracy"] if outcome else None,
                "flagged": bool(outcome and outcome["flagged"]),
            }
        )
    return {
        "gold_items": batch.items.filter(is_gold=True).count(),
        "gold_min_accuracy": settings["gold_min_accuracy"],
        "gold_min_answers": settings["gold_min_answers"],
        "flagged_workers": [row["worker"] for row in workers if row["flagged"]],
        "workers": workers,
    }


def batch_agreement(*, batch: Batch) -> dict:
    """Everything about one batch's agreement, aggregation and quality; the task type's
    own figures under its key."""
    report = {
        "batch": batch.pk,
        "name": batch.name,
        "task_type": batch.task_type,
        "source_batch": batch.source_batch_id,
        "items": batch.items.filter(is_gold=False).count(),
        "counted_statuses": list(COUNTED),
        "quality": quality_report(batch=batch),
    }
    figures = task_types.get(batch.task_type).agreement(batch=batch)
    if figures is not None:
        report[batch.task_type] = figures
    return report
