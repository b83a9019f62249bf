"""annotation.analysis.pool: the process pool that scores large datasets."""

from __future__ import annotations

from annotation.analysis import pool
from annotation.analysis.core import analyze
from tests.annotation.analysis.test_core import NARRATIVES, RATINGS


def test_worker_pools_give_the_same_result():
    records = NARRATIVES * 3  # 12 approved (repeated ids do not matter here)
    single = analyze(records, processes=1, ratings=RATINGS)
    spawned = analyze(records, processes=2, ratings=RATINGS)  # a pool for this call
    assert spawned["parameters"]["processes"] == 2
    try:
        assert pool.start_workers(2) == 2
        assert pool.start_workers(2) == 2  # started once
        persistent = analyze(records, ratings=RATINGS)  # any size uses the warm pool
        custom = analyze(records, sentence_splitter=lambda texts: [1] * len(texts))
    finally:
        pool.stop_workers()
    assert persistent["parameters"]["processes"] == 2
    assert custom["sentences_per_narrative"] == 1.0  # custom splitter runs here
    for result in (single, spawned, persistent):
        result["parameters"].pop("processes")
    assert spawned == single
    assert persistent == single
    assert analyze(records)["parameters"]["processes"] == 1  # small input, pool gone


def test_kept_scores_are_taken_in_a_pool_and_the_rest_scored_there_for_keeping():
    from annotation.analysis.core import Analysis

    records = NARRATIVES * 3
    approved = [r for r in records if r.status == "approved"]
    fresh = analyze(records, processes=2, ratings=RATINGS)
    with Analysis(expected=len(approved), processes=2) as scoring:
        scoring.add(records)
        scoring.finish(ratings=RATINGS)
    assert [text for text, *_ in scoring.scored] == [r.text for r in approved]
    by_text = {text: tuple(scores) for text, *scores in scoring.scored}
    # Every other approved text's scores kept, given parts a chunk at a time.
    scores = [
        by_text[r.text] if r.status == "approved" and i % 2 else None for i, r in enumerate(records)
    ]
    with Analysis(expected=len(approved), processes=2) as kept:
        kept.add(records[:5], scores[:5])
        kept.add(records[5:], scores[5:])
        again = kept.finish(ratings=RATINGS)
    unknown = [
        r.text for r, s in zip(records, scores, strict=True) if r.status == "approved" and not s
    ]
    assert [text for text, *_ in kept.scored] == unknown
    assert again == fresh
