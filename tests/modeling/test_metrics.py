"""Ranking measures against hand-computed cases."""

import numpy as np
import pytest

from modeling.training.metrics import (
    gold_ranks,
    ranking_metrics,
    softmax,
    span_metrics,
    span_scores,
)


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


def test_nearest_neighbour_skips_itself_and_breaks_ties_by_index():
    from modeling.training.metrics import nearest_neighbours

    points = np.array([[0.0, 0.0], [1.0, 0.0], [3.0, 0.0], [1.0, 0.0]])
    # 0: 1 and 3 are equally near (1.0) -> 1; 1: 3 at 0; 2: 1 and 3 at 2 -> 1; 3: 1 at 0.
    assert nearest_neighbours(points, distance="l2").tolist() == [1, 3, 1, 1]
    # L1 differs from L2 off the axis: (0,0)-(2,2) is 4 in L1, 2.83 in L2; (0,0)-(3,0) is 3.
    diagonal = np.array([[0.0, 0.0], [2.0, 2.0], [3.0, 0.0]])
    assert nearest_neighbours(diagonal, distance="l1")[0] == 2
    assert nearest_neighbours(diagonal, distance="l2")[0] == 1


def test_jensen_shannon_by_hand():
    from scipy.spatial.distance import jensenshannon

    # P = (1, 0), Q = (0, 1): M = (1/2, 1/2); KL(P||M) = ln 2, so JSD = ln 2 and the
    # distance is sqrt(ln 2).
    assert jensenshannon([1.0, 0.0], [0.0, 1.0]) == pytest.approx(np.sqrt(np.log(2)))
    from modeling.training.metrics import motif_accuracy

    distributions = np.array([[0.9, 0.1], [0.8, 0.2], [0.1, 0.9], [0.45, 0.55]])
    # Nearest by JSD: 0<->1, 2 -> 3, 3 -> 1 (0.45 is nearer 0.8 than 0.1 in this sense).
    labels = [7, 7, 8, 8]
    assert motif_accuracy(distributions, labels, distance="jensen_shannon") == pytest.approx(3 / 4)


def test_jensen_shannon_over_whole_arrays_equals_scipy_pair_by_pair():
    from scipy.spatial.distance import cdist

    from modeling.training.metrics import jensen_shannon_distances

    rng = np.random.default_rng(0)
    rows = rng.dirichlet(np.full(7, 0.3), size=23)
    rows[0, :3] = 0  # zeros count as 0 log 0 = 0
    rows[5] *= 3  # rows are normalised, as scipy does
    expected = cdist(rows, rows, metric="jensenshannon")
    # Small blocks: the symmetric block-by-block filling is exercised.
    assert np.allclose(jensen_shannon_distances(rows, chunk_elements=50), expected, atol=1e-12)
    assert np.allclose(jensen_shannon_distances(rows), expected, atol=1e-12)


def test_cosine_motifs_ignore_vector_length():
    from modeling.training.metrics import motif_accuracy

    vectors = np.array([[1.0, 0.0], [10.0, 0.5], [0.0, 1.0], [0.2, 3.0]])
    assert motif_accuracy(vectors, [1, 1, 2, 2], distance="cosine") == 1.0
    assert motif_accuracy(vectors, [1, 1, 2, 2], distance="l2") == 0.5


# Span scores: words are runs of letters and digits, counted by position.
TEXT = "The cat sat, then the cat ran home."
# Words: The 0-3, cat 4-7, sat 8-11, then 13-17, the 18-21, cat 22-25, ran 26-29, home 30-34.


def test_span_overlap_by_hand():
    # Gold "cat sat" (words 1-2), predicted "sat, then the" (words 2-4): one word shared.
    scores = span_scores(TEXT, predicted=(8, 20), gold=(4, 11))
    assert scores["precision"] == pytest.approx(1 / 3)
    assert scores["recall"] == pytest.approx(1 / 2)
    assert scores["f1"] == pytest.approx(2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2))
    assert scores["exact"] == 0.0


def test_repeated_words_count_where_they_stand():
    # The second "the cat" is not the first one: no overlap although the words are equal.
    assert span_scores(TEXT, predicted=(18, 25), gold=(0, 7)) == {
        "precision": 0.0,
        "recall": 0.0,
        "f1": 0.0,
        "exact": 0.0,
    }


def test_punctuation_and_partial_words_and_exact_match():
    # "cat sat," and "cat sa" cover the same two words: exact, F1 1.
    assert span_scores(TEXT, predicted=(4, 12), gold=(4, 10))["exact"] == 1.0
    # ", " holds no word: against another span without words it agrees.
    assert span_scores(TEXT, predicted=(11, 13), gold=(12, 13))["exact"] == 1.0
    # An empty prediction against a gold word scores 0; two spans without words agree.
    assert span_scores(TEXT, predicted=(11, 13), gold=(4, 7))["f1"] == 0.0
    assert span_scores(TEXT, predicted=(11, 12), gold=(11, 13))["f1"] == 1.0


def test_span_metrics_average_each_measure_over_pairs():
    pairs = [
        {"precision": 1.0, "recall": 0.5, "f1": 2 / 3, "exact": 0.0},
        {"precision": 0.0, "recall": 0.0, "f1": 0.0, "exact": 0.0},
        {"precision": 1.0, "recall": 1.0, "f1": 1.0, "exact": 1.0},
    ]
    metrics = span_metrics(pairs)
    assert metrics["precision"] == pytest.approx(2 / 3)
    assert metrics["recall"] == pytest.approx(0.5)
    assert metrics["f1"] == pytest.approx((2 / 3 + 1) / 3)
    assert metrics["exact"] == pytest.approx(1 / 3) and metrics["total"] == 3
    assert span_metrics([]) == {
        "precision": None,
        "recall": None,
        "f1": None,
        "exact": None,
        "total": 0,
    }
