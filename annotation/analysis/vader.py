"""VADER (vaderSentiment 3.3.2) without its repeated work: the analyzer the dataset
analysis scores sentiment with (annotation.analysis.sentiment builds it on first use)."""

from __future__ import annotations

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

from annotation.analysis.common import CACHE_LIMIT, Computed

NEGATE_WORDS = frozenset(NEGATE)
# Every word of the idioms and of the boosters of several words: _idioms looks only at
# the six words around a sentiment word (i - 3 to i + 2).
IDIOM_WORDS = frozenset(
    word
    for phrase in (*SPECIAL_CASES, *(key for key in BOOSTER_DICT if " " in key))
    for word in phrase.split()
)


def negated_word(word: str) -> bool:
    """vaderSentiment's negated([word]) for one lowercased word."""
    return word in NEGATE_WORDS or "n't" in word


class FastSentimentIntensityAnalyzer(SentimentIntensityAnalyzer):
    """vaderSentiment 3.3.2 without its repeated work; scores are identical (tests compare).

    The stock analyzer lowercases tokens again for every check (quadratic in text length),
    scans negations as a list and walks every text for emoji. This copy of its scoring
    (MIT-licensed) lowercases once, uses a set, caches stripped tokens and skips emoji-free text.
    """

    def __init__(self) -> None:
        super().__init__()
        self._emoji_chars = frozenset(self.emojis)
        self._stripped: dict[str, str] = Computed(self._strip)

    @staticmethod
    def _strip(token: str) -> str:
        # SentiText._strip_punc_if_word
        stripped = token.strip(string.punctuation)
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
                if lower in BOOSTER_DICT or (i < last and lower == "kind" and low[i + 1] == "of"):
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
        if IDIOM_WORDS.isdisjoint(low[i - 3 : i + 3]):
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
