"""What the run pages show, read from stored runs: progress lines, learning curves, motif
rows, and test predictions with their texts and marked spans (selectors of the admin's
pages; the templates escape every text)."""

from __future__ import annotations

import itertools

from modeling.models import Run
from modeling.training.registry import baseline_for


def curves_of(runs: list[Run]) -> str:
    """Learning curves of runs that have epochs: loss for generation, span F1 for alignment,
    else accuracy."""
    # matplotlib: loaded by the pages that draw
    from modeling.admin.plots import learning_curves, loss_curves

    drawn = [curve_of(run) for run in runs if run.epochs]
    if not drawn:
        return ""
    kinds = {baseline_for(run.task).results for run in runs}
    if kinds == {"generation"}:
        return loss_curves(drawn)
    measure = "f1" if kinds <= {"spans", "pipeline"} else "accuracy"
    return learning_curves(drawn, measure=measure)


# The figures a progress line shows after the stage, epoch and step: each one's format.
PROGRESS_FIGURES = {
    "loss": "loss {:.4f}",
    "dev_accuracy": "dev accuracy {:.1%}",
    "dev_f1": "dev span F1 {:.3f}",
    "dev_loss": "dev loss {:.4f}",
    "elapsed": "{:.0f} s elapsed",
    "remaining": "about {:.0f} s left",
}


def progress_line(run: Run) -> str:
    """One line of a run's progress: stage, epoch, step, loss, dev figure, times ("—" once
    it has finished: its status says how)."""
    progress = run.progress or {}
    if run.finished:
        return "—"
    parts = [str(progress.get("stage", run.get_status_display()))]
    if progress.get("epoch"):
        parts.append(f"epoch {progress['epoch']}/{progress.get('epochs', '?')}")
    if progress.get("steps"):
        parts.append(f"step {progress.get('step')}/{progress['steps']}")
    parts += [
        written.format(progress[key])
        for key, written in PROGRESS_FIGURES.items()
        if progress.get(key) is not None
    ]
    return " · ".join(parts)


MOTIF_LABELS = {
    "cosine": "predicted distribution, cosine",
    "jensen_shannon": "predicted distribution, Jensen-Shannon",
    "l2": "predicted distribution, L2",
    "l1": "predicted distribution, L1",
}


def motif_rows(run: Run) -> dict | None:
    motifs = (run.metrics or {}).get("motifs")
    if not motifs:
        return None
    rows = [
        (MOTIF_LABELS[key], f"{100 * value:.2f}%") for key, value in motifs["distribution"].items()
    ]
    rows.append(("narrative embeddings only, cosine", f"{100 * motifs['embedding_cosine']:.2f}%"))
    return {"narratives": motifs["narratives"], "rows": rows}


def curve_of(run: Run) -> dict:
    label = f"run {run.pk} (seed {run.seed})"
    return {"label": label, "epochs": run.epochs, "selected_epoch": run.selected_epoch}


def prediction_rows(run: Run, *, limit: int) -> list[dict]:
    """The first test predictions with their texts (escaped by the template)."""
    texts = dict(run.candidates)
    narratives = {e["narrative_id"]: e["narrative"] for e in run.snapshot.examples}
    return [
        {
            "narrative_id": prediction["narrative_id"],
            "narrative": narratives.get(prediction["narrative_id"], ""),
            "correct": texts.get(prediction["proverb_id"], ""),
            "predicted": texts.get(next(iter(prediction["predicted"]), None), ""),
            "rank": prediction["rank"],
        }
        for prediction in run.predictions[:limit]
    ]


def marked_segments(text: str, gold: list[int], predicted: list[int]) -> list[dict]:
    """The narrative cut where the gold or the predicted span starts or ends, each piece
    flagged as in the gold span and/or the predicted one (the template marks them)."""
    cuts = sorted({0, len(text), *(min(max(at, 0), len(text)) for at in (*gold, *predicted))})
    return [
        {
            "text": text[start:end],
            "gold": gold[0] <= start and end <= gold[1],
            "predicted": predicted[0] <= start and end <= predicted[1],
        }
        for start, end in itertools.pairwise(cuts)
        if end > start
    ]


def span_prediction_rows(run: Run, *, limit: int) -> list[dict]:
    """The first test span pairs: the narrative with its gold and predicted spans marked,
    the proverb and its span, the span F1 (and, for a pipeline, the proverb's outcome)."""
    examples = {e["narrative_id"]: e for e in run.snapshot.examples}
    rows = []
    for prediction in run.predictions[:limit]:
        example = examples.get(prediction["narrative_id"], {})
        rows.append(
            {
                "narrative_id": prediction["narrative_id"],
                "segments": marked_segments(
                    example.get("narrative", ""), prediction["gold"], prediction["predicted"]
                ),
                "proverb": example.get("proverb", ""),
                "proverb_span": prediction["proverb_span"],
                "gold_text": prediction["gold_text"],
                "predicted_text": prediction["predicted_text"],
                "f1": f"{prediction['f1']:.3f}",
                "proverb_correct": prediction.get("proverb_correct"),
            }
        )
    return rows
