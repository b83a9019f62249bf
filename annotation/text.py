"""Pure text functions shared by curation, the overlap check and the analyses.

No Django imports: this module runs as plain Python, and the browser's overlap
meter (frontend/static/frontend/overlap.js) mirrors its overlap rules.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Collection, Iterator, Mapping
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import NamedTuple

# Apostrophes, the straight one first: the curly and low ones count as straight.
_APOSTROPHES = "'\u2018\u2019\u201a\u201b\u2032"
_STRAIGHTEN = str.maketrans(dict.fromkeys(_APOSTROPHES[1:], "'"))
_QUOTES = str.maketrans(
    {**dict.fromkeys(_APOSTROPHES[1:], "'"), **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033", '"')}
)
_NON_WORD = re.compile(r"[^\w\s]+")
_SPACES = re.compile(r"\s+")
_WORD = re.compile(r"\w+")


def normalize_text(text: str) -> str:
    """A proverb's key for exact-duplicate detection: NFKC, straight quotes, case-folded,
    punctuation removed ("Don't" and "Dont" meet), whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES).casefold()
    text = text.replace("'", "")
    text = _NON_WORD.sub(" ", text)
    return _SPACES.sub(" ", text).strip()


def first_words(text: str, count: int = 8) -> str:
    """The text's first `count` words, with "…" when it goes on: how a story is named."""
    words = text.split()
    return " ".join(words[:count]) + ("…" if len(words) > count else "")


def simple_tokens(text: str) -> list[str]:
    """Tokens as `\\w+` runs of the lowercased text (the analysis convention)."""
    return _WORD.findall(text.lower())


def simple_token_spans(text: str) -> list[tuple[int, int]]:
    """Character offsets [start, end) of the `\\w+` runs of `text` (simple_tokens' tokens)."""
    return [match.span() for match in _WORD.finditer(text)]


def whitespace_tokens(text: str) -> list[str]:
    """Whitespace-separated tokens, as written (the dataset-statistics convention)."""
    return text.split()


def ngrams(tokens: list[str], n: int) -> list[tuple[str, ...]]:
    """Contiguous n-grams of a token list, in order, repeats kept."""
    return [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]


_COPY_TOKEN = re.compile(r"\w+|[.!?]")
_PRONOUN = re.compile(
    "he|she|him|her|his|hers|himself|herself|they|them|their|theirs|themselves", re.IGNORECASE
)


def copy_shingles(text: str, n: int = 3) -> set[tuple[str, ...]]:
    """Word n-grams of a text with names and pronouns set aside, for finding copies whose
    people were renamed: a word the text capitalises in mid-sentence is a name, and every
    occurrence of it becomes "<name>" (at a sentence's start too); a personal pronoun
    becomes "<pronoun>"; everything else is lowercased."""
    tokens, names, sentence_start = [], set(), True
    for match in _COPY_TOKEN.finditer(text):
        token = match.group()
        if token in ".!?":
            sentence_start = True
            continue
        if token[0].isupper() and not sentence_start:
            names.add(token)
        tokens.append(token)
        sentence_start = False
    words = [
        "<name>" if token in names else "<pronoun>" if _PRONOUN.fullmatch(token) else token.lower()
        for token in tokens
    ]
    return set(ngrams(words, n))


def jaccard(first: set, second: set) -> float:
    """Jaccard similarity of two sets; 0.0 when both are empty."""
    union = first | second
    return len(first & second) / len(union) if union else 0.0


