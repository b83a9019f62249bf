"""annotation.analysis.sentiment: VADER sentiment."""

from __future__ import annotations

import pytest

from annotation.analysis import sentiment

VADER_WORDS = (
    "the a man never so this without doubt kind of sort of not no nor or isn't don't "
    "DON'T GREAT good bad terrible wonderful lost but BUT at least very hardly kiss of "
    "death to die for bus stop the bomb yeah right happy sad angry friend, family; "
    "money! time? :) :( <3 \U0001f600 extremely slightly sorta kinda No LOVE hate"
)


def test_fast_vader_scores_equal_stock_vader():
    import random

    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    stock = SentimentIntensityAnalyzer()
    fast = sentiment.sentiment_analyzer()
    words = VADER_WORDS.split()
    rng = random.Random(5)
    texts = ["", "   ", "Good.", "NOT GOOD at all!!!", "kind of good but mostly bad??"]
    texts += ["İx. good", "GOOD İ. Kind of bad", "ǅ. good"]  # lower() changes İ's length
    texts += [" ".join(rng.choice(words) for _ in range(rng.randint(1, 60))) for _ in range(400)]
    for text in texts:
        scores = stock.polarity_scores(text)
        assert fast.polarity_scores(text) == scores, text
        assert fast.compound(text) == scores["compound"], text


def test_least_squares_equals_scipy_linregress():
    import random

    from scipy.stats import linregress

    rng = random.Random(3)
    for n in (2, 3, 10, 250):
        x = [rng.uniform(-1, 1) for _ in range(n)]
        y = [0.4 * value + rng.gauss(0, 0.3) for value in x]
        fit, reference = sentiment.least_squares(x, y, with_r=True), linregress(x, y)
        assert fit["slope"] == pytest.approx(reference.slope)
        assert fit["intercept"] == pytest.approx(reference.intercept)
        assert fit["pearson_r"] == pytest.approx(reference.rvalue)
        assert fit["p_value"] == pytest.approx(reference.pvalue, abs=1e-12)
    assert set(sentiment.least_squares([0, 1, 2], [1, 1, 1], with_r=False)) == {
        "slope",
        "intercept",
    }
