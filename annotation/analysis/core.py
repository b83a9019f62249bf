"""Dataset analysis of a narrative collection, as plain Python (no Django imports).

Reproduces the dataset analyses of ePiC (Ghosh & Srivastava, ACL 2022, section 4 and
appendix A): Tables 1 to 3, narrative diversity, VADER sentiment (Figures 3 and 4), Flesch
reading ease and the human evaluation (Tables 5 and 10). The Django layer
(annotation.analysis.selectors) loads rows into plain records and calls :func:`analyze`.

Output: a JSON-safe dict (NaN and infinities become None; the mean of nothing is None, a
count of nothing 0) of ``schema_version``, ``proverbs``, ``narratives``, ``collection``,
``vocabulary_size``, ``tokens_per_narrative``, ``sentences_per_narrative``,
``span_pairs_per_narrative``, ``words_per_proverb_span``, ``words_per_narrative_span``,
``unique_bigrams``, ``unique_trigrams``, ``jaccard``, ``common_ngrams``, ``diversity``,
``sentiment``, ``sentiment_pearson_r``, ``readability``, ``human_evaluation`` and
``parameters``: every key, and every key below it, is defined in definitions.DEFINITIONS.

Input order matters only for the seeded random parts: pass narratives in a stable order.
From :data:`pool.PARALLEL_THRESHOLD` approved narratives up, the per-narrative work runs in
a pool of spawned processes (the caller's main module must be import-safe, as manage.py is),
part by part as they arrive; inside a daemonic process (Celery prefork) all runs in-process.
"""

from __future__ import annotations

import math
from collections import Counter, deque
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from annotation.analysis.common import Deferred, mean_or_none
from annotation.analysis.human_evaluation import AGREEMENT_THRESHOLD, human_evaluation
from annotation.analysis.lexical import LexicalMerge, lexical_part, random_proverb_permutation
from annotation.analysis.pool import analysis_pool, work_chunk
from annotation.analysis.readability import readability_statistics
from annotation.analysis.sentences import SentenceSplitter, splitter_choice
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

    ``sentence_splitter``: a callable(list[str]) -> list[int] of sentence counts, or
    "sentencizer" (None) or "senter". ``processes``: 1 runs in-process; None uses the
    :func:`start_workers` pool when one runs, else ``os.cpu_count()`` processes from
    :data:`pool.PARALLEL_THRESHOLD` narratives up. ``progress(done, total, stage)``: stages
    "texts", "tokens", "diversity", "human_evaluation". ``newer_flesch`` adds textstat
    0.7.13's Flesch (``readability.newer_*``), at as much cost again.
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
    """The analysis of narratives that arrive in parts: :meth:`add` them, then :meth:`finish`.
    A context manager, so that a pool started for it ends.

    ``expected`` (about how many approved narratives will come) sizes the processes and the
    parts, each sent to the pool when complete. ``plan``, the (id, proverb) of every approved
    narrative in the order added, lets overlaps with the random baseline be counted part by
    part; without it, or when the narratives differ from it, they are counted at the end.
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
        self.builtin, self.splitter, self.splitter_name = splitter_choice(sentence_splitter)
        # The pool the parts go to, and the one started for this analysis only (or None).
        self.pool, self._own_pool, self.processes = analysis_pool(
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
            proverbs = others = None  # the overlaps are counted at the end
            if self._plan_ids is not None:
                proverbs, others = [r.proverb for r in part], self._others[lo : lo + len(part)]
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
        """Take narratives (any status, in a stable order), with each one's scores kept from
        an earlier analysis ((compound, the paper's Flesch, sentences) or None), if any."""
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
                        lexical_part,
                        [r.text for r in approved[lo : lo + self.chunk]],
                        proverbs[lo : lo + self.chunk],
                        [proverbs[j] for j in perm[lo : lo + self.chunk]],
                    )
                    for lo in range(0, n, self.chunk)
                ]
            # What needs no worker's result is made while the workers finish.
            human = human_evaluation(list(ratings), list(choices), list(model_choices), self.report)
            collection = _collection(self.records)
            self.report(len(self._compounds), n, "texts")
            self._collect(wait=True)
            lexical = (self._merge if planned else LexicalMerge()).result(
                approved,
                (part.get() for part in pending),
                seed=self.seed,
                max_pairs=self.max_pairs,
                report=self.report,
                run=self._run,
            )
            sentiment = sentiment_statistics(approved, self._compounds)
            readability = readability_statistics(self._flesch, self._newer)
        finally:
            self.close()
        return _json_safe(
            {
                "schema_version": SCHEMA_VERSION,
                "narratives": n,
                "collection": collection,
                **lexical,
                "sentences_per_narrative": mean_or_none(self._sentences, n),
                "sentiment": sentiment,
                "sentiment_pearson_r": sentiment["pearson_r"],
                "readability": readability,
                "human_evaluation": human,
                "parameters": {
                    "seed": self.seed,
                    "sentence_splitter": self.splitter_name,
                    "syllable_source": readability["syllable_source"],
                    "sentiment_positive_threshold": SENTIMENT_POSITIVE,
                    "sentiment_negative_threshold": SENTIMENT_NEGATIVE,
                    "agreement_threshold": AGREEMENT_THRESHOLD,
                    "diversity_max_pairs": self.max_pairs,
                    "processes": self.processes,
                },
            }
        )


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
