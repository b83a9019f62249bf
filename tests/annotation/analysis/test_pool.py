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
