"""Lexical statistics for the dataset analysis: vocabulary and distinct n-grams, overlap
between narratives and proverbs with a random baseline, and narrative diversity."""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

import numpy as np

from annotation.analysis.common import Index, ProgressCallback, mean_or_none
from annotation.analysis.records import NarrativeRecord
from annotation.text import simple_tokens, whitespace_tokens

_PAIR_CHUNK = 50_000


def random_proverb_permutation(n: int, seed: int) -> np.ndarray:
    """The random baseline's assignment: narrative i gets the proverb of narrative perm[i]."""
    return np.random.default_rng(seed).permutation(n)


def _ngram_sets(tokens: list[str]) -> tuple[set, set, set]:
    """Distinct 1-, 2-, 3-grams (unigrams as strings, longer n-grams as tuples).

    Same sets (up to the 1-tuples of unigrams) as ``set(text.ngrams(tokens, n))``.
    """
    return (
        set(tokens),
        set(pairwise(tokens)),
        set(zip(tokens, tokens[1:], tokens[2:], strict=False)),
    )


def diversity_pairs(
    groups: Sequence[int], *, same: bool, max_pairs: int, seed: int
) -> tuple[np.ndarray, np.ndarray, int]:
    """Index pairs (i, j), i != j, of items whose group is equal (same) or differs.

    All such unordered pairs when there are at most ``max_pairs`` of them, else
    ``max_pairs`` pairs drawn uniformly with replacement with
    ``default_rng((seed, 1 if same else 2))``. Returns (first, second, pairs that exist).
    """
    labels = np.asarray(groups, dtype=np.int64)
    n = len(labels)
    empty = np.empty(0, dtype=np.int64)
    if n < 2:
        return empty, empty, 0
    order = np.argsort(labels, kind="stable")
    ordered = labels[order]
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    sizes = np.diff(np.append(starts, n))
    within = sizes * (sizes - 1) // 2
    total_same = int(within.sum())
    total = 0
    if same:
        total = total_same
        if total == 0:
            return empty, empty, 0
        if total <= max_pairs:
            firsts, seconds = [], []
            for start, size in zip(starts, sizes, strict=True):
                if size >= 2:
                    a, b = np.triu_indices(int(size), 1)
                    firsts.append(order[start + a])
                    seconds.append(order[start + b])
            return np.concatenate(firsts), np.concatenate(seconds), total
        rng = np.random.default_rng((seed, 1))
        g = rng.choice(len(sizes), size=max_pairs, p=within / total_same)
        s = sizes[g]
        a = rng.integers(0, s)
        b = rng.integers(0, s - 1)
        b = b + (b >= a)
        return order[starts[g] + a], order[starts[g] + b], total
    total = n * (n - 1) // 2 - total_same
    if total == 0:
        return empty, empty, 0
    if total <= max_pairs:
        firsts, seconds = [], []
        for start, size in zip(starts, sizes, strict=True):
            end = int(start + size)
            if end >= n:
                continue
            a = np.repeat(np.arange(start, end), n - end)
            b = np.tile(np.arange(end, n), int(size))
            firsts.append(order[a])
            seconds.append(order[b])
        return np.concatenate(firsts), np.concatenate(seconds), total
    rng = np.random.default_rng((seed, 2))
    # Ordered pairs uniform over different-group pairs: first item weighted by its
    # number of partners, second uniform among the items of the other groups.
    group_of_pos = np.repeat(np.arange(len(sizes)), sizes)
    weights = (n - sizes[group_of_pos]).astype(np.float64)
    pos_a = rng.choice(n, size=max_pairs, p=weights / weights.sum())
    ga = group_of_pos[pos_a]
    k = rng.integers(0, n - sizes[ga])
    pos_b = np.where(k < starts[ga], k, k + sizes[ga])
    return order[pos_a], order[pos_b], total


def _pair_jaccard_mean(
    indptr: np.ndarray, indices: np.ndarray, vocab: int, first: np.ndarray, second: np.ndarray
) -> float | None:
    if len(first) == 0:
        return None
    from scipy.sparse import csr_matrix

    n = len(indptr) - 1
    matrix = csr_matrix(
        (np.ones(len(indices), dtype=np.float32), indices, indptr), shape=(n, max(vocab, 1))
    )
    sizes = np.diff(indptr).astype(np.float64)
    total = 0.0
    for lo in range(0, len(first), _PAIR_CHUNK):
        a = first[lo : lo + _PAIR_CHUNK]
        b = second[lo : lo + _PAIR_CHUNK]
        inter = np.asarray(matrix[a].multiply(matrix[b]).sum(axis=1), dtype=np.float64).ravel()
        union = sizes[a] + sizes[b] - inter
        total += float(np.divide(inter, union, out=np.zeros_like(inter), where=union > 0).sum())
    return total / len(first)


def _count_distinct(*columns: np.ndarray) -> int:
    """Number of distinct rows of equal-length integer columns (sort-based: numpy's
    hash-based ``unique`` is many times slower on millions of distinct values)."""
    if len(columns[0]) == 0:
        return 0
    if len(columns) == 1:
        ordered = np.sort(columns[0])
        return 1 + int(np.count_nonzero(ordered[1:] != ordered[:-1]))
    order = np.lexsort(columns[::-1])
    changed = np.zeros(len(order) - 1, dtype=bool)
    for column in columns:
        ordered = column[order]
        changed |= ordered[1:] != ordered[:-1]
    return 1 + int(np.count_nonzero(changed))


