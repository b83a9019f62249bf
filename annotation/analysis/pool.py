"""Worker processes of the dataset analysis: the persistent warm pool, the per-part task it
runs (VADER, Flesch, sentences, tokens and overlaps), and the models' warm-up."""

from __future__ import annotations

import atexit
import gc
import multiprocessing
import os
import threading
from collections.abc import Sequence
from typing import Any

from annotation.analysis.common import LONG_READ_GC_THRESHOLDS
from annotation.analysis.lexical import lexical_part
from annotation.analysis.readability import readability_scorer
from annotation.analysis.sentences import get_sentence_splitter
from annotation.analysis.sentiment import sentiment_analyzer

# From this many approved narratives up, an analysis spawns a pool when none runs.
PARALLEL_THRESHOLD = 20_000


def load_models(sentence_splitter: str = "sentencizer", *, processes: int = 1) -> None:
    """Build and run once the cached models and import scipy, so that a first ``analyze``
    pays no start-up cost (benchmarks); with ``processes`` > 1, start the persistent pool."""
    import scipy.sparse
    import scipy.special  # noqa: F401

    sample = "The first sentence is short. The second one, a little longer, ends here!"
    get_sentence_splitter(sentence_splitter)([sample])
    score_texts([sample])
    if processes > 1:
        start_workers(processes, sentence_splitter=sentence_splitter)


_POOL: Any = None
_POOL_SIZE = 0
_LOCK = threading.RLock()


def spawn_pool(processes: int, splitter_name: str | None) -> Any:
    """A spawned pool whose workers load the models (and the named splitter) first."""
    return multiprocessing.get_context("spawn").Pool(
        processes, initializer=_init_worker, initargs=(splitter_name,)
    )


def start_workers(processes: int | None = None, *, sentence_splitter: str = "sentencizer") -> int:
    """Start, once, a persistent pool of warm worker processes that ``analyze`` reuses in
    a process that analyzes repeatedly (else each large call spawns and warms its own, a
    few seconds). Returns its size (0: none, e.g. in a daemonic process); it ends with
    :func:`stop_workers` or at interpreter exit."""
    global _POOL, _POOL_SIZE
    processes = processes or os.cpu_count() or 1
    with _LOCK:
        if _POOL is None and processes > 1 and not multiprocessing.current_process().daemon:
            pool = spawn_pool(processes, sentence_splitter)
            # Each worker loads its models in its initializer; tiny tasks wait for them.
            sample = ["Warm up. Twice."]
            warm_up = (sample, sentence_splitter, sample, sample, False, None)
            pool.map(work_chunk, [warm_up] * (2 * processes), chunksize=1)
            _POOL, _POOL_SIZE = pool, processes
            atexit.register(stop_workers)
        return _POOL_SIZE


def stop_workers() -> None:
    """End the persistent worker pool, if any."""
    global _POOL, _POOL_SIZE
    with _LOCK:
        if _POOL is not None:
            _POOL.terminate()
            _POOL.join()
        _POOL, _POOL_SIZE = None, 0


def score_texts(
    texts: Sequence[str], *, newer_flesch: bool = False
) -> tuple[list[float], list[float], list[float] | None]:
    """VADER compound and Flesch reading ease (the paper's rules; the newer rules' too, or
    None, as ``newer_flesch`` asks) of each text."""
    analyzer = sentiment_analyzer()
    scorer = readability_scorer()
    compounds = [float(analyzer.compound(t)) for t in texts]
    newer = scorer.flesch_many(texts) if newer_flesch else None
    return compounds, scorer.flesch_paper_many(texts), newer


def work_chunk(
    task: tuple[list[str], str | None, list[str] | None, list[str] | None, bool, list[int] | None],
) -> tuple[Any, ...]:
    """A pool worker's task on a part of the approved narratives: (texts, built-in
    splitter or None, proverbs, the random baseline's proverbs, newer Flesch?, positions of
    the texts to score or None for all) -> (compounds, the paper's Flesch, the newer or
    None, sentence counts or None: of the texts scored; the LexicalPart of every text, or
    None without proverbs)."""
    texts, splitter_name, proverbs, others, newer_flesch, score = task
    scored = texts if score is None else [texts[i] for i in score]
    compounds, flesch, newer = score_texts(scored, newer_flesch=newer_flesch)
    counts = get_sentence_splitter(splitter_name)(scored) if splitter_name else None
    lexical = lexical_part(texts, proverbs, others) if proverbs is not None else None
    return compounds, flesch, newer, counts, lexical


def _init_worker(splitter_name: str | None) -> None:
    # A worker keeps its caches and models and makes many short-lived sets: the
    # collector need not run every 700 allocations.
    gc.set_threshold(*LONG_READ_GC_THRESHOLDS)
    sentiment_analyzer()
    readability_scorer()
    if splitter_name:
        get_sentence_splitter(splitter_name)


def analysis_pool(
    processes: int | None, *, expected: int, builtin: str | None
) -> tuple[Any, Any, int]:
    """(the pool an analysis' parts go to, or None to run them in this process; the pool
    started for that analysis only, or None; how many processes work): see core.analyze."""
    persistent = _POOL if processes in (None, _POOL_SIZE) else None
    if processes is None:
        if persistent is not None:
            processes = _POOL_SIZE
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
