"""VADER sentiment for the dataset analysis: a faster analyzer with the stock scores, and
the per-proverb sentiment statistics (ePiC Figures 3 and 4)."""

from __future__ import annotations

import math
import threading
from collections import Counter, defaultdict
from statistics import fmean
from typing import Any

from annotation.analysis.common import CACHE_LIMIT, Computed, t_two_sided_p
from annotation.analysis.records import NarrativeRecord

SENTIMENT_POSITIVE = 0.05
SENTIMENT_NEGATIVE = -0.05

_VADER: Any = None
_LOCK = threading.RLock()


def _make_vader() -> Any:
    import string

    from vaderSentiment.vaderSentiment import (
        BOOSTER_DICT,
        C_INCR,
        N_SCALAR,
        NEGATE,
        SPECIAL_CASES,
        SentimentIntensityAnalyzer,
        normalize,
        scalar_inc_dec,
    )

    negate_words = frozenset(NEGATE)
    # Every word of the idioms and of the boosters of several words: _idioms looks
    # only at the six words around a sentiment word (i - 3 to i + 2).
    idiom_words = frozenset(
        word
        for phrase in (*SPECIAL_CASES, *(key for key in BOOSTER_DICT if " " in key))
        for word in phrase.split()
    )
    punctuation = string.punctuation

    def negated_word(word: str) -> bool:
        # vaderSentiment's negated([word]) for one lowercased word.
        return word in negate_words or "n't" in word

    class FastSentimentIntensityAnalyzer(SentimentIntensityAnalyzer):
        """vaderSentiment 3.3.2 without its repeated work; scores are identical.

        The stock analyzer lowercases every token of the text again for each
        sentiment word and negation check (quadratic in text length), scans its 59
        negation words as a list, strips punctuation from every token anew and walks
        the text character by character looking for emoji. This copy of its scoring
        (MIT-licensed code of vaderSentiment: polarity_scores, SentiText,
        sentiment_valence, _least_check, _but_check, _negation_check,
        _special_idioms_check) lowercases once per text, looks negations up in a set,
        caches stripped tokens and skips the emoji walk when the text has no emoji
        character. Tests compare its scores with the stock analyzer's.
        """

        def __init__(self) -> None:
            super().__init__()
            self._emoji_chars = frozenset(self.emojis)
            self._stripped: dict[str, str] = Computed(self._strip)

        @staticmethod
        def _strip(token: str) -> str:
            # SentiText._strip_punc_if_word
            stripped = token.strip(punctuation)
            return token if len(stripped) <= 2 else stripped

        def _words(self, text: str) -> list[str]:
            # SentiText._words_and_emoticons, with a cache of stripped tokens.
            if len(self._stripped) > CACHE_LIMIT:
                self._stripped.clear()
            return list(map(self._stripped.__getitem__, text.split()))

        def polarity_scores(self, text):
            return self.score_valence(*self._sentiments(text))

        def compound(self, text: str) -> float:
            """polarity_scores(text)["compound"], without the other three shares."""
            sentiments, text = self._sentiments(text)
            if not sentiments:
                return 0.0
            sum_s = float(sum(sentiments))
            emphasis = self._punctuation_emphasis(text)
            if sum_s > 0:
                sum_s += emphasis
            elif sum_s < 0:
                sum_s -= emphasis
            return round(normalize(sum_s), 4)

        def _sentiments(self, text):
            """The score of each word and the text as score_valence reads it."""
            if self._emoji_chars.isdisjoint(text):
                text = text.strip()
            else:
                text_no_emoji = ""
                prev_space = True
                for char in text:
                    if char in self.emojis:
                        description = self.emojis[char]
                        if not prev_space:
                            text_no_emoji += " "
                        text_no_emoji += description
                        prev_space = False
                    else:
                        text_no_emoji += char
                        prev_space = char == " "
                text = text_no_emoji.strip()

            words = self._words(text)
            allcaps = sum(map(str.isupper, words))
            is_cap_diff = 0 < len(words) - allcaps < len(words)
            low = [w.lower() for w in words]
            # A word outside the lexicon, a booster, or "kind" of "kind of" scores 0;
            # only the words found in the lexicon are visited.
            sentiments: list[float] = [0] * len(words)
            last = len(words) - 1
            found = self.lexicon.keys() & low
            if found:
                for i in [i for i, lower in enumerate(low) if lower in found]:
                    lower = low[i]
                    if lower in BOOSTER_DICT or (
                        i < last and lower == "kind" and low[i + 1] == "of"
                    ):
                        continue
                    sentiments[i] = self._valence(words[i], i, words, low, is_cap_diff)
            return self._but(low, sentiments), text

        def _valence(self, item, i, words, low, is_cap_diff) -> float:
            lexicon = self.lexicon
            item_lowercase = low[i]
            valence = 0
            if item_lowercase in lexicon:
                valence = lexicon[item_lowercase]
                if item_lowercase == "no" and i != len(words) - 1 and low[i + 1] in lexicon:
                    valence = 0.0
                if (
                    (i > 0 and low[i - 1] == "no")
                    or (i > 1 and low[i - 2] == "no")
                    or (i > 2 and low[i - 3] == "no" and low[i - 1] in ["or", "nor"])
                ):
                    valence = lexicon[item_lowercase] * N_SCALAR
                if item.isupper() and is_cap_diff:
                    if valence > 0:
                        valence += C_INCR
                    else:
                        valence -= C_INCR
                for start_i in range(0, 3):
                    if i > start_i and low[i - (start_i + 1)] not in lexicon:
                        s = scalar_inc_dec(words[i - (start_i + 1)], valence, is_cap_diff)
                        if start_i == 1 and s != 0:
                            s = s * 0.95
                        if start_i == 2 and s != 0:
                            s = s * 0.9
                        valence = valence + s
                        valence = self._negation(valence, low, start_i, i)
                        if start_i == 2:
                            valence = self._idioms(valence, low, i)
                valence = self._least(valence, low, i)
            return valence

        def _least(self, valence, low, i):
            lexicon = self.lexicon
            if i > 1 and low[i - 1] not in lexicon and low[i - 1] == "least":
                if low[i - 2] != "at" and low[i - 2] != "very":
                    valence = valence * N_SCALAR
            elif i > 0 and low[i - 1] not in lexicon and low[i - 1] == "least":
                valence = valence * N_SCALAR
            return valence

        @staticmethod
        def _but(low, sentiments):
            # The stock loop visits every score and rescales the first score equal to
            # it (list.index). A zero rescales to zero and a nonzero score never becomes
            # zero, so visiting only the nonzero positions, in order, changes the same
            # scores in the same way.
            if "but" in low:
                bi = low.index("but")
                for k in [k for k, sentiment in enumerate(sentiments) if sentiment]:
                    sentiment = sentiments[k]
                    si = sentiments.index(sentiment)
                    if si < bi:
                        sentiments[si] = sentiment * 0.5
                    elif si > bi:
                        sentiments[si] = sentiment * 1.5
            return sentiments

        @staticmethod
        def _negation(valence, low, start_i, i):
            if start_i == 0 and negated_word(low[i - 1]):
                valence = valence * N_SCALAR
            if start_i == 1:
                if low[i - 2] == "never" and (low[i - 1] == "so" or low[i - 1] == "this"):
                    valence = valence * 1.25
                elif low[i - 2] == "without" and low[i - 1] == "doubt":
                    pass
                elif negated_word(low[i - 2]):
                    valence = valence * N_SCALAR
            if start_i == 2:
                if (low[i - 3] == "never" and (low[i - 2] == "so" or low[i - 2] == "this")) or (
                    low[i - 1] == "so" or low[i - 1] == "this"
                ):
                    valence = valence * 1.25
                elif low[i - 3] == "without" and (low[i - 2] == "doubt" or low[i - 1] == "doubt"):
                    pass
                elif negated_word(low[i - 3]):
                    valence = valence * N_SCALAR
            return valence

        @staticmethod
        def _idioms(valence, low, i):
            if idiom_words.isdisjoint(low[i - 3 : i + 3]):
                return valence  # no idiom or two-word booster can match here
            onezero = f"{low[i - 1]} {low[i]}"
            twoonezero = f"{low[i - 2]} {low[i - 1]} {low[i]}"
            twoone = f"{low[i - 2]} {low[i - 1]}"
            threetwoone = f"{low[i - 3]} {low[i - 2]} {low[i - 1]}"
            threetwo = f"{low[i - 3]} {low[i - 2]}"
            for seq in (onezero, twoonezero, twoone, threetwoone, threetwo):
                if seq in SPECIAL_CASES:
                    valence = SPECIAL_CASES[seq]
                    break
            if len(low) - 1 > i:
                zeroone = f"{low[i]} {low[i + 1]}"
                if zeroone in SPECIAL_CASES:
                    valence = SPECIAL_CASES[zeroone]
            if len(low) - 1 > i + 1:
                zeroonetwo = f"{low[i]} {low[i + 1]} {low[i + 2]}"
                if zeroonetwo in SPECIAL_CASES:
                    valence = SPECIAL_CASES[zeroonetwo]
            for n_gram in (threetwoone, threetwo, twoone):
                if n_gram in BOOSTER_DICT:
                    valence = valence + BOOSTER_DICT[n_gram]
            return valence

    return FastSentimentIntensityAnalyzer()


