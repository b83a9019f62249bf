"""Times the dataset export (ePiC, JSONL, CSV, Parquet) and the Django-side analysis.

Run from the repository root: `python bench/export/run.py`. It migrates a temporary
SQLite database (under a temporary PARABLE_VAR_DIR; or, with --database-url, an
EMPTY database you name), fills it with ePiC-shaped data (10 narratives per proverb,
2 span pairs each, written by crowd workers, 1 in 40 rejected, text from
bench/analysis/synthetic.py), then runs each measurement in a fresh child process and
prints its seconds and peak RSS beside the target:

- export of all narratives in each format (data file and a counts-only dataset card;
  the card's full statistics are the analysis timed below), and of the first 2,500
  (batch "first 2,500") to show that memory does not grow with the dataset;
- the analysis as `manage.py analyze` runs it (selectors + annotation.analysis.core.analyze)
  of 2,500 and of all narratives, after the models are loaded.

Set PARABLE_BENCH_DIR to a folder to keep the SQLite database there and reuse it on
the next run. Wall-clock seconds depend on what else the machine runs; the CPU seconds
of the measured process are printed beside them. Prints figures; it is not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
FORMATS = ("epic", "jsonl", "csv", "parquet")
EXPORT_TARGET_S = 15.0
ANALYSIS_TARGETS = {2_500: (3.0, None), 100_000: (60.0, 2048.0)}
SMALL = 2_500


def _peak_mb(who: int = resource.RUSAGE_SELF) -> float:
    """Peak resident memory in MB. For this process, VmHWM: ru_maxrss would carry the
    parent's peak over fork and exec."""
    if who == resource.RUSAGE_SELF:
        status = Path("/proc/self/status")
        if status.exists():
            for line in status.read_text().splitlines():
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    return resource.getrusage(who).ru_maxrss / 1024.0  # KiB on Linux


def _setup_django() -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    django.setup()


