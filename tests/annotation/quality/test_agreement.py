"""Agreement and aggregation measures on small cases computed by hand.

Pure Python: runs with `pytest -p no:django`.
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import pytest

from annotation.quality.agreement import (
    aggregate_accuracy,
    alpha_note,
    choice_accuracy,
    dawid_skene,
    krippendorff_alpha,
    majority_vote,
    majority_vote_ties,
    pairwise_binary_agreement,
    pairwise_label_agreement,
    rating_summary,
    span_agreement,
    span_token_scores,
    worker_gold_accuracy,
)


def approx(value):
    return pytest.approx(float(value), abs=1e-9)


def triples_from_matrix(matrix, annotators="ABCD"):
    """Reliability data (one row per annotator, None = no rating) as triples."""
    return [
        (unit, annotator, value)
        for annotator, row in zip(annotators, matrix, strict=False)
        for unit, value in enumerate(row, start=1)
        if value is not None
    ]


# --------------------------------------------------------------------------- pairwise agreement

# 3 raters x 4 items, threshold 3 (good = >= 3):
#   n1: 5, 4, 3 -> G G G -> pairs (a,b) (a,c) (b,c) all agree  -> 3/3 = 1
#   n2: 4, 2, 1 -> G P P -> only (b,c) agrees                  -> 1/3
#   n3: 3, 2    -> G P   -> the single pair disagrees          -> 0/1 = 0
#   n4: 5       -> one rating: left out
#   mean over n1..n3 = (1 + 1/3 + 0) / 3 = 4/9
LIKERT = [
    ("n1", "a", 5),
    ("n1", "b", 4),
    ("n1", "c", 3),
    ("n2", "a", 4),
    ("n2", "b", 2),
    ("n2", "c", 1),
    ("n3", "a", 3),
    ("n3", "b", 2),
    ("n4", "a", 5),
]


def test_pairwise_binary_agreement_hand_case():
    assert pairwise_binary_agreement(LIKERT) == approx(F(4, 9))


def test_pairwise_binary_agreement_threshold_moves_the_cut():
    # threshold 4: n1 G G P -> 1/3; n2 G P P -> 1/3; n3 P P -> 1; mean = 5/9
    assert pairwise_binary_agreement(LIKERT, threshold=4) == approx(F(5, 9))


def test_pairwise_binary_agreement_undefined_and_missing():
    assert pairwise_binary_agreement([]) is None
    assert pairwise_binary_agreement([("n1", "a", 5), ("n2", "a", 1)]) is None
    # A missing value is no rating: n1 has one real rating, so nothing to pair.
    assert pairwise_binary_agreement([("n1", "a", 5), ("n1", "b", None)]) is None


def test_pairwise_label_agreement_on_choices():
    # q1: A A B -> (1,2) agree of 3 pairs = 1/3; q2: C C -> 1; mean = 2/3
    answers = [("q1", 1, "A"), ("q1", 2, "A"), ("q1", 3, "B"), ("q2", 1, "C"), ("q2", 2, "C")]
    assert pairwise_label_agreement(answers) == approx(F(2, 3))


def test_conflicting_values_for_one_annotator_are_an_error():
    with pytest.raises(ValueError, match="two values"):
        pairwise_binary_agreement([("n1", "a", 5), ("n1", "a", 1), ("n1", "b", 1)])
    # an exact repeat counts once
    assert pairwise_binary_agreement([("n1", "a", 5), ("n1", "a", 5), ("n1", "b", 1)]) == 0.0


# --------------------------------------------------------------------------- Krippendorff's alpha

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C:
# 4 observers x 12 units, None = missing.
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


def test_alpha_nominal_textbook_example():
    # Unit 12 has one value: not pairable. n = 40 pairable values.
    # Disagreeing ordered pairs, each weighted 1/(m_u - 1):
    #   u2 (2,2,3,2): 6 pairs / 3 = 2;  u6 (1,2,3,4): 12 / 3 = 4;  u8 (1,1,2,1): 6 / 3 = 2
    #   -> sum o_ck (c != k) = 8
    # Value totals: n_1 = 9, n_2 = 13, n_3 = 10, n_4 = 5, n_5 = 3
    #   -> sum n_c n_k (c != k) = 40^2 - (81 + 169 + 100 + 25 + 9) = 1216
    # alpha = 1 - (n - 1) * 8 / 1216 = 1 - 312/1216 = 113/152 = 0.7434 (paper: 0.743)
    ratings = triples_from_matrix(KRIPPENDORFF_2011)
    alpha = krippendorff_alpha(ratings, level="nominal")
    assert alpha == approx(F(113, 152))
    assert round(alpha, 3) == 0.743


def test_alpha_other_levels_textbook_example():
    # The same paper's figures for the same data.
    ratings = triples_from_matrix(KRIPPENDORFF_2011)
    assert round(krippendorff_alpha(ratings, level="ordinal"), 3) == 0.815
    assert round(krippendorff_alpha(ratings, level="interval"), 3) == 0.849
    assert round(krippendorff_alpha(ratings, level="ratio"), 3) == 0.797


def test_alpha_nominal_string_labels_are_mapped():
    # Same data with words for the values: nominal alpha depends only on equality.
    words = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}
    ratings = [(u, a, words[v]) for u, a, v in triples_from_matrix(KRIPPENDORFF_2011)]
    assert krippendorff_alpha(ratings, level="nominal") == approx(F(113, 152))


# Two coders, three units: A = (1, 2, 3), B = (1, 2, 4). n = 6 values 1,1,2,2,3,4.
SMALL = triples_from_matrix([[1, 2, 3], [1, 2, 4]], annotators="AB")


def test_alpha_interval_hand_case():
    # D_o = (1/n) * sum over units of ordered pairs / (m_u - 1): only u3, 2 * (3-4)^2 = 2
    #     -> D_o = 2/6 = 1/3
    # D_e = 1/(n(n-1)) * sum over ordered pairs of all values of (c-k)^2
    #     unordered sum = n * sum v^2 - (sum v)^2 = 6*35 - 13^2 = 41 -> ordered 82
    #     -> D_e = 82/30 = 41/15
    # alpha = 1 - (1/3)/(41/15) = 1 - 5/41 = 36/41
    assert krippendorff_alpha(SMALL, level="interval") == approx(F(36, 41))


def test_alpha_ordinal_hand_case():
    # Counts n_1 = 2, n_2 = 2, n_3 = 1, n_4 = 1.
    # delta(c,k) = (sum_{g=c..k} n_g - (n_c + n_k)/2)^2:
    #   d12 = (4-2)^2 = 4, d13 = (5-1.5)^2 = 12.25, d14 = (6-1.5)^2 = 20.25,
    #   d23 = (3-1.5)^2 = 2.25, d24 = (4-1.5)^2 = 6.25, d34 = (2-1)^2 = 1
    # D_o = 2 * d34 / 6 = 1/3
    # sum n_c n_k d (c<k) = 16 + 24.5 + 40.5 + 4.5 + 12.5 + 1 = 99 -> D_e = 2*99/30 = 6.6
    # alpha = 1 - (1/3)/6.6 = 1 - 5/99 = 94/99
    assert krippendorff_alpha(SMALL, level="ordinal") == approx(F(94, 99))


def test_alpha_nominal_hand_case():
    # A = (1, 2, 1), B = (1, 2, 2): n = 6, n_1 = n_2 = 3.
    # D_o = 2/6 = 1/3 (u3 disagrees);  D_e = 2*3*3/(6*5) = 3/5;  alpha = 1 - 5/9 = 4/9
    ratings = triples_from_matrix([[1, 2, 1], [1, 2, 2]], annotators="AB")
    assert krippendorff_alpha(ratings, level="nominal") == approx(F(4, 9))


def test_alpha_perfect_agreement_is_one():
    ratings = triples_from_matrix([[1, 3, 5, 2], [1, 3, 5, 2], [1, None, 5, 2]], "ABC")
    for level in ("nominal", "ordinal", "interval"):
        assert krippendorff_alpha(ratings, level=level) == approx(1)


def test_alpha_undefined_cases_are_none():
    assert krippendorff_alpha([], level="ordinal") is None
    # one pairable item only
    assert krippendorff_alpha([(1, "A", 1), (1, "B", 2), (2, "A", 3)], level="interval") is None
    # a single value overall: no expected disagreement
    same = triples_from_matrix([[4, 4, 4], [4, 4, 4]], annotators="AB")
    assert krippendorff_alpha(same, level="nominal") is None
    assert krippendorff_alpha(same, level="interval") is None


def test_alpha_bad_arguments():
    with pytest.raises(ValueError, match="level"):
        krippendorff_alpha(SMALL, level="cardinal")
    with pytest.raises(ValueError, match="numeric"):
        krippendorff_alpha(
            [(1, "A", "x"), (1, "B", "y"), (2, "A", "x"), (2, "B", "x")], level="ordinal"
        )


# --------------------------------------------------------------------------- spans

TEXT = "The early bird catches the worm."
# tokens: 0 The [0,3)  1 early [4,9)  2 bird [10,14)  3 catches [15,22)
#         4 the [23,26)  5 worm [27,31)   ("." at 31 is no token)
EARLY_BIRD = (4, 14)  # {1, 2}
EARLY_TO_CATCHES = (4, 22)  # {1, 2, 3}
BIRD_TO_WORM = (10, 31)  # {2, 3, 4, 5}


def test_span_identical():
    assert span_token_scores([EARLY_BIRD], [EARLY_BIRD], TEXT) == {
        "precision": 1.0,
        "recall": 1.0,
        "f1": 1.0,
        "exact": 1.0,
    }


def test_span_partial_overlap():
    # pred {1,2,3}, ref {2,3,4,5}: common {2,3}
    # P = 2/3, R = 2/4, F1 = 2 * (2/3)(1/2) / (2/3 + 1/2) = 4/7
    scores = span_token_scores([EARLY_TO_CATCHES], [BIRD_TO_WORM], TEXT)
    assert scores == {
        "precision": approx(F(2, 3)),
        "recall": approx(F(1, 2)),
        "f1": approx(F(4, 7)),
        "exact": 0.0,
    }


def test_span_disjoint():
    # "The" {0} vs "worm" {5}
    assert span_token_scores([(0, 3)], [(27, 31)], TEXT) == {
        "precision": 0.0,
        "recall": 0.0,
        "f1": 0.0,
        "exact": 0.0,
    }


def test_span_cutting_through_words_covers_whole_tokens():
    # (6, 12) is "rly bi": overlaps "early" and "bird" -> {1, 2}; ref "bird" {2}
    # P = 1/2, R = 1, F1 = 2/3
    scores = span_token_scores([(6, 12)], [(10, 14)], TEXT)
    assert scores == {
        "precision": approx(F(1, 2)),
        "recall": 1.0,
        "f1": approx(F(2, 3)),
        "exact": 0.0,
    }


def test_span_boundaries_and_overlapping_spans():
    # (0, 4) is "The ": ends where "early" starts, so covers {0} only.
    assert span_token_scores([(0, 4)], [(0, 3)], TEXT)["f1"] == 1.0
    # pred (0,9) {0,1} + (4,14) {1,2} = {0,1,2}; ref (10,22) {2,3}: common {2}
    # P = 1/3, R = 1/2, F1 = 2 * (1/6) / (5/6) = 2/5
    scores = span_token_scores([(0, 9), (4, 14)], [(10, 22)], TEXT)
    assert scores == {
        "precision": approx(F(1, 3)),
        "recall": approx(F(1, 2)),
        "f1": approx(F(2, 5)),
        "exact": 0.0,
    }


def test_span_empty_conventions():
    ones = {"precision": 1.0, "recall": 1.0, "f1": 1.0, "exact": 1.0}
    zeros = {"precision": 0.0, "recall": 0.0, "f1": 0.0, "exact": 0.0}
    assert span_token_scores([], [], TEXT) == ones
    # whitespace, punctuation and empty spans cover no token
    assert span_token_scores([(3, 4), (31, 32), (5, 5)], [], TEXT) == ones
    assert span_token_scores([], [EARLY_BIRD], TEXT) == zeros
    assert span_token_scores([EARLY_BIRD], [], TEXT) == zeros


def test_span_out_of_range_is_an_error():
    with pytest.raises(ValueError):
        span_token_scores([(0, 33)], [], TEXT)
    with pytest.raises(ValueError):
        span_token_scores([(5, 4)], [], TEXT)


def test_span_agreement_over_ordered_pairs():
    # n1: a {1,2,3}, b {2,3,4,5}, c {1,2}
    #   (a,b) P 2/3 R 1/2 F1 4/7    (b,a) P 1/2 R 2/3 F1 4/7
    #   (a,c) P 2/3 R 1   F1 4/5    (c,a) P 1   R 2/3 F1 4/5
    #   (b,c) P 1/4 R 1/2 F1 1/3    (c,b) P 1/2 R 1/4 F1 1/3
    #   sum P = sum R = 43/12;  sum F1 = 2 * (4/7 + 4/5 + 1/3) = 358/105
    # n2: two annotators with the same span -> 2 pairs of 1, 1, 1
    # n3: one annotator -> no pair
    # 8 pairs: P = R = (43/12 + 2) / 8 = 67/96;  F1 = (358/105 + 2) / 8 = 71/105
    alignments = {
        "n1": {"a": [EARLY_TO_CATCHES], "b": [BIRD_TO_WORM], "c": [EARLY_BIRD]},
        "n2": {"a": [(2, 8)], "b": [(2, 8)]},
        "n3": {"a": [(0, 3)]},
    }
    texts = {"n1": TEXT, "n2": "A stitch in time saves nine.", "n3": TEXT}
    result = span_agreement(alignments, texts)
    assert result == {
        "precision": approx(F(67, 96)),
        "recall": approx(F(67, 96)),
        "f1": approx(F(71, 105)),
        "pairs": 8,
        "items": 2,
    }


def test_span_agreement_without_pairs():
    nothing = {"precision": None, "recall": None, "f1": None, "pairs": 0, "items": 0}
    assert span_agreement({}, {}) == nothing
    assert span_agreement({"n1": {"a": [EARLY_BIRD]}}, {"n1": TEXT}) == nothing


# --------------------------------------------------------------------------- multiple choice


def test_choice_accuracy_and_worker_gold_accuracy():
    gold = {"q1": "A", "q2": "C"}
    answers = [
        ("q1", "w1", "A"),
        ("q1", "w2", "B"),
        ("q2", "w1", "C"),
        ("q2", "w2", "C"),
        ("q2", "w3", "D"),
        ("q9", "w3", "A"),  # not a gold question: ignored
    ]
    # gold answers: q1 A B, q2 C C D -> 3 of 5 correct
    assert choice_accuracy(answers, gold) == approx(F(3, 5))
    assert worker_gold_accuracy(answers, gold) == {
        "w1": {"correct": 2, "total": 2, "accuracy": 1.0},
        "w2": {"correct": 1, "total": 2, "accuracy": 0.5},
        "w3": {"correct": 0, "total": 1, "accuracy": 0.0},
    }
    assert choice_accuracy([], gold) is None
    assert choice_accuracy([("q9", "w1", "A")], gold) is None
    assert worker_gold_accuracy([], gold) == {}


def test_majority_vote_clear_case_and_ties():
    answers = [
        # clear: 2 A vs 1 B
        ("q1", "w1", "A"),
        ("q1", "w2", "A"),
        ("q1", "w3", "B"),
        # tie, larger label seen first: C vs B -> the smaller, B
        ("q2", "w1", "C"),
        ("q2", "w2", "B"),
        # three-way tie among ints -> 1
        (("n7", 0), "w1", 3),
        (("n7", 0), "w2", 1),
        (("n7", 0), "w3", 2),
    ]
    assert majority_vote(answers) == {"q1": "A", "q2": "B", ("n7", 0): 1}
    # the same answers in another order give the same result
    assert majority_vote(list(reversed(answers))) == {"q1": "A", "q2": "B", ("n7", 0): 1}
    assert majority_vote([]) == {}
    assert majority_vote_ties(answers) == {"q2": ["B", "C"], ("n7", 0): [1, 2, 3]}
    assert majority_vote_ties(list(reversed(answers))) == majority_vote_ties(answers)


# Five-option questions. R answers every question correctly; S1 and S2 are
# spammers who always pick "A"; Q1 and Q2 answer correctly, but only q1-q4 and q7.
DS_GOLD = {"q1": "B", "q2": "C", "q3": "D", "q4": "E", "q5": "B", "q6": "C", "q7": "A", "q8": "D"}
DS_ANSWERS = [
    (question, worker, label)
    for question, correct in DS_GOLD.items()
    for worker, label in [("R", correct), ("S1", "A"), ("S2", "A")]
    + ([("Q1", correct), ("Q2", correct)] if question in {"q1", "q2", "q3", "q4", "q7"} else [])
]


def test_dawid_skene_recovers_gold_where_majority_vote_fails():
    # Majority vote: q1-q4 and q7 are right (3 against 2, or unanimous), but on
    # q5, q6, q8 the two spammers outvote R -> "A": 5/8 correct.
    mv = majority_vote(DS_ANSWERS)
    assert mv == {**DS_GOLD, "q5": "A", "q6": "A", "q8": "A"}
    assert aggregate_accuracy(mv, DS_GOLD) == approx(F(5, 8))
    # Dawid-Skene learns from q1-q4 that S1 and S2 say "A" whatever the truth
    # (their answers carry no information) and that R never says B/C/D when the
    # truth is another label, so R decides q5, q6, q8: 8/8 correct.
    ds = dawid_skene(DS_ANSWERS)
    assert ds == DS_GOLD
    assert aggregate_accuracy(ds, DS_GOLD) == 1.0
    assert dawid_skene([]) == {}


def test_aggregate_accuracy_counts_shared_questions_only():
    assert aggregate_accuracy({"q1": "A", "q2": "B", "q3": "C"}, {"q1": "A", "q2": "C"}) == 0.5
    assert aggregate_accuracy({"q3": "C"}, {"q1": "A"}) is None


# --------------------------------------------------------------------------- summary


def test_rating_summary():
    summary = rating_summary(LIKERT)
    # 9 ratings summing to 29 over 4 items
    assert summary["items"] == 4
    assert summary["ratings"] == 9
    assert summary["mean"] == approx(F(29, 9))
    assert summary["pairwise_agreement"] == approx(F(4, 9))
    assert summary["alpha"] == pytest.approx(krippendorff_alpha(LIKERT, level="ordinal"))
    assert not math.isnan(summary["alpha"])


def test_alpha_note_explains_a_negative_alpha_beside_perfect_pairwise_agreement():
    # Every rating in 3-5: all "good", so pairwise agreement is 1 while alpha is below 0.
    ratings = [(1, "a", 3), (1, "b", 4), (2, "a", 4), (2, "b", 5), (3, "a", 5), (3, "b", 3)]
    summary = rating_summary(ratings)
    assert summary["pairwise_agreement"] == 1.0 and summary["alpha"] < 0
    assert summary["alpha_note"].startswith("Unstable: every rating is between 3 and 5")
    assert "Few items: 3 have two ratings or more" in summary["alpha_note"]


@pytest.mark.parametrize(
    ("ratings", "note"),
    [
        ([(1, "a", 4), (1, "b", 4), (2, "a", 2)], "Undefined: fewer than two items"),
        ([(1, "a", 4), (1, "b", 4), (2, "a", 4), (2, "b", 4)], "Undefined: every rating"),
    ],
)
def test_alpha_note_says_why_alpha_is_undefined(ratings, note):
    summary = rating_summary(ratings)
    assert summary["alpha"] is None and summary["alpha_note"].startswith(note)


def test_alpha_note_flags_two_values_and_stays_silent_on_spread_data():
    two_values = [(item, worker, "A" if item % 7 else "B") for item in range(12) for worker in "ab"]
    two_values[0] = (0, "a", "A")
    alpha = krippendorff_alpha(two_values, level="nominal")
    assert "at most two values" in alpha_note(two_values, alpha=alpha)
    spread = [
        (item, worker, (item + offset) % 5 + 1)
        for item in range(12)
        for worker, offset in (("a", 0), ("b", 0), ("c", item % 2))
    ]
    summary = rating_summary(spread)
    assert summary["alpha"] > 0.5 and summary["alpha_note"] == ""


def test_rating_summary_interval_alpha_hand_case():
    # Pairable: n1 (5,4,3), n2 (4,2,1), n3 (3,2); n = 8 values, n4 left out.
    # D_o: n1 ordered pairs 2*(1+4+1) = 12, /(3-1) = 6; n2 2*(4+9+1) = 28, /2 = 14;
    #      n3 2*1 = 2, /1 = 2  -> D_o = 22/8 = 11/4
    # D_e: sum v = 24, sum v^2 = 84 -> unordered sum (c-k)^2 = 8*84 - 24^2 = 96,
    #      ordered 192 -> D_e = 192/56 = 24/7
    # alpha = 1 - (11/4)/(24/7) = 1 - 77/96 = 19/96
    summary = rating_summary(LIKERT, criterion_levels="interval")
    assert summary["alpha"] == approx(F(19, 96))


def test_rating_summary_empty():
    assert rating_summary([]) == {
        "items": 0,
        "ratings": 0,
        "mean": None,
        "pairwise_agreement": None,
        "alpha": None,
        "alpha_note": "Undefined: fewer than two items have two ratings or more.",
    }