def sentiment_analyzer() -> Any:
    """The shared VADER analyzer (built once; about 0.25 ms per 65-word narrative)."""
    global _VADER
    if _VADER is None:
        with _LOCK:
            if _VADER is None:
                _VADER = _make_vader()
    return _VADER


def vader_compound(text: str) -> float:
    """VADER compound score of a whole text, in [-1, 1]."""
    return float(sentiment_analyzer().compound(text))


def _polarity(compound: float) -> str:
    if compound >= SENTIMENT_POSITIVE:
        return "positive"
    if compound <= SENTIMENT_NEGATIVE:
        return "negative"
    return "neutral"


def sentiment_statistics(approved: list[NarrativeRecord], compounds: list[float]) -> dict[str, Any]:
    """The output's ``sentiment``: per-proverb compounds, polarity counts and their fit."""
    by_proverb: dict[int, list[float]] = defaultdict(list)
    proverb_text: dict[int, str] = {}
    for record, compound in zip(approved, compounds, strict=True):
        by_proverb[record.proverb_id].append(compound)
        proverb_text.setdefault(record.proverb_id, record.proverb)
    polarity = Counter(_polarity(c) for c in compounds)
    rows = []
    for proverb_id, values in by_proverb.items():
        counts = Counter(_polarity(c) for c in values)
        rows.append(
            {
                "proverb_id": proverb_id,
                "proverb": proverb_text[proverb_id],
                "proverb_compound": vader_compound(proverb_text[proverb_id]),
                "narrative_compound_mean": fmean(values),
                "narratives": len(values),
                "positive": counts["positive"],
                "negative": counts["negative"],
                "neutral": counts["neutral"],
            }
        )
    rows.sort(key=lambda row: (row["proverb_compound"], row["proverb_id"]))
    fit: dict[str, float | None] = {
        "pearson_r": None,
        "p_value": None,
        "slope": None,
        "intercept": None,
    }
    x = [row["proverb_compound"] for row in rows]
    y = [row["narrative_compound_mean"] for row in rows]
    if len(rows) >= 2 and len(set(x)) > 1:
        fit.update(least_squares(x, y, with_r=len(set(y)) > 1))
    return {
        "per_proverb": rows,
        "narrative_compound_mean": fmean(compounds) if compounds else None,
        "positive": polarity["positive"],
        "negative": polarity["negative"],
        "neutral": polarity["neutral"],
        **fit,
    }


def least_squares(x: list[float], y: list[float], *, with_r: bool) -> dict[str, float]:
    """The least-squares line of y on x and, ``with_r``, Pearson's r and its two-sided
    p-value, as ``scipy.stats.linregress`` computes them (x not constant)."""
    n = len(x)
    mean_x, mean_y = fmean(x), fmean(y)
    sxx = sum((value - mean_x) ** 2 for value in x)
    sxy = sum((a - mean_x) * (b - mean_y) for a, b in zip(x, y, strict=True))
    slope = sxy / sxx
    line = {"slope": slope, "intercept": mean_y - slope * mean_x}
    if not with_r:
        return line
    syy = sum((value - mean_y) ** 2 for value in y)
    r = max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))
    if n == 2:
        p = 0.0  # two distinct points lie on their line
    else:
        tiny = 1.0e-20  # linregress's guard against r = ±1
        t = r * math.sqrt((n - 2) / ((1.0 - r + tiny) * (1.0 + r + tiny)))
        p = t_two_sided_p(t, n - 2)
    return {**line, "pearson_r": r, "p_value": p}
