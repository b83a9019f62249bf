"""Reads of runs: one run as a JSON record, and runs side by side like the paper's tables."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Q, QuerySet
from django.utils import timezone

from modeling.models import Run
from modeling.training.hyperparameters import TASKS

HEARTBEAT_MISSES = 3  # heartbeats missed in a row: the run's process is dead


def heartbeat_cutoff(now: datetime | None = None) -> datetime:
    """A running run whose last heartbeat is older than this is dead."""
    seconds = HEARTBEAT_MISSES * settings.PARABLE_MODELING_HEARTBEAT_SECONDS
    return (now or timezone.now()) - timedelta(seconds=seconds)


def runs_dead(now: datetime | None = None) -> QuerySet:
    """Running runs whose process stopped writing its heartbeat (killed, out of memory,
    its machine lost): no heartbeat since the cutoff."""
    cutoff = heartbeat_cutoff(now)
    silent = Q(heartbeat_at__lt=cutoff) | Q(heartbeat_at__isnull=True, started_at__lt=cutoff)
    return Run.objects.filter(silent, status=Run.Status.RUNNING)


def run_is_dead(run: Run, now: datetime | None = None) -> bool:
    last = run.heartbeat_at or run.started_at
    return run.status == Run.Status.RUNNING and last is not None and last < heartbeat_cutoff(now)


def runs_to_resend(now: datetime | None = None) -> list[Run]:
    """Queued runs whose message is taken for lost: still queued a grace period
    (PARABLE_BACKGROUND_GRACE_SECONDS) after their last send, twice as long after each
    resend, so that runs waiting behind a long run gather few duplicate messages (each
    is harmless: a run executes once)."""
    now = now or timezone.now()
    grace = timedelta(seconds=settings.PARABLE_BACKGROUND_GRACE_SECONDS)
    waiting = Run.objects.filter(status=Run.Status.QUEUED, queued_at__lte=now - grace)
    return [
        run
        for run in waiting.order_by("queued_at", "id")[:200]
        if run.queued_at <= now - grace * 2 ** min(max(run.sends - 1, 0), 10)
    ]


SPAN_TASKS = ("alignment", "pipeline")  # scored by span precision, recall and F1

RECORD_FIELDS = (
    "task",
    "setting",
    "model_name",
    "hyperparameters",
    "seed",
    "status",
    "error",
    "metrics",
    "epochs",
    "selected_epoch",
    "environment",
    "durations",
    "artifact",
)


def run_record(run: Run, *, predictions: bool = True) -> dict:
    """Everything a run stored, JSON-ready (what `run_baseline --json` writes)."""
    record = {"run": run.pk, **{name: getattr(run, name) for name in RECORD_FIELDS}}
    record["snapshot"] = {
        "content_hash": run.snapshot.content_hash,
        "narratives": run.snapshot.narratives,
        "proverbs": run.snapshot.proverbs,
        "splits": run.snapshot.splits,
    }
    record["created_at"] = run.created_at.isoformat()
    record["started_at"] = run.started_at.isoformat() if run.started_at else None
    record["finished_at"] = run.finished_at.isoformat() if run.finished_at else None
    if predictions:
        record["candidates"] = run.candidates
        record["predictions"] = run.predictions
    return record


def _percent(value) -> str:
    return "—" if value is None else f"{100 * value:.2f}%"


def _decimal(value) -> str:
    return "—" if value is None else f"{value:.4f}"


def _span_figures(figures: dict) -> dict:
    return {
        "precision": _decimal(figures.get("precision")),
        "recall": _decimal(figures.get("recall")),
        "f1": _decimal(figures.get("f1")),
        "exact": _percent(figures.get("exact")),
        "pairs": figures.get("total", 0),
    }


def span_rows(run: Run, common: dict) -> list[dict]:
    """An alignment run's line (Table 8) or a pipeline run's (Table 9)."""
    metrics = run.metrics or {}
    test = metrics.get("test") or {}
    if run.task == "pipeline":
        proverb = metrics.get("proverb") or {}
        return [
            {
                **common,
                **_span_figures(test),
                "scope": f"{run.setting} test",
                "proverb_accuracy": _percent(proverb.get("accuracy")),
                "aligned_accuracy": _percent(proverb.get("aligned_accuracy")),
                "alone_f1": _decimal((metrics.get("alignment_alone") or {}).get("f1")),
                "sources": [run.hyperparameters.get(k) for k in ("proverb_run", "alignment_run")],
            }
        ]
    best = metrics.get("best_test_over_epochs") or {}
    return [
        {
            **common,
            **_span_figures(test),
            "scope": f"{run.setting} test, epoch {run.selected_epoch} (chosen on dev)",
            "dev_f1": _decimal((metrics.get("dev") or {}).get("f1")),
            "best_test": f"F1 {_decimal(best.get('f1'))} at epoch {best.get('epoch')}"
            if best
            else "—",
        }
    ]


def result_rows(run: Run) -> list[dict]:
    """The run's lines of a results table: one per scope for retrieval, else test at the
    dev-selected epoch, and the best test epoch under its own label."""
    metrics = run.metrics or {}
    common = {"run": run, "snapshot": run.snapshot.content_hash[:10]}
    if run.task in SPAN_TASKS:
        return span_rows(run, common)
    if run.task == "generation":
        return [generation_row(run, common)]
    if run.task == "retrieval":
        return [
            {
                **common,
                "scope": scope.replace("_", " "),
                "accuracy": _percent(figures.get("accuracy")),
                "correct": f"{figures.get('correct', 0)}/{figures.get('total', 0)}",
                "mrr": _decimal(figures.get("mrr")),
                "candidates": figures.get("candidates"),
            }
            for scope, figures in (metrics.get("scopes") or {}).items()
        ]
    test = metrics.get("test") or {}
    best = metrics.get("best_test_over_epochs") or {}
    return [
        {
            **common,
            "scope": f"{run.setting} test, epoch {run.selected_epoch} (chosen on dev)",
            "accuracy": _percent(test.get("accuracy")),
            "correct": f"{test.get('correct', 0)}/{test.get('total', 0)}",
            "mrr": _decimal(test.get("mrr")),
            "candidates": test.get("candidates"),
            "dev_accuracy": _percent((metrics.get("dev") or {}).get("accuracy")),
            "best_test": f"{_percent(best.get('accuracy'))} at epoch {best.get('epoch')}"
            if best
            else "—",
        }
    ]


def generation_row(run: Run, common: dict) -> dict:
    """A generation run's line (ePiC Table 11): BLEU, ROUGE-L and keyword recall (surface
    forms, the paper's figure; and on lemmas) on test at the epoch of lowest dev loss."""
    metrics = run.metrics or {}
    test = metrics.get("test") or {}
    bleu, recall = test.get("bleu"), test.get("keyword_recall")
    return {
        **common,
        "scope": f"{run.setting} test, epoch {run.selected_epoch} (lowest dev loss)",
        "bleu": "—" if bleu is None else f"{bleu:.2f}",
        "rouge_l": _decimal(test.get("rouge_l")),
        "keyword_recall": _percent(recall),
        "keyword_recall_lemmas": _percent(test.get("keyword_recall_lemmas")),
        "total": test.get("total", 0),
        "without_keywords": (run.environment.get("counts") or {}).get("without_keywords", 0),
        "dev_loss": _decimal((metrics.get("dev") or {}).get("loss")),
    }


def results_tables(*, limit: int = 200) -> list[dict]:
    """Finished runs grouped by task and setting, newest first, each group a table."""
    runs = (
        Run.objects.filter(status=Run.Status.SUCCEEDED)
        .select_related("snapshot")
        .defer("predictions", "candidates", "snapshot__examples")
        .order_by("-id")[:limit]
    )
    groups: dict[tuple[str, str], list[Run]] = defaultdict(list)
    for run in runs:
        groups[(run.task, "all" if run.task == "retrieval" else run.setting)].append(run)
    return [
        {
            "task": task,
            "kind": task if task in SPAN_TASKS else "ranking",
            "measure": "f1" if task in SPAN_TASKS else "accuracy",
            "title": f"{TASKS.get(task, task)} · {setting}",
            "rows": [row for run in group for row in result_rows(run)],
            "runs": group,
        }
        for (task, setting), group in sorted(groups.items())
    ]
