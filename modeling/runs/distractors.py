"""Distractors chosen by a trained model, and the choose batch built from them (ePiC Table 10).

The "model:<run id>" source takes, in turn, the most probable wrong proverbs of a run's test
predictions and those closest in probability to the correct one (ePiC Appendix B); the batch
keeps the model's own answers, so agreement shows its accuracy beside the humans'.
"""

from __future__ import annotations

import random

from django.db import transaction

from annotation.models import Narrative
from annotation.task_parts.distractors import DistractorSource, SourceFamily
from crowd import task_types
from crowd.batches import batch_create, batch_items_add
from modeling.models import Run
from modeling.training.registry import baselines_where

PREFIX = "model"


def source_key(run: Run) -> str:
    return f"{PREFIX}:{run.pk}"


def run_label(run: Run) -> str:
    return f"run {run.pk}: {run.task} {run.setting}, {run.model_name}"


class ModelSource(DistractorSource):
    """Distractors from one run's predicted probabilities over proverbs."""

    def __init__(self, run: Run):
        self.key = source_key(run)
        self.label = f"Model ({run_label(run)})"
        self.run = run
        column = {proverb_id: i for i, (proverb_id, _) in enumerate(run.candidates)}
        texts = {fields["narrative_id"]: fields["narrative"] for fields in run.snapshot.examples}
        self.by_text = {
            texts[p["narrative_id"]]: {
                proverb_id: p["probabilities"][i] for proverb_id, i in column.items()
            }
            for p in run.predictions
            if p["narrative_id"] in texts
        }

    def probabilities(self, narrative: str) -> dict[int, float]:
        try:
            return self.by_text[narrative]
        except KeyError:
            raise ValueError(
                f"Run {self.run.pk} has no prediction for this narrative: only its test "
                "narratives get model distractors."
            ) from None

    def rank(self, *, narrative, correct, candidates, rng) -> list:
        probabilities = self.probabilities(narrative)
        scored = [c for c in candidates if c.id in probabilities]
        unscored = sorted((c for c in candidates if c.id not in probabilities), key=lambda c: c.id)
        rng.shuffle(unscored)
        target = probabilities.get(correct.id, 0.0)
        tiebreak = {c.id: rng.random() for c in sorted(scored, key=lambda c: c.id)}
        probable = sorted(scored, key=lambda c: (-probabilities[c.id], tiebreak[c.id]))
        closest = sorted(scored, key=lambda c: (abs(probabilities[c.id] - target), tiebreak[c.id]))
        ranked: list = []
        for pair in zip(probable, closest, strict=True):
            ranked.extend(c for c in pair if c not in ranked)
        return ranked + unscored


def _finished_run(name: str) -> Run:
    run = Run.objects.filter(pk=int(name) if name.isdigit() else None).first()
    finished = run is not None and run.status == Run.Status.SUCCEEDED and bool(run.predictions)
    if not finished or run.task not in baselines_where(ranks_proverbs=True):
        raise LookupError(f"No finished run {name} with proverb predictions to choose distractors.")
    return run


def _choices() -> list[tuple[str, str]]:
    runs = (
        Run.objects.filter(
            status=Run.Status.SUCCEEDED, task__in=baselines_where(ranks_proverbs=True)
        )
        .exclude(predictions=[])
        .order_by("-id")
    )
    return [(source_key(run), f"Model ({run_label(run)})") for run in runs[:50]]


MODEL_SOURCES = SourceFamily(
    prefix=PREFIX,
    load=lambda name: ModelSource(_finished_run(name)),
    choices=_choices,
    name_pattern="[1-9][0-9]{0,17}",  # a run's id
)


@transaction.atomic
def choose_batch_from_run(
    *,
    run: Run,
    sample: int = 100,
    options: int = 5,
    seed: int = 1,
    name: str = "",
    target_per_item: int = 3,
    created_by=None,
):
    """A draft choose batch on `sample` of the run's test narratives, answered by the model too."""
    source = ModelSource(_finished_run(str(run.pk)))
    predictions = {p["narrative_id"]: p for p in run.predictions}
    narratives = list(
        Narrative.objects.filter(pk__in=predictions, status=Narrative.Status.APPROVED)
        .select_related("proverb")
        .order_by("id")
    )
    if not narratives:
        raise ValueError(f"Run {run.pk} has no approved test narrative left to ask about.")
    random.Random(f"{seed}:model-distractors:{run.pk}").shuffle(narratives)
    narratives = narratives[:sample]
    choosing = task_types.producing("proverb choices")
    batch = batch_create(
        name=name or f"Choose: distractors from {run_label(run)}",
        task_type=choosing.key,
        target_per_item=target_per_item,
        settings={"distractors": source.key, "options": options, "seed": seed},
        created_by=created_by,
    )

    def model_answer(narrative, question_options: list[int]) -> tuple[int, str]:
        probabilities = source.probabilities(narrative.text)
        chosen = max(question_options, key=lambda pk: (probabilities.get(pk, 0.0), -pk))
        return chosen, run_label(run)[:200]

    items = choosing.narrative_items(batch=batch, narratives=narratives, answers=model_answer)
    batch_items_add(batch=batch, items=items)
    return batch