# --- The lexical-overlap check -------------------------------------------------
#
# Workers write a narrative that illustrates a proverb without echoing its words.
# The same rules run here (server validation) and in the browser
# (frontend/static/frontend/overlap.js); tests/cases/overlap.json holds the cases
# both must pass.
#
# Tokenization, identical in both languages:
# - A token is a run of Unicode letters, digits and combining marks (general
#   categories L, N, M), with internal apostrophes kept: "don't", "o'clock",
#   "dog's". Curly and low apostrophes (‘ ’ ‚ ‛ ′) count as straight ones; a
#   leading or trailing apostrophe is not part of the token ('tis -> tis).
# - Everything else separates tokens: hyphens ("well-known" -> well, known),
#   underscores, periods and commas inside numbers ("3.5" -> 3, 5), so "2nd" is
#   one token and "1,000" two.
# - A contraction is one token, distinct from its expansion and from its
#   apostrophe-less spelling: "don't", "do not" and "dont" never meet. A
#   possessive is likewise one token: "bird's" does not match "bird" or "birds".
# - norm = lowercase(NFKC(token with apostrophes made straight)): "CAFÉ" and a
#   decomposed "café" meet, and so do "ﬁne" and "fine". Lowercasing is Unicode's
#   default mapping (str.lower / String.toLowerCase; JS has no casefold).
# - N-grams run across punctuation and line breaks: "Birds. Of a kind" shares
#   "birds of a" with "Birds of a feather flock together".
# - Offsets are code-point offsets into the original text (Python string
#   indices). The JS side counts code points too, so results are identical even
#   with astral characters (emoji); renderHighlighted converts to UTF-16.
# - Letter classes follow each runtime's Unicode tables; they differ only for
#   characters assigned after Python's unicodedata version.

_NGRAM_KEY_SEPARATOR = "\x1f"  # norms never contain it; NFKC can put spaces in one
_STOPWORDS_PATH = Path(__file__).resolve().parent / "data" / "stopwords.txt"


class Token(NamedTuple):
    """A token of the overlap check: as written, its norm, and code-point offsets."""

    text: str
    norm: str
    start: int
    end: int


