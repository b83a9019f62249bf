"""Likely lexical variants among imported proverbs, proposed for a curator to merge.

Pure Python. Exact duplicates meet earlier (`normalize_text`); these are the near ones:
truncations ("Birds of a feather"), inflections, swapped words, fillers ("It's the ...").
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from annotation.text import normalize_text


@lru_cache(maxsize=1)
def _fuzz():
    """rapidfuzz's fuzz, imported on first use: web workers import this module (the
    admin's curation pages) and seldom compare proverbs."""
    from rapidfuzz import fuzz

    return fuzz


DEFAULT_THRESHOLD = 0.70
"""Tuned on tests/fixtures: every listed variant scores >= 0.72 with its original,
while the closest unrelated pair ("All good things must come to an end" / "Good
things come to those who wait") scores 0.68."""

LINK_FLOOR = 0.5
"""Chaining guard: two groups merge only if every cross pair scores at least this."""

CONTIGUOUS_BONUS = 0.95
"""Edit score given when the shorter proverb's tokens occur as a run in the longer."""

# Function words, modals, contractions as normalize_text spells them (apostrophe
# removed), and the light verb "make". Kept private and small on purpose: a
# changed list would silently change which proverbs are proposed as variants.
# fmt: off
_STOPWORDS = frozenset((
    "a", "an", "the", "and", "or", "but", "if", "of", "to", "in", "on", "at", "by", "for",
    "with", "from", "as", "into", "over", "off", "up", "down", "out", "is", "are", "was",
    "were", "be", "been", "being", "am", "do", "does", "did", "doing", "have", "has", "had",
    "having", "i", "me", "my", "we", "our", "us", "you", "your", "he", "him", "his", "she",
    "her", "it", "its", "they", "them", "their", "this", "that", "these", "those", "what",
    "which", "who", "whom", "whose", "when", "where", "why", "how", "all", "any", "both",
    "each", "few", "more", "most", "other", "some", "such", "no", "nor", "not", "only", "own",
    "same", "so", "than", "too", "very", "can", "will", "just", "should", "would", "could",
    "shall", "may", "might", "must", "ever", "there", "here", "itself", "yourself", "ourselves",
    "themselves", "myself", "one", "dont", "doesnt", "didnt", "cant", "wont", "isnt", "arent",
    "wasnt", "werent", "aint", "shouldnt", "couldnt", "wouldnt", "youre", "theyre", "thats",
    "whats", "theres", "youll", "weve", "hes", "shes", "make", "makes", "made",
    "making",
))
# fmt: on

# Pair weight by number of shared content stems: one shared word is weak evidence
# ("Time is money" / "Time flies"), three or more is strong.
_SHARED_WEIGHT = {0: 0.0, 1: 0.5, 2: 0.8}


@dataclass(frozen=True)
class VariantGroupProposal:
    """Proverbs proposed as lexical variants of one another."""

    member_ids: tuple[int, ...]  # sorted ascending, >= 2 members
    score: float  # strongest pairwise similarity in the group, 0..1


@dataclass(frozen=True)
class _Profile:
    normalized: str
    padded: str  # " normalized ", so a token run is a plain substring test
    token_count: int
    has_content_word: bool
    content: frozenset[str]


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    """A light suffix stripper: plural -s/-es/-ies, -ed, -ing, final -e, -y ~ -i."""
    if len(word) > 3:
        if word.endswith("ies") and len(word) > 4:
            word = word[:-3] + "y"
        elif word.endswith("sses") or word.endswith(("ches", "shes", "xes", "zes")):
            word = word[:-2]
        elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
            word = word[:-1]
        if word.endswith("ied") and len(word) > 4:
            word = word[:-3] + "y"
        elif word.endswith("ed") and len(word) > 4:
            word = word[:-2]
        elif word.endswith("ing") and len(word) > 5:
            word = word[:-3]
        if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
            word = word[:-1]  # "stopp" -> "stop", "hopp" -> "hop"
    if len(word) > 2 and word.endswith("y"):
        word = word[:-1] + "i"  # "cry" / "cries" / "crying" meet at "cri"
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]  # "save" / "saved" / "saves" meet at "sav"
    return word


def _profile(text: str) -> _Profile:
    normalized = normalize_text(text)
    tokens = tuple(normalized.split())
    content = frozenset(_stem(token) for token in tokens if token not in _STOPWORDS)
    has_content_word = bool(content)
    if not content:  # a proverb of function words only is still comparable
        content = frozenset(_stem(token) for token in tokens)
    return _Profile(normalized, f" {normalized} ", len(tokens), has_content_word, content)


def _similarity(first: _Profile, second: _Profile, cutoff: float = 0.0) -> float:
    """Score two profiles; a result below `cutoff` may be returned as 0.0."""
    shared = len(first.content & second.content)
    if not shared:
        return 0.0
    first_size, second_size = len(first.content), len(second.content)
    smallest = first_size if first_size < second_size else second_size
    overlap = shared / smallest * _SHARED_WEIGHT.get(shared, 1.0)
    if shared == smallest:  # a truncation keeps all of the shorter text's stems
        shorter, longer = (
            (first, second) if len(first.padded) <= len(second.padded) else (second, first)
        )
        if (
            shorter.token_count >= 2
            and shorter.has_content_word
            and shorter.padded in longer.padded
        ):
            return 0.5 * overlap + 0.5 * CONTIGUOUS_BONUS
    # Either half-and-half of word overlap and character similarity, or character
    # similarity alone when it is very high ("glistens" / "glitters"). The ratio
    # either needs to reach `cutoff` lets rapidfuzz stop early on hopeless pairs.
    needed = 100 * min(2 * cutoff - overlap, (cutoff + 1) / 2) - 1e-6
    ratio = _fuzz().ratio(
        first.normalized, second.normalized, score_cutoff=needed if needed > 0 else 0
    )
    if not ratio:
        return 0.0
    ratio /= 100
    blended = 0.5 * overlap + 0.5 * ratio
    alone = 2 * ratio - 1
    return blended if blended > alone else alone