def _distinct_ngram_counts(ids: np.ndarray, lengths: np.ndarray, vocab: int) -> tuple[int, int]:
    """Exact distinct bigrams and trigrams of token-id runs that never cross a boundary."""
    if len(ids) < 2:
        return 0, 0
    ids = ids.astype(np.int64)
    ends = np.cumsum(lengths)
    # last[k] is True when token k is the last of its narrative.
    last = np.zeros(len(ids), dtype=bool)
    last[ends[lengths > 0] - 1] = True
    ok2 = ~last[:-1]
    bigrams = ids[:-1] * vocab + ids[1:]  # exact: vocab**2 < 2**63 for any real vocabulary
    n_bigrams = _count_distinct(bigrams[ok2])
    if len(ids) < 3:
        return n_bigrams, 0
    ok3 = ok2[:-1] & ~last[1:-1]
    if vocab**3 < 2**62:
        n_trigrams = _count_distinct((bigrams[:-1] * vocab + ids[2:])[ok3])
    else:
        n_trigrams = _count_distinct(bigrams[:-1][ok3], ids[2:][ok3])
    return n_bigrams, n_trigrams


def lexical_statistics(
    approved: list[NarrativeRecord], *, seed: int, max_pairs: int, report: ProgressCallback
) -> dict[str, Any]:
    """The output's lexical keys (``proverbs``, ``vocabulary_size``, ..., ``diversity``).

    Reports the "tokens" and "diversity" stages.
    """
    n = len(approved)

    # One pass over approved narratives: tokens, spans, overlap with proverbs, unigram
    # sets for diversity (as sorted token ids, so that memory stays flat).
    perm = random_proverb_permutation(n, seed)
    proverb_texts = [r.proverb for r in approved]
    proverb_sets: dict[str, tuple[set, set, set]] = {}

    def sets_of(proverb: str) -> tuple[set, set, set]:
        found = proverb_sets.get(proverb)
        if found is None:
            found = proverb_sets[proverb] = _ngram_sets(simple_tokens(proverb))
        return found

    jac = {"paired": [0.0, 0.0, 0.0], "random": [0.0, 0.0, 0.0]}
    common = {"paired": [0, 0, 0], "random": [0, 0, 0]}
    vocab_ws = Index()
    vocab_simple = Index()
    ws_number = vocab_ws.__getitem__
    simple_number = vocab_simple.__getitem__
    ws_ids = array("i")
    ws_lengths = np.zeros(n, dtype=np.int64)
    uni_indices = array("i")
    uni_indptr = np.zeros(n + 1, dtype=np.int64)
    span_pairs = 0
    proverb_span_words = 0
    narrative_span_words = 0
    report(0, n, "tokens")
    for i, record in enumerate(approved):
        tokens = whitespace_tokens(record.text.lower())
        ws_lengths[i] = len(tokens)
        ws_ids.extend(map(ws_number, tokens))

        span_pairs += len(record.span_pairs)
        for pair in record.span_pairs:
            proverb_span_words += len(whitespace_tokens(pair.proverb_span))
            narrative_span_words += len(whitespace_tokens(pair.narrative_span))

        own = _ngram_sets(simple_tokens(record.text))
        for kind, proverb in (("paired", record.proverb), ("random", proverb_texts[perm[i]])):
            theirs = sets_of(proverb)
            sums, commons = jac[kind], common[kind]
            for k in range(3):
                mine, other = own[k], theirs[k]
                inter = len(mine & other)
                commons[k] += inter
                if inter:
                    sums[k] += inter / (len(mine) + len(other) - inter)

        uni_indices.extend(sorted(map(simple_number, own[0])))
        uni_indptr[i + 1] = len(uni_indices)
        if (i + 1) % 10_000 == 0:
            report(i + 1, n, "tokens")
    report(n, n, "tokens")
    proverb_sets.clear()

    n_bigrams, n_trigrams = _distinct_ngram_counts(
        np.frombuffer(ws_ids, dtype=np.int32) if len(ws_ids) else np.empty(0, np.int32),
        ws_lengths,
        max(len(vocab_ws), 1),
    )
    vocabulary_size = len(vocab_ws)
    del ws_ids, vocab_ws

    # Diversity.
    report(0, 2, "diversity")
    groups = [r.proverb_id for r in approved]
    indices = (
        np.frombuffer(uni_indices, dtype=np.int32).copy()
        if len(uni_indices)
        else np.empty(0, np.int32)
    )
    del uni_indices
    diversity: dict[str, Any] = {}
    for key, same in (("same_proverb", True), ("different_proverbs", False)):
        first, second, exist = diversity_pairs(groups, same=same, max_pairs=max_pairs, seed=seed)
        diversity[key] = _pair_jaccard_mean(uni_indptr, indices, len(vocab_simple), first, second)
        diversity["same_proverb_pairs" if same else "different_proverb_pairs"] = exist
        diversity[f"{key}_sampled"] = len(first)
        report(1 if same else 2, 2, "diversity")
    del indices, vocab_simple

    def overlap(values: dict[str, list]) -> dict[str, dict[str, float | None]]:
        return {
            str(k + 1): {kind: mean_or_none(values[kind][k], n) for kind in ("paired", "random")}
            for k in range(3)
        }

    return {
        "proverbs": len(set(groups)),
        "vocabulary_size": vocabulary_size,
        "tokens_per_narrative": mean_or_none(float(ws_lengths.sum()), n),
        "span_pairs_per_narrative": mean_or_none(span_pairs, n),
        "words_per_proverb_span": mean_or_none(proverb_span_words, span_pairs),
        "words_per_narrative_span": mean_or_none(narrative_span_words, span_pairs),
        "unique_bigrams": n_bigrams,
        "unique_trigrams": n_trigrams,
        "jaccard": overlap(jac),
        "common_ngrams": overlap(common),
        "diversity": diversity,
    }
