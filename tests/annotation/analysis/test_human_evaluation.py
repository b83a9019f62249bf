"""annotation.analysis.human_evaluation: Welch's t-test beside scipy's."""

from __future__ import annotations

import random

import pytest
from scipy.stats import ttest_ind

from annotation.analysis.human_evaluation import welch_t_test


def test_welch_t_test_equals_scipy_ttest_ind_with_unequal_variances():
    rng = random.Random(8)
    for size_a, size_b in ((2, 2), (2, 9), (40, 25), (300, 310)):
        a = [rng.randint(1, 5) for _ in range(size_a)]
        b = [min(5, rng.randint(1, 5) + 1) for _ in range(size_b)]
        if len(set(a)) == len(set(b)) == 1:
            continue
        t, p = welch_t_test(a, b)
        reference = ttest_ind(a, b, equal_var=False)
        assert t == pytest.approx(reference.statistic)
        assert p == pytest.approx(reference.pvalue, abs=1e-12)


def test_welch_t_test_of_two_constant_samples_is_undefined():
    assert welch_t_test([3, 3], [4, 4, 4]) == (None, None)
