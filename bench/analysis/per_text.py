"""Benchmark of the dataset analysis's per-text measures against the stock components they
stand in for: sentence counting and VADER sentiment, in milliseconds per narrative.

Run: .venv/bin/python bench/analysis/per_text.py [--texts 2000] [--rounds 4]

Sentences: annotation.analysis.sentences's VectorizedSentencizer (the default) against
spaCy's own ``sentencizer`` component over the same blank English tokenizer
(``build_sentencizer(vectorized=False)``). Sentiment: annotation.analysis.vader's analyzer
against vaderSentiment's SentimentIntensityAnalyzer (the same scores). Each narrative is
cut to 65 words (ePiC's stories average 64). Each round times both, in the order A B then
B A, on narratives of a fresh vocabulary (bench/analysis/synthetic.py, a new seed each
run), so no tokenizer cache is warm for them; the ratios are taken round by round.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from annotation.analysis.sentences import build_sentencizer  # noqa: E402
from annotation.analysis.vader import FastSentimentIntensityAnalyzer  # noqa: E402
from bench.analysis.synthetic import TextGenerator  # noqa: E402

WORDS = 65


def _narratives(count: int, seed: int) -> list[str]:
    generator = TextGenerator(seed, content_words=20_000)
    texts = []
    while len(texts) < count:
        words = generator.narrative().split()
        if len(words) >= WORDS:
            texts.append(" ".join(words[:WORDS]))
    return texts


def _ms_per_text(measure, texts: list[str]) -> float:
    start = time.perf_counter()
    measure(texts)
    return (time.perf_counter() - start) / len(texts) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    fast, stock = FastSentimentIntensityAnalyzer(), SentimentIntensityAnalyzer()
    pairs = {
        "sentences": (build_sentencizer(vectorized=True), build_sentencizer(vectorized=False)),
        "sentiment": (
            lambda texts: [fast.polarity_scores(text)["compound"] for text in texts],
            lambda texts: [stock.polarity_scores(text)["compound"] for text in texts],
        ),
    }
    for ours, theirs in pairs.values():  # build and warm both outside the timings
        ours(_narratives(20, seed=1))
        theirs(_narratives(20, seed=2))
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    seed = 100
    for name, (ours, theirs) in pairs.items():
        times = {"Parable's": [], "stock": []}
        for round_ in range(args.rounds):
            order = [("Parable's", ours), ("stock", theirs)]
            for label, measure in order if round_ % 2 == 0 else order[::-1]:
                seed += 1
                times[label].append(_ms_per_text(measure, _narratives(args.texts, seed)))
        for label, values in times.items():
            print(
                f"{name}, {label}: median {statistics.median(values):.3f} ms a narrative "
                f"(min {min(values):.3f}, max {max(values):.3f})"
            )
        ratios = [
            stock / ours for ours, stock in zip(times["Parable's"], times["stock"], strict=True)
        ]
        print(f"{name}: stock / Parable's, round by round: {[round(r, 1) for r in ratios]}")
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
