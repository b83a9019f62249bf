"""Two runs compared item by item: paired bootstrap interval and permutation p-value."""

import random

import pytest

from modeling.training.comparison import paired_comparison


def test_a_clear_difference_has_an_interval_off_zero_and_a_small_p_value():
    rng = random.Random(0)
    better = {item: float(rng.random() < 0.7) for item in range(300)}
    worse = {item: float(rng.random() < 0.4) for item in range(300)}
    result = paired_comparison(better, worse, resamples=2_000)
    assert result["items"] == 300
    assert result["difference"] == pytest.approx(result["first"] - result["second"])
    assert 0 < result["low"] < result["difference"] < result["high"]
    assert result["p_value"] < 0.01


def test_runs_of_the_same_skill_differ_by_chance():
    rng = random.Random(1)
    first = {item: float(rng.random() < 0.5) for item in range(200)}
    second = {item: float(rng.random() < 0.5) for item in range(200)}
    result = paired_comparison(first, second, resamples=2_000)
    assert result["low"] < 0 < result["high"] and result["p_value"] > 0.05


def test_identical_runs_differ_by_nothing():
    scores = {item: item % 3 / 2 for item in range(50)}
    result = paired_comparison(scores, dict(scores))
    assert result["difference"] == 0 and result["low"] == result["high"] == 0
    assert result["p_value"] == 1


def test_only_the_items_both_runs_scored_are_compared_and_too_few_are_refused():
    result = paired_comparison({1: 1.0, 2: 0.0, 3: 1.0}, {2: 1.0, 3: 1.0, 4: 0.0}, resamples=99)
    assert result["items"] == 2 and result["only_first"] == 1 and result["only_second"] == 1
    with pytest.raises(ValueError, match="share 1 scored test item"):
        paired_comparison({1: 1.0, 2: 0.0}, {2: 1.0, 5: 0.0})