@dataclass(frozen=True)
class OverlapRules:
    """Per-batch limits on how much of the proverb a narrative may repeat: max_shared_ngram,
    the longest run of tokens shared, stopwords included (2 lets "of a" pass and fails "birds
    of a"); max_shared_content_words, distinct shared words that are not stopwords; and
    min_words / max_words, the narrative's token count, inclusive."""

    max_shared_ngram: int = 2
    max_shared_content_words: int = 2
    min_words: int = 20
    max_words: int = 150

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"Overlap rule {field.name} must be an integer, got {value!r}.")
            if value < 0:
                raise ValueError(f"Overlap rule {field.name} must not be negative, got {value}.")
        if self.min_words > self.max_words:
            raise ValueError(
                f"Overlap rule min_words ({self.min_words}) must not exceed "
                f"max_words ({self.max_words})."
            )

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping | None) -> OverlapRules:
        """Rules from stored settings, missing keys at their defaults; ValueError for an
        unknown key, a non-integer or a negative value."""
        if d is None:
            return cls()
        if not isinstance(d, Mapping):
            raise ValueError(f"Overlap rules must be a mapping, got {type(d).__name__}.")
        known = {field.name for field in fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            raise ValueError(
                f"Unknown overlap rule(s): {', '.join(map(str, unknown))}; "
                f"expected some of {', '.join(sorted(known))}."
            )
        return cls(**d)


@functools.cache
def load_stopwords() -> frozenset[str]:
    """The stopword list in annotation/data/stopwords.txt, one word a line."""
    lines = _STOPWORDS_PATH.read_text(encoding="utf-8").splitlines()
    return frozenset(word for line in lines if (word := line.strip().lower()))


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


@functools.cache
def _token_pattern() -> re.Pattern[str]:
    """The token pattern over the BMP; _token_matches deals with astral characters.

    Python's re has no \\p{L}, so the L|N|M class is built once from
    unicodedata. re matches a class of BMP ranges with a bitmap, fast; a class
    reaching past U+FFFF is scanned range by range, several times slower.
    """
    chars = "".join(map(chr, range(0x10000)))
    ranges = []
    run_start = previous = None
    for char, category in zip(chars, map(unicodedata.category, chars), strict=True):
        if category[0] in "LNM":
            run_start = run_start or char
            previous = char
        elif run_start is not None:
            ranges.append(f"{re.escape(run_start)}-{re.escape(previous)}")
            run_start = None
    word = "[" + "".join(ranges) + "]+"
    return re.compile(f"{word}(?:[{_APOSTROPHES}]{word})*")


def _astral_stand_in(match: re.Match[str]) -> str:
    return "a" if unicodedata.category(match.group())[0] in "LNM" else " "


def _token_matches(text: str) -> Iterator[re.Match[str]]:
    """Matches whose spans are the tokens of text (their groups may differ from it)."""
    if _ASTRAL.search(text):
        # One BMP stand-in per astral character keeps every offset: a letter for
        # a letter, digit or mark (𝔘𝔫𝔦), a space for the rest (emoji).
        text = _ASTRAL.sub(_astral_stand_in, text)
    return _token_pattern().finditer(text)


def _norm(token_text: str) -> str:
    if token_text.isascii():
        return token_text.lower()
    return unicodedata.normalize("NFKC", token_text.translate(_STRAIGHTEN)).lower()


def overlap_tokens(text: str) -> list[Token]:
    """The tokens of the overlap check (see the tokenization notes above)."""
    return [
        Token(text[start:end], _norm(text[start:end]), start, end)
        for start, end in map(re.Match.span, _token_matches(text))
    ]


def word_count(text: str) -> int:
    """Words as the overlap check counts them (its tokens)."""
    return sum(1 for _ in _token_matches(text))


class _ProverbProfile(NamedTuple):
    norms: frozenset[str]
    ngrams_by_length: tuple[frozenset[str], ...]  # index n: keys of distinct n-grams


# A profile takes 5-15 KiB and 0.2 ms to build: 64 of them keep the proverbs a web worker's
# current writers submit against (512 held 4-6 MiB in every worker serving a large batch).
@functools.lru_cache(maxsize=64)
def _proverb_profile(proverb: str) -> _ProverbProfile:
    norms = [token.norm for token in overlap_tokens(proverb)]
    by_length = tuple(frozenset(_ngram_keys(norms, n)) for n in range(len(norms) + 1))
    return _ProverbProfile(frozenset(norms), by_length)


def _ngram_keys(norms: list[str], n: int) -> set[str]:
    """Distinct n-grams of norms, each joined into one string key."""
    return set(map(_NGRAM_KEY_SEPARATOR.join, zip(*(norms[i:] for i in range(n)), strict=False)))


def _ratio(shared: int, total: int) -> float:
    # Integer round-half-up to 4 decimals, so Python and JS give the same float.
    return (shared * 20000 + total) // (2 * total) / 10000 if total else 0.0


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _in_shared_run(norms: list[str], index: int, pairs: frozenset[str]) -> bool:
    """Whether the token at `index` begins or ends a pair of consecutive proverb words: it
    is then in a shared n-gram of 2 or more words, which the phrase rule measures."""
    before = index > 0 and _NGRAM_KEY_SEPARATOR.join(norms[index - 1 : index + 1]) in pairs
    return before or _NGRAM_KEY_SEPARATOR.join(norms[index : index + 2]) in pairs


def check_overlap(
    proverb: str,
    narrative: str,
    rules: OverlapRules | Mapping | None = None,
    stopwords: Collection[str] | None = None,
) -> dict:
    """Check a narrative against its proverb; the result is JSON-serialisable: word_count,
    shared_words and shared_content_words (distinct norms in order of first appearance in
    the narrative), highlights ([start, end] code-point offsets of every narrative token a
    rule counts: a shared content word, or a word of a run of two or more proverb words in
    the proverb's order; a lone small word such as "the" counts toward neither), overlap
    (per n in 1..3: distinct shared n-grams, distinct proverb n-grams, their ratio),
    longest_shared_ngram (earliest of the longest), violations (ngram, content_words,
    too_short, too_long, in that order) and ok.
    """
    if not isinstance(rules, OverlapRules):
        rules = OverlapRules.from_dict(rules)
    if stopwords is None:
        stopwords = load_stopwords()
    elif not isinstance(stopwords, (set, frozenset)):
        stopwords = frozenset(stopwords)
    profile = _proverb_profile(proverb)
    proverb_words = profile.norms
    norms = []
    found = []  # (token index, start, end) of the tokens whose norm is in the proverb
    for match in _token_matches(narrative):  # overlap_tokens, without Token objects
        start, end = match.span()
        norm = _norm(narrative[start:end])
        if norm in proverb_words:
            found.append((len(norms), start, end))
        norms.append(norm)
    pairs = profile.ngrams_by_length[2] if len(profile.ngrams_by_length) > 2 else frozenset()
    highlights = [
        [start, end]
        for index, start, end in found
        if norms[index] not in stopwords or _in_shared_run(norms, index, pairs)
    ]

    shared_words = list(dict.fromkeys(norm for norm in norms if norm in proverb_words))
    shared_content_words = [word for word in shared_words if word not in stopwords]
    # A shared n-gram starts with a proverb word: only those starts are looked at.
    starts = [index for index, norm in enumerate(norms) if norm in proverb_words]

    overlap = {}
    for n in (1, 2, 3):
        proverb_grams = profile.ngrams_by_length[n] if n < len(profile.ngrams_by_length) else ()
        candidates = {
            _NGRAM_KEY_SEPARATOR.join(norms[start : start + n])
            for start in starts
            if start + n <= len(norms)
        }
        shared = len(candidates.intersection(proverb_grams))
        total = len(proverb_grams)
        overlap[str(n)] = {"shared": shared, "proverb": total, "ratio": _ratio(shared, total)}

    # Every prefix of a shared n-gram is shared, so extend from each start while
    # the longer n-gram is still in the proverb: O(len(narrative) x len(proverb)).
    longest_start, longest_length = 0, 0
    max_length = len(profile.ngrams_by_length) - 1
    for start in starts:
        length = 1
        while (
            length < max_length
            and start + length < len(norms)
            and _NGRAM_KEY_SEPARATOR.join(norms[start : start + length + 1])
            in profile.ngrams_by_length[length + 1]
        ):
            length += 1
        if length > longest_length:
            longest_start, longest_length = start, length
    longest = norms[longest_start : longest_start + longest_length]

    violations = []
    if len(longest) > rules.max_shared_ngram:
        phrase = " ".join(longest)
        violations.append(
            {
                "rule": "ngram",
                "message": f'Your story repeats the phrase "{phrase}" from the proverb. '
                "Rephrase it.",
                "words": longest,
            }
        )
    if len(shared_content_words) > rules.max_shared_content_words:
        allowed = rules.max_shared_content_words
        violations.append(
            {
                "rule": "content_words",
                "message": f"Your story shares {_plural(len(shared_content_words), 'word')} "
                f"with the proverb ({', '.join(shared_content_words)}); "
                f"at most {allowed} {'is' if allowed == 1 else 'are'} allowed.",
                "words": shared_content_words,
            }
        )
    count = len(norms)
    for rule, broken, ask in (
        ("too_short", count < rules.min_words, f"at least {rules.min_words}"),
        ("too_long", count > rules.max_words, f"at most {rules.max_words}"),
    ):
        if broken:
            message = f"Your story has {_plural(count, 'word')}; write {ask}."
            violations.append({"rule": rule, "message": message, "words": []})

    return {
        "word_count": count,
        "shared_words": shared_words,
        "shared_content_words": shared_content_words,
        "highlights": highlights,
        "overlap": overlap,
        "longest_shared_ngram": longest,
        "violations": violations,
        "ok": not violations,
    }
