"""Serving benchmark: crowd workers looping next task → task page → submit against gunicorn.

Run from the repository root: `.venv/bin/python bench/serving/run.py [--workers 10,50,100]
[--batch-sizes 250,2500,25000] [--seconds 20] [--warmup 3] [--gunicorn-workers 4]
[--threads 1] [--conn-max-age N] [--rounds 1] [--memory-after 1000] [--imports 5]
[--without-turkle] [--quick]`. `--quick` checks that it runs and prints (two small batches,
5 workers, 3-second phases), not the figures.

It starts PostgreSQL and Redis (tests/services.sh, with pg_stat_statements) and gunicorn
with config.settings.production (platform/gunicorn.conf.py) on free ports in 28200-28999,
requests arriving as from the TLS-terminating proxy (load.py) and background tasks going
to Redis (no Celery worker takes them: the web workers pay for queueing them). It creates
one write batch (10 narratives per proverb, more where a small batch would run out) for
each batch size, then for each worker count runs the batch sizes side by side in mirrored
order (A B B A, `--rounds` times): each phase signs in that many new local workers through
their invite links and drives them (bench/serving/load.py) for a warm-up and a measured
window, bounded in time, cycles and requests.

Turkle 3.1.0 runs beside it (bench/serving/turkle_runner.py: installed on first use into
bench/out/turkle-venv, hosted by turkle_site.py, on a database of its own on the same
PostgreSQL, under the same gunicorn settings, with a batch of each size holding the same
proverbs, assignments per item and page weight): at each batch size, a Turkle phase follows
Parable's on the way up the sizes and precedes it on the way back, so each point is run
A B B A. Turkle's workers take the same cycle as a browser does there: accept the next task,
its page, the form in its frame, submit.

It prints, beside the targets and the figures measured before:

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
- the load average, since this machine is shared and the figures move with it;
- per batch size and worker count, Parable beside Turkle: each phase's cycles a second,
  server CPU per cycle (app plus database) and p50/p99 of a cycle for both, and the ratio
  of their mean rates; its last line: `min ratio X (at N items, W workers), cpu per cycle
  Y ms`, the lowest ratio and Parable's highest server CPU per cycle over the points.

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
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.serving import load, turkle_runner  # noqa: E402
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
    "cpu_ms": 15.0,
    "turkle_ratio": 2.0,
    "p99_ms": 1000.0,
    "rss_mib": 90.0,
    "import_s": 0.45,
    "small_batch_ratio": 0.9,
    "next_ratio": 1.5,
}
QUICK = {
    "workers": "5",
    "batch_sizes": "40,80",
    "seconds": 3.0,
    "warmup": 1.0,
    "max_cycles": 60,
    "memory_after": 0,
    "imports": 1,
}
NEXT_SAMPLES = 25
# Measured before OpenItem, on a 1,500-item batch (same machine, 4 sync workers).
BEFORE = {"cycles": {10: 58.0, 50: 48.0, 100: 51.0}, "statements": 28}


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
    """One cycle through Django's test client on the same code and database, counted; and
    the task page's weight in bytes ("page_bytes")."""
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
    counts["page_bytes"] = len(page.encode())
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


def start_gunicorn(
    env: dict,
    workdir: Path,
    port: int,
    *,
    command: list[str] | None = None,
    probe: str = "/healthz",
) -> tuple[subprocess.Popen, float]:
    """gunicorn as platform/gunicorn.conf.py runs Parable (or `command`, logging to a file
    named after its first word's folder); returns it and its seconds to answer `probe`."""
    gunicorn_binary = str(Path(sys.executable).parent / "gunicorn")
    command = command or [
        gunicorn_binary,
        "config.wsgi:application",
        "-c",
        "platform/gunicorn.conf.py",
    ]
    log_path = workdir / f"gunicorn-{Path(command[0]).parent.parent.name}.log"
    log = open(log_path, "w")  # noqa: SIM115 (closed with the process)
    request = f"GET {probe} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode()
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = start + 120
    while time.perf_counter() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"gunicorn exited:\n{log_path.read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as connection:
                connection.sendall(request)
                if connection.recv(64).startswith(b"HTTP/1.1 200"):
                    return process, time.perf_counter() - start
        except OSError:
            pass
        time.sleep(0.1)
    raise SystemExit(f"gunicorn did not answer {probe} within 120 s.")


@dataclass
class Server:
    """An application under load: its port, its gunicorn's and PostgreSQL's process ids (the
    server CPU of a cycle), its workers' kind and how they are signed in: `tokens(batch id,
    count)` gives each new worker's sign-in token."""

    name: str
    port: int
    pids: tuple[int, int]
    worker: type[load.Worker]
    tokens: Callable[[int, int], list[str]]


