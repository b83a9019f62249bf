"""Deterministic synthetic datasets for the analysis benchmark (ePiC-shaped).

Narratives are random sentences over a fixed vocabulary: English function words
(about half the tokens), a list of common sentiment words (about 7%, so VADER finds
roughly as many sentiment words as in real prose) and Zipf-distributed pseudo-words
built from syllables (so the vocabulary grows with the corpus as a real one does).
Sentences have 8 to 22 tokens and a narrative 3 to 6 sentences (about 65 tokens, ePiC
has 64.27); 10 narratives per proverb; 2 aligned span pairs per narrative; about 2.4%
extra rejected narratives (ePiC: 2,561 submitted, 2,500 approved); about 15 approved
narratives per worker.
"""

from __future__ import annotations

import bisect
import itertools
import random
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from annotation.task_parts.records import (  # noqa: E402
    ChoiceRecord,
    ModelChoiceRecord,
    NarrativeRecord,
    RatingRecord,
    SpanPairRecord,
)

FUNCTION_WORDS = [
    "the",
    "a",
    "an",
    "and",
    "of",
    "to",
    "in",
    "on",
    "at",
    "for",
    "with",
    "by",
    "from",
    "as",
    "that",
    "this",
    "it",
    "he",
    "she",
    "they",
    "we",
    "i",
    "you",
    "his",
    "her",
    "their",
    "our",
    "my",
    "your",
    "was",
    "were",
    "is",
    "are",
    "be",
    "been",
    "had",
    "has",
    "have",
    "did",
    "do",
    "not",
    "no",
    "but",
    "or",
    "so",
    "if",
    "when",
    "then",
    "there",
    "here",
    "who",
    "which",
    "what",
    "after",
    "before",
    "because",
    "while",
    "into",
    "over",
    "under",
    "up",
    "down",
    "out",
    "about",
    "all",
    "some",
    "one",
    "two",
    "more",
    "most",
    "very",
    "just",
    "only",
    "also",
    "even",
    "still",
    "again",
    "never",
    "always",
    "every",
    "each",
    "other",
    "same",
    "than",
    "too",
    "would",
    "could",
    "should",
    "will",
    "can",
    "may",
    "might",
    "said",
    "went",
    "came",
    "took",
    "made",
    "got",
    "saw",
    "knew",
    "thought",
    "told",
    "asked",
    "found",
    "gave",
    "left",
    "felt",
]
SENTIMENT_WORDS = [
    "happy",
    "sad",
    "good",
    "bad",
    "great",
    "terrible",
    "love",
    "hate",
    "lost",
    "win",
    "won",
    "fail",
    "failed",
    "hope",
    "fear",
    "angry",
    "calm",
    "proud",
    "ashamed",
    "kind",
    "cruel",
    "honest",
    "lie",
    "lied",
    "thank",
    "sorry",
    "glad",
    "worried",
    "safe",
    "danger",
    "pain",
    "hurt",
    "smile",
    "cried",
    "laugh",
    "laughed",
    "help",
    "helped",
    "problem",
    "trouble",
    "success",
    "beautiful",
    "ugly",
    "rich",
    "poor",
    "friend",
    "enemy",
    "best",
    "worst",
    "nice",
    "awful",
    "wonderful",
    "horrible",
    "easy",
    "hard",
    "free",
    "stuck",
    "lucky",
    "unlucky",
    "brave",
    "afraid",
    "strong",
    "weak",
    "trust",
    "betrayed",
    "peace",
    "war",
    "gift",
    "stolen",
    "praise",
    "blame",
    "excited",
    "bored",
    "tired",
    "healthy",
    "sick",
]
_ONSETS = ("b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "br", "st", "tr")
_VOWELS = ("a", "e", "i", "o", "u", "ai", "ou")
_CODAS = ("", "", "", "n", "r", "l", "s", "m", "t")
CRITERIA = ("relatedness", "interesting", "fluency", "overall")


def _pseudo_words(count: int, rng: random.Random) -> list[str]:
    syllables = [o + v + c for o in _ONSETS for v in _VOWELS for c in _CODAS]
    words: dict[str, None] = {}
    while len(words) < count:
        n = rng.choice((1, 2, 2, 2, 3, 3, 4))
        words["".join(rng.choice(syllables) for _ in range(n))] = None
    return list(words)


class TextGenerator:
    """Random ePiC-like text; all randomness comes from one seeded Random."""

    def __init__(self, seed: int = 0, content_words: int = 60_000, zipf: float = 1.07) -> None:
        self.rng = random.Random(seed)
        self.content = _pseudo_words(content_words, self.rng)
        weights = [1.0 / (rank**zipf) for rank in range(1, len(self.content) + 1)]
        self.cumulative = list(itertools.accumulate(weights))

    def word(self) -> str:
        roll = self.rng.random()
        if roll < 0.50:
            return self.rng.choice(FUNCTION_WORDS)
        if roll < 0.57:
            return self.rng.choice(SENTIMENT_WORDS)
        x = self.rng.random() * self.cumulative[-1]
        return self.content[bisect.bisect_left(self.cumulative, x)]

    def sentence(self, low: int = 8, high: int = 22) -> str:
        words = [self.word() for _ in range(self.rng.randint(low, high))]
        words[0] = words[0].capitalize()
        for i in range(1, len(words) - 1):
            if self.rng.random() < 0.06:
                words[i] += ","
        end = self.rng.choices((".", "!", "?"), weights=(85, 8, 7))[0]
        return " ".join(words) + end

    def narrative(self) -> str:
        return " ".join(self.sentence() for _ in range(self.rng.randint(3, 6)))

    def proverb(self) -> str:
        return " ".join(self.word() for _ in range(self.rng.randint(4, 9))).capitalize()

    def span(self, text: str, low: int, high: int) -> str:
        words = text.split()
        size = min(len(words), self.rng.randint(low, high))
        start = self.rng.randint(0, len(words) - size)
        return " ".join(words[start : start + size])


def narratives(
    n: int, *, per_proverb: int = 10, span_pairs: int = 2, seed: int = 0
) -> list[NarrativeRecord]:
    """``n`` approved narratives (plus about 2.4% rejected ones), deterministic."""
    gen = TextGenerator(seed)
    proverbs = [gen.proverb() for _ in range(max(1, -(-n // per_proverb)))]
    workers = max(1, round(n / 15.06))
    rejected = round(n * 0.0244)
    records = []
    for i in range(n + rejected):
        approved = i < n
        proverb_id = (i if approved else gen.rng.randrange(n)) // per_proverb
        proverb = proverbs[proverb_id]
        text = gen.narrative()
        pairs = tuple(
            SpanPairRecord(gen.span(proverb, 1, 4), gen.span(text, 6, 16))
            for _ in range(span_pairs if approved else 0)
        )
        records.append(
            NarrativeRecord(
                narrative_id=i + 1,
                proverb_id=proverb_id + 1,
                proverb=proverb,
                text=text,
                status="approved" if approved else "rejected",
                worker=f"worker{int(gen.rng.paretovariate(1.2) * 7) % workers}",
                span_pairs=pairs,
            )
        )
    return records


def human_evaluation(
    records: list[NarrativeRecord], *, sample: int = 250, raters: int = 3, seed: int = 0
) -> tuple[list[RatingRecord], list[ChoiceRecord], list[ModelChoiceRecord]]:
    """Ratings of a sample of narratives and of two imported sources, and MCQ answers."""
    rng = random.Random(seed + 1)
    approved = [r for r in records if r.status == "approved"]
    ratings = []
    sources = {"dataset": 3.7, "imported:Wang2020": 3.2, "imported:Tan2015": 3.6}
    for source, center in sources.items():
        for k in range(sample if source == "dataset" else 200):
            narrative_id = approved[k % len(approved)].narrative_id if approved else k
            for criterion in CRITERIA:
                for r in range(raters):
                    value = min(5, max(1, round(rng.gauss(center, 1.0))))
                    ratings.append(RatingRecord(narrative_id, source, criterion, f"r{r}", value))
    choices = [ChoiceRecord(q, f"c{w}", rng.random() < 0.79) for q in range(100) for w in range(3)]
    model_choices = [ModelChoiceRecord(q, rng.random() < 0.36) for q in range(100)]
    return ratings, choices, model_choices
