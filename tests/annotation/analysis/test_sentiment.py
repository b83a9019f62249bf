"""annotation.analysis.sentiment: VADER sentiment."""

from __future__ import annotations

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
    texts += [" ".join(rng.choice(words) for _ in range(rng.randint(1, 60))) for _ in range(400)]
    for text in texts:
        assert fast.polarity_scores(text) == stock.polarity_scores(text), text