def populate(n: int) -> None:
    """n narratives (plus 1 in 40 rejected) in two write batches: the first 2,500 and the rest."""
    from django.core.management import call_command
    from django.db import transaction
    from django.utils import timezone

    from annotation.models import Narrative, Proverb
    from annotation.task_parts.spans import resolve_span
    from annotation.task_types.align.models import SpanPair
    from annotation.text import normalize_text
    from bench.analysis.synthetic import TextGenerator
    from crowd.models import Assignment, Batch, BatchItem, Worker

    call_command("migrate", verbosity=0)
    if Narrative.objects.exists():
        raise SystemExit("The database already holds narratives: give an empty one.")
    gen = TextGenerator(0)
    total = n + n // 40
    proverb_count = -(-n // 10)
    now = timezone.now()
    with transaction.atomic():
        texts = list(dict.fromkeys(gen.proverb() for _ in range(proverb_count * 2)))
        proverbs = Proverb.objects.bulk_create(
            Proverb(text=t, normalized_text=normalize_text(t), status="curated")
            for t in list({normalize_text(t): t for t in texts}.values())[:proverb_count]
        )
        workers = Worker.objects.bulk_create(
            Worker(provider="mturk", external_id=f"A{i:08d}") for i in range(max(11, n // 15))
        )
        rejecting = Worker.objects.bulk_create(  # one each: never twice on an item
            Worker(provider="mturk", external_id=f"R{i:08d}") for i in range(total - n)
        )
        batches = [
            Batch.objects.create(name="first 2,500", task_type="write"),
            Batch.objects.create(name="the rest", task_type="write"),
        ]
        items = BatchItem.objects.bulk_create(
            [
                BatchItem(batch=batches[0 if p < SMALL // 10 else 1], proverb=proverb)
                for p, proverb in enumerate(proverbs)
            ]
        )
        rows = []
        for i in range(total):
            approved = i < n
            p = i // 10 if approved else (i * 7) % proverb_count
            worker = workers[(i * 7919) % len(workers)] if approved else rejecting[i - n]
            rows.append((i, approved, p, worker, gen.narrative()))
        assignments = Assignment.objects.bulk_create(
            (
                Assignment(
                    item=items[p],
                    worker=worker,
                    status="approved" if approved else "rejected",
                    expires_at=now + timedelta(hours=2),
                    submitted_at=now + timedelta(hours=1),
                )
                for _, approved, p, worker, _ in rows
            ),
            batch_size=5_000,
        )
        narratives = Narrative.objects.bulk_create(
            (
                Narrative(
                    proverb=proverbs[p],
                    text=text,
                    source="crowd",
                    status="approved" if approved else "rejected",
                    assignment=assignment,
                    worker=worker,
                )
                for (_, approved, p, worker, text), assignment in zip(
                    rows, assignments, strict=True
                )
            ),
            batch_size=5_000,
        )
        pairs = []
        for narrative in narratives:
            if narrative.status != "approved":
                continue
            for position in (1, 2):
                quote = resolve_span(narrative.proverb.text, gen.span(narrative.proverb.text, 1, 3))
                story = resolve_span(narrative.text, gen.span(narrative.text, 6, 14))
                if quote and story:
                    pairs.append(
                        SpanPair(
                            narrative=narrative,
                            position=position,
                            proverb_start=quote[0],
                            proverb_end=quote[1],
                            proverb_span=narrative.proverb.text[quote[0] : quote[1]],
                            narrative_start=story[0],
                            narrative_end=story[1],
                            narrative_span=narrative.text[story[0] : story[1]],
                        )
                    )
        SpanPair.objects.bulk_create(pairs, batch_size=5_000)


def child_export(format: str, batch: str | None) -> dict:
    from annotation.exports.dataset import dataset_export
    from crowd.models import Batch

    batches = [Batch.objects.get(name=batch).pk] if batch else None
    before = _peak_mb()
    with tempfile.TemporaryDirectory() as directory:
        start, cpu = time.perf_counter(), time.process_time()
        result = dataset_export(
            format=format, directory=Path(directory), batches=batches, statistics=False
        )
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        size = sum(path.stat().st_size for path in Path(directory).iterdir())
    return {
        "rows": result.rows,
        "seconds": seconds,
        "cpu": cpu,
        "peak_mb": _peak_mb(),
        "before_mb": before,
        "mb": size / 2**20,
    }


def child_analyze(batch: str | None) -> dict:
    from annotation.analysis.pool import load_models
    from annotation.analysis.selectors import (
        dataset_analysis,
        evaluation_records,
        narrative_records,
    )
    from crowd.models import Batch

    batches = [Batch.objects.get(name=batch).pk] if batch else None
    load_models()
    start = time.perf_counter()
    list(narrative_records(batches=batches))
    evaluation_records(batches=batches)
    loading = time.perf_counter() - start
    start, cpu = time.perf_counter(), time.process_time()
    result = dataset_analysis(batches=batches)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {
        "rows": result["narratives"],
        "seconds": seconds,
        "cpu": cpu,
        "loading": loading,
        "peak_mb": _peak_mb(),
        "children_mb": _peak_mb(resource.RUSAGE_CHILDREN),
    }


def _run_child(*args: str) -> dict:
    completed = subprocess.run(
        [sys.executable, __file__, "--child", *args],
        capture_output=True,
        text=True,
        check=False,
        env=os.environ.copy(),
    )
    if completed.returncode:
        raise SystemExit(f"child {args} failed:\n{completed.stderr}")
    return json.loads(completed.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--narratives", type=int, default=100_000)
    parser.add_argument("--database-url", help="An EMPTY database to use instead of SQLite.")
    parser.add_argument("--skip-analysis", action="store_true")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _setup_django()
        kind, *rest = args.child
        if kind == "export":
            result = child_export(rest[0], rest[1] if len(rest) > 1 else None)
        else:
            result = child_analyze(rest[0] if rest else None)
        print(json.dumps(result))
        return

    kept = os.environ.get("PARABLE_BENCH_DIR")
    workdir = kept or tempfile.mkdtemp(prefix="parable-bench-")
    try:
        _bench(args, workdir)
    finally:
        if not kept:
            shutil.rmtree(workdir, ignore_errors=True)


def _bench(args: argparse.Namespace, workdir: str) -> None:
    os.environ["PARABLE_VAR_DIR"] = workdir
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.local"
    if args.database_url:
        os.environ["DATABASE_URL"] = args.database_url
    else:
        os.environ.pop("DATABASE_URL", None)
    _setup_django()
    from django.db import connection

    start = time.perf_counter()
    reused = not args.database_url and Path(workdir, "parable.sqlite3").exists()
    if not reused:
        populate(args.narratives)
    made = "reused" if reused else f"made in {time.perf_counter() - start:.1f} s"
    from annotation.models import Narrative

    approved = Narrative.objects.filter(status="approved").count()
    rejected = Narrative.objects.exclude(status="approved").count()
    print(
        f"database: {connection.vendor} ({made}); {approved:,} approved narratives "
        f"(+{rejected:,} rejected), 2 span pairs each; "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}"
    )
    for format in FORMATS:
        for batch in ("first 2,500", None):
            figures = _run_child("export", format, *([batch] if batch else []))
            full = not batch and figures["rows"] >= 100_000
            target = f"  (target < {EXPORT_TARGET_S:.0f} s)" if full else ""
            print(
                f"export {format:8} {figures['rows']:>7,} rows: {figures['seconds']:6.2f} s "
                f"({figures['cpu']:.2f} s CPU), "
                f"peak RSS {figures['peak_mb']:6.0f} MB ({figures['before_mb']:.0f} MB before), "
                f"{figures['mb']:.1f} MB written{target}"
            )
    if args.skip_analysis:
        return
    for batch in ("first 2,500", None):
        figures = _run_child("analyze", *([batch] if batch else []))
        seconds_target, memory_target = ANALYSIS_TARGETS[SMALL if batch else 100_000]
        full = batch or figures["rows"] >= 100_000
        print(
            f"analysis {figures['rows']:>7,} narratives: {figures['seconds']:6.2f} s "
            f"({figures['cpu']:.2f} s CPU in this process; loading the records "
            f"{figures['loading']:.2f} s) peak RSS {figures['peak_mb']:.0f} MB, worker "
            f"processes {figures['children_mb']:.0f} MB"
            + (f"  (target < {seconds_target:.0f} s" if full else "")
            + (f", < {memory_target:.0f} MB)" if full and memory_target else (")" if full else ""))
        )


if __name__ == "__main__":
    main()
