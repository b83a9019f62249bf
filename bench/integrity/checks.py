"""Times the dataset check behind every submitted story in a real Celery worker: the CPU
a worker spends per check while it drains a queue of checks.

Run from the repository root: `.venv/bin/python bench/integrity/checks.py [--stories 200]
[--existing 2500] [--concurrency N] [--profile FILE]`.

It starts PostgreSQL and Redis (tests/services.sh) on free ports, migrates, and builds an
ePiC-shaped dataset with bench/integrity/similarity.py's story generator: `--existing`
stories (10 per proverb, 15 per worker) already embedded and checked, then `--stories`
new ones by the same workers, one in ten a planted near-copy of another story of its
proverb, each waiting for its check as a submitted story does. A Celery worker starts
as platform/entrypoint.sh runs it (`celery -A config worker -Q celery`, prefork), with
one process unless `--concurrency` (each process loads the model at its first check, and
a drain counts that of any process but the first); one story's check warms it up (the
model's load, reported apart).
Then every new story's check is queued as a submit queues it (common.task_queue), and
the worker drains them (with --one-by-one, each is queued once the one before it is
done: checks that never arrive together). Prints the worker's CPU (its process tree, from /proc) and
PostgreSQL's per check, checks a second, how many stories the checks flagged, and the
load average, since this machine is shared; the last line is `cpu per check X ms`.
With --profile, py-spy samples the worker through the drain (raw collapsed stacks).
Prints figures; it is not a test.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.integrity.similarity import THEMES, near_copies, story  # noqa: E402
from bench.serving.measure import load_average, tree_cpu  # noqa: E402
from bench.serving.run import services_environment, start_services, stop_services  # noqa: E402
from tests.integration.processes import process_stop  # noqa: E402

TARGET_MS = 30.0
# Before the one-thread forward passes and the passes of waiting stories: this bench with
# 1,000 stories checked, 100 queued and two worker processes, at a load average of 10;
# and bench/serving's queued checks drained with no web load.
BEFORE = "243 ms here; 296-305 ms draining bench/serving's checks"
PER_PROVERB, PER_WORKER = 10, 15
DRAIN_TIMEOUT_S = 1800


def dataset_build(existing: int, stories: int, seed: int = 7) -> tuple[list[int], int]:
    """The existing stories (embedded and checked) and the new ones (waiting for their
    check), written in one write batch (a worker takes a proverb once); returns the new
    stories' ids and a warm-up story's id."""
    from datetime import timedelta

    from django.utils import timezone

    from annotation.models import Narrative, NarrativeIntegrity, Proverb
    from annotation.quality.similarity import narratives_embed
    from annotation.text import normalize_text
    from crowd.models import Assignment, Batch, BatchItem, Worker

    rng = random.Random(seed)
    themes = THEMES[0]
    proverb_count = max(1, existing // PER_PROVERB)
    proverbs = Proverb.objects.bulk_create(
        Proverb(text=text, normalized_text=normalize_text(text), status="curated")
        for text in (
            f"Proverb {number} on {themes[number % len(themes)]}" for number in range(proverb_count)
        )
    )
    batch = Batch.objects.create(name="Integrity checks", task_type="write")
    items = BatchItem.objects.bulk_create(BatchItem(batch=batch, proverb=p) for p in proverbs)
    workers = Worker.objects.bulk_create(
        Worker(provider="local", external_id=f"bench-{number}")
        for number in range(max(2, existing // PER_WORKER))
    )
    taken: set[tuple[int, int]] = set()
    now = timezone.now()

    def written(position: int, text: str, status: str) -> Narrative:
        worker = rng.choice(workers)
        while (position, worker.pk) in taken:
            worker = rng.choice(workers)
        taken.add((position, worker.pk))
        assignment = Assignment(
            item=items[position],
            worker=worker,
            status=status,
            expires_at=now + timedelta(hours=2),
            submitted_at=now + timedelta(hours=1),
        )
        narrative = Narrative(
            proverb=proverbs[position], text=text, source="crowd", status=status, worker=worker
        )
        narrative.assignment = assignment
        return narrative

    old = [
        written(
            index // PER_PROVERB, story(rng, themes[index // PER_PROVERB % len(themes)]), "approved"
        )
        for index in range(existing)
    ]
    fresh = []
    for number in range(stories + 1):
        position = rng.randrange(proverb_count)
        if number % 10 == 9:  # a planted near-copy of another story of its proverb
            source = rng.choice(old[position * PER_PROVERB : (position + 1) * PER_PROVERB])
            text = rng.choice(list(near_copies(rng, source.text).values()))
        else:
            text = story(rng, themes[position % len(themes)])
        fresh.append(written(position, text, "submitted"))
    Assignment.objects.bulk_create([narrative.assignment for narrative in old + fresh])
    Narrative.objects.bulk_create(old + fresh)
    narratives_embed([narrative.pk for narrative in old])
    NarrativeIntegrity.objects.update(checked_at=now)
    NarrativeIntegrity.objects.bulk_create(NarrativeIntegrity(narrative=n) for n in fresh)
    return [narrative.pk for narrative in fresh[1:]], fresh[0].pk


def celery_worker_start(env: dict, concurrency: int, log: Path) -> subprocess.Popen:
    """A Celery worker as platform/entrypoint.sh starts it, on the default queue."""
    return subprocess.Popen(
        [
            *(sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", "celery"),
            *(f"--concurrency={concurrency}", "--loglevel=WARNING", "--without-gossip"),
            "--without-mingle",
        ],
        cwd=ROOT,
        env=env,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
    )


def unchecked(ids: list[int]) -> int:
    from annotation.models import NarrativeIntegrity

    return NarrativeIntegrity.objects.filter(narrative_id__in=ids, checked_at__isnull=True).count()


def drain_wait(ids: list[int], worker: subprocess.Popen, log: Path) -> None:
    """Poll the database until every story in `ids` is checked."""
    deadline = time.monotonic() + DRAIN_TIMEOUT_S
    while unchecked(ids):
        if worker.poll() is not None:
            raise SystemExit(f"The Celery worker exited:\n{log.read_text()[-3000:]}")
        if time.monotonic() > deadline:
            raise SystemExit(f"Checks not drained after {DRAIN_TIMEOUT_S} s.")
        time.sleep(0.1)


def flagged(ids: list[int]) -> int:
    from annotation.models import NarrativeIntegrity
    from annotation.quality.integrity import IntegritySettings, similarity_flags

    settings = IntegritySettings()
    rows = NarrativeIntegrity.objects.filter(narrative_id__in=ids).values_list(
        "similarity", flat=True
    )
    return sum(bool(similarity_flags(similarity, settings=settings)) for similarity in rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stories", type=int, default=200, help="checks queued and drained")
    parser.add_argument("--existing", type=int, default=2_500, help="stories already checked")
    parser.add_argument(
        "--concurrency",
        type=int,
        default=1,
        help="Celery worker processes (each loads the model at its first check)",
    )
    parser.add_argument(
        "--one-by-one",
        action="store_true",
        help="queue each check once the one before it is done (no two arrive together)",
    )
    parser.add_argument("--profile", help="py-spy's raw stacks of the worker to this file")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="parable-checks-"))
    workdir.chmod(0o755)  # as root, PostgreSQL runs as the postgres user
    services_env = services_environment()
    worker = None
    try:
        services = start_services(workdir, services_env)
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.base",
            "DATABASE_URL": services["DATABASE_URL"],
            "CELERY_BROKER_URL": services["PARABLE_TEST_REDIS_URL"],
            "PARABLE_VAR_DIR": str(workdir / "var"),
        }
        os.environ.update(env)
        import django

        django.setup()
        from django.core.management import call_command

        from annotation.models import Narrative
        from annotation.tasks import narrative_similarity_check_task
        from common.task_queue import task_send

        print(f"load average at the start {load_average()} ({os.cpu_count()} CPUs)", flush=True)
        call_command("migrate", verbosity=0)
        started = time.perf_counter()
        ids, warm_id = dataset_build(args.existing, args.stories)
        from annotation.quality.embeddings import embedding_model_path, sentence_model

        tokenizer = sentence_model(embedding_model_path()).tokenizer
        texts = list(Narrative.objects.filter(pk__in=ids).values_list("text", flat=True))
        words = sum(len(text.split()) for text in texts) / len(texts)
        pieces = sum(map(len, tokenizer(texts)["input_ids"])) / len(texts)
        print(
            f"dataset: {args.existing:,} stories checked ({PER_PROVERB} a proverb, "
            f"{PER_WORKER} a worker), {len(ids):,} waiting for their check, {words:.0f} words "
            f"and {pieces:.0f} wordpieces a story; built in {time.perf_counter() - started:.0f} s"
        )
        log = workdir / "worker.log"
        worker = celery_worker_start(env, args.concurrency, log)
        postgres = int((workdir / "services/pg/data/postmaster.pid").read_text().split()[0])
        warm_cpu = time.perf_counter()
        task_send(narrative_similarity_check_task, warm_id)
        drain_wait([warm_id], worker, log)
        print(
            f"worker: prefork × {args.concurrency}; first check (start-up and the model's "
            f"load) after {time.perf_counter() - warm_cpu:.1f} s, {tree_cpu(worker.pid):.1f} s "
            "of CPU"
        )
        profiler = None
        if args.profile:
            profiler = subprocess.Popen(
                [
                    *(str(Path(sys.executable).parent / "py-spy"), "record"),
                    *("--pid", str(worker.pid), "--subprocesses", "--nonblocking"),
                    *("--rate", "200", "--format", "raw"),
                    *("--output", str(Path(args.profile).resolve())),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            time.sleep(1)  # py-spy attaches before the checks are queued
        load_before = load_average()
        cpu, db_cpu, wall = tree_cpu(worker.pid), tree_cpu(postgres), time.perf_counter()
        for narrative_id in ids:
            task_send(narrative_similarity_check_task, narrative_id)
            if args.one_by_one:
                drain_wait([narrative_id], worker, log)
        drain_wait(ids, worker, log)
        wall = time.perf_counter() - wall
        cpu, db_cpu = tree_cpu(worker.pid) - cpu, tree_cpu(postgres) - db_cpu
        if profiler is not None:
            profiler.send_signal(2)
            profiler.wait(timeout=60)
        count = len(ids)
        arrival = "one by one" if args.one_by_one else "queued at once"
        print(
            f"drained {count:,} checks ({arrival}) in {wall:.1f} s ({count / wall:.1f} a "
            "second): worker "
            f"{cpu:.1f} s of CPU, PostgreSQL {db_cpu:.1f} s; {flagged(ids)} stories flagged "
            f"(about {count // 10} planted near-copies)"
        )
        print(
            f"database CPU per check {1000 * db_cpu / count:.1f} ms; target for the worker "
            f"≤ {TARGET_MS:.0f} ms; before: {BEFORE}"
        )
        print(
            f"cpu per check {1000 * cpu / count:.1f} ms "
            f"(load average {load_before} → {load_average()})"
        )
    finally:
        if worker is not None:
            process_stop(worker)
        stop_services(workdir, services_env)


if __name__ == "__main__":
    main()
