"""Figures of runs as the results tables write them, with no heavy imports: percentages,
decimals, span and generation figures, and means with their standard deviation.

A generation run whose outputs barely depend on their input (under
DEGENERATE_DISTINCT of its test outputs distinct, modeling.training.generation) is never
written as a plain score: each of its figures carries "degenerate".
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


def generation_figures(test: dict) -> dict:
    """BLEU, ROUGE-L, keyword recall (surface, lemmas), the distinct share and the most
    repeated output with its count; every score marked when the run is degenerate."""
    degenerate = bool(test.get("degenerate"))
    mark = " (degenerate)" if degenerate else ""
    bleu = test.get("bleu")
    repeated = test.get("most_repeated") or {}
    return {
        "degenerate": degenerate,
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
    """One line of a generation run's test figures, degenerate said first."""
    repeated = test.get("most_repeated") or {}
    decoding = test.get("decoding", "the model alone")
    line = (
        f"test BLEU {test.get('bleu', 0):.2f}, ROUGE-L {test.get('rouge_l', 0):.4f}, "
        f"keyword recall {test.get('keyword_recall')} (surface), "
        f"{test.get('keyword_recall_lemmas')} (lemmas), distinct "
        f"{test.get('distinct_count')}/{test.get('total')}, most repeated output "
        f"{repeated.get('count', 0)} times; decoding: {decoding}"
    )
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