def invite_tokens(batch_id: int, count: int) -> list[str]:
    """Invite links' tokens of `count` new local workers (Parable's sign-in)."""
    from crowd.models import Batch
    from crowd.workers import invite_token, local_workers_create

    batch = Batch.objects.get(pk=batch_id)
    return [
        invite_token(worker=worker, batch=batch)
        for worker in local_workers_create(count=count, name_prefix="Bench")
    ]


def signed_in_workers(count, *, server: Server, batch_id, items, stories, cycles: int = 0):
    """`count` signed-in workers, with enough spare identities among them for `cycles`
    cycles on a batch of `items` (each worker takes each item once)."""
    identities = max(1, -(-cycles // (count * items)))
    made = server.tokens(batch_id, count * identities)
    workers = [server.worker("127.0.0.1", server.port, stories) for _ in range(count)]
    for index, worker in enumerate(workers):
        worker.spare_tokens = made[count + index :: count]
    sign_ins = (worker.sign_in(token) for worker, token in zip(workers, made, strict=False))
    asyncio.run(gather(sign_ins))
    return workers


async def gather(awaitables) -> list:
    return await asyncio.gather(*awaitables)


def run_phase(count: int, args, *, server: Server, batch_id, items, stories, redis_pid) -> dict:
    """One measured phase of `count` workers on a batch; Parable's phases also count its
    statements, the slowest ones and lock waits (and profile it with `--profile`)."""
    # Warm-up and phase each take at most max_cycles.
    workers = signed_in_workers(
        count,
        server=server,
        batch_id=batch_id,
        items=items,
        stories=stories,
        cycles=2 * args.max_cycles,
    )
    bounds = {"batch_id": batch_id, "max_cycles": args.max_cycles}
    warmup = asyncio.run(load.run_phase(workers, seconds=args.warmup, **bounds))
    parable = server.name == "Parable"
    pids = (*server.pids, redis_pid)
    before = (*map(tree_cpu, pids), time.process_time())
    statements = server_statements() if parable else (0, 0, 0)
    times = statement_times() if parable else {}
    profiler = profile(args, server.pids[0]) if args.profile and parable else None
    load_before, start = load_average(), time.perf_counter()
    with LockWaits() if parable else nullcontext() as waits:
        log = asyncio.run(load.run_phase(workers, seconds=args.seconds, **bounds))
    elapsed = time.perf_counter() - start
    after = (*map(tree_cpu, pids), time.process_time())
    if profiler is not None:
        profiler.wait(timeout=60)
    cycles = max(len(log.cycles), 1)
    kinds = dict.fromkeys(sample.kind for sample in log.samples)
    latency = {
        kind: [1000 * (s.end - s.start) for s in log.samples if s.kind == kind and s.ok]
        for kind in kinds
    }
    figures = {
        "server": server.name,
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
        "latency": {k: [percentile(v, q) for q in (0.5, 0.95, 0.99)] for k, v in latency.items()},
        "cycle_ms": [1000 * seconds for seconds in log.cycle_times],
        "load": f"{load_before} → {load_average()}",
    }
    if parable:
        total, health, foreign = (
            new - old for new, old in zip(server_statements(), statements, strict=True)
        )
        total -= 1  # the count query itself
        figures["statements"] = (total / cycles, health / cycles, foreign / cycles)
        figures["slowest"] = slowest(times, statement_times(), cycles)
        figures["lock_waits"] = waits.report()
    return figures


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
    count, parable = figures["workers"], figures["server"] == "Parable"
    before = BEFORE["cycles"].get(count) if parable else None
    ratio = f" ({figures['rate'] / before:.2f}× the {before:.0f} before)" if before else ""
    cpu = figures["app_ms"] + figures["db_ms"]
    print(
        f"{figures['server']:<7} {size:>6,} items, {count:>3} workers: {figures['rate']:6.1f} "
        f"cycles/s{ratio}, {figures['cycles']:,} cycles, {figures['requests']:,} requests, "
        f"{figures['errors']} errors; load average {figures['load']}"
    )
    print(
        f"    server CPU per cycle {cpu:5.1f} ms = app {figures['app_ms']:.1f} + database "
        f"{figures['db_ms']:.1f}; Redis {figures['redis_ms']:.1f} ms; load generator "
        f"{figures['client_ms']:.1f} ms"
    )
    if parable:
        total, health, foreign = figures["statements"]
        print(
            f"    statements per cycle at the server: {total:.1f} = "
            f"{total - health - foreign:.1f} from Django + {health:.1f} health checks + "
            f"{foreign:.1f} foreign-key checks"
        )
        print(
            "    most database time per cycle: "
            + "; ".join(f"{ms:.1f} ms {query}" for query, ms in figures["slowest"])
        )
    print(
        "    latency ms p50/p95/p99: "
        + "; ".join(
            f"{kind} {'/'.join(f'{value:.0f}' for value in values)}"
            for kind, values in figures["latency"].items()
        )
    )
    if parable:
        print(f"    lock waits (pg_stat_activity every 50 ms): {figures['lock_waits']}")
    for failure in figures["failures"]:
        print(f"    e.g. {failure}")


def report_beside_turkle(points: dict[tuple[int, int], dict[str, list[dict]]]) -> None:
    """Per batch size and worker count, Parable's phases against Turkle's (A B B A): cycles a
    second of each phase, server CPU per cycle (app plus database) and the p50/p99 of a
    cycle, and the ratio of the mean rates; then the last line, with the lowest ratio and
    Parable's highest CPU per cycle."""
    from statistics import fmean

    print(
        "Parable beside Turkle (A B B A at each point; cycles/s of each phase; server CPU "
        "per cycle, app + database; p50/p99 ms of a cycle):"
    )
    lowest, cpu_highest = None, 0.0
    for (size, count), by_server in points.items():
        parts = []
        for name, phases in by_server.items():
            rates = ", ".join(f"{phase['rate']:.1f}" for phase in phases)
            cpu = fmean(phase["app_ms"] + phase["db_ms"] for phase in phases)
            cycle_ms = [ms for phase in phases for ms in phase["cycle_ms"]]
            p50, p99 = (percentile(cycle_ms, share) for share in (0.5, 0.99))
            parts.append(f"{name} {rates} ({cpu:.1f} ms CPU, {p50:.0f}/{p99:.0f} ms)")
            if name == "Parable":
                cpu_highest = max(cpu_highest, cpu)
        rate = {name: fmean(p["rate"] for p in phases) for name, phases in by_server.items()}
        ratio = rate["Parable"] / rate["Turkle"] if rate["Turkle"] else float("inf")
        if lowest is None or ratio < lowest[0]:
            lowest = (ratio, size, count)
        print(
            f"  {size:>6,} items, {count:>3} workers: {ratio:.2f}× "
            f"(target ≥ {TARGETS['turkle_ratio']:.0f}); " + "; ".join(parts)
        )
    ratio, size, count = lowest
    print(
        f"min ratio {ratio:.2f} (at {size:,} items, {count} workers), cpu per cycle "
        f"{cpu_highest:.1f} ms"
    )


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
    parser.add_argument("--imports", type=int, default=5, help="fresh processes timed importing")
    parser.add_argument(
        "--memory-after",
        type=int,
        default=1_000,
        help="requests per web worker before their memory is read (0: no top-up)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="check that it runs and prints: " + ", ".join(f"{k} {v}" for k, v in QUICK.items()),
    )
    parser.add_argument("--without-turkle", action="store_true", help="Parable alone")
    args = parser.parse_args()
    if args.quick:  # its settings as defaults: an option given still wins
        parser.set_defaults(**QUICK)
        args = parser.parse_args()
    counts = [int(count) for count in args.workers.split(",")]
    sizes = [int(size) for size in args.batch_sizes.split(",")]
    workdir = Path(tempfile.mkdtemp(prefix="parable-serving-"))
    workdir.chmod(0o755)  # as root, PostgreSQL runs as the postgres user
    services_env = services_environment()
    gunicorns = []
    try:
        services = start_services(workdir, services_env)
        port = free_port()
        env = app_environment(args, workdir, services, port)
        os.environ.update(env)
        import django

        django.setup()
        from django.conf import settings

        print(f"load average at the start {load_average()} ({os.cpu_count()} CPUs)")
        phases = 2 * len(counts) * args.rounds  # phases per batch
        per_item = {size: narratives_per_item(size, phases, args.max_cycles) for size in sizes}
        batches = {"Parable": prepare_database(sizes, phases, args.max_cycles)}
        stories = PassingStories()
        counted = statements_per_request(batches["Parable"][sizes[0]], stories)
        compile_bytecode()
        imports = import_figures(env, runs=args.imports)
        cpu = sorted(figure[0] for figure in imports)
        print(
            f"a web worker's import (config.wsgi and the URL map, bytecode compiled as the "
            f"image does): {cpu[0]:.2f}-{cpu[-1]:.2f} s of CPU over {len(cpu)} runs, median "
            f"{cpu[len(cpu) // 2]:.2f} (target < {TARGETS['import_s']}); "
            f"{min(figure[1] for figure in imports):.0f} MiB resident after it; load average "
            f"{load_average()}"
        )
        gunicorn, ready_s = start_gunicorn(env, workdir, port)
        gunicorns.append(gunicorn)
        postgres_pid = int((workdir / "services/pg/data/postmaster.pid").read_text().split()[0])
        redis_pid = int((workdir / "services/redis/redis.pid").read_text().split()[0])
        database = settings.DATABASES["default"]
        print(
            f"gunicorn: {args.gunicorn_workers} workers × {args.threads} thread(s), "
            f"config.settings.production, CONN_MAX_AGE={database['CONN_MAX_AGE']}, "
            f"health checks {'on' if database['CONN_HEALTH_CHECKS'] else 'off'}; answered "
            f"/healthz {ready_s:.1f} s after launch; PostgreSQL on the same {os.cpu_count()} "
            "CPUs; write batches of "
            + ", ".join(f"{size:,} proverbs × {per_item[size]}" for size in sizes)
            + f" narratives of ~110 words; task page {counted['page_bytes']:,} bytes"
        )
        print(
            "SQL statements per request (Django's count with BEGIN and COMMIT; health checks "
            f"not included): next {counted['next']}, task page {counted['page']}, submit "
            f"{counted['submit']}: {counted['next'] + counted['page'] + counted['submit']} per "
            f"cycle (before: {BEFORE['statements']})"
        )
        parable = Server("Parable", port, (gunicorn.pid, postgres_pid), load.Worker, invite_tokens)
        servers = [parable]
        if not args.without_turkle:
            servers.append(
                start_turkle(
                    env,
                    workdir,
                    batches=batches,
                    per_item=per_item,
                    page_bytes=counted["page_bytes"],
                    postgres_pid=postgres_pid,
                    gunicorns=gunicorns,
                )
            )
        served = 2  # /healthz and the readiness probe
        summary = {}
        rates: dict[int, dict[int, list[float]]] = {}
        points: dict[tuple[int, int], dict[str, list[dict]]] = {}
        for count in counts:
            rates[count] = {size: [] for size in sizes}
            # The sizes side by side, in mirrored order (A B B A), so that a drift of the
            # machine's load weighs on each alike; at each size, Parable and Turkle in
            # mirrored order too (Parable first on the way up, Turkle first on the way back).
            order = sizes + sizes[::-1]
            for turn, size in enumerate(order * args.rounds):
                upward = turn % len(order) < len(sizes)
                for server in servers if upward else servers[::-1]:
                    figures = run_phase(
                        count,
                        args,
                        server=server,
                        batch_id=batches[server.name][size],
                        items=size,
                        stories=stories,
                        redis_pid=redis_pid,
                    )
                    report_phase(figures, size)
                    point = points.setdefault((size, count), {s.name: [] for s in servers})
                    point[server.name].append(figures)
                    if server is parable:
                        served += figures["served"]
                        rates[count][size].append(figures["rate"])
                        summary[size] = figures
        report_side_by_side(rates)
        parable_batches = batches["Parable"]
        report_sizes(
            {size: (next_median_ms(parable_batches[size]), summary[size]) for size in sizes}
        )
        pids = children(gunicorn.pid)
        short = args.memory_after * len(pids) - served
        if short > 0:  # top up, unmeasured, to the requests the memory figure is taken after
            top_up = load.run_phase(
                summary[sizes[-1]]["workers_list"],
                batch_id=parable_batches[sizes[-1]],
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
        if len(servers) > 1:
            report_beside_turkle(points)
    finally:
        for process in gunicorns:
            process_stop(process)
        stop_services(workdir, services_env)


def start_turkle(env, workdir, *, batches, per_item, page_bytes, postgres_pid, gunicorns):
    """Turkle installed (on first use), seeded with batches of the same sizes, assignments per
    item and page weight as Parable's (added to `batches`), and served by gunicorn (added to
    `gunicorns`) on a port of its own."""
    versions = turkle_runner.install()
    port = free_port()
    turkle_env = {**turkle_runner.environment(env), "GUNICORN_BIND": f"127.0.0.1:{port}"}
    batches["Turkle"], turkle_bytes = turkle_runner.seed(
        turkle_env, sizes=per_item, proverbs=proverb_texts(max(per_item)), page_bytes=page_bytes
    )
    gunicorn, ready_s = start_gunicorn(
        turkle_env, workdir, port, command=turkle_runner.gunicorn_command(), probe="/login/"
    )
    gunicorns.append(gunicorn)
    print(
        f"Turkle: {versions} (bench/out/turkle-venv), hosted by bench/serving/turkle_site.py "
        f"on a database of its own on the same PostgreSQL, CONN_MAX_AGE="
        f"{turkle_env['CONN_MAX_AGE']}; gunicorn as Parable's; answered /login/ {ready_s:.1f} s "
        f"after launch; batches of the same sizes and assignments per item; its task page and "
        f"the form in its frame {turkle_bytes:,} bytes (Parable's page {page_bytes:,})"
    )
    return Server(
        "Turkle",
        port,
        (gunicorn.pid, postgres_pid),
        load.TurkleWorker,
        lambda _batch_id, count: turkle_runner.session_keys(turkle_env, count),
    )


if __name__ == "__main__":
    main()
