"""Lexical statistics for the dataset analysis: vocabulary and distinct n-grams, overlap
between narratives and proverbs with a random baseline, and narrative diversity."""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, Any

import numpy as np

from annotation.analysis.common import Computed, Deferred, Index, mean_or_none
from annotation.text import simple_tokens, whitespace_tokens
from common.progress import ProgressCallback

if TYPE_CHECKING:  # the records import Django models: pool workers run without Django
    from annotation.task_parts.records import NarrativeRecord

_PAIR_CHUNK = 20_000


def random_proverb_permutation(n: int, seed: int) -> np.ndarray:
    """The random baseline's assignment: narrative i gets the proverb of narrative perm[i]."""
    return np.random.default_rng(seed).permutation(n)


_WORD_RUN = re.compile(r"\w+")  # annotation.text.simple_tokens' runs


def _simple_tokens_of(tokens: list[str]) -> list[str]:
    """``simple_tokens(text)`` from the lowercased text's whitespace tokens: ``\\w+``
    never spans whitespace, and a token of letters and digits only is one run (the
    common case, without a regex)."""
    runs: list[str] = []
    for token in tokens:
        if token.isalnum():
            runs.append(token)
        else:
            runs.extend(_WORD_RUN.findall(token))
    return runs


def _ngram_set(tokens: list[str], n: int) -> set:
    """Distinct 2-grams (n = 2) or 3-grams (n = 3) of the tokens, as tuples."""
    if n == 2:
        return set(pairwise(tokens))
    return set(zip(tokens, tokens[1:], tokens[2:], strict=False))


def _proverb_ngram_sets(proverb: str) -> tuple[set, set, set]:
    tokens = simple_tokens(proverb)
    return set(tokens), _ngram_set(tokens, 2), _ngram_set(tokens, 3)


class _LazyNgramSets:
    """A narrative's distinct 1-, 2- and 3-grams, the longer ones built only when asked
    about n-grams whose every word the narrative has: a proverb's seldom all occur in a
    story about it (ePiC keeps their overlap low), so most never build them."""

    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.unigrams = set(tokens)
        self._longer: dict[int, set] = {}

    def sharing(self, k: int, grams: set) -> set | None:
        """The narrative's (k + 1)-grams, or None when none of ``grams`` can be among them."""
        if k == 0:
            return self.unigrams
        if not any(self.unigrams.issuperset(gram) for gram in grams):
            return None
        found = self._longer.get(k)
        if found is None:
            found = self._longer[k] = _ngram_set(self.tokens, k + 1)
        return found


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
    total = total_same if same else n * (n - 1) // 2 - total_same
    if total == 0:
        return empty, empty, 0
    if total <= max_pairs:
        firsts, seconds = [], []
        for start, size in zip(starts, sizes, strict=True):
            end = int(start + size)
            if same and size >= 2:
                a, b = np.triu_indices(int(size), 1)
                firsts.append(order[start + a])
                seconds.append(order[start + b])
            elif not same and end < n:
                firsts.append(order[np.repeat(np.arange(start, end), n - end)])
                seconds.append(order[np.tile(np.arange(end, n), int(size))])
        return np.concatenate(firsts), np.concatenate(seconds), total
    if same:
        rng = np.random.default_rng((seed, 1))
        g = rng.choice(len(sizes), size=max_pairs, p=within / total_same)
        s = sizes[g]
        a = rng.integers(0, s)
        b = rng.integers(0, s - 1)
        b = b + (b >= a)
        return order[starts[g] + a], order[starts[g] + b], total
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
    if len(indices) < 2**31 and vocab < 2**31:  # int32 throughout: scipy copies nothing
        indptr, indices = indptr.astype(np.int32), indices.astype(np.int32, copy=False)
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
    hash-based ``unique`` is many times slower on millions of distinct values). One column
    is the caller's to reorder: it is sorted in place."""
    if len(columns[0]) == 0:
        return 0
    if len(columns) == 1:
        ordered = columns[0]
        ordered.sort()
        return 1 + int(np.count_nonzero(ordered[1:] != ordered[:-1]))
    order = np.lexsort(columns[::-1])
    changed = np.zeros(len(order) - 1, dtype=bool)
    for column in columns:
        ordered = column[order]
        changed |= ordered[1:] != ordered[:-1]
    return 1 + int(np.count_nonzero(changed))


