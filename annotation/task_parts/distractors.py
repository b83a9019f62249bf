"""Distractor proverbs for multiple-choice questions: a DistractorSource picks seeded wrong
options among curated proverbs, never the answer, its variants or one too close to it. Here
a lexical source and a random one; modeling registers "model:<run id>" (ePiC Appendix B).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from django.db.models import Q

from annotation.curation.variants import proverbs_near
from annotation.models import Narrative, Proverb


@dataclass(frozen=True)
class Candidate:
    """A proverb as a source sees it."""

    id: int
    text: str


class DistractorSource:
    """Subclasses set `key` and `label` and implement `rank`."""

    key: ClassVar[str]
    label: ClassVar[str]

    def rank(
        self, *, narrative: str, correct: Candidate, candidates: Sequence[Candidate], rng
    ) -> list[Candidate]:
        """Candidates from most to least wanted as distractors (correct one excluded)."""
        raise NotImplementedError

    def pick(
        self,
        *,
        narrative: str,
        correct: Candidate,
        candidates: Sequence[Candidate],
        count: int,
        seed: int | str,
    ) -> list[Candidate]:
        """`count` distractors (fewer if there are not enough candidates), never `correct`."""
        pool = [c for c in dict.fromkeys(candidates) if c.id != correct.id]
        ranked = self.rank(
            narrative=narrative, correct=correct, candidates=pool, rng=random.Random(str(seed))
        )
        return [c for c in ranked if c.id != correct.id][:count]


class RandomSource(DistractorSource):
    key = "random"
    label = "Random curated proverbs"

    def rank(self, *, narrative, correct, candidates, rng) -> list[Candidate]:
        ordered = sorted(candidates, key=lambda c: c.id)
        rng.shuffle(ordered)
        return ordered


class LexicalSimilaritySource(DistractorSource):
    """Proverbs close by TF-IDF to the narrative (what a reader skimming for shared words
    picks) and to the answer (near-paraphrases), in turn like ePiC's mix of "most probable"
    and "closest to the answer"; ties broken by the seeded generator."""

    key = "lexical"
    label = "Lexically similar proverbs (TF-IDF)"

    def rank(self, *, narrative, correct, candidates, rng) -> list[Candidate]:
        from sklearn.feature_extraction.text import TfidfVectorizer

        if not candidates:
            return []
        tiebreak = {c.id: rng.random() for c in sorted(candidates, key=lambda c: c.id)}
        vectorizer = TfidfVectorizer(stop_words="english", sublinear_tf=True)
        try:
            matrix = vectorizer.fit_transform([c.text for c in candidates] + [correct.text])
        except ValueError:  # nothing but stopwords anywhere: no vocabulary
            return sorted(candidates, key=lambda c: tiebreak[c.id])
        proverbs, answer = matrix[: len(candidates)], matrix[len(candidates)]
        story = vectorizer.transform([narrative])
        by_story = (proverbs @ story.T).toarray().ravel()
        by_answer = (proverbs @ answer.T).toarray().ravel()

        def ranking(scores) -> list[Candidate]:
            order = sorted(
                range(len(candidates)), key=lambda i: (-scores[i], tiebreak[candidates[i].id])
            )
            return [candidates[i] for i in order]

        ranked: list[Candidate] = []
        for pair in zip(ranking(by_story), ranking(by_answer), strict=True):
            ranked.extend(c for c in pair if c not in ranked)
        return ranked


_sources: dict[str, DistractorSource] = {}


@dataclass(frozen=True)
class SourceFamily:
    """Sources named "<prefix>:<name>", made on demand: `load(name)` (LookupError for none),
    `choices()` a form offers now, `name_pattern` the names the settings schema takes."""

    prefix: str
    load: Callable[[str], DistractorSource]
    choices: Callable[[], list[tuple[str, str]]]
    name_pattern: str = ".+"


class SourceNotFound(LookupError):
    """A family's source name that names nothing (e.g. no such finished run)."""


_families: dict[str, SourceFamily] = {}


def register_source(source: DistractorSource) -> DistractorSource:
    _sources[source.key] = source
    return source


def register_source_family(family: SourceFamily) -> SourceFamily:
    _families[family.prefix] = family
    return family


def get_source(key: str) -> DistractorSource:
    if key in _sources:
        return _sources[key]
    prefix, _, name = key.partition(":") if isinstance(key, str) else ("", "", "")
    if prefix in _families and name:
        try:
            return _families[prefix].load(name)
        except LookupError as error:
            raise SourceNotFound(str(error)) from None
    known = ", ".join([*sorted(_sources), *(f"{prefix}:<name>" for prefix in sorted(_families))])
    raise LookupError(f"No distractor source {key!r}; known: {known}.")


def source_schema() -> dict:
    """The source keys get_source takes, as a settings schema states them."""
    families = [
        {"type": "string", "pattern": f"^{prefix}:{family.name_pattern}$"}
        for prefix, family in sorted(_families.items())
    ]
    return {"anyOf": [{"enum": sorted(_sources)}, *families]}


def source_choices() -> list[tuple[str, str]]:
    fixed = [(key, source.label) for key, source in sorted(_sources.items())]
    families = [family for _, family in sorted(_families.items())]
    return fixed + [choice for family in families for choice in family.choices()]


register_source(LexicalSimilaritySource())
register_source(RandomSource())


def curated_candidates(*, excluding: Proverb) -> list[Candidate]:
    """Curated proverbs a question on `excluding` may offer as wrong options: never the
    answer, a proverb of its variant family (merged into it, or it and its siblings merged
    into another), nor one too close to it by curation's measure (`proverbs_near`)."""
    family = Q(pk=excluding.pk) | Q(variant_of=excluding)
    if excluding.variant_of_id:
        family |= Q(pk=excluding.variant_of_id) | Q(variant_of=excluding.variant_of_id)
    rows = list(
        Proverb.objects.filter(status=Proverb.Status.CURATED)
        .exclude(family)
        .order_by("id")
        .values_list("id", "text")
    )
    too_close = proverbs_near(excluding.text, rows)
    return [Candidate(pk, text) for pk, text in rows if pk not in too_close]


def distractors_for(
    *, narrative: Narrative, source: str, count: int, seed: int | str
) -> list[Proverb]:
    """Distractor proverbs for a narrative's question: curated, never its own proverb."""
    correct = narrative.proverb
    picked = get_source(source).pick(
        narrative=narrative.text,
        correct=Candidate(correct.pk, correct.text),
        candidates=curated_candidates(excluding=correct),
        count=count,
        seed=f"{seed}:{narrative.pk}",
    )
    by_id = Proverb.objects.in_bulk([c.id for c in picked])
    return [by_id[c.id] for c in picked]
