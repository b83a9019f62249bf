"""Benchmark of the dataset analysis (annotation.analysis.core.analyze) on synthetic data.

Run: .venv/bin/python bench/analysis/run.py [--sizes 2500,100000] [--warm-pool 2500]
     [--splitter sentencizer|senter] [--processes N] [--show]

Generates ePiC-shaped datasets deterministically (bench/analysis/synthetic.py), loads the
models first (sentence splitter, VADER, syllables), then times ``analyze`` and prints
wall time and peak memory beside the targets:

    analysis of 2,500 narratives: under 3 s once models are loaded
    analysis of 100,000 narratives: under 60 s and under 2 GB peak memory

Each size is first analyzed on the default path (``analyze`` as the management command
calls it: in-process below PARALLEL_THRESHOLD narratives, a pool spawned for the call
above), then the ``--warm-pool`` sizes again with a persistent pool of warm workers
(``start_workers``), each run on fresh data with its own vocabulary, so that no cache
of spaCy, VADER or the syllable counter is warm for it.

Peak memory: the high-water resident set size of this process (getrusage ru_maxrss),
and the peak of this process plus its worker processes together, sampled every 200 ms
from /proc while ``analyze`` runs (workers' own ru_maxrss is useless: a spawned child
inherits its parent's RSS figure from the moment before exec). CPU seconds of this
process and of its workers are printed too: this machine is shared, and wall time
depends on what else runs on its 2 cores.

Exporting 100,000 narratives, and the same analysis fed from the database, are
timed by bench/export/run.py.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from annotation.analysis.core import analyze  # noqa: E402
from annotation.analysis.pool import load_models, start_workers, stop_workers  # noqa: E402
from bench.analysis import synthetic  # noqa: E402

TARGETS = {2_500: (3.0, None), 100_000: (60.0, 2048.0)}


def _rss_mb(who: int = resource.RUSAGE_SELF) -> float:
    return resource.getrusage(who).ru_maxrss / 1024.0  # ru_maxrss is in KiB on Linux


def _proc_rss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


def _children_cpu_s() -> float:
    """CPU seconds (user + system) used so far by the live children of this process."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in _children(os.getpid()):
        try:
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / ticks


class TotalMemoryMonitor(threading.Thread):
    """Samples the RSS of this process plus its children; keeps the peak (MB)."""

    def __init__(self, interval: float = 0.2) -> None:
        super().__init__(daemon=True)
        self.interval = interval
        self.peak_mb = 0.0
        self.stopped = threading.Event()

    def run(self) -> None:
        me = os.getpid()
        while not self.stopped.is_set():
            total = _proc_rss_kib(me) + sum(_proc_rss_kib(c) for c in _children(me))
            self.peak_mb = max(self.peak_mb, total / 1024.0)
            self.stopped.wait(self.interval)

    def stop(self) -> float:
        self.stopped.set()
        self.join()
        return self.peak_mb


def bench_analysis(
    n: int, *, splitter: str, processes: int | None, show: bool, seed: int, label: str = ""
) -> dict:
    """Time one ``analyze`` call on fresh synthetic data (its own vocabulary: ``seed``)."""
    t0 = time.perf_counter()
    records = synthetic.narratives(n, seed=seed)
    ratings, choices, model_choices = synthetic.human_evaluation(records, seed=seed)
    made = time.perf_counter() - t0
    stages: dict[str, float] = {}
    start = time.perf_counter()

    def progress(done: int, total: int, stage: str) -> None:  # when each stage ends
        if done >= total:
            stages.setdefault(stage, time.perf_counter() - start)

    rss_before = _rss_mb()
    monitor = TotalMemoryMonitor()
    monitor.start()
    cpu_before = os.times()
    live_before = _children_cpu_s()
    start = time.perf_counter()
    result = analyze(
        records,
        ratings=ratings,
        choices=choices,
        model_choices=model_choices,
        sentence_splitter=splitter,
        progress=progress,
        processes=processes,
    )
    elapsed = time.perf_counter() - start
    cpu_after = os.times()
    live_after = _children_cpu_s()
    total_peak = monitor.stop()
    cpu_self = (cpu_after.user + cpu_after.system) - (cpu_before.user + cpu_before.system)
    # Workers of a pool spawned for the call have exited (os.times counts them); those
    # of a persistent pool are alive (read from /proc).
    cpu_children = (cpu_after.children_user + cpu_after.children_system) - (
        cpu_before.children_user + cpu_before.children_system
    )
    cpu_children += max(0.0, live_after - live_before)
    peak = _rss_mb()
    target_s, target_mb = TARGETS.get(n, (None, None))
    line = f"analysis {n:,} narratives{label}: {elapsed:.2f} s"
    if target_s:
        line += f" (target < {target_s:g} s)"
    line += f"; peak RSS {peak:,.0f} MB (before the call {rss_before:,.0f} MB)"
    if result["parameters"]["processes"] > 1:
        line += f", with workers {total_peak:,.0f} MB"
    if target_mb:
        line += f" (target < {target_mb / 1024:g} GB)"
    print(line)
    marks = ", ".join(f"{stage} done at {t:.2f} s" for stage, t in stages.items())
    print(
        f"    CPU {cpu_self:.1f} s in this process + {cpu_children:.1f} s in workers; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
        f"processes={result['parameters']['processes']}; data generated in {made:.1f} s"
    )
    print(f"    {marks}")
    if show:
        keys = (
            "proverbs",
            "narratives",
            "vocabulary_size",
            "tokens_per_narrative",
            "sentences_per_narrative",
            "span_pairs_per_narrative",
            "unique_bigrams",
            "unique_trigrams",
            "jaccard",
            "diversity",
            "sentiment_pearson_r",
        )
        print("    " + json.dumps({k: result[k] for k in keys}, default=str)[:600])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2500,100000", help="default path, in this order")
    parser.add_argument("--splitter", default="sentencizer", choices=("sentencizer", "senter"))
    parser.add_argument("--processes", type=int, default=None, help="default: analyze's choice")
    parser.add_argument(
        "--warm-pool",
        default="2500",
        help="sizes to analyze again with a persistent warm worker pool (start_workers); ''",
    )
    parser.add_argument("--show", action="store_true", help="print some of the statistics")
    args = parser.parse_args()

    t0 = time.perf_counter()
    load_models(args.splitter)
    print(f"models loaded in {time.perf_counter() - t0:.2f} s (splitter: {args.splitter})")
    seed = 0
    # Default path: small inputs in-process, large ones with a pool spawned for the call.
    for size in (int(s) for s in args.sizes.split(",") if s):
        bench_analysis(
            size, splitter=args.splitter, processes=args.processes, show=args.show, seed=seed
        )
        seed += 1
    warm = [int(s) for s in args.warm_pool.split(",") if s]
    if warm:
        t0 = time.perf_counter()
        size = start_workers(args.processes, sentence_splitter=args.splitter)
        print(f"persistent pool of {size} warm workers started in {time.perf_counter() - t0:.2f} s")
        for n in warm:
            bench_analysis(
                n,
                splitter=args.splitter,
                processes=None,
                show=args.show,
                seed=seed,
                label=" (warm pool)",
            )
            seed += 1
        stop_workers()


if __name__ == "__main__":
    main()