def _distinct_ngram_counts(ids: np.ndarray, lengths: np.ndarray, vocab: int) -> tuple[int, int]:
    """Exact distinct bigrams and trigrams of token-id runs that never cross a boundary.
    Codes are made and sorted in place: at peak a few int64 copies of ``ids`` (tens of MB
    for 100,000 narratives)."""
    if len(ids) < 2:
        return 0, 0
    ends = np.cumsum(lengths)
    # last[k] is True when token k is the last of its narrative.
    last = np.zeros(len(ids), dtype=bool)
    last[ends[lengths > 0] - 1] = True
    ok2 = ~last[:-1]
    # exact: vocab**2 < 2**63 for any real vocabulary
    codes = ids[:-1].astype(np.int64)
    codes *= vocab
    codes += ids[1:]
    n_bigrams = _count_distinct(codes[ok2])
    if len(ids) < 3:
        return n_bigrams, 0
    ok3 = ok2[:-1] & ~last[1:-1]
    del ok2, last
    if vocab**3 < 2**62:
        codes = codes[:-1]
        codes *= vocab
        codes += ids[2:]
        return n_bigrams, _count_distinct(codes[ok3])
    return n_bigrams, _count_distinct(codes[:-1][ok3], ids[2:][ok3].astype(np.int64))


@dataclass
class LexicalPart:
    """What :func:`lexical_part` finds in a run of narratives, numbered locally.

    Tokens are numbered in the part's own vocabularies (``ws_words``, ``simple_words``:
    code i is the i-th word); :class:`LexicalMerge` renumbers them into the dataset's.
    """

    ws_words: list[str]
    ws_codes: np.ndarray  # whitespace tokens of every narrative, one after another
    ws_lengths: np.ndarray  # tokens per narrative
    simple_words: list[str]
    unigram_codes: np.ndarray  # each narrative's distinct \w+ tokens, one after another
    unigram_counts: np.ndarray  # distinct \w+ tokens per narrative
    jaccard: np.ndarray  # [paired/random, n-gram size, narrative]: Jaccard with the proverb
    common: np.ndarray  # [paired/random, n-gram size]: distinct n-grams shared, summed


def lexical_part(
    texts: Sequence[str], proverbs: Sequence[str], others: Sequence[str]
) -> LexicalPart:
    """Tokens and overlap of each narrative with its proverb and with the random baseline's.

    ``others[i]`` is the proverb the random baseline gives narrative i. Runs in the
    analysis' worker processes, on parts of the dataset; plain data in and out.
    """
    m = len(texts)
    proverb_sets: dict[str, tuple[set, set, set]] = Computed(_proverb_ngram_sets)
    ws_index, simple_index = Index(), Index()
    ws_number, simple_number = ws_index.__getitem__, simple_index.__getitem__
    ws_codes, unigram_codes = array("i"), array("i")
    ws_lengths = np.zeros(m, dtype=np.int64)
    unigram_counts = np.zeros(m, dtype=np.int64)
    jaccard = np.zeros((2, 3, m), dtype=np.float64)
    common = np.zeros((2, 3), dtype=np.int64)
    for i, text in enumerate(texts):
        tokens = whitespace_tokens(text.lower())
        ws_lengths[i] = len(tokens)
        ws_codes.extend(map(ws_number, tokens))
        own = _LazyNgramSets(_simple_tokens_of(tokens))
        for kind, proverb in enumerate((proverbs[i], others[i])):
            theirs = proverb_sets[proverb]
            for k in range(3):
                other = theirs[k]
                mine = own.sharing(k, other)
                inter = len(mine & other) if mine is not None else 0
                if inter:
                    common[kind, k] += inter
                    jaccard[kind, k, i] = inter / (len(mine) + len(other) - inter)
        unigram_counts[i] = len(own.unigrams)
        unigram_codes.extend(map(simple_number, own.unigrams))
    return LexicalPart(
        ws_words=list(ws_index),
        ws_codes=np.frombuffer(ws_codes, dtype=np.int32).copy(),
        ws_lengths=ws_lengths,
        simple_words=list(simple_index),
        unigram_codes=np.frombuffer(unigram_codes, dtype=np.int32).copy(),
        unigram_counts=unigram_counts,
        jaccard=jaccard,
        common=common,
    )


def _renumber(words: list[str], index: Index) -> np.ndarray:
    """The dataset-wide numbers (from ``index``, numbering new words) of a part's words."""
    return np.fromiter(map(index.__getitem__, words), dtype=np.int32, count=len(words))


