"""The baselines' registry: one class per baseline declares what callers ask of it (see
Baseline). Callers ask `baseline_for(name)` and never switch on a name; a new baseline is one
class here and a training module below it. No Django, and no torch at import: the web process
reads the declarations, and `run` imports the training module in the process that trains.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from modeling.training.examples import SETTINGS, Example, SnapshotError, split_parts
from modeling.training.figures import (
    decimal,
    generation_figures,
    generation_summary,
    percent,
    span_figures,
)
from modeling.training.generation import generation_parts
from modeling.training.hyperparameters import (
    ALIGNMENT_FIELDS,
    GENERATION_FIELDS,
    Hyperparameters,
    Reporter,
    RunRequest,
)
from modeling.training.spans import SourceRun, aligned_parts, pipeline_check, pipeline_combine


class Baseline:
    """What every baseline declares (see the module); subclasses fill it in."""

    name = ""
    label = ""
    settings: tuple[str, ...] = SETTINGS
    trains = True  # trains a model and keeps it as the run's artifact
    ranks_proverbs = False  # predictions rank proverbs (distractors, the pipeline)
    results = "ranking"  # the results table: ranking | spans | pipeline | generation
    measures: tuple[str, ...] = ()  # headline test figures, in metrics["test"]
    source_runs: tuple[str, ...] = ()  # hyperparameters naming the finished runs it combines
    every_scope = False  # scores every scope whatever the setting (retrieval)
    own_hyperparameters: tuple[str, ...] = ()  # read by this baseline and no other
    model_setting = "PARABLE_MODELING_MODEL"  # the setting naming its default model

    def hyperparameters_read(self, names) -> list[str]:
        """The names among `names` this baseline reads: other baselines' own left out."""
        unread = {
            name
            for baseline in BASELINES.values()
            if baseline is not self
            for name in baseline.own_hyperparameters
        }
        return [name for name in names if name not in unread]

    def parts(self, examples: Sequence[Example], *, setting: str, seed: int, hp=None):
        """The parts a run uses; SnapshotError when the snapshot cannot serve it."""
        return split_parts(examples, setting=setting, seed=seed, dev=self.trains)

    def check_sources(self, sources: Mapping[str, SourceRun]) -> None:
        """Raise ValueError unless these finished runs can be combined (source_runs only)."""

    def run(self, request: RunRequest, sources: Mapping[str, SourceRun]) -> dict:
        """Train (or score) and evaluate; the result is JSON-ready: metrics, epochs,
        selected_epoch, predictions, candidates, counts, durations, environment..."""
        raise NotImplementedError

    def result_rows(self, *, metrics: dict, setting: str, selected_epoch, counts: dict) -> list:
        """The run's lines of its results table."""
        raise NotImplementedError

    def item_scores(self, predictions: list[dict]) -> dict[str, dict]:
        """{measure: {test item: figure}} for a paired comparison of two runs."""
        raise NotImplementedError

    def summary(self, *, metrics: dict, selected_epoch) -> str:
        """The command's one line of test figures."""
        test = metrics.get("test") or {}
        return "test " + ", ".join(f"{name} {test.get(name)}" for name in self.measures)


BASELINES: dict[str, Baseline] = {}


def register(baseline: type[Baseline]) -> type[Baseline]:
    BASELINES[baseline.name] = baseline()
    return baseline


def baseline_for(name: str) -> Baseline:
    """The registered baseline `name`; ValueError naming the known ones."""
    try:
        return BASELINES[name]
    except KeyError:
        raise ValueError(f"Unknown task {name!r}; tasks: {', '.join(BASELINES)}.") from None


def baselines_where(**declared) -> list[str]:
    """Names of the baselines whose declarations match, e.g. ranks_proverbs=True."""
    return [
        name
        for name, baseline in BASELINES.items()
        if all(getattr(baseline, key) == value for key, value in declared.items())
    ]


def run_task(
    *,
    task: str,
    examples: Sequence[Example],
    setting: str,
    model: str,
    hyperparameters: Hyperparameters,
    seed: int,
    reporter=None,
    artifact_dir: Path | None = None,
    device=None,
    sources: Mapping[str, SourceRun] | None = None,
    round_proverbs: Sequence[tuple[int, str]] = (),
) -> dict:
    """Run one baseline in this process (tests, benchmarks, the services); JSON-ready."""
    from common.encoder import device_default

    baseline = baseline_for(task)
    if setting not in baseline.settings:
        raise SnapshotError(
            f"The {task} baseline runs in the {' or '.join(baseline.settings)} setting, "
            f"not {setting}."
        )
    request = RunRequest(
        examples=list(examples),
        setting=setting,
        model=model,
        hyperparameters=hyperparameters,
        seed=seed,
        reporter=reporter or Reporter(),
        artifact_dir=artifact_dir,
        device=device or device_default(),
        round_proverbs=round_proverbs,
    )
    return baseline.run(request, sources or {})


