"""annotation.analysis.lexical: n-gram overlap baseline and diversity sampling."""

from __future__ import annotations

import json
from itertools import combinations

import numpy as np
import pytest

from annotation.analysis import lexical
from annotation.analysis.core import analyze
from annotation.analysis.lexical import _distinct_ngram_counts
from annotation.task_parts.records import (
    NarrativeRecord,
)
from annotation.text import jaccard, simple_tokens
from tests.annotation.analysis.test_core import NARRATIVES


def test_random_baseline_is_seeded():
    again = analyze(NARRATIVES, seed=7)
    other_seeds = {
        json.dumps(analyze(NARRATIVES, seed=s)["jaccard"], sort_keys=True) for s in range(6)
    }
    assert again["jaccard"] == analyze(NARRATIVES, seed=7)["jaccard"]
    assert len(other_seeds) > 1  # the seed matters


def test_diversity_sampling_is_valid_and_seeded():
    groups = [g for g in range(30) for _ in range(7)]  # 30 proverbs x 7 narratives
    total_same = 30 * 21
    total_different = 210 * 209 // 2 - total_same
    for same, total in ((True, total_same), (False, total_different)):
        first, second, exist = lexical.diversity_pairs(groups, same=same, max_pairs=500, seed=3)
        assert exist == total
        assert len(first) == len(second) == 500
        assert np.all(first != second)
        labels = np.asarray(groups)
        assert np.all((labels[first] == labels[second]) == same)
        again = lexical.diversity_pairs(groups, same=same, max_pairs=500, seed=3)
        assert np.array_equal(again[0], first) and np.array_equal(again[1], second)
        # Below the cap, every pair exactly once.
        first, second, _ = lexical.diversity_pairs(groups, same=same, max_pairs=10**6, seed=3)
        pairs = {tuple(sorted(p)) for p in zip(first.tolist(), second.tolist(), strict=True)}
        assert len(pairs) == len(first) == total


def test_diversity_sample_estimates_the_exact_mean():
    texts = [" ".join(f"w{(i * 7 + k * 3) % 40}" for k in range(12 + i % 5)) for i in range(120)]
    records = [NarrativeRecord(i, i // 6, "p", t, "approved", f"w{i}") for i, t in enumerate(texts)]
    exact = analyze(records, diversity_max_pairs=10**6)["diversity"]
    sampled = analyze(records, diversity_max_pairs=3000)["diversity"]
    assert sampled["different_proverbs_sampled"] == 3000
    assert sampled["different_proverbs"] == pytest.approx(exact["different_proverbs"], abs=0.01)
    # Brute force for the exact value, with annotation.text.jaccard.
    sets = [set(simple_tokens(t)) for t in texts]
    values = [jaccard(sets[a], sets[b]) for a, b in combinations(range(120), 2) if a // 6 != b // 6]
    assert exact["different_proverbs"] == pytest.approx(sum(values) / len(values))


def test_distinct_ngram_count_without_the_compact_code():
    ids = np.array([0, 1, 2, 0, 1, 2, 0, 1], dtype=np.int32)
    lengths = np.array([3, 3, 2])
    # Bigrams (0,1) (1,2) -> 2; trigram (0,1,2) -> 1; same through the fallback path.
    assert _distinct_ngram_counts(ids, lengths, 3) == (2, 1)
    assert _distinct_ngram_counts(ids, lengths, 2**22) == (2, 1)


def test_merged_parts_do_not_depend_on_how_the_dataset_was_divided():
    from bench.analysis import synthetic

    records = [r for r in synthetic.narratives(240, seed=3) if r.status == "approved"]
    texts = [r.text for r in records]
    proverbs = [r.proverb for r in records]
    perm = lexical.random_proverb_permutation(len(records), 5)
    others = [proverbs[j] for j in perm]

    def merged(size):
        parts = [
            lexical.lexical_part(texts[lo : lo + size], proverbs[lo : lo + size], others[lo:])
            for lo in range(0, len(records), size)
        ]
        report = []
        result = lexical.LexicalMerge().result(
            records, parts, seed=5, max_pairs=1_000, report=lambda *a: report.append(a)
        )
        return result, report

    whole, _ = merged(len(records))
    for size in (1, 7, 100):
        result, report = merged(size)
        assert result == whole  # exact: the means are summed in dataset order
        assert report[-1] == (2, 2, "diversity")
    with pytest.raises(ValueError, match="not 3"):
        lexical.LexicalMerge().result(
            records[:3],
            [lexical.lexical_part(texts[:2], proverbs[:2], others[:2])],
            seed=5,
            max_pairs=10,
            report=lambda *a: None,
        )


def test_simple_tokens_from_whitespace_tokens_equal_the_regex_on_the_text():
    import random

    from annotation.text import whitespace_tokens

    pieces = ["Word", "end.", "don't", "snake_case", "naïve", "İstanbul", "3.5km", "—", "a-b"]
    pieces += ["(x)", "½", "x²", "\u00a0", "Ⅻ", "e.g.", "!", "ǅ"]
    rng = random.Random(2)
    for _ in range(2_000):
        text = "".join(rng.choice(pieces) + rng.choice([" ", "", "\n", "\t"]) for _ in range(9))
        tokens = whitespace_tokens(text.lower())
        assert lexical._simple_tokens_of(tokens) == simple_tokens(text), repr(text)


def test_overlap_with_the_proverb_equals_the_n_gram_sets_of_annotation_text():
    from annotation.text import ngrams

    proverb = "Still waters run deep"
    texts = [
        "The still waters of the lake run deep, and still waters run deep again.",  # 2, 3-grams
        "Deep in the forest the waters were still; nothing would run.",  # words, no pairs
        "Run, deep still waters!",  # the words, another order
        "Nothing here is shared at all.",
        "",
    ]
    part = lexical.lexical_part(texts, [proverb] * len(texts), ["Time is money"] * len(texts))
    theirs = simple_tokens(proverb)
    for i, text in enumerate(texts):
        mine = simple_tokens(text.lower())
        for k, n in enumerate((1, 2, 3)):
            assert part.jaccard[0, k, i] == pytest.approx(
                jaccard(set(ngrams(mine, n)), set(ngrams(theirs, n)))
            )
    assert part.common[0].tolist() == [
        sum(len(set(ngrams(simple_tokens(t.lower()), n)) & set(ngrams(theirs, n))) for t in texts)
        for n in (1, 2, 3)
    ]
    assert part.common[0, 2] > 0  # the first text shares a word triple
