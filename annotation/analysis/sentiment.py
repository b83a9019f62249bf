"""VADER sentiment for the dataset analysis: a faster analyzer with the stock scores, and
the per-proverb sentiment statistics (ePiC Figures 3 and 4)."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from statistics import fmean
from typing import TYPE_CHECKING, Any

from annotation.analysis.common import built_once, t_two_sided_p

if TYPE_CHECKING:  # the records import Django models: pool workers run without Django
    from annotation.task_parts.records import NarrativeRecord

SENTIMENT_POSITIVE = 0.05
SENTIMENT_NEGATIVE = -0.05


@built_once
def sentiment_analyzer() -> Any:
    """The shared VADER analyzer, built on first use: vaderSentiment is imported only by
    processes that score sentiment."""
    from annotation.analysis.vader import FastSentimentIntensityAnalyzer

    return FastSentimentIntensityAnalyzer()


def _polarity(compound: float) -> str:
    if compound >= SENTIMENT_POSITIVE:
        return "positive"
    if compound <= SENTIMENT_NEGATIVE:
        return "negative"
    return "neutral"


def sentiment_statistics(approved: list[NarrativeRecord], compounds: list[float]) -> dict[str, Any]:
    """The output's ``sentiment``: per-proverb compounds, polarity counts and their fit."""
    by_proverb: dict[int, list[float]] = defaultdict(list)
    proverb_text: dict[int, str] = {}
    for record, compound in zip(approved, compounds, strict=True):
        by_proverb[record.proverb_id].append(compound)
        proverb_text.setdefault(record.proverb_id, record.proverb)
    polarity = Counter(_polarity(c) for c in compounds)
    rows = []
    for proverb_id, values in by_proverb.items():
        counts = Counter(_polarity(c) for c in values)
        rows.append(
            {
                "proverb_id": proverb_id,
                "proverb": proverb_text[proverb_id],
                "proverb_compound": float(sentiment_analyzer().compound(proverb_text[proverb_id])),
                "narrative_compound_mean": fmean(values),
                "narratives": len(values),
                "positive": counts["positive"],
                "negative": counts["negative"],
                "neutral": counts["neutral"],
            }
        )
    rows.sort(key=lambda row: (row["proverb_compound"], row["proverb_id"]))
    fit: dict[str, float | None] = dict.fromkeys(("pearson_r", "p_value", "slope", "intercept"))
    x = [row["proverb_compound"] for row in rows]
    y = [row["narrative_compound_mean"] for row in rows]
    if len(rows) >= 2 and len(set(x)) > 1:
        fit.update(least_squares(x, y, with_r=len(set(y)) > 1))
    return {
        "per_proverb": rows,
        "narrative_compound_mean": fmean(compounds) if compounds else None,
        "positive": polarity["positive"],
        "negative": polarity["negative"],
        "neutral": polarity["neutral"],
        **fit,
    }


def least_squares(x: list[float], y: list[float], *, with_r: bool) -> dict[str, float]:
    """The least-squares line of y on x and, ``with_r``, Pearson's r and its two-sided
    p-value, as ``scipy.stats.linregress`` computes them (x not constant)."""
    n = len(x)
    mean_x, mean_y = fmean(x), fmean(y)
    sxx = sum((value - mean_x) ** 2 for value in x)
    sxy = sum((a - mean_x) * (b - mean_y) for a, b in zip(x, y, strict=True))
    slope = sxy / sxx
    line = {"slope": slope, "intercept": mean_y - slope * mean_x}
    if not with_r:
        return line
    syy = sum((value - mean_y) ** 2 for value in y)
    r = max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))
    if n == 2:
        p = 0.0  # two distinct points lie on their line
    else:
        tiny = 1.0e-20  # linregress's guard against r = ±1
        t = r * math.sqrt((n - 2) / ((1.0 - r + tiny) * (1.0 + r + tiny)))
        p = t_two_sided_p(t, n - 2)
    return {**line, "pearson_r": r, "p_value": p}
