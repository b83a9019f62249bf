"""Measures of the baselines over numpy arrays (no Django). Ranking: one score row per
narrative, one column per candidate proverb; a narrative's rank is 1 plus the candidates
scored strictly higher than its gold one (ties in its favour, as ePiC's evaluation does).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from annotation.quality.agreement import span_token_scores


def gold_ranks(scores: np.ndarray, gold: Sequence[int]) -> np.ndarray:
    """Rank (1 = best) of each row's gold column."""
    scores = np.asarray(scores, dtype=np.float64)
    gold = np.asarray(gold, dtype=np.int64)
    if scores.ndim != 2 or len(gold) != scores.shape[0]:
        raise ValueError("scores is one row per narrative, gold one column index per row")
    gold_scores = scores[np.arange(len(gold)), gold]
    return 1 + (scores > gold_scores[:, None]).sum(axis=1)


def ranking_metrics(scores: np.ndarray, gold: Sequence[int]) -> dict:
    """{"accuracy", "mrr", "correct", "total", "candidates"} of a score matrix; empty -> None."""
    total = len(gold)
    if total == 0:
        return {"accuracy": None, "mrr": None, "correct": 0, "total": 0, "candidates": 0}
    ranks = gold_ranks(scores, gold)
    return {
        "accuracy": float((ranks == 1).mean()),
        "mrr": float((1.0 / ranks).mean()),
        "correct": int((ranks == 1).sum()),
        "total": total,
        "candidates": int(np.asarray(scores).shape[1]),
    }


def softmax(scores: np.ndarray) -> np.ndarray:
    """Row-wise softmax, stable for large scores."""
    scores = np.asarray(scores, dtype=np.float64)
    shifted = np.exp(scores - scores.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


MOTIF_DISTANCES = {
    "cosine": "cosine",
    "jensen_shannon": "jensenshannon",
    "l2": "euclidean",
    "l1": "cityblock",
}


def nearest_neighbours(vectors: np.ndarray, *, distance: str) -> np.ndarray:
    """Index of each row's nearest other row under `distance` (a MOTIF_DISTANCES key);
    ties go to the lowest index. Jensen-Shannon is `jensen_shannon_distances`."""
    from scipy.spatial.distance import cdist

    vectors = np.asarray(vectors, dtype=np.float64)
    if len(vectors) < 2:
        raise ValueError("nearest neighbours need two rows at least")
    if distance == "jensen_shannon":
        distances = jensen_shannon_distances(vectors)
    else:
        distances = cdist(vectors, vectors, metric=MOTIF_DISTANCES[distance])
    np.fill_diagonal(distances, np.inf)
    return distances.argmin(axis=1)


def jensen_shannon_distances(rows: np.ndarray, *, chunk_elements: int = 1 << 22) -> np.ndarray:
    """All pairs' Jensen-Shannon distances of the rows (each normalised to sum to 1), as
    scipy's `jensenshannon` gives them (base e), in whole-array operations instead of its
    pair-by-pair loop; the mixtures are built a block of rows at a time (`chunk_elements`
    numbers at most), so memory stays bounded for thousands of rows."""
    from scipy.special import xlogy

    rows = np.asarray(rows, dtype=np.float64)
    rows = rows / rows.sum(axis=1, keepdims=True)
    count, width = rows.shape
    entropy = -xlogy(rows, rows).sum(axis=1)
    divergence = np.empty((count, count))
    block = max(1, chunk_elements // max(1, count * width))
    for start in range(0, count, block):
        # The matrix is symmetric: each block against itself and the rows after it.
        stop = min(count, start + block)
        mixture = (rows[start:stop, None, :] + rows[None, start:, :]) / 2
        mixed = -xlogy(mixture, mixture).sum(axis=2)
        values = mixed - (entropy[start:stop, None] + entropy[None, start:]) / 2
        divergence[start:stop, start:] = values
        divergence[start:, start:stop] = values.T
    return np.sqrt(np.maximum(divergence, 0.0))


def motif_accuracy(vectors: np.ndarray, labels: Sequence[int], *, distance: str) -> float:
    """Share of rows whose nearest other row has the same label (ePiC Table 13)."""
    neighbours = nearest_neighbours(vectors, distance=distance)
    labels = np.asarray(labels)
    return float((labels[neighbours] == labels).mean())


# Span alignment (ePiC Tables 8 and 9): a span pair is scored by the narrative's words it
# covers, by position (annotation.quality.agreement.span_token_scores, crowd agreement's too);
# precision, recall and F1 are averaged over the pairs, each on its own, as the paper does.


def span_scores(text: str, predicted: tuple[int, int], gold: tuple[int, int]) -> dict:
    """{"precision", "recall", "f1", "exact"} of one predicted span against the gold one."""
    return span_token_scores([predicted], [gold], text)


SPAN_MEASURES = ("precision", "recall", "f1", "exact")


def span_metrics(scores: Sequence[dict]) -> dict:
    """Means of per-pair span scores, with the number of pairs; none -> None."""
    if not scores:
        return {**dict.fromkeys(SPAN_MEASURES), "total": 0}
    return {
        **{name: float(np.mean([score[name] for score in scores])) for name in SPAN_MEASURES},
        "total": len(scores),
    }
