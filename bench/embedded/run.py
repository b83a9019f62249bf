"""Embedded-default benchmark: a lab of workers looping next task → task page → submit
against `make run` itself (SQLite, tasks in-process, its own server and settings).

Run from the repository root: `.venv/bin/python bench/embedded/run.py [--workers 30]
[--seconds 60] [--ten-minutes]`.

It starts `make run` on a free loopback port (29000-29199) with a fresh var/ folder of its
own (so a fresh SQLite database, migrated and bootstrapped by `make run`), waits for
/healthz, then creates a published write batch (proverbs with room for every worker on
every item) and one local worker per simulated lab worker, whose invite links sign them
in. The workers loop with no pause (bench/serving/load.py, on plain HTTP as a lab's
browsers reach `make run`): each submit queues its similarity check, which runs
in-process after the response, as on a real study. When the time is up it stops the
server and reads the database: an acknowledged submission (200, "submitted") that is
not stored is lost.

It prints the requests' p50/p95/max per kind, cycles per second, the first failures, how
many similarity checks had run, and the load average (this machine is shared); its last
line is `errors N, lost N, submit p95 X s` with the load average. An error is a request
answered otherwise than a worker's browser expects (a 500, a refused sign-in, a timeout
after 30 s). Prints figures; it is not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.serving import load  # noqa: E402
from bench.serving.measure import load_average, percentile, tree_cpu  # noqa: E402
from bench.serving.stories import PassingStories, proverb_texts  # noqa: E402
from tests.conftest import free_loopback_port  # noqa: E402

PROVERBS = 1_000
HEALTH_REQUEST = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
# What `make run` reads that would point it elsewhere than its embedded default.
NOT_PASSED = ("DATABASE_URL", "CELERY_BROKER_URL", "DJANGO_SETTINGS_MODULE", "PARABLE_PUBLIC_URL")


def server_environment(var: Path) -> dict:
    """This shell's environment as `make run` would see it, with a var/ folder of its own."""
    env = {key: value for key, value in os.environ.items() if key not in NOT_PASSED}
    env.update(PARABLE_VAR_DIR=str(var), PYTHONUNBUFFERED="1")
    return env


def make_run(env: dict, port: int, log: Path) -> subprocess.Popen:
    """`make run` on 127.0.0.1:port (the virtual environment taken as installed), in a
    process group of its own, its output to `log`; returns once /healthz answers 200."""
    command = ["make", "-o", ".venv/.runtime", "run", "HOST=127.0.0.1", f"PORT={port}"]
    with open(log, "w") as output:
        process = subprocess.Popen(
            [*command, f"PY={sys.executable}"],
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"make run exited:\n{log.read_text()[-3000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as probe:
                probe.sendall(HEALTH_REQUEST)
                if probe.recv(64).startswith(b"HTTP/1.1 200"):
                    return process
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit("make run did not answer /healthz within 300 s.")


def make_stop(process: subprocess.Popen) -> None:
    """Stop `make run` and the server under it (their own process group), as Ctrl-C does."""
    try:
        os.killpg(process.pid, signal.SIGINT)
        process.wait(timeout=60)
    except ProcessLookupError:
        return
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=60)


def study_prepare(workers: int) -> tuple[int, list[str]]:
    """A published write batch on which every worker can take every item, and each
    worker's invite token; the batch id and the tokens."""
    from django.db import connections

    from annotation.models import Proverb
    from annotation.text import normalize_text
    from crowd.batches import batch_create, batch_publish
    from crowd.workers import invite_token, local_workers_create

    proverbs = Proverb.objects.bulk_create(
        Proverb(text=text, normalized_text=normalize_text(text), status="curated")
        for text in proverb_texts(PROVERBS)
    )
    batch = batch_create(
        name="Embedded benchmark",
        task_type="write",
        target_per_item=workers,
        items=[{"proverb": proverb} for proverb in proverbs],
    )
    batch = batch_publish(batch=batch)
    tokens = [
        invite_token(worker=worker, batch=batch)
        for worker in local_workers_create(count=workers, name_prefix="Lab")
    ]
    connections.close_all()  # the server alone holds the database during the load
    return batch.pk, tokens


def stored_figures(acknowledged: list[int]) -> tuple[int, int, int]:
    """(acknowledged submissions not stored, stories stored, similarity checks run)."""
    from annotation.models import Narrative, NarrativeIntegrity
    from crowd.models import Assignment

    stored = set(
        Assignment.objects.filter(
            pk__in=acknowledged, status__in=Assignment.STORED, narrative__isnull=False
        ).values_list("pk", flat=True)
    )
    checked = NarrativeIntegrity.objects.filter(checked_at__isnull=False).count()
    return len(set(acknowledged) - stored), Narrative.objects.count(), checked


