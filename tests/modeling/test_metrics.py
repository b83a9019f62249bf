"""Ranking measures against hand-computed cases."""

import numpy as np
import pytest

from modeling.metrics import gold_ranks, ranking_metrics, softmax


def test_ranks_count_strictly_higher_scores():
    scores = np.array([[0.9, 0.1, 0.5], [0.2, 0.3, 0.4], [0.5, 0.5, 0.1]])
    # Row 0: gold 0 is best (rank 1); row 1: gold 0 is below two (rank 3);
    # row 2: gold 1 ties with column 0: ties count in its favour (rank 1).
    assert gold_ranks(scores, [0, 0, 1]).tolist() == [1, 3, 1]


def test_accuracy_and_mrr_by_hand():
    scores = np.array([[0.9, 0.1, 0.5], [0.2, 0.3, 0.4], [0.1, 0.5, 0.3]])
    metrics = ranking_metrics(scores, [0, 0, 2])
    assert metrics["correct"] == 1 and metrics["total"] == 3 and metrics["candidates"] == 3
    assert metrics["accuracy"] == pytest.approx(1 / 3)
    assert metrics["mrr"] == pytest.approx((1 + 1 / 3 + 1 / 2) / 3)


def test_no_narrative_gives_none_not_nan():
    assert ranking_metrics(np.zeros((0, 3)), []) == {
        "accuracy": None,
        "mrr": None,
        "correct": 0,
        "total": 0,
        "candidates": 0,
    }


def test_gold_of_another_length_is_refused():
    with pytest.raises(ValueError):
        gold_ranks(np.zeros((2, 3)), [0])


def test_softmax_rows_sum_to_one_and_survive_large_scores():
    probabilities = softmax(np.array([[1000.0, 1000.0], [0.0, np.log(3.0)]]))
    assert probabilities[0].tolist() == pytest.approx([0.5, 0.5])
    assert probabilities[1].tolist() == pytest.approx([0.25, 0.75])
