"""Times the cloze answer check (annotation.cloze_parsing.sentence_check) against its 300 ms budget.

Run from the repository root: `python bench/cloze/run.py`. Loads the spaCy pipeline of
PARABLE_SPACY_MODEL once (timed apart: it happens once per process), then checks answers
of 3, 12, 40 words and the longest accepted (500 characters), each 200 times, full
sentences and fragments alike, and prints median, 95th percentile and worst time per
length beside the budget, and the machine's load average. Prints figures; not a test.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

BUDGET_MS = 300
ROUNDS = 200
WORDS = [
    "the",
    "old",
    "fisherman",
    "slowly",
    "mended",
    "his",
    "torn",
    "nets",
    "beside",
    "the",
    "quiet",
    "harbour",
]


def answers(length: int) -> list[str]:
    """A full sentence and a fragment of about `length` words."""
    words = (WORDS * (length // len(WORDS) + 1))[:length]
    fragment = " ".join(words[1:])
    sentence = "She saw " + " ".join(words) + "."
    return [sentence[:500], fragment[:500]]


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    import django

    django.setup()
    from annotation.cloze_parsing import sentence_check

    started = time.perf_counter()
    sentence_check("The parser loads now.")
    print(f"pipeline load and first check: {(time.perf_counter() - started) * 1000:.0f} ms")
    print(f"{'words':>6} {'median ms':>10} {'p95 ms':>8} {'worst ms':>9} {'worst / budget':>15}")
    for length in (3, 12, 40, 120):
        times = []
        for round_number in range(ROUNDS):
            text = answers(length)[round_number % 2]
            began = time.perf_counter()
            sentence_check(text)
            times.append((time.perf_counter() - began) * 1000)
        times.sort()
        p95 = times[int(len(times) * 0.95) - 1]
        label = str(length) if length < 120 else "500ch"
        print(
            f"{label:>6} {statistics.median(times):>10.1f} {p95:>8.1f} {times[-1]:>9.1f} "
            f"{times[-1] / BUDGET_MS:>15.2f}"
        )
    print("load average (1, 5, 15 min):", " ".join(f"{value:.2f}" for value in os.getloadavg()))


if __name__ == "__main__":
    main()