def server_errors(log: Path) -> Counter:
    """The exceptions that ended the tracebacks in the server's output, counted."""
    ending = re.compile(r"^(?:[\w.]+\.)?\w*(?:Error|Exception): .*$", re.M)
    return Counter(match.group(0)[:120] for match in ending.finditer(log.read_text()))


async def lab_run(tokens, *, batch_id: int, port: int, seconds: float) -> tuple[load.PhaseLog, int]:
    """Sign every worker in at once, then loop them for `seconds`; the phase's log and how
    many sign-ins failed."""
    stories = PassingStories()
    workers = [load.Worker("127.0.0.1", port, stories, scheme="http") for _ in tokens]
    signed = await asyncio.gather(
        *(worker.sign_in(token) for worker, token in zip(workers, tokens, strict=True)),
        return_exceptions=True,
    )
    failed = [result for result in signed if isinstance(result, BaseException)]
    for failure in failed[:3]:
        print(f"    sign-in failed: {failure}")
    signed_in = [worker for worker, result in zip(workers, signed, strict=True) if result is None]
    log = await load.run_phase(signed_in, batch_id=batch_id, seconds=seconds, max_cycles=10**9)
    return log, len(failed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=30, help="simulated lab workers")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long they work")
    parser.add_argument("--ten-minutes", action="store_true", help="the lab's full session: 600 s")
    args = parser.parse_args()
    seconds = 600.0 if args.ten_minutes else args.seconds
    workdir = Path(tempfile.mkdtemp(prefix="parable-embedded-"))
    env = server_environment(workdir / "var")
    port = free_loopback_port(range(29000, 29200), shuffled=True)
    server = None
    try:
        print(f"load average at the start {load_average()} ({os.cpu_count()} CPUs)")
        started = time.monotonic()
        server = make_run(env, port, workdir / "make-run.log")
        ready = time.monotonic() - started
        print(f"make run answered /healthz on 127.0.0.1:{port} {ready:.0f} s after launch")
        os.environ.update(env, DJANGO_SETTINGS_MODULE="config.settings.local")
        import django

        django.setup()
        batch_id, tokens = study_prepare(args.workers)
        load_before, cpu_before = load_average(), tree_cpu(server.pid)
        client_before, start = time.process_time(), time.perf_counter()
        log, sign_in_errors = asyncio.run(
            lab_run(tokens, batch_id=batch_id, port=port, seconds=seconds)
        )
        elapsed = time.perf_counter() - start
        load_after, server_cpu = load_average(), tree_cpu(server.pid) - cpu_before
        client_cpu = time.process_time() - client_before
        make_stop(server)
        server = None
        lost, stories, checked = stored_figures(log.acknowledged)
        errors = sign_in_errors + sum(not sample.ok for sample in log.samples)
        print(
            f"{len(tokens)} workers for {elapsed:.0f} s: {len(log.cycles):,} cycles "
            f"({len(log.cycles) / elapsed:.1f} a second), {len(log.samples):,} requests, "
            f"{errors} errors ({sign_in_errors} at sign-in); {stories:,} stories stored, "
            f"{checked:,} of them similarity-checked while the server ran"
        )
        print(
            f"    server CPU {server_cpu:.0f} s ({server_cpu / elapsed:.2f} cores; "
            f"{1000 * server_cpu / max(len(log.cycles), 1):.0f} ms per cycle, its similarity "
            f"checks included); the load generator beside it {client_cpu:.0f} s"
        )
        for kind in ("next", "page", "submit"):
            times = [s.end - s.start for s in log.samples if s.kind == kind]
            print(
                f"    {kind:>6}: p50 {percentile(times, 0.5):.3f} s, p95 "
                f"{percentile(times, 0.95):.3f} s, max {max(times, default=float('nan')):.3f} s"
            )
        for failure in log.failures[:5]:
            print(f"    e.g. {failure}")
        for error, count in server_errors(workdir / "make-run.log").most_common(5):
            print(f"    the server logged {count} × {error}")
        submits = [s.end - s.start for s in log.samples if s.kind == "submit"]
        print(
            f"errors {errors}, lost {lost}, submit p95 {percentile(submits, 0.95):.2f} s "
            f"(load average {load_before} at the start of the load, {load_after} at its end)"
        )
    finally:
        if server is not None:
            make_stop(server)
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
