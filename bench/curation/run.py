"""Times variant grouping (annotation.curation.variants) on 300, 2,000 and 10,000 proverbs.

Run from the repository root: `python bench/curation/run.py`. The sets start with
the test fixtures (265 proverbs and 20 variants) and are filled with seeded word
sequences, 1 in 20 of them a mutated copy of an earlier one (truncated, a word
swapped or an "it's" added) so the grouping has real work to do. Prints figures;
it is not a test.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from annotation.curation.variants import propose_variant_groups  # noqa: E402
from annotation.text import normalize_text  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures"
SIZES = (300, 2_000, 10_000)
SEED = 20220522
SYLLABLES = [consonant + vowel for consonant in "bdklmrst" for vowel in "aeiou"]
FUNCTION_WORDS = [
    "a",
    "the",
    "of",
    "in",
    "is",
    "to",
    "and",
    "for",
    "with",
    "as",
    "no",
    "not",
    "you",
]


def fixture_proverbs() -> list[str]:
    base = (FIXTURES / "base_proverbs.txt").read_text(encoding="utf-8").splitlines()
    variants = (FIXTURES / "proverb_variants.tsv").read_text(encoding="utf-8").splitlines()
    return base + [line.split("\t")[0] for line in variants]


def vocabulary(rng: random.Random, fixture: list[str], size: int) -> list[str]:
    words = sorted({word for text in fixture for word in text.lower().split() if word.isalpha()})
    while len(words) < size:
        words.append("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return words


def mutate(rng: random.Random, text: str, words: list[str]) -> str:
    tokens = text.split()
    kind = rng.choice(("truncate", "swap", "prefix"))
    if kind == "truncate" and len(tokens) > 4:
        return " ".join(tokens[: rng.randint(3, len(tokens) - 1)])
    if kind == "swap":
        tokens[rng.randrange(len(tokens))] = rng.choice(words)
        return " ".join(tokens)
    return "It's " + text


def synthetic_proverbs(size: int) -> list[str]:
    rng = random.Random(SEED)
    fixture = fixture_proverbs()
    words = vocabulary(rng, fixture, 30_000)
    # Zipf-like draw: a few words are common, most are rare, as in real text.
    cumulative, total = [], 0.0
    for rank in range(len(words)):
        total += 1 / (rank + 10)
        cumulative.append(total)
    proverbs, seen = [], set()
    for text in fixture:
        key = normalize_text(text)
        if key not in seen:
            seen.add(key)
            proverbs.append(text)
    while len(proverbs) < size:
        if len(proverbs) > 300 and rng.random() < 0.05:
            text = mutate(rng, rng.choice(proverbs[285:]), words)
        else:
            content = rng.choices(words, cum_weights=cumulative, k=rng.randint(3, 7))
            function = rng.choices(FUNCTION_WORDS, k=rng.randint(1, 3))
            tokens = content + function
            rng.shuffle(tokens)
            text = " ".join(tokens).capitalize()
        key = normalize_text(text)
        if key not in seen:
            seen.add(key)
            proverbs.append(text)
    return proverbs[:size]


def main() -> None:
    print(f"{'proverbs':>9} {'groups':>7} {'grouped':>8} {'seconds (best of 3)':>20}")
    for size in SIZES:
        proverbs = list(enumerate(synthetic_proverbs(size), start=1))
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            groups = propose_variant_groups(proverbs)
            best = min(best, time.perf_counter() - started)
        grouped = sum(len(group.member_ids) for group in groups)
        print(f"{size:>9,} {len(groups):>7,} {grouped:>8,} {best:>20.3f}")


if __name__ == "__main__":
    main()