def variant_similarity(first: str, second: str) -> float:
    """How likely two proverbs are lexical variants of each other, from 0 to 1.

    Half the score is word overlap: the containment of the smaller set of content
    stems (stopwords dropped, light stemming) in the larger, weighted down when
    only one or two stems are shared. The other half is character similarity of
    the normalized texts (rapidfuzz Indel ratio), raised to 0.95 when the shorter
    text's tokens appear as a contiguous run of the longer (a truncation). A very
    high character similarity counts alone (2 * ratio - 1). Texts sharing no
    content stem score 0.
    """
    return _similarity(_profile(first), _profile(second))


CONFUSABLE_THRESHOLD = 0.60
"""Below DEFAULT_THRESHOLD on purpose: a wrong option that scores this with the answer is
too close to be fair ("Fortune favours the brave" / "Fortune favors the bold" score
0.67), and leaving out a borderline candidate costs a question little."""


def proverbs_near(
    text: str, others: Sequence[tuple[int, str]], *, threshold: float = CONFUSABLE_THRESHOLD
) -> set[int]:
    """The ids of `others` whose text scores at least `threshold` with `text`
    (`variant_similarity`; the same normalised text scores 1)."""
    profile = _profile(text)
    return {
        proverb_id
        for proverb_id, other in others
        if _similarity(profile, _profile(other), cutoff=threshold) >= threshold
    }


class _Groups:
    """Union-find over proverb indexes that also keeps each group's members."""

    def __init__(self, size: int) -> None:
        self.parent = list(range(size))
        self.members: dict[int, list[int]] = {index: [index] for index in range(size)}
        self.score: dict[int, float] = {}

    def find(self, index: int) -> int:
        while self.parent[index] != index:
            self.parent[index] = self.parent[self.parent[index]]
            index = self.parent[index]
        return index

    def union(self, first_root: int, second_root: int, score: float) -> None:
        if len(self.members[first_root]) < len(self.members[second_root]):
            first_root, second_root = second_root, first_root
        self.parent[second_root] = first_root
        self.members[first_root].extend(self.members.pop(second_root))
        self.score[first_root] = max(
            score, self.score.pop(first_root, 0.0), self.score.pop(second_root, 0.0)
        )


def _candidate_pairs(profiles: Sequence[_Profile]) -> set[tuple[int, int]]:
    """Pairs of indexes sharing a content stem carried by at most `max_postings` proverbs
    (a commoner stem suggests no variant on its own; a rarer shared stem still pairs them)."""
    postings: dict[str, list[int]] = defaultdict(list)
    for index, profile in enumerate(profiles):
        for stem in profile.content:
            postings[stem].append(index)
    max_postings = max(64, len(profiles) // 50)
    pairs: set[tuple[int, int]] = set()
    for indexes in postings.values():
        if len(indexes) < 2 or len(indexes) > max_postings:
            continue
        for position, first in enumerate(indexes):
            pairs.update((first, second) for second in indexes[position + 1 :])
    return pairs


def propose_variant_groups(
    proverbs: Sequence[tuple[int, str]],
    *,
    threshold: float = DEFAULT_THRESHOLD,
    link_floor: float = LINK_FLOOR,
) -> list[VariantGroupProposal]:
    """Group (id, text) proverbs that are likely lexical variants of one another.

    Pairs scoring at least `threshold` are linked strongest first (ties by id), as in
    single-linkage clustering, but two groups merge only if every member of one scores at
    least `link_floor` with every member of the other, so that two fragments of one long
    proverb ("Early to bed and early to rise" / "Healthy, wealthy and wise") do not chain.
    Returns groups of two or more by smallest id, whatever the input order; ids are unique.
    """
    ordered = sorted(proverbs)
    ids = [proverb_id for proverb_id, _ in ordered]
    if len(set(ids)) != len(ids):
        raise ValueError("proverb ids must be unique")
    profiles = [_profile(text) for _, text in ordered]

    scored = []
    for first, second in _candidate_pairs(profiles):
        score = _similarity(profiles[first], profiles[second], cutoff=threshold)
        if score >= threshold:
            scored.append((-score, first, second))
    scored.sort()

    groups = _Groups(len(ordered))
    cache: dict[tuple[int, int], float] = {}

    def pair_score(first: int, second: int) -> float:
        key = (first, second) if first < second else (second, first)
        if key not in cache:
            cache[key] = _similarity(profiles[key[0]], profiles[key[1]])
        return cache[key]

    for negative_score, first, second in scored:
        first_root, second_root = groups.find(first), groups.find(second)
        if first_root == second_root:
            continue
        cross = [
            pair_score(left, right)
            for left in groups.members[first_root]
            for right in groups.members[second_root]
        ]
        if min(cross) >= link_floor:
            groups.union(first_root, second_root, max(-negative_score, *cross))

    proposals = [
        VariantGroupProposal(
            member_ids=tuple(sorted(ids[index] for index in members)),
            score=round(groups.score[root], 4),
        )
        for root, members in groups.members.items()
        if len(members) >= 2
    ]
    return sorted(proposals, key=lambda proposal: proposal.member_ids)
