"""Figures of runs as the results tables write them, with no heavy imports. A generation run
that is degenerate (modeling.training.generation) or not like the references
(modeling.training.health) is never written as a plain score: each figure says so.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence


def percent(value) -> str:
    return "—" if value is None else f"{100 * value:.2f}%"


def decimal(value) -> str:
    return "—" if value is None else f"{value:.4f}"


def span_figures(figures: dict) -> dict:
    return {
        "precision": decimal(figures.get("precision")),
        "recall": decimal(figures.get("recall")),
        "f1": decimal(figures.get("f1")),
        "exact": percent(figures.get("exact")),
        "pairs": figures.get("total", 0),
    }


def health_failures(test: dict) -> list[str]:
    """The health check's failed measures of a generation run's test figures, each as
    "label: outputs vs references' figure"; empty when it passed or is unknown."""
    health = test.get("health") or {}
    return [
        f"{measure['label']}: {_figure(measure['outputs'])} vs the references' "
        f"{_figure(measure['references'])} ({measure['rule']})"
        for name, measure in (health.get("measures") or {}).items()
        if name in health.get("failed", ())
    ]


def _figure(value) -> str:
    return "unknown" if value is None else f"{value:.3f}" if value < 10 else f"{value:.0f}"


def health_text(test: dict) -> str:
    """passed | not like the references | unknown (no spaCy pipeline, or a run from before
    the check)."""
    passed = (test.get("health") or {}).get("passed")
    return "unknown" if passed is None else "passed" if passed else NOT_LIKE


NOT_LIKE = "not like the references"


def generation_figures(test: dict) -> dict:
    """BLEU, ROUGE-L, keyword recall (surface, lemmas), the distinct share, the most
    repeated output with its count and the health check; every score marked when the run
    is degenerate or not like the references."""
    degenerate = bool(test.get("degenerate"))
    failures = health_failures(test)
    marks = ["degenerate"] * degenerate + [NOT_LIKE] * bool(failures)
    mark = f" ({', '.join(marks)})" if marks else ""
    bleu = test.get("bleu")
    repeated = test.get("most_repeated") or {}
    return {
        "degenerate": degenerate,
        "unlike": failures,
        "health": health_text(test),
        "bleu": ("—" if bleu is None else f"{bleu:.2f}") + mark,
        "rouge_l": decimal(test.get("rouge_l")) + mark,
        "keyword_recall": percent(test.get("keyword_recall")) + mark,
        "keyword_recall_lemmas": percent(test.get("keyword_recall_lemmas")) + mark,
        "distinct": percent(test.get("distinct")),
        "distinct_count": f"{test.get('distinct_count', 0)}/{test.get('total', 0)}",
        "most_repeated": repeated.get("text", ""),
        "most_repeated_count": repeated.get("count", 0),
        "total": test.get("total", 0),
        "decoding": test.get("decoding", "the model alone"),
    }


def generation_summary(test: dict) -> str:
    """One line of a generation run's test figures, degenerate or not like the references
    said first (with the measures that failed)."""
    repeated = test.get("most_repeated") or {}
    decoding = test.get("decoding", "the model alone")
    line = (
        f"test BLEU {test.get('bleu', 0):.2f}, ROUGE-L {test.get('rouge_l', 0):.4f}, "
        f"keyword recall {test.get('keyword_recall')} (surface), "
        f"{test.get('keyword_recall_lemmas')} (lemmas), distinct "
        f"{test.get('distinct_count')}/{test.get('total')}, most repeated output "
        f"{repeated.get('count', 0)} times; decoding: {decoding}"
    )
    failures = health_failures(test)
    if failures:
        line = f"NOT LIKE THE REFERENCES ({'; '.join(failures)}): {line}"
    return (
        ("DEGENERATE (outputs barely depend on the input): " + line)
        if test.get("degenerate")
        else line
    )


def mean_sd(values: Sequence[float | None]) -> dict:
    """{"mean", "sd", "n"} of the known values (sd None below two)."""
    known = [value for value in values if value is not None]
    if not known:
        return {"mean": None, "sd": None, "n": 0}
    sd = statistics.stdev(known) if len(known) > 1 else None
    return {"mean": statistics.fmean(known), "sd": sd, "n": len(known)}


def mean_sd_text(summary: dict, *, scale: float = 1.0, digits: int = 2) -> str:
    """ "12.34 ± 0.56" (the sd left out below two values; "—" with none)."""
    if summary["mean"] is None:
        return "—"
    text = f"{scale * summary['mean']:.{digits}f}"
    return text if summary["sd"] is None else f"{text} ± {scale * summary['sd']:.{digits}f}"
