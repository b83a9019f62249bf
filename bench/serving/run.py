"""Serving benchmark: crowd workers looping next task → task page → submit against gunicorn.

Run from the repository root: `.venv/bin/python bench/serving/run.py [--workers 10,50,100]
[--batch-sizes 250,2500,25000] [--seconds 20] [--warmup 3] [--gunicorn-workers 4]
[--threads 1] [--conn-max-age N] [--rounds 1] [--memory-after 1000]`.

It starts PostgreSQL and Redis (tests/services.sh, with pg_stat_statements) and gunicorn
with config.settings.production (platform/gunicorn.conf.py) on free ports in 28200-28999,
requests arriving as from the TLS-terminating proxy (load.py) and background tasks going
to Redis (no Celery worker takes them: the web workers pay for queueing them). It creates
one write batch (10 narratives per proverb, more where a small batch would run out) for
each batch size, then for each worker count runs the batch sizes side by side in mirrored
order (A B B A, `--rounds` times): each phase signs in that many new local workers through
their invite links and drives them (bench/serving/load.py) for a warm-up and a measured
window, bounded in time, cycles and requests. It prints, beside the targets and the
figures measured before:

- a web worker's import of the application (CPU and resident memory, five fresh
  processes, the project's bytecode compiled first as the image does);
- per worker count, the smallest batch's cycles a second against the largest's, phase by
  phase and as the ratio of their means (target: within 10%);
- how often a statement waited on a row lock (pg_stat_activity sampled every 50 ms);

- per batch size, the median time of finding the next item in process (the service, in a
  transaction rolled back, for new workers after the load), and the ratio of the largest
  batch's to the smallest's: it must not grow with the batch;
- cycles per second, errors, p50/p95/p99 of each request type;
- server CPU per cycle from /proc: the gunicorn processes (app) and the PostgreSQL
  processes (database); Redis's, which takes the queued similarity checks, and the load
  generator's own CPU beside them for reference;
- SQL statements per request type (counted in-process by Django on the same code and
  database), and per cycle as PostgreSQL saw them (pg_stat_statements: with
  transactions and health-check pings), with the three statements that took the most
  execution time per cycle;
- resident memory (RSS and PSS) of each web worker at the end, after at least 1,000
  requests each (an unmeasured top-up follows the phases when they made fewer);
- the load average, since this machine is shared and the figures move with it.

Turkle is not run beside it yet, and no Turkle figure measured at another time is shown:
the output says so.

Prints figures; it is not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.serving import load  # noqa: E402
from bench.serving.measure import (  # noqa: E402
    children,
    free_port,
    load_average,
    memory_mib,
    percentile,
    tree_cpu,
)
from bench.serving.stories import PassingStories, proverb_texts  # noqa: E402
from tests.integration.processes import process_stop  # noqa: E402

TARGETS = {
    "cpu_ms": 20.0,
    "cycles_at_100": 50.0,
    "p99_ms": 1000.0,
    "rss_mib": 90.0,
    "import_s": 0.5,
    "small_batch_ratio": 0.9,
    "next_ratio": 1.5,
}
NEXT_SAMPLES = 25
# Measured before OpenItem, on a 1,500-item batch (same machine, 4 sync workers).
BEFORE = {"cycles": {10: 58.0, 50: 48.0, 100: 51.0}, "cpu_ms": "30.5-30.9", "statements": 28}
HEALTH_REQUEST = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"


def app_environment(args, workdir: Path, services: dict[str, str], port: int) -> dict:
    """Production's settings; tasks go to Redis as in production (no Celery worker takes
    them here: the web workers pay for queueing them, not for running them)."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "DATABASE_URL": services["DATABASE_URL"],
        "ALLOWED_HOSTS": "127.0.0.1",
        "PARABLE_VAR_DIR": str(workdir / "var"),
        "CELERY_BROKER_URL": services["PARABLE_TEST_REDIS_URL"],
        "LOG_LEVEL": "WARNING",
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        "GUNICORN_WORKERS": str(args.gunicorn_workers),
        "GUNICORN_THREADS": str(args.threads),
    }
    if args.conn_max_age is not None:
        env["CONN_MAX_AGE"] = str(args.conn_max_age)
    return env


