"""Reads of runs: one run as a JSON record, and runs side by side like the paper's tables."""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Q, QuerySet
from django.utils import timezone

from modeling.models import Run
from modeling.training.examples import SnapshotError
from modeling.training.figures import health_failures, mean_sd, mean_sd_text
from modeling.training.registry import SourceRun, baseline_for

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


def source_runs_of(baseline, hyperparameters: dict) -> dict[str, tuple[SourceRun, Run]]:
    """The finished runs a baseline combines (its `source_runs`, named by id in the
    hyperparameters), each as the training's SourceRun and as the row; SnapshotError
    naming those that do not exist."""
    ids = {key: hyperparameters.get(key) for key in baseline.source_runs}
    found = Run.objects.select_related("snapshot").in_bulk(
        [pk for pk in ids.values() if isinstance(pk, int)]
    )
    missing = [f"{key.replace('_', ' ')} {pk}" for key, pk in ids.items() if pk not in found]
    if missing:
        raise SnapshotError(f"There is no {' and no '.join(missing)}: pick finished runs.")
    return {
        key: (
            SourceRun(
                id=run.pk,
                task=run.task,
                status=run.status,
                snapshot=run.snapshot_id,
                setting=run.setting,
                predictions=run.predictions,
            ),
            run,
        )
        for key, run in ((key, found[pk]) for key, pk in ids.items())
    }


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


def result_rows(run: Run) -> list[dict]:
    """The run's lines of its results table (its baseline's, ePiC's Tables 4-11), each with
    the run and its snapshot."""
    rows = baseline_for(run.task).result_rows(
        metrics=run.metrics or {},
        setting=run.setting,
        selected_epoch=run.selected_epoch,
        counts=(run.environment or {}).get("counts") or {},
    )
    common = {"run": run, "snapshot": run.snapshot.content_hash[:10]}
    return [{**common, **row} for row in rows]


def runs_compare(*, first: Run, second: Run) -> dict:
    """Two finished runs on the same snapshot and split: for each figure both baselines
    give per test item, the difference with its paired bootstrap interval and permutation
    p-value (modeling.training.comparison); ValueError saying why they cannot be compared."""
    from modeling.training.comparison import paired_comparison

    for run in (first, second):
        if run.status != Run.Status.SUCCEEDED:
            raise ValueError(f"Run {run.pk} has not succeeded (it is {run.status}).")
    if first.pk == second.pk:
        raise ValueError("Compare two different runs.")
    if first.snapshot_id != second.snapshot_id or first.setting != second.setting:
        raise ValueError(
            f"Runs {first.pk} and {second.pk} differ in snapshot or split: compare runs on "
            "the same snapshot and split."
        )
    scores = [baseline_for(run.task).item_scores(run.predictions) for run in (first, second)]
    measures = [measure for measure in scores[0] if measure in scores[1]]
    if not measures:
        raise ValueError(
            f"A {first.task} run and a {second.task} run share no per-item figure to compare."
        )
    tests = [((run.metrics or {}).get("test") or {}, run.pk) for run in (first, second)]
    return {
        "first": first.pk,
        "second": second.pk,
        "unlike": {pk: health_failures(test) for test, pk in tests if health_failures(test)},
        "snapshot": first.snapshot.content_hash,
        "setting": first.setting,
        "measures": {
            measure: paired_comparison(scores[0][measure], scores[1][measure])
            for measure in measures
        },
    }


def run_configuration(run: Run) -> tuple:
    """What runs of one series share besides task and setting: all but the seed."""
    return (run.model_name, run.snapshot_id, json.dumps(run.hyperparameters, sort_keys=True))


def series_rows(runs: list[Run]) -> list[dict]:
    """Mean ± sd of the headline test figures of runs that differ only by their seed (two
    or more), each with its runs (each seed's run stays a run of its own)."""
    groups: dict[tuple, list[Run]] = defaultdict(list)
    for run in runs:
        groups[run_configuration(run)].append(run)
    rows = []
    for group in groups.values():
        if len(group) < 2:
            continue
        baseline = baseline_for(group[0].task)
        tests = [(run.metrics or {}).get("test") or {} for run in group]
        figures = {
            measure: mean_sd([test.get(measure) for test in tests]) for measure in baseline.measures
        }
        rows.append(
            {
                "runs": sorted(group, key=lambda run: run.seed),
                "model_name": group[0].model_name,
                "snapshot": group[0].snapshot.content_hash[:10],
                "figures": [
                    (measure, mean_sd_text(summary, **MEASURE_SCALES.get(measure, {})))
                    for measure, summary in figures.items()
                ],
                "degenerate": sum(bool(test.get("degenerate")) for test in tests),
                "unlike": sum(bool(health_failures(test)) for test in tests),
            }
        )
    return rows


# How each measure is written: percentages for shares, BLEU as it is (0-100), else 4 digits.
SHARES = ("accuracy", "exact", "keyword_recall", "keyword_recall_lemmas", "distinct")
MEASURE_SCALES = {
    **{measure: {"scale": 100} for measure in SHARES},
    **{measure: {"digits": 4} for measure in ("mrr", "f1", "rouge_l")},
}


def results_tables(*, limit: int = 200) -> list[dict]:
    """Finished runs grouped by task and setting, newest first, each group a table with
    its series (runs differing only by seed) as mean ± sd."""
    runs = (
        Run.objects.filter(status=Run.Status.SUCCEEDED)
        .select_related("snapshot")
        .defer("predictions", "candidates", "snapshot__examples")
        .order_by("-id")[:limit]
    )
    groups: dict[tuple[str, str], list[Run]] = defaultdict(list)
    for run in runs:
        scope = "all" if baseline_for(run.task).every_scope else run.setting
        groups[(run.task, scope)].append(run)
    tables = []
    for (task, setting), group in sorted(groups.items()):
        baseline = baseline_for(task)
        tables.append(
            {
                "task": task,
                "kind": baseline.results,
                "title": f"{baseline.label} · {setting}",
                "rows": [row for run in group for row in result_rows(run)],
                "series": series_rows(group),
                "runs": group,
            }
        )
    return tables
