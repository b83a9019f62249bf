"""Pipelined proverb and alignment prediction (ePiC Table 9) from two finished runs.

A pipeline run trains nothing: it takes a finished proverb-prediction run
(retrieval, biencoder or classifier) and a finished alignment run on the same
snapshot and setting, and combines their stored test predictions
(`modeling.training.spans.pipeline_combine`): each test span pair keeps its span precision,
recall and F1 only where the proverb run ranked the narrative's proverb first, and
scores zero elsewhere. Its config names the two runs; it executes as any run does
(`services.run_execute`), in a moment and without loading a model.
"""

from __future__ import annotations

import time

from django.db import transaction

from modeling.models import Run
from modeling.runs.queueing import run_create_queued
from modeling.training.hyperparameters import PROVERB_TASKS
from modeling.training.spans import pipeline_combine


def pipeline_check(proverb_run: Run, alignment_run: Run) -> None:
    """Raise ValueError, saying why, unless the two runs can be combined."""
    if proverb_run.task not in PROVERB_TASKS:
        raise ValueError(
            f"Run {proverb_run.pk} is a {proverb_run.task} run; the proverb run is one of "
            f"{', '.join(PROVERB_TASKS)}."
        )
    if alignment_run.task != "alignment":
        raise ValueError(
            f"Run {alignment_run.pk} is a {alignment_run.task} run, not an alignment run."
        )
    for run in (proverb_run, alignment_run):
        if run.status != Run.Status.SUCCEEDED:
            raise ValueError(f"Run {run.pk} has not succeeded (it is {run.status}).")
    if proverb_run.snapshot_id != alignment_run.snapshot_id:
        raise ValueError(
            f"Runs {proverb_run.pk} and {alignment_run.pk} used different snapshots "
            f"({proverb_run.snapshot.content_hash[:10]} and "
            f"{alignment_run.snapshot.content_hash[:10]}): run both on the same data."
        )
    if proverb_run.setting != alignment_run.setting:
        raise ValueError(
            f"Run {proverb_run.pk} is {proverb_run.setting} and run {alignment_run.pk} is "
            f"{alignment_run.setting}: both need the same setting."
        )


@transaction.atomic
def pipeline_create(
    *, proverb_run: Run, alignment_run: Run, created_by=None, queue: bool = True
) -> Run:
    """A queued pipeline run of the two runs (queued on commit unless queue=False)."""
    pipeline_check(proverb_run, alignment_run)
    return run_create_queued(
        queue=queue,
        task="pipeline",
        setting=alignment_run.setting,
        model_name=f"{proverb_run.model_name} → {alignment_run.model_name}"[:500],
        hyperparameters={"proverb_run": proverb_run.pk, "alignment_run": alignment_run.pk},
        seed=alignment_run.seed,
        snapshot=alignment_run.snapshot,
        created_by=created_by,
    )


def source_runs(run: Run) -> tuple[Run, Run]:
    """The proverb run and the alignment run a pipeline run names; ValueError when gone."""
    ids = {key: run.hyperparameters.get(key) for key in ("proverb_run", "alignment_run")}
    found = Run.objects.select_related("snapshot").in_bulk([pk for pk in ids.values() if pk])
    missing = [f"{key.replace('_', ' ')} {pk}" for key, pk in ids.items() if pk not in found]
    if missing:
        raise ValueError(f"The pipeline's {' and '.join(missing)} no longer exist(s).")
    return found[ids["proverb_run"]], found[ids["alignment_run"]]


def pipeline_result(run: Run) -> dict:
    """The fields a finished pipeline run stores; ValueError when the runs cannot serve."""
    started = time.monotonic()
    proverb_run, alignment_run = source_runs(run)
    pipeline_check(proverb_run, alignment_run)
    combined = pipeline_combine(proverb_run.predictions, alignment_run.predictions)
    return {
        "metrics": combined["metrics"],
        "predictions": combined["predictions"],
        "environment": {
            "proverb_run": {"id": proverb_run.pk, "task": proverb_run.task},
            "alignment_run": {"id": alignment_run.pk, "task": alignment_run.task},
        },
        "durations": {"total": time.monotonic() - started},
    }
