"""Human evaluation statistics for the dataset analysis: Likert ratings, Welch's t-tests,
pairwise agreement (ePiC Table 5) and multiple-choice accuracy (ePiC Table 10)."""

from __future__ import annotations

import math
from collections import defaultdict
from itertools import combinations
from statistics import fmean, stdev, variance
from typing import Any

from annotation.analysis.common import mean_or_none, t_two_sided_p
from annotation.task_parts.records import ChoiceRecord, ModelChoiceRecord, RatingRecord
from common.progress import ProgressCallback

AGREEMENT_THRESHOLD = 3


def human_evaluation(
    ratings: list[RatingRecord],
    choices: list[ChoiceRecord],
    model_choices: list[ModelChoiceRecord],
    report: ProgressCallback,
) -> dict[str, Any]:
    """The output's ``human_evaluation``; reports the "human_evaluation" stage."""
    report(0, 1, "human_evaluation")
    values: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    items: dict[str, dict[tuple[str, int], list[int]]] = defaultdict(lambda: defaultdict(list))
    for rating in ratings:
        values[rating.criterion][rating.source].append(rating.value)
        items[rating.criterion][(rating.source, rating.narrative_id)].append(rating.value)

    summary = {
        criterion: {
            source: {
                "mean": fmean(v),
                "n": len(v),
                "std": stdev(v) if len(v) >= 2 else None,
            }
            for source, v in sorted(by_source.items())
        }
        for criterion, by_source in sorted(values.items())
    }

    tests = []
    for criterion, by_source in sorted(values.items()):
        for source_a, source_b in combinations(sorted(by_source), 2):
            a, b = by_source[source_a], by_source[source_b]
            t = p = None
            if len(a) >= 2 and len(b) >= 2:
                t, p = welch_t_test(a, b)
            tests.append(
                {
                    "criterion": criterion,
                    "source_a": source_a,
                    "source_b": source_b,
                    "n_a": len(a),
                    "n_b": len(b),
                    "mean_a": fmean(a),
                    "mean_b": fmean(b),
                    "t": t,
                    "p_value": p,
                }
            )

    agreement: dict[str, float | None] = {}
    agreement_items: dict[str, int] = {}
    for criterion, by_item in sorted(items.items()):
        fractions = []
        for item_values in by_item.values():
            k = len(item_values)
            if k < 2:
                continue
            good = sum(1 for v in item_values if v >= AGREEMENT_THRESHOLD)
            poor = k - good
            agreeing = good * (good - 1) // 2 + poor * (poor - 1) // 2
            fractions.append(agreeing / (k * (k - 1) // 2))
        agreement[criterion] = fmean(fractions) if fractions else None
        agreement_items[criterion] = len(fractions)

    report(1, 1, "human_evaluation")
    return {
        "ratings": summary,
        "welch_t_tests": tests,
        "pairwise_agreement": agreement,
        "pairwise_agreement_items": agreement_items,
        "choice_accuracy": {
            "human": mean_or_none(sum(1 for c in choices if c.correct), len(choices)),
            "model": mean_or_none(sum(1 for c in model_choices if c.correct), len(model_choices)),
            "questions": len({c.question_id for c in choices}),
            "responses": len(choices),
            "model_questions": len(model_choices),
        },
    }


def welch_t_test(a: list[float], b: list[float]) -> tuple[float | None, float | None]:
    """Welch's t-test of two samples (at least 2 values each), as
    ``scipy.stats.ttest_ind(a, b, equal_var=False)``: (t, two-sided p). Both None when
    both samples are constant (the statistic is undefined)."""
    share_a, share_b = variance(a) / len(a), variance(b) / len(b)
    if share_a + share_b == 0:
        return None, None
    t = (fmean(a) - fmean(b)) / math.sqrt(share_a + share_b)
    df = (share_a + share_b) ** 2 / (share_a**2 / (len(a) - 1) + share_b**2 / (len(b) - 1))
    return t, t_two_sided_p(t, df)