def services_environment() -> dict:
    """tests/services.sh's environment: free ports, and pg_stat_statements loaded."""
    return {
        **os.environ,
        "PARABLE_TEST_PG_PORT": str(free_port()),
        "PARABLE_TEST_REDIS_PORT": str(free_port()),
        "PARABLE_PG_OPTIONS": "-c shared_preload_libraries=pg_stat_statements",
    }


def start_services(workdir: Path, env: dict) -> dict[str, str]:
    """Start PostgreSQL and Redis in `workdir`; the variables tests/services.sh exports
    (DATABASE_URL, PARABLE_TEST_REDIS_URL)."""
    started = subprocess.run(
        ["bash", "tests/services.sh", "start", str(workdir / "services")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if started.returncode:
        raise SystemExit(f"PostgreSQL and Redis did not start:\n{started.stderr}")
    return dict(
        line.removeprefix("export ").split("=", 1)
        for line in started.stdout.splitlines()
        if line.startswith("export ")
    )


def stop_services(workdir: Path, env: dict) -> None:
    """Stop what start_services started (the database connections of this process first)
    and remove `workdir`."""
    from django.apps import apps

    if apps.ready:
        from django.db import connections

        connections.close_all()
    subprocess.run(
        ["bash", "tests/services.sh", "stop", str(workdir / "services")],
        cwd=ROOT,
        env=env,
        timeout=120,
        check=False,
    )
    shutil.rmtree(workdir, ignore_errors=True)


def narratives_per_item(size: int, phases: int, max_cycles: int) -> int:
    """Narratives asked per proverb: 10, as in ePiC, or more where a small batch would run
    out of open slots before its phases end (each phase can submit up to max_cycles)."""
    return max(10, -(-phases * max_cycles * 6 // 5 // size))


def prepare_database(sizes: list[int], phases: int, max_cycles: int) -> dict[int, int]:
    """Migrate, collect static files, and create a published write batch of each size (the
    proverbs are shared) with room for every phase's cycles; the batch ids by size."""
    from django.core.management import call_command
    from django.db import connection

    from annotation.models import Proverb
    from annotation.text import normalize_text
    from crowd.batches import batch_create, batch_publish

    call_command("migrate", verbosity=0)
    call_command("collectstatic", verbosity=0, interactive=False)
    with connection.cursor() as cursor:
        cursor.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
    proverbs = Proverb.objects.bulk_create(
        Proverb(text=text, normalized_text=normalize_text(text), status="curated")
        for text in proverb_texts(max(sizes))
    )
    batches = {}
    for size in sizes:
        batch = batch_create(
            name=f"Serving benchmark, {size:,} items",
            task_type="write",
            target_per_item=narratives_per_item(size, phases, max_cycles),
            items=[{"proverb": proverb} for proverb in proverbs[:size]],
        )
        batches[size] = batch_publish(batch=batch).pk
    return batches


def next_median_ms(batch_id: int) -> float:
    """Median ms of finding and reserving the next item in process (crowd's service), for
    new workers, each in a transaction rolled back so the batch is left as it was."""
    from statistics import median

    from django.db import transaction

    from crowd.assignments import assignment_reserve_next
    from crowd.models import Batch
    from crowd.workers import local_worker_create

    batch = Batch.objects.get(pk=batch_id)
    spent = []
    for number in range(NEXT_SAMPLES):
        with transaction.atomic():
            worker = local_worker_create(display_name=f"Next timer {number}")
            start = time.perf_counter()
            assignment_reserve_next(batch=batch, worker=worker)
            spent.append(1000 * (time.perf_counter() - start))
            transaction.set_rollback(True)
    return median(spent)


def statements_per_request(batch_id: int, stories: PassingStories) -> dict[str, int]:
    """One cycle through Django's test client on the same code and database, counted."""
    import json

    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from crowd.models import Batch
    from crowd.workers import invite_token, local_worker_create

    client = Client(HTTP_HOST="127.0.0.1", HTTP_X_FORWARDED_PROTO="https")  # as load.py
    worker = local_worker_create(display_name="Statement counter")
    client.get(f"/w/{invite_token(worker=worker, batch=Batch.objects.get(pk=batch_id))}/")
    counts = {}
    with CaptureQueriesContext(connection) as queries:
        task = client.get(f"/tasks/{batch_id}/next/")["Location"]
    counts["next"] = len(queries)
    with CaptureQueriesContext(connection) as queries:
        page = client.get(task).content.decode()
    counts["page"] = len(queries)
    proverb = json.loads(load.CONFIG.search(page).group(1))["proverb"]
    with CaptureQueriesContext(connection) as queries:
        client.post(
            f"{task}submit/",
            json.dumps({"payload": {"text": stories[proverb][0]}}),
            content_type="application/json",
        )
    counts["submit"] = len(queries)
    return counts


def server_statements() -> tuple[int, int, int]:
    """Statements PostgreSQL has run in the benchmark's database (pg_stat_statements): all,
    health-check pings (SELECT 1) and foreign-key checks (run by PostgreSQL's triggers)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(sum(calls), 0), "
            "coalesce(sum(calls) FILTER (WHERE query = 'SELECT $1'), 0), "
            "coalesce(sum(calls) FILTER (WHERE query LIKE 'SELECT $2 FROM ONLY %'), 0) "
            "FROM pg_stat_statements "
            "WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
        )
        return tuple(int(value) for value in cursor.fetchone())


def statement_times() -> dict[int, tuple[str, float]]:
    """Each statement's text and total execution time in ms so far (pg_stat_statements),
    by query id, in the benchmark's database."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT queryid, query, total_exec_time FROM pg_stat_statements "
            "WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
        )
        return {queryid: (query, ms) for queryid, query, ms in cursor.fetchall()}


def slowest(before: dict, after: dict, cycles: int, top: int = 3) -> list[tuple[str, float]]:
    """The statements that took the most execution time between two statement_times(), as
    (their first words, ms per cycle)."""
    spent = [
        (" ".join(query.split())[:70], (ms - before.get(queryid, ("", 0.0))[1]) / cycles)
        for queryid, (query, ms) in after.items()
    ]
    return sorted(spent, key=lambda item: -item[1])[:top]


# Prints the CPU seconds, the resident MiB and the modules loaded (bench/web_worker too).
IMPORT_SCRIPT = """
import sys, time
started = time.process_time()
import config.wsgi
from django.urls import get_resolver
get_resolver().url_patterns
cpu = time.process_time() - started
with open("/proc/self/status") as status:
    rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
print(cpu, rss / 1024, len(sys.modules))
"""


def compile_bytecode() -> None:
    """Compile the project's bytecode as the image does (platform/Dockerfile): with
    PYTHONDONTWRITEBYTECODE set, as here and in the image, nothing else writes it."""
    packages = sorted(path.parent.name for path in ROOT.glob("*/__init__.py"))
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", *packages], cwd=ROOT, check=True, timeout=600
    )


def import_figures(env: dict, runs: int = 5) -> list[tuple[float, float]]:
    """(CPU seconds, resident MiB) of a web worker's import of the application and its
    URL map, each in a fresh process: what every gunicorn worker spends before serving."""
    figures = []
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-c", IMPORT_SCRIPT],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        )
        cpu, rss, _modules = done.stdout.split()
        figures.append((float(cpu), float(rss)))
    return figures


def start_gunicorn(env: dict, workdir: Path, port: int) -> tuple[subprocess.Popen, float]:
    """gunicorn as platform/gunicorn.conf.py runs it; returns it and its seconds to ready."""
    log = open(workdir / "gunicorn.log", "w")  # noqa: SIM115 (closed with the process)
    gunicorn_binary = str(Path(sys.executable).parent / "gunicorn")
    start = time.perf_counter()
    process = subprocess.Popen(
        [gunicorn_binary, "config.wsgi:application", "-c", "platform/gunicorn.conf.py"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    deadline = start + 120
    while time.perf_counter() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"gunicorn exited:\n{(workdir / 'gunicorn.log').read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as probe:
                probe.sendall(HEALTH_REQUEST)
                if probe.recv(64).startswith(b"HTTP/1.1 200"):
                    return process, time.perf_counter() - start
        except OSError:
            pass
        time.sleep(0.1)
    raise SystemExit("gunicorn did not answer /healthz within 120 s.")


async def signed_in_workers(
    count, *, batch_id, port, stories, cycles: int = 0
) -> list[load.Worker]:
    """`count` signed-in workers, with enough spare identities among them for `cycles`
    cycles on the batch (each worker takes each item once)."""
    from asgiref.sync import sync_to_async

    from crowd.models import Batch
    from crowd.workers import invite_token, local_workers_create

    def tokens():
        batch = Batch.objects.get(pk=batch_id)
        identities = max(1, -(-cycles // (count * batch.items.count())))
        return [
            invite_token(worker=worker, batch=batch)
            for worker in local_workers_create(count=count * identities, name_prefix="Bench")
        ]

    workers = [load.Worker("127.0.0.1", port, stories) for _ in range(count)]
    made = await sync_to_async(tokens)()
    for index, worker in enumerate(workers):
        worker.spare_tokens = made[count + index :: count]
    await asyncio.gather(*(w.sign_in(token) for w, token in zip(workers, made, strict=False)))
    return workers


def run_phase(
    count: int, args, *, batch_id, port, stories, gunicorn_pid, postgres_pid, redis_pid
) -> dict:
    # Warm-up and phase each take at most max_cycles.
    workers = asyncio.run(
        signed_in_workers(
            count, batch_id=batch_id, port=port, stories=stories, cycles=2 * args.max_cycles
        )
    )
    bounds = {"batch_id": batch_id, "max_cycles": args.max_cycles}
    warmup = asyncio.run(load.run_phase(workers, seconds=args.warmup, **bounds))
    pids = (gunicorn_pid, postgres_pid, redis_pid)
    before = (*map(tree_cpu, pids), time.process_time())
    statements = server_statements()
    times = statement_times()
    profiler = profile(args, gunicorn_pid) if args.profile else None
    load_before, start = load_average(), time.perf_counter()
    with LockWaits() as waits:
        log = asyncio.run(load.run_phase(workers, seconds=args.seconds, **bounds))
    elapsed = time.perf_counter() - start
    after = (*map(tree_cpu, pids), time.process_time())
    if profiler is not None:
        profiler.wait(timeout=60)
    total, health, foreign = (
        new - old for new, old in zip(server_statements(), statements, strict=True)
    )
    total -= 1  # the count query itself
    cycles = max(len(log.cycles), 1)
    slow = slowest(times, statement_times(), cycles)
    latency = {
        kind: [1000 * (s.end - s.start) for s in log.samples if s.kind == kind and s.ok]
        for kind in ("next", "page", "submit")
    }
    return {
        "workers": count,
        "cycles": len(log.cycles),
        "rate": len(log.cycles) / elapsed,
        "requests": len(log.samples),
        "served": count + len(warmup.samples) + len(log.samples),  # sign-ins, warm-up, measured
        "workers_list": workers,
        "errors": sum(not s.ok for s in log.samples),
        "failures": log.failures[:3],
        "app_ms": 1000 * (after[0] - before[0]) / cycles,
        "db_ms": 1000 * (after[1] - before[1]) / cycles,
        "redis_ms": 1000 * (after[2] - before[2]) / cycles,
        "client_ms": 1000 * (after[3] - before[3]) / cycles,
        "statements": (total / cycles, health / cycles, foreign / cycles),
        "slowest": slow,
        "latency": {k: [percentile(v, q) for q in (0.5, 0.95, 0.99)] for k, v in latency.items()},
        "load": f"{load_before} → {load_average()}",
        "lock_waits": waits.report(),
    }


class LockWaits:
    """Samples PostgreSQL's active backends (pg_stat_activity) every 50 ms through the
    measured window from a thread of its own: how often a request's statement was waiting
    for a lock held by another transaction, and on which statements. A wait is time, not
    work: it lowers cycles a second at the same CPU per cycle."""

    def __init__(self) -> None:
        import threading

        self.samples = 0
        self.waiting: dict[str, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> LockWaits:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        from django.db import connection

        try:
            with connection.cursor() as cursor:
                while not self._stop.wait(0.05):
                    cursor.execute(
                        "SELECT wait_event_type, query FROM pg_stat_activity "
                        "WHERE datname = current_database() AND state = 'active' "
                        "AND pid <> pg_backend_pid()"
                    )
                    self.samples += 1
                    for kind, query in cursor.fetchall():
                        if kind == "Lock":
                            words = " ".join(query.split())[:60]
                            self.waiting[words] = self.waiting.get(words, 0) + 1
        finally:
            connection.close()

    def report(self) -> str:
        """Waiting statements per sample (a backend waiting in every sample counts 1)."""
        if not self.samples:
            return "no samples"
        total = sum(self.waiting.values()) / self.samples
        top = sorted(self.waiting.items(), key=lambda item: -item[1])[:3]
        return f"{total:.2f} statements waiting on a lock per sample" + "".join(
            f"; {count / self.samples:.2f} {query}" for query, count in top
        )


def profile(args, gunicorn_pid: int) -> subprocess.Popen:
    """py-spy sampling every web worker through the measured window (collapsed stacks of
    the samples that hold the GIL: where the CPU goes, not where requests wait)."""
    output = Path(args.profile).resolve()
    output.parent.mkdir(parents=True, exist_ok=True)
    command = [str(Path(sys.executable).parent / "py-spy"), "record", "--pid", str(gunicorn_pid)]
    command += ["--subprocesses", "--nonblocking", "--gil", "--rate", "200", "--format", "raw"]
    command += ["--duration", str(max(1, int(args.seconds))), "--output", str(output)]
    return subprocess.Popen(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def report_phase(figures: dict, size: int) -> None:
    count = figures["workers"]
    before = BEFORE["cycles"].get(count)
    ratio = f"{figures['rate'] / before:.2f}× the {before:.0f} before" if before else ""
    target = f"; target ≥ {TARGETS['cycles_at_100']:.0f}" if count == 100 else ""
    cpu = figures["app_ms"] + figures["db_ms"]
    print(
        f"{size:>6,} items, {count:>3} workers: {figures['rate']:6.1f} cycles/s "
        f"({ratio}{target}), "
        f"{figures['cycles']:,} cycles, {figures['requests']:,} requests, "
        f"{figures['errors']} errors; load average {figures['load']}"
    )
    print(
        f"    server CPU per cycle {cpu:5.1f} ms = app {figures['app_ms']:.1f} + database "
        f"{figures['db_ms']:.1f} (target ≤ {TARGETS['cpu_ms']:.0f}, before {BEFORE['cpu_ms']}); "
        f"Redis (queued checks) {figures['redis_ms']:.1f} ms; load generator "
        f"{figures['client_ms']:.1f} ms"
    )
    total, health, foreign = figures["statements"]
    print(
        f"    statements per cycle at the server: {total:.1f} = {total - health - foreign:.1f} "
        f"from Django + {health:.1f} health checks + {foreign:.1f} foreign-key checks"
    )
    print(
        "    most database time per cycle: "
        + "; ".join(f"{ms:.1f} ms {query}" for query, ms in figures["slowest"])
    )
    p99_target = f" (target p99 < {TARGETS['p99_ms']:.0f})" if count == 100 else ""
    print(
        "    latency ms p50/p95/p99: "
        + "; ".join(
            f"{kind} {'/'.join(f'{value:.0f}' for value in values)}"
            for kind, values in figures["latency"].items()
        )
        + p99_target
    )
    print(f"    lock waits (pg_stat_activity every 50 ms): {figures['lock_waits']}")
    for failure in figures["failures"]:
        print(f"    e.g. {failure}")


def report_side_by_side(rates: dict[int, dict[int, list[float]]]) -> None:
    """Per worker count, the smallest batch's cycles a second against the largest's, from
    phases run side by side (each run's figure, and the ratio of their means)."""
    from statistics import fmean

    print("batch sizes side by side (cycles a second of each phase; ratio of the means):")
    for count, by_size in rates.items():
        smallest, largest = min(by_size), max(by_size)
        ratio = fmean(by_size[smallest]) / fmean(by_size[largest])
        runs = "; ".join(
            f"{size:,} items " + ", ".join(f"{rate:.1f}" for rate in by_size[size])
            for size in (smallest, largest)
        )
        low = min(by_size[smallest]) / max(by_size[largest])
        high = max(by_size[smallest]) / min(by_size[largest])
        print(
            f"  {count:>3} workers: {smallest:,} / {largest:,} items {ratio:.2f}× (phase by "
            f"phase {low:.2f}-{high:.2f}×; target ≥ {TARGETS['small_batch_ratio']}): {runs}"
        )


def report_sizes(summary: dict[int, tuple[float, dict]]) -> None:
    """The batch-size axis: next's median in process, CPU per cycle and p99 of the cycle's
    requests at the last worker count, per batch size, and next's growth."""
    print("batch-size axis (last worker count of each batch):")
    for size, (next_ms, figures) in summary.items():
        cpu = figures["app_ms"] + figures["db_ms"]
        p99 = max(values[2] for values in figures["latency"].values())
        print(
            f"  {size:>6,} items: next {next_ms:5.1f} ms median in process; server CPU per "
            f"cycle {cpu:5.1f} ms (target ≤ {TARGETS['cpu_ms']:.0f}); slowest request p99 "
            f"{p99:.0f} ms at {figures['workers']} workers (target < {TARGETS['p99_ms']:.0f} "
            "at 100 workers on the largest batch)"
        )
    smallest, largest = min(summary), max(summary)
    ratio = summary[largest][0] / summary[smallest][0]
    print(
        f"  next at {largest:,} items / at {smallest:,} items: {ratio:.2f}× "
        f"(target ≤ {TARGETS['next_ratio']}; before: 220-330 ms at 10,000 items against "
        "23-31 ms at 100)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default="10,50,100", help="concurrent workers per phase")
    parser.add_argument("--seconds", type=float, default=20.0, help="measured seconds per phase")
    parser.add_argument("--warmup", type=float, default=3.0, help="unmeasured seconds first")
    parser.add_argument("--max-cycles", type=int, default=5_000, help="cycle cap per phase")
    parser.add_argument("--gunicorn-workers", type=int, default=4)
    parser.add_argument("--threads", type=int, default=1, help="1: gunicorn's sync workers")
    parser.add_argument(
        "--conn-max-age", type=int, help="CONN_MAX_AGE (default: production's); 0 to compare"
    )
    parser.add_argument(
        "--profile", help="collapsed py-spy stacks of the web workers (each phase) to this file"
    )
    parser.add_argument(
        "--batch-sizes", default="250,2500,25000", help="items per write batch, one batch each"
    )
    parser.add_argument(
        "--rounds", type=int, default=1, help="A B B A rounds of the batch sizes per count"
    )
    parser.add_argument(
        "--memory-after",
        type=int,
        default=1_000,
        help="requests per web worker before their memory is read (0: no top-up)",
    )
    args = parser.parse_args()
    counts = [int(count) for count in args.workers.split(",")]
    sizes = [int(size) for size in args.batch_sizes.split(",")]
    workdir = Path(tempfile.mkdtemp(prefix="parable-serving-"))
    workdir.chmod(0o755)  # as root, PostgreSQL runs as the postgres user
    services_env = services_environment()
    gunicorn = None
    try:
        services = start_services(workdir, services_env)
        port = free_port()
        env = app_environment(args, workdir, services, port)
        os.environ.update(env)
        import django

        django.setup()
        from django.conf import settings

        print(f"load average at the start {load_average()} ({os.cpu_count()} CPUs)")
        print("Turkle side by side: not run by this bench yet; no Turkle figure is shown")
        phases = 2 * len(counts) * args.rounds  # phases per batch
        batches = prepare_database(sizes, phases, args.max_cycles)
        stories = PassingStories()
        counted = statements_per_request(batches[sizes[0]], stories)
        compile_bytecode()
        imports = import_figures(env)
        cpu = sorted(figure[0] for figure in imports)
        print(
            f"a web worker's import (config.wsgi and the URL map, bytecode compiled as the "
            f"image does): {cpu[0]:.2f}-{cpu[-1]:.2f} s of CPU over {len(cpu)} runs, median "
            f"{cpu[len(cpu) // 2]:.2f} (target < {TARGETS['import_s']}); "
            f"{min(figure[1] for figure in imports):.0f} MiB resident after it; load average "
            f"{load_average()}"
        )
        gunicorn, ready_s = start_gunicorn(env, workdir, port)
        postgres_pid = int((workdir / "services/pg/data/postmaster.pid").read_text().split()[0])
        redis_pid = int((workdir / "services/redis/redis.pid").read_text().split()[0])
        database = settings.DATABASES["default"]
        print(
            f"gunicorn: {args.gunicorn_workers} workers × {args.threads} thread(s), "
            f"config.settings.production, CONN_MAX_AGE={database['CONN_MAX_AGE']}, "
            f"health checks {'on' if database['CONN_HEALTH_CHECKS'] else 'off'}; answered "
            f"/healthz {ready_s:.1f} s after launch; PostgreSQL on the same {os.cpu_count()} "
            "CPUs; write batches of "
            + ", ".join(
                f"{size:,} proverbs × {narratives_per_item(size, phases, args.max_cycles)}"
                for size in sizes
            )
            + " narratives of ~110 words"
        )
        print(
            "SQL statements per request (Django's count with BEGIN and COMMIT; health checks "
            f"not included): next {counted['next']}, task page {counted['page']}, submit "
            f"{counted['submit']}: {sum(counted.values())} per cycle "
            f"(before: {BEFORE['statements']})"
        )
        served = 2  # /healthz and the readiness probe
        summary = {}
        rates: dict[int, dict[int, list[float]]] = {}
        for count in counts:
            rates[count] = {size: [] for size in sizes}
            # The sizes side by side, in mirrored order (A B B A), so that a drift of the
            # machine's load weighs on each alike.
            for size in (sizes + sizes[::-1]) * args.rounds:
                figures = run_phase(
                    count,
                    args,
                    batch_id=batches[size],
                    port=port,
                    stories=stories,
                    gunicorn_pid=gunicorn.pid,
                    postgres_pid=postgres_pid,
                    redis_pid=redis_pid,
                )
                served += figures["served"]
                report_phase(figures, size)
                rates[count][size].append(figures["rate"])
                summary[size] = figures
        report_side_by_side(rates)
        report_sizes({size: (next_median_ms(batches[size]), summary[size]) for size in sizes})
        pids = children(gunicorn.pid)
        short = args.memory_after * len(pids) - served
        if short > 0:  # top up, unmeasured, to the requests the memory figure is taken after
            top_up = load.run_phase(
                figures["workers_list"],
                batch_id=batches[sizes[-1]],
                seconds=120,
                max_cycles=short // 3 + 1,
            )
            more = asyncio.run(top_up)
            served += len(more.samples)
        memory = [memory_mib(pid) for pid in pids]
        print(
            f"web workers after {served:,} requests in all (~{served // len(pids):,} each): RSS "
            + ", ".join(f"{rss:.0f}" for rss, _ in memory)
            + " MiB; PSS "
            + ", ".join(f"{pss:.0f}" for _, pss in memory)
            + f" MiB (target ≤ {TARGETS['rss_mib']:.0f} MiB RSS)"
        )
        print(f"load average at the end {load_average()}")
    finally:
        if gunicorn is not None:
            process_stop(gunicorn)
        stop_services(workdir, services_env)


if __name__ == "__main__":
    main()