class ProverbBaseline(Baseline):
    """Ranks the candidate proverbs for a narrative (ePiC Tables 4 and 7)."""

    ranks_proverbs = True
    measures = ("accuracy", "mrr")

    def run(self, request: RunRequest, sources: Mapping[str, SourceRun]) -> dict:
        from modeling.training.baselines import proverb_run

        return proverb_run(self.name, request)

    def ranker(self, *, model: str, proverbs: Sequence[tuple[int, str]], hyperparameters=None):
        """A finished run's model loaded once (the process's shared encoder of it), with the
        proverbs' vectors computed once: `.rank_texts(texts)` gives, per text, [(proverb id,
        score)], best first. `model` is the run's artifact folder (retrieval: its model
        name)."""
        from modeling.training.ranker import ProverbRanker

        return ProverbRanker(
            model=model, proverbs=proverbs, hyperparameters=hyperparameters or Hyperparameters()
        )

    def item_scores(self, predictions: list[dict]) -> dict[str, dict]:
        return {
            "accuracy": {p["narrative_id"]: float(p["rank"] == 1) for p in predictions},
            "mrr": {p["narrative_id"]: 1 / p["rank"] for p in predictions},
        }

    def result_rows(self, *, metrics: dict, setting: str, selected_epoch, counts: dict) -> list:
        test = metrics.get("test") or {}
        best = metrics.get("best_test_over_epochs") or {}
        return [
            {
                "scope": f"{setting} test, epoch {selected_epoch} (chosen on dev)",
                **_ranking_figures(test),
                "dev_accuracy": percent((metrics.get("dev") or {}).get("accuracy")),
                "best_test": f"{percent(best.get('accuracy'))} at epoch {best.get('epoch')}"
                if best
                else "—",
            }
        ]

    def summary(self, *, metrics: dict, selected_epoch) -> str:
        test = metrics.get("test") or {}
        line = f"test accuracy {test.get('accuracy')}, MRR {test.get('mrr')}"
        dev = metrics.get("dev") or {}
        if dev.get("total"):
            line += (
                f"; epoch {selected_epoch} chosen on dev accuracy {dev['accuracy']} "
                f"({dev['total']} narratives, {dev['candidates']} proverbs)"
            )
        return line


def _ranking_figures(figures: dict) -> dict:
    return {
        "accuracy": percent(figures.get("accuracy")),
        "correct": f"{figures.get('correct', 0)}/{figures.get('total', 0)}",
        "mrr": decimal(figures.get("mrr")),
        "candidates": figures.get("candidates"),
    }


@register
class Retrieval(ProverbBaseline):
    name = "retrieval"
    label = "Proverb retrieval, off-the-shelf embeddings (Table 4)"
    trains = False
    every_scope = True

    def result_rows(self, *, metrics: dict, setting: str, selected_epoch, counts: dict) -> list:
        return [
            {"scope": scope.replace("_", " "), **_ranking_figures(figures)}
            for scope, figures in (metrics.get("scopes") or {}).items()
        ]


@register
class BiEncoder(ProverbBaseline):
    name = "biencoder"
    label = "Proverb prediction, bi-encoder with in-batch negatives (Table 7)"


@register
class Classifier(ProverbBaseline):
    name = "classifier"
    label = "Proverb prediction, classifier started from proverb embeddings (Table 7, seen)"
    settings = ("seen",)


@register
class Alignment(Baseline):
    name = "alignment"
    label = "Alignment prediction, narrative span for a proverb span (Table 8)"
    results = "spans"
    measures = ("f1", "exact")
    own_hyperparameters = ALIGNMENT_FIELDS

    def parts(self, examples, *, setting: str, seed: int, hp=None):
        return aligned_parts(examples, setting=setting, seed=seed)

    def run(self, request: RunRequest, sources: Mapping[str, SourceRun]) -> dict:
        from modeling.training.alignment import alignment_task

        return alignment_task(request)

    def item_scores(self, predictions: list[dict]) -> dict[str, dict]:
        return _span_item_scores(predictions)

    def result_rows(self, *, metrics: dict, setting: str, selected_epoch, counts: dict) -> list:
        best = metrics.get("best_test_over_epochs") or {}
        return [
            {
                **span_figures(metrics.get("test") or {}),
                "scope": f"{setting} test, epoch {selected_epoch} (chosen on dev)",
                "dev_f1": decimal((metrics.get("dev") or {}).get("f1")),
                "best_test": f"F1 {decimal(best.get('f1'))} at epoch {best.get('epoch')}"
                if best
                else "—",
            }
        ]


