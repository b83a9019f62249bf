"""The rounds' figures for the dashboard, the card and the methods statement (the analysis'
"rounds" key): per round, the stories that fooled their opponent; and each round's model
evaluated on every round's test stories, each (model, story, proverbs ranked) ranked once
where the analysis runs and kept in OpponentEvaluation.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Callable

from django.db.models import QuerySet

from annotation.models import Narrative, NarrativeRound, OpponentEvaluation, Proverb
from annotation.opponents.backend import (
    OpponentModel,
    opponent_describe,
    opponent_rank,
    opponent_trained_on,
)

RANK_CHUNK = 64  # stories ranked per call of the model


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def rounds_analysis(
    *, narratives: QuerySet[Narrative], progress: Callable[[int, int, str], None] | None = None
) -> dict:
    """{"by_round": [per round figures], "evaluation": the models × rounds table or None}
    over the approved narratives of `narratives` written in a round."""
    records = list(
        NarrativeRound.objects.filter(
            narrative__in=narratives.filter(status=Narrative.Status.APPROVED)
        )
        .select_related("narrative")
        .order_by("round", "id")
    )
    by_round: dict[int, list[NarrativeRound]] = defaultdict(list)
    for record in records:
        by_round[record.round].append(record)
    rounds = [_round_figures(number, stories) for number, stories in sorted(by_round.items())]
    return {"by_round": rounds, "evaluation": _evaluation(by_round, progress) if rounds else None}


def counted(record: NarrativeRound) -> bool:
    """Whether a story counts in its round: one humans did not match is left out."""
    return record.validation != NarrativeRound.Validation.UNMATCHED


def _round_figures(number: int, stories: list[NarrativeRound]) -> dict:
    opposed = [r for r in stories if r.opponent_run is not None]
    answered = [r for r in opposed if r.fooled is not None]
    fooled = [r for r in answered if r.fooled]
    kept = [r for r in answered if counted(r)]
    kept_fooled = [
        r
        for r in kept
        if r.fooled and (not r.validate or r.validation == NarrativeRound.Validation.CONFIRMED)
    ]
    awaiting = [r for r in fooled if r.validate and not r.validation]
    checks = [r.checks for r in opposed]
    return {
        "round": number,
        "stories": len(stories),
        "opponents": sorted({r.opponent_label or f"run {r.opponent_run}" for r in opposed}),
        "opponent_runs": sorted({r.opponent_run for r in opposed}),
        "modes": sorted({r.mode for r in opposed}),
        "answered": len(answered),
        "fooled": len(fooled),
        "fooled_share": _share(len(fooled), len(answered)),
        "unmatched": sum(not counted(r) for r in stories),
        "confirmed": sum(r.validation == NarrativeRound.Validation.CONFIRMED for r in stories),
        "awaiting_validation": len(awaiting),
        "validated_fooled": len(kept_fooled),
        "validated_fooled_share": _share(len(kept_fooled), len(kept)),
        "checks_mean": sum(checks) / len(checks) if checks else None,
        "bonuses_paid": sum(r.bonus_paid_at is not None for r in stories),
    }


def proverbs_digest(proverbs: list[tuple[int, str]]) -> str:
    return hashlib.sha256(json.dumps(proverbs).encode()).hexdigest()


def _evaluation(by_round: dict[int, list[NarrativeRound]], progress) -> dict:
    """Each round's opponent (rows, in the order rounds first used them) on each round's
    test stories (columns): accuracy (the story's proverb ranked first), MRR and n, or
    None where a round has no test story the model did not train on."""
    runs: dict[int, list[int]] = {}
    for number, stories in sorted(by_round.items()):
        for run in sorted({r.opponent_run for r in stories if r.opponent_run is not None}):
            runs.setdefault(run, []).append(number)
    models, errors = [], {}
    for run, opposed in runs.items():
        try:
            model = opponent_describe(run)
        except LookupError as error:
            errors[str(run)] = str(error)
            model = None
        models.append((run, opposed, model))
    numbers = sorted(by_round)
    cells = []
    for done, (run, _, model) in enumerate(models):
        if progress is not None:
            progress(done, len(models), "rounds: the models on each round's test stories")
        row = []
        for number in numbers:
            stories = [r.narrative for r in by_round[number] if counted(r)]
            if model is None:
                row.append(None)
                continue
            try:
                row.append(_cell(model, stories))
            except Exception as error:  # a model that cannot load: said, not scored
                errors[str(run)] = f"{type(error).__name__}: {error}"
                row.append(None)
        cells.append(row)
    return {
        "models": [
            {
                "run": run,
                "label": model.label if model else f"run {run}",
                "setting": model.setting if model else None,
                "rounds_opposed": opposed,
            }
            for run, opposed, model in models
        ],
        "rounds": numbers,
        "cells": cells,
        "errors": errors,
    }


def _cell(model: OpponentModel, stories: list[Narrative]) -> dict | None:
    split = f"split_{model.setting}"
    trained_on = opponent_trained_on(model.run_id) if model.trains else frozenset()
    tested = [
        story
        for story in stories
        if getattr(story, split) == Narrative.Split.TEST and story.pk not in trained_on
    ]
    if not tested:
        return None
    curated = Proverb.objects.filter(status=Proverb.Status.CURATED)
    own = Proverb.objects.filter(pk__in={story.proverb_id for story in tested})
    proverbs = sorted((curated | own).distinct().values_list("id", "text"))
    digest = proverbs_digest(proverbs)
    known = dict(
        OpponentEvaluation.objects.filter(
            run_id=model.run_id, proverbs_digest=digest, narrative__in=tested
        ).values_list("narrative_id", "rank")
    )
    missing = [story for story in tested if story.pk not in known]
    for start in range(0, len(missing), RANK_CHUNK):
        chunk = missing[start : start + RANK_CHUNK]
        ranked = opponent_rank(
            run_id=model.run_id, proverbs=proverbs, texts=[story.text for story in chunk]
        )
        rows = []
        for story, order in zip(chunk, ranked, strict=True):
            rank = 1 + [pk for pk, _ in order].index(story.proverb_id)
            known[story.pk] = rank
            rows.append(
                OpponentEvaluation(
                    run_id=model.run_id,
                    narrative=story,
                    proverbs_digest=digest,
                    rank=rank,
                    candidates=len(proverbs),
                )
            )
        OpponentEvaluation.objects.bulk_create(rows, ignore_conflicts=True)
    ranks = [known[story.pk] for story in tested]
    return {
        "accuracy": sum(rank == 1 for rank in ranks) / len(ranks),
        "mrr": sum(1 / rank for rank in ranks) / len(ranks),
        "n": len(ranks),
        "candidates": len(proverbs),
    }


ROUNDS_DEFINITIONS: dict[str, str] = {
    "rounds": (
        "Model-in-the-loop rounds (Dynabench, ANLI): write batches in a round, whose writers "
        "could ask an opponent (a finished proverb run) whether it finds the story's "
        "proverb. Over the approved stories in scope written in a round."
    ),
    "rounds.by_round": (
        "Per round: stories; its opponents (labels, and opponent_runs: run ids) and modes; "
        "answered (stories the opponent "
        "ranked as submitted); fooled (of those, stories whose proverb it did not rank "
        "first) and fooled_share (fooled / answered, the model error rate); unmatched "
        "(fooling stories a validation batch's workers did not match to their proverb: left "
        "out of the round), confirmed, awaiting_validation; validated_fooled and "
        "validated_fooled_share (fooling stories that count, confirmed where the round "
        "validates, over the answered stories that count); checks_mean (checks asked on "
        "the page per story); bonuses_paid. A share is None when nothing was answered."
    ),
    "rounds.evaluation": (
        "Each round's opponent (rows, by the round that first used it) evaluated on each "
        "round's test stories (columns): the approved stories of the round that count, in "
        "the test part of the model's split (seen or unseen), leaving out any the model "
        "trained on; each story ranked among the curated proverbs and its own. accuracy: "
        "share whose proverb was ranked first; mrr: mean reciprocal rank; n: stories. "
        "None where a round has no such test story; errors names a model that could not "
        "be loaded (its cells None)."
    ),
}
