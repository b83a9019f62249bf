"""Narrative generation from a proverb and keywords (ePiC Table 11): inputs, parts, metrics.

No Django and no torch (the web process checks a snapshot with it). A seq2seq model reads
"proverb [SEP] keyword, ..." (verbs, then named entities), a causal decoder a prompt of the
same (`prompt_text`). Narratives without keywords are left out and counted.

Metrics as the paper reports them: corpus BLEU (sacrebleu, 0-100), ROUGE-L (mean F-measure)
and keyword recall (surface forms on word boundaries: "ran" does not count for the lemma
"run"; `keyword_recall_lemmas` credits inflected verbs); beside them the outputs' spread and
the health check (modeling.training.health).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from modeling.training.examples import Example, Parts, SnapshotError, split_parts
from modeling.training.health import Parsed, text_health
from modeling.training.hyperparameters import Hyperparameters

SEPARATOR = " [SEP] "


def source_text(example: Example) -> str:
    """The model's input: the proverb, the separator, the keywords joined by commas."""
    return f"{example.proverb}{SEPARATOR}{', '.join(example.keywords)}"


@dataclass(frozen=True)
class GenerationParts:
    parts: Parts
    left_out: int  # narratives of the snapshot without keywords
    total: int


def prompt_text(example: Example) -> str:
    """A causal decoder's prompt: the proverb and the keywords, then where the story starts."""
    return f"Proverb: {example.proverb}\nKeywords: {', '.join(example.keywords)}\nStory:"


def generation_parts(
    examples: Sequence[Example], *, setting: str, seed: int, hp: Hyperparameters | None = None
) -> GenerationParts:
    """Train (less dev), dev and test of the narratives that have keywords; with
    `hp.train_size` or `hp.test_size`, the first so many of the split's train or test.

    Raises SnapshotError saying how many narratives had keywords when too few are left.
    """
    usable = [example for example in examples if example.keywords]
    left_out = len(examples) - len(usable)
    for part, size in (("train", hp.train_size), ("test", hp.test_size)) if hp else ():
        if size:
            in_part = [e.narrative_id for e in usable if getattr(e, setting) == part]
            past = set(in_part[size:])
            usable = [e for e in usable if e.narrative_id not in past]
    if not usable:
        raise SnapshotError(
            f"None of the snapshot's {len(examples)} narratives has keywords: generation "
            "needs each narrative's verbs and named entities, extracted when it is approved "
            "(wait for the keyword tasks to finish, or check the Celery worker)."
        )
    try:
        parts = split_parts(usable, setting=setting, seed=seed, dev=True)
    except SnapshotError as error:
        raise SnapshotError(
            f"Too few narratives with keywords for generation ({len(usable)} of "
            f"{len(examples)}; {left_out} without keywords are left out): {error}"
        ) from None
    return GenerationParts(parts=parts, left_out=left_out, total=len(examples))


def corpus_bleu(generated: Sequence[str], references: Sequence[str]) -> float:
    """sacrebleu's corpus BLEU (0-100) against one reference per text."""
    import sacrebleu

    if len(generated) != len(references):
        raise ValueError("one reference per generated text")
    if not generated:
        return 0.0
    return float(sacrebleu.corpus_bleu(list(generated), [list(references)]).score)


def rouge_l_scores(generated: Sequence[str], references: Sequence[str]) -> list[float]:
    """rouge-score's ROUGE-L F-measure of each text against its reference (0-1)."""
    from rouge_score import rouge_scorer

    if len(generated) != len(references):
        raise ValueError("one reference per generated text")
    scorer = rouge_scorer.RougeScorer(["rougeL"])
    return [
        scorer.score(reference, text)["rougeL"].fmeasure
        for text, reference in zip(generated, references, strict=True)
    ]


def rouge_l(generated: Sequence[str], references: Sequence[str]) -> float:
    """rouge-score's ROUGE-L F-measure, averaged over the texts (0-1)."""
    scores = rouge_l_scores(generated, references)
    return sum(scores) / len(scores) if scores else 0.0


# Under this share of distinct outputs a run's texts barely depend on their input: it is
# marked degenerate, and its scores are never shown as plain scores.
DEGENERATE_DISTINCT = 0.5


def output_spread(generated: Sequence[str]) -> dict:
    """How much the outputs differ: {"distinct" (share of distinct texts), "distinct_count",
    "most_repeated": {"text", "count"}, "degenerate"}; None shares without texts."""
    if not generated:
        return {"distinct": None, "distinct_count": 0, "most_repeated": None, "degenerate": False}
    counts = Counter(generated)
    text, count = counts.most_common(1)[0]
    share = len(counts) / len(generated)
    return {
        "distinct": share,
        "distinct_count": len(counts),
        "most_repeated": {"text": text, "count": count},
        "degenerate": share < DEGENERATE_DISTINCT,
    }


def keywords_found(text: str, keywords: Sequence[str]) -> list[bool]:
    """For each keyword, whether it occurs in `text` (case-insensitive, on word boundaries)."""
    return [
        re.search(rf"(?<!\w){re.escape(keyword)}(?!\w)", text, flags=re.IGNORECASE) is not None
        for keyword in keywords
    ]


def keyword_recall(generated: Sequence[str], keywords: Sequence[Sequence[str]]) -> float | None:
    """Share of all input keywords that appear in their generated text; None without keywords."""
    found = [
        hit
        for text, words in zip(generated, keywords, strict=True)
        for hit in keywords_found(text, words)
    ]
    return sum(found) / len(found) if found else None


Lemmatize = Callable[[list[str]], list[list[str]]]


def keyword_recall_lemmas(
    generated: Sequence[str], keywords: Sequence[Sequence[str]], lemmatize: Lemmatize
) -> float | None:
    """Share of all input keywords whose lemmas occur, in a row, among their generated text's
    lemmas (`lemmatize(texts)` gives each text's lowercased lemmas); None without keywords."""
    flat = [keyword for words in keywords for keyword in words]
    if not flat:
        return None
    texts = lemmatize(list(generated))
    phrases = iter(lemmatize(flat))
    found = 0
    for lemmas, words in zip(texts, keywords, strict=True):
        joined = f" {' '.join(lemmas)} "
        found += sum(f" {' '.join(next(phrases))} " in joined for _ in words)
    return found / len(flat)


def generation_metrics(
    generated: Sequence[str],
    references: Sequence[str],
    keywords: Sequence[Sequence[str]],
    *,
    nlp=None,
) -> dict:
    """{"bleu", "rouge_l", "keyword_recall", "keyword_recall_lemmas", "health", "total"} and
    the output spread (`output_spread`) of generated texts against references. With spaCy's
    pipeline `nlp` (modeling.training.health.english_pipeline), recall on lemmas and the
    health check against the references; without it both are None (unknown)."""
    figures = {
        **output_spread(generated),
        "bleu": corpus_bleu(generated, references),
        "rouge_l": rouge_l(generated, references),
        "keyword_recall": keyword_recall(generated, keywords),
        "keyword_recall_lemmas": None,
        "health": None,
        "total": len(generated),
    }
    if nlp is not None and generated:
        parsed = Parsed(nlp, generated, references, [word for words in keywords for word in words])
        figures["keyword_recall_lemmas"] = keyword_recall_lemmas(generated, keywords, parsed.lemmas)
        figures["health"] = text_health(generated, references, keywords, parsed=parsed)
    return figures
