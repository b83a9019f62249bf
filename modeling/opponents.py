"""Finished proverb runs as the opponents of model-in-the-loop rounds: annotation's
OpponentBackend, registered from ModelingConfig.ready().

A ranker is kept per (run, proverbs ranked), so a check costs one story's forward pass.
torch is imported only when ranking, which runs where models run, never in a web request.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

from annotation.opponents.backend import OpponentBackend, OpponentModel, OpponentUnavailable
from annotation.opponents.selectors import round_proverbs
from modeling.models import Run
from modeling.runs.distractors import run_label
from modeling.runs.services import artifact_folder
from modeling.training.hyperparameters import Hyperparameters
from modeling.training.registry import baseline_for, baselines_where

CHOICES = 50  # the newest finished runs offered as opponents
RANKERS_KEPT = 8  # rankers (a model and its proverbs' vectors) a process keeps


def _runs():
    return (
        Run.objects.filter(
            status=Run.Status.SUCCEEDED, task__in=baselines_where(ranks_proverbs=True)
        )
        .defer("predictions", "candidates", "epochs", "snapshot__examples")
        .select_related("snapshot")
    )


def _run(run_id: int) -> Run:
    run = _runs().filter(pk=run_id).first()
    if run is None:
        raise OpponentUnavailable(
            f"No finished proverb run {run_id} (retrieval, bi-encoder or classifier) to play "
            "against."
        )
    return run


def opponent_model(run: Run) -> OpponentModel:
    return OpponentModel(
        run_id=run.pk,
        label=run_label(run),
        task=run.task,
        setting=run.setting,
        model_name=run.model_name,
        snapshot=run.snapshot.content_hash[:10],
        snapshot_narratives=run.snapshot.narratives,
        trains=baseline_for(run.task).trains,
        round_task=run.metrics.get("round_task"),
    )


def opponent_trained_on(run_id: int) -> frozenset[int]:
    """The narratives the run trained on: its snapshot's train part in its setting."""
    run = _run(run_id)
    if not baseline_for(run.task).trains:
        return frozenset()
    examples = type(run.snapshot).objects.values_list("examples", flat=True).get(pk=run.snapshot_id)
    return frozenset(e["narrative_id"] for e in examples if e.get(run.setting) == "train")


def opponent_choices() -> list[tuple[int, str]]:
    """The newest runs that can oppose, each labelled with how it does on a round's task
    and its warnings (OpponentModel.strength)."""
    curated = len(round_proverbs())
    return [
        (run.pk, f"{run_label(run)}: {opponent_model(run).strength(curated=curated)}")
        for run in _runs().order_by("-id")[:CHOICES]
    ]


def model_path(run: Run) -> str:
    """Where the run's model loads from: a trained run's artifact folder, or the model a
    retrieval run scored with. OpponentUnavailable when a trained model is not on this
    machine (copied to S3 only, say)."""
    if not baseline_for(run.task).trains:
        return run.model_name
    local = [Path(run.artifact)] if run.artifact and "://" not in run.artifact else []
    for folder in [*local, artifact_folder(run)]:
        if (folder / "config.json").is_file():
            return str(folder)
    raise OpponentUnavailable(
        f"The model of run {run.pk} is not on this machine ({run.artifact or 'no artifact'}); "
        f"copy its files into {artifact_folder(run)}."
    )


_rankers: OrderedDict[tuple, object] = OrderedDict()
_rankers_lock = threading.Lock()


def _ranker(run_id: int, proverbs: Sequence[tuple[int, str]]):
    """The run's ranker of these proverbs, kept by run, model and proverbs (a run row
    read per call: a model that moved or a run that changed is loaded anew)."""
    run = _run(run_id)
    path = model_path(run)
    digest = hashlib.sha256(json.dumps([list(proverbs), run.hyperparameters]).encode())
    key = (run_id, run.task, path, digest.hexdigest())
    with _rankers_lock:
        if key in _rankers:
            _rankers.move_to_end(key)
            return _rankers[key]
        ranker = baseline_for(run.task).ranker(
            model=path,
            proverbs=list(proverbs),
            hyperparameters=Hyperparameters.from_dict(run.hyperparameters),
        )
        _rankers[key] = ranker
        while len(_rankers) > RANKERS_KEPT:
            _rankers.popitem(last=False)
        return ranker


def opponent_rank(
    *, run_id: int, proverbs: Sequence[tuple[int, str]], texts: list[str]
) -> list[list[tuple[int, float]]]:
    """Every proverb with its score for each text, best first, by the run's model."""
    return _ranker(run_id, proverbs).rank_texts(texts)


OPPONENTS = OpponentBackend(
    choices=opponent_choices,
    describe=lambda run_id: opponent_model(_run(run_id)),
    trained_on=opponent_trained_on,
    rank=opponent_rank,
)