def _span_item_scores(predictions: list[dict]) -> dict[str, dict]:
    keys = [(p["narrative_id"], p["proverb_span"], *p["gold"]) for p in predictions]
    return {
        name: {key: float(p[name]) for key, p in zip(keys, predictions, strict=True)}
        for name in ("f1", "exact")
    }


@register
class Pipeline(Baseline):
    """Proverb then alignment prediction from two finished runs (Table 9): trains nothing."""

    name = "pipeline"
    label = "Proverb then alignment prediction, from two finished runs (Table 9)"
    trains = False
    results = "pipeline"
    measures = ("f1", "exact")
    source_runs = ("proverb_run", "alignment_run")

    def parts(self, examples, *, setting: str, seed: int, hp=None):
        raise SnapshotError("A pipeline run combines two finished runs: pick both.")

    def check_sources(self, sources: Mapping[str, SourceRun]) -> None:
        proverb, alignment = sources["proverb_run"], sources["alignment_run"]
        pipeline_check(proverb, alignment, proverb_tasks=baselines_where(ranks_proverbs=True))

    def run(self, request: RunRequest, sources: Mapping[str, SourceRun]) -> dict:
        started = time.monotonic()
        self.check_sources(sources)
        proverb, alignment = sources["proverb_run"], sources["alignment_run"]
        combined = pipeline_combine(proverb.predictions, alignment.predictions)
        return {
            "metrics": combined["metrics"],
            "predictions": combined["predictions"],
            "environment": {
                "proverb_run": {"id": proverb.id, "task": proverb.task},
                "alignment_run": {"id": alignment.id, "task": alignment.task},
            },
            "durations": {"total": time.monotonic() - started},
        }

    def item_scores(self, predictions: list[dict]) -> dict[str, dict]:
        return _span_item_scores(predictions)

    def result_rows(self, *, metrics: dict, setting: str, selected_epoch, counts: dict) -> list:
        proverb = metrics.get("proverb") or {}
        return [
            {
                **span_figures(metrics.get("test") or {}),
                "scope": f"{setting} test",
                "proverb_accuracy": percent(proverb.get("accuracy")),
                "aligned_accuracy": percent(proverb.get("aligned_accuracy")),
                "alone_f1": decimal((metrics.get("alignment_alone") or {}).get("f1")),
            }
        ]


@register
class Generation(Baseline):
    name = "generation"
    label = "Narrative generation from a proverb and keywords (Table 11)"
    results = "generation"
    measures = ("bleu", "rouge_l", "keyword_recall", "keyword_recall_lemmas", "distinct")
    own_hyperparameters = GENERATION_FIELDS
    model_setting = "PARABLE_GENERATION_MODEL"

    def parts(self, examples, *, setting: str, seed: int, hp=None):
        return generation_parts(examples, setting=setting, seed=seed, hp=hp)

    def run(self, request: RunRequest, sources: Mapping[str, SourceRun]) -> dict:
        from modeling.training.generation_run import run_generation

        return run_generation(request)

    def item_scores(self, predictions: list[dict]) -> dict[str, dict]:
        from modeling.training.generation import rouge_l_scores

        rouge = rouge_l_scores(
            [p["generated"] for p in predictions], [p["reference"] for p in predictions]
        )
        return {
            "keyword_recall": {
                p["narrative_id"]: p["keywords_found"] / len(p["keywords"])
                for p in predictions
                if p["keywords"]
            },
            "rouge_l": {
                p["narrative_id"]: score for p, score in zip(predictions, rouge, strict=True)
            },
        }

    def result_rows(self, *, metrics: dict, setting: str, selected_epoch, counts: dict) -> list:
        return [
            {
                "scope": f"{setting} test, epoch {selected_epoch} (lowest dev loss)",
                **generation_figures(metrics.get("test") or {}),
                "without_keywords": counts.get("without_keywords", 0),
                "dev_loss": decimal((metrics.get("dev") or {}).get("loss")),
            }
        ]

    def summary(self, *, metrics: dict, selected_epoch) -> str:
        return generation_summary(metrics.get("test") or {})
