"""Two finished runs compared on the same test items: the difference of a figure's mean over
the items both scored (a baseline's `item_scores`), with a paired bootstrap interval (items
resampled with both runs' figures together) and a two-sided paired permutation test (a sign
flip of each difference), from scipy.stats. No Django.
"""

from __future__ import annotations

import numpy as np

RESAMPLES = 9_999
CONFIDENCE = 0.95


def paired_comparison(
    first: dict, second: dict, *, resamples: int = RESAMPLES, seed: int = 1
) -> dict:
    """{"items", "first", "second", "difference", "low", "high", "p_value", ...} of the
    mean of `first` minus that of `second` over their common items ({item: figure});
    ValueError when they share fewer than two items."""
    from scipy import stats

    items = sorted(first.keys() & second.keys(), key=str)
    if len(items) < 2:
        raise ValueError(
            f"The runs share {len(items)} scored test item(s): compare runs on the same "
            "snapshot and split."
        )
    a = np.array([first[item] for item in items], dtype=np.float64)
    b = np.array([second[item] for item in items], dtype=np.float64)

    def difference(x, y, axis=-1):
        return np.mean(x, axis=axis) - np.mean(y, axis=axis)

    rng = np.random.default_rng(seed)
    if np.array_equal(a, b):  # no difference to resample: scipy's interval is undefined
        low = high = 0.0
        p_value = 1.0
    else:
        interval = stats.bootstrap(
            (a, b),
            difference,
            paired=True,
            vectorized=True,
            n_resamples=resamples,
            confidence_level=CONFIDENCE,
            method="percentile",
            rng=rng,
        ).confidence_interval
        low, high = float(interval.low), float(interval.high)
        p_value = float(
            stats.permutation_test(
                (a, b),
                difference,
                permutation_type="samples",
                vectorized=True,
                n_resamples=resamples,
                alternative="two-sided",
                rng=rng,
            ).pvalue
        )
    return {
        "items": len(items),
        "only_first": len(first.keys() - second.keys()),
        "only_second": len(second.keys() - first.keys()),
        "first": float(a.mean()),
        "second": float(b.mean()),
        "difference": float(a.mean() - b.mean()),
        "low": low,
        "high": high,
        "confidence": CONFIDENCE,
        "p_value": p_value,
        "resamples": resamples,
        "method": "paired bootstrap (percentile) interval; paired permutation test",
    }