class LexicalMerge:
    """The parts of the approved narratives, renumbered into the dataset's vocabularies as
    they arrive (in dataset order; their words are not kept); :meth:`result` gives the
    output's lexical keys. Jaccard sums run in dataset order: no figure depends on the parts.
    """

    def __init__(self) -> None:
        self.vocab_ws, self.vocab_simple = Index(), Index()
        self.ws_ids: list[np.ndarray] = []
        self.ws_lengths: list[np.ndarray] = []
        self.unigram_ids: list[np.ndarray] = []
        self.unigram_counts: list[np.ndarray] = []
        self.jac = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
        self.common = np.zeros((2, 3), dtype=np.int64)
        self.narratives = 0

    def add(self, part: LexicalPart) -> None:
        self.ws_ids.append(_renumber(part.ws_words, self.vocab_ws)[part.ws_codes])
        self.ws_lengths.append(part.ws_lengths)
        self.unigram_ids.append(_renumber(part.simple_words, self.vocab_simple)[part.unigram_codes])
        self.unigram_counts.append(part.unigram_counts)
        for kind in range(2):
            for k in range(3):
                total = self.jac[kind][k]
                for value in part.jaccard[kind, k].tolist():
                    total += value
                self.jac[kind][k] = total
        self.common += part.common
        self.narratives += len(part.ws_lengths)

    def result(
        self,
        approved: list[NarrativeRecord],
        parts: Iterable[LexicalPart] = (),
        *,
        seed: int,
        max_pairs: int,
        report: ProgressCallback,
        run: Callable[..., Any] = Deferred,
    ) -> dict[str, Any]:
        """The output's lexical keys once the last ``parts`` of ``approved`` are added.
        ``run(function, *args)`` may start the diversity sample in an idle worker (its
        ``get()`` gives the result) while the distinct n-grams are counted here."""
        n = len(approved)
        report(0, n, "tokens")
        for part in parts:
            self.add(part)
            report(min(self.narratives, n), n, "tokens")
        report(n, n, "tokens")
        if self.narratives != n:
            raise ValueError(f"the lexical parts hold {self.narratives} narratives, not {n}")
        report(0, 2, "diversity")
        groups = [r.proverb_id for r in approved]
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(_joined(self.unigram_counts, np.int64), out=indptr[1:])
        sample = (groups, indptr, _joined(self.unigram_ids, np.int32), len(self.vocab_simple))
        self.unigram_ids = []
        diversity_result = run(diversity_statistics, *sample, seed, max_pairs)
        del sample

        lengths = _joined(self.ws_lengths, np.int64)
        n_bigrams, n_trigrams = _distinct_ngram_counts(
            _joined(self.ws_ids, np.int32), lengths, max(len(self.vocab_ws), 1)
        )
        vocabulary_size = len(self.vocab_ws)
        self.ws_ids, self.vocab_ws = [], Index()

        span_pairs = proverb_span_words = narrative_span_words = 0
        for record in approved:
            span_pairs += len(record.span_pairs)
            for pair in record.span_pairs:
                proverb_span_words += len(whitespace_tokens(pair.proverb_span))
                narrative_span_words += len(whitespace_tokens(pair.narrative_span))
        diversity = diversity_result.get()
        report(2, 2, "diversity")

        def overlap(values) -> dict[str, dict[str, float | None]]:
            return {
                str(k + 1): {
                    kind: mean_or_none(values[number][k], n)
                    for number, kind in enumerate(("paired", "random"))
                }
                for k in range(3)
            }

        return {
            "proverbs": len(set(groups)),
            "vocabulary_size": vocabulary_size,
            "tokens_per_narrative": mean_or_none(float(lengths.sum()), n),
            "span_pairs_per_narrative": mean_or_none(span_pairs, n),
            "words_per_proverb_span": mean_or_none(proverb_span_words, span_pairs),
            "words_per_narrative_span": mean_or_none(narrative_span_words, span_pairs),
            "unique_bigrams": n_bigrams,
            "unique_trigrams": n_trigrams,
            "jaccard": overlap(self.jac),
            "common_ngrams": overlap(self.common.tolist()),
            "diversity": diversity,
        }


def _joined(arrays: list[np.ndarray], dtype: Any) -> np.ndarray:
    return np.concatenate(arrays) if arrays else np.zeros(0, dtype=dtype)


def diversity_statistics(
    groups: list[int],
    indptr: np.ndarray,
    indices: np.ndarray,
    vocabulary: int,
    seed: int,
    max_pairs: int,
) -> dict[str, Any]:
    """The output's ``diversity``: mean Jaccard similarity of the distinct \\w+ tokens
    (row i of the CSR ``indptr``/``indices``) of pairs of narratives whose proverb
    (``groups``) is the same, and of pairs whose proverb differs (diversity_pairs)."""
    diversity: dict[str, Any] = {}
    for key, same in (("same_proverb", True), ("different_proverbs", False)):
        first, second, exist = diversity_pairs(groups, same=same, max_pairs=max_pairs, seed=seed)
        diversity[key] = _pair_jaccard_mean(indptr, indices, vocabulary, first, second)
        diversity["same_proverb_pairs" if same else "different_proverb_pairs"] = exist
        diversity[f"{key}_sampled"] = len(first)
    return diversity
