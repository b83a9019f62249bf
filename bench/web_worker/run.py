"""Web worker benchmark: a web worker's import and its memory while it serves, this working
tree beside an earlier commit, measured side by side in one run.

Run from the repository root: `.venv/bin/python bench/web_worker/run.py [--base REV]
[--requests 6000] [--rounds 1] [--imports 5] [--workers 4]`.

`--base` (default: the commit where this branch left `main`) is exported with `git
archive` into a temporary folder; the working tree is measured as it is, uncommitted
changes included. It starts PostgreSQL and Redis (tests/services.sh) on free ports in
28200-28999, gives each tree a database of its own (migrated, static files collected, a
published write batch of 500 proverbs) and compiles each tree's bytecode as the image does
(platform/Dockerfile). Then, for each round, in mirrored order (base, this, this, base):

- `--imports` fresh processes import the application as a gunicorn worker does
  (config.wsgi with production's settings, and the URL map): CPU seconds and resident
  MiB after it, and how many modules it loaded;
- gunicorn (platform/gunicorn.conf.py, one sync worker) serves `--workers` signed-in
  crowd workers looping next → task page → submit (bench/serving/load.py, through the
  HTTPS proxy's header, the submits' similarity checks queued to Redis) for `--requests`
  requests; the web worker's resident and proportional memory is read after its first
  cycle and at a quarter, half and all of them, with its CPU per request.

It prints each figure per tree, their ratio (this / base), the spread over runs, and the
load average, since the machine is shared. Prints figures; it is not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.serving import load  # noqa: E402
from bench.serving.measure import children, free_port, load_average, memory_mib, tree_cpu  # noqa: E402
from bench.serving.stories import PassingStories, proverb_texts  # noqa: E402

TARGETS = {"import_s": 0.5, "rss_mib": 90.0}
PROVERBS = 500
HEALTH_PATH = "/healthz"

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

# Run in each tree with its own code: the database, its static files, and a write batch
# with room for every cycle; prints the batch's id, its proverbs and invite tokens.
PREPARE_SCRIPT = """
import json, sys
import django
django.setup()
from django.core.management import call_command
from annotation.models import Proverb
from annotation.text import normalize_text
from crowd.batches import batch_create, batch_publish
from crowd.workers import invite_token, local_workers_create

texts, identities = json.loads(sys.argv[1]), int(sys.argv[2])
call_command("migrate", verbosity=0)
call_command("collectstatic", verbosity=0, interactive=False)
proverbs = Proverb.objects.bulk_create(
    Proverb(text=text, normalized_text=normalize_text(text), status="curated") for text in texts
)
batch = batch_publish(batch=batch_create(
    name="Web worker benchmark", task_type="write", target_per_item=identities,
    items=[{"proverb": proverb} for proverb in proverbs],
))
workers = local_workers_create(count=identities, name_prefix="Bench")
print(json.dumps([batch.pk, [invite_token(worker=w, batch=batch) for w in workers]]))
"""


def git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()


def tree_export(rev: str, into: Path) -> Path:
    """The tree of commit `rev` in `into`, with the virtual environment linked in."""
    archive = subprocess.run(["git", "archive", rev], cwd=ROOT, check=True, capture_output=True)
    into.mkdir(parents=True)
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        tar.extractall(into, filter="data")
    return into


def compile_bytecode(tree: Path) -> None:
    """The tree's bytecode, compiled as the image compiles it (platform/Dockerfile)."""
    packages = sorted(path.parent.name for path in tree.glob("*/__init__.py"))
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", *packages], cwd=tree, check=True, timeout=600
    )


def services_start(workdir: Path) -> tuple[dict, dict]:
    """PostgreSQL and Redis on free ports; (their environment, tests/services.sh's output)."""
    env = {
        **os.environ,
        "PARABLE_TEST_PG_PORT": str(free_port()),
        "PARABLE_TEST_REDIS_PORT": str(free_port()),
    }
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
    exported = dict(
        line.removeprefix("export ").split("=", 1)
        for line in started.stdout.splitlines()
        if line.startswith("export ")
    )
    return env, exported


def tree_environment(tree: Path, database_url: str, redis_url: str, port: int) -> dict:
    """Production's settings for a web worker of `tree` on its own database."""
    environment = {
        key: value for key, value in os.environ.items() if not key.startswith("PYTHONPATH")
    }
    return {
        **environment,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "DATABASE_URL": database_url,
        "CELERY_BROKER_URL": redis_url,
        "ALLOWED_HOSTS": "127.0.0.1",
        "PARABLE_VAR_DIR": str(tree / "var"),
        "PYTHONDONTWRITEBYTECODE": "1",
        "LOG_LEVEL": "WARNING",
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        "GUNICORN_WORKERS": "1",
        "GUNICORN_THREADS": "1",
    }


def database_create(services: dict, name: str) -> str:
    """A new database `name` on the benchmark's PostgreSQL; its URL."""
    base = services["DATABASE_URL"]
    subprocess.run(
        [
            sys.executable,
            "-c",
            f"import psycopg; c = psycopg.connect({base!r}, autocommit=True);"
            f"c.execute('CREATE DATABASE {name}')",
        ],
        check=True,
        timeout=60,
    )
    return base.rsplit("/", 1)[0] + "/" + name


def prepare(tree: Path, env: dict, identities: int) -> tuple[int, list[str]]:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            PREPARE_SCRIPT,
            json.dumps(proverb_texts(PROVERBS)),
            str(identities),
        ],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode:
        raise SystemExit(f"Preparing {tree} failed:\n{done.stderr[-3000:]}")
    batch_id, tokens = json.loads(done.stdout.strip().splitlines()[-1])
    return batch_id, tokens


def import_figures(tree: Path, env: dict) -> tuple[float, float, int]:
    """(CPU seconds, resident MiB, modules) of one fresh process importing the application."""
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_SCRIPT],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode:
        raise SystemExit(f"Importing the application of {tree} failed:\n{done.stderr[-3000:]}")
    cpu, rss, modules = done.stdout.split()
    return float(cpu), float(rss), int(modules)


def gunicorn_start(tree: Path, env: dict, port: int, log: Path) -> subprocess.Popen:
    """gunicorn as platform/gunicorn.conf.py runs it, answering /healthz."""
    process = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "gunicorn"),
            "config.wsgi:application",
            "-c",
            "platform/gunicorn.conf.py",
        ],
        cwd=tree,
        env=env,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"gunicorn exited:\n{log.read_text()[-3000:]}")
        try:
            health = asyncio.run(load.http("127.0.0.1", port, "GET", HEALTH_PATH, cookies={}))
            if health.status == 200:
                return process
        except OSError:
            pass
        time.sleep(0.1)
    raise SystemExit("gunicorn did not answer /healthz within 120 s.")


def process_stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=30)


async def signed_in(tokens: list[str], count: int, port: int, stories) -> list[load.Worker]:
    """`count` workers, the rest of `tokens` shared among them as spare identities."""
    workers = [load.Worker("127.0.0.1", port, stories) for _ in range(count)]
    for index, worker in enumerate(workers):
        worker.spare_tokens = tokens[count + index :: count]
    await asyncio.gather(*(w.sign_in(token) for w, token in zip(workers, tokens, strict=False)))
    return workers


def serve(tree: Path, env: dict, port: int, batch_id: int, tokens: list[str], args) -> dict:
    """Serve `args.requests` requests with one gunicorn worker of `tree`; its memory at the
    checkpoints, its CPU per request after start-up, and the requests that failed."""
    stories = PassingStories()
    master = gunicorn_start(tree, env, port, tree / "gunicorn.log")
    try:
        [worker] = children(master.pid)
        workers = asyncio.run(signed_in(tokens, args.workers, port, stories))
        served, failed, memory = args.workers + 1, 0, {}
        started_cpu = tree_cpu(worker)
        checkpoints = [served + 3, args.requests // 4, args.requests // 2, args.requests]
        for checkpoint in checkpoints:
            while served < checkpoint:
                cycles = max(1, (checkpoint - served) // 3)
                log = asyncio.run(
                    load.run_phase(workers, batch_id=batch_id, seconds=600, max_cycles=cycles)
                )
                if not log.samples:
                    raise SystemExit("The workers ran out of work: raise --requests' room.")
                served += len(log.samples)
                failed += sum(not sample.ok for sample in log.samples)
            memory[checkpoint] = memory_mib(worker)
        return {
            "memory": memory,
            "served": served,
            "failed": failed,
            "cpu_ms": 1000 * (tree_cpu(worker) - started_cpu) / max(served - args.workers - 1, 1),
        }
    finally:
        process_stop(master)


def spread(values: list[float], digits: int = 2) -> str:
    low, high = min(values), max(values)
    middle = statistics.median(values)
    return f"{middle:.{digits}f} ({low:.{digits}f}-{high:.{digits}f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="the earlier commit (default: where HEAD left main)")
    parser.add_argument("--requests", type=int, default=6_000, help="requests per serving run")
    parser.add_argument("--rounds", type=int, default=1, help="A B B A rounds")
    parser.add_argument("--imports", type=int, default=5, help="fresh imports per tree per run")
    parser.add_argument("--workers", type=int, default=4, help="concurrent crowd workers")
    args = parser.parse_args()
    base_rev = args.base or git("merge-base", "HEAD", "main")
    workdir = Path(tempfile.mkdtemp(prefix="parable-web-worker-"))
    workdir.chmod(0o755)  # as root, PostgreSQL runs as the postgres user
    services_env = None
    try:
        services_env, services = services_start(workdir)
        trees = {
            "base": tree_export(base_rev, workdir / "base"),
            "this": ROOT,
        }
        changed = git("status", "--porcelain", "--untracked-files=no")
        print(
            f"base {git('rev-parse', '--short', base_rev)} "
            f"({git('log', '-1', '--format=%s', base_rev)[:70]}); this: the working tree at "
            f"{git('rev-parse', '--short', 'HEAD')}{' with uncommitted changes' if changed else ''}"
        )
        print(f"load average at the start {load_average()} ({os.cpu_count()} CPUs)")
        # A cycle takes one (identity, item) pair: each run signs in its own identities.
        per_run = -(-args.requests // 3 // PROVERBS) + args.workers + 1
        identities = 2 * args.rounds * per_run
        envs, prepared = {}, {}
        for name, tree in trees.items():
            port = free_port()
            url = database_create(services, f"web_worker_{name}")
            envs[name] = tree_environment(tree, url, services["PARABLE_TEST_REDIS_URL"], port)
            compile_bytecode(tree)
            prepared[name] = prepare(tree, envs[name], identities)
        imports = {name: [] for name in trees}
        runs = {name: [] for name in trees}
        used = dict.fromkeys(trees, 0)
        for _ in range(args.rounds):
            for name in ("base", "this", "this", "base"):
                imports[name] += [
                    import_figures(trees[name], envs[name]) for _ in range(args.imports)
                ]
                batch_id, tokens = prepared[name]
                run = serve(
                    trees[name],
                    envs[name],
                    int(envs[name]["GUNICORN_BIND"].rsplit(":", 1)[1]),
                    batch_id,
                    tokens[used[name] : used[name] + per_run],
                    args,
                )
                used[name] += per_run
                run["load"] = load_average()
                runs[name].append(run)
                memory = " ".join(
                    f"{count:,}: {rss:.1f}/{pss:.1f}" for count, (rss, pss) in run["memory"].items()
                )
                print(
                    f"  {name}: {run['served']:,} requests ({run['failed']} failed), "
                    f"{run['cpu_ms']:.1f} ms CPU a request; RSS/PSS MiB after {memory}; "
                    f"load {run['load']}"
                )
        print()
        print(f"{'':44} {'base':>20} {'this':>20} {'this/base':>10}")

        def row(label: str, values: dict[str, list[float]], digits: int = 2) -> None:
            ratio = statistics.median(values["this"]) / statistics.median(values["base"])
            print(
                f"{label:44} {spread(values['base'], digits):>20} "
                f"{spread(values['this'], digits):>20} {ratio:>9.2f}×"
            )

        row("import CPU s (target < 0.5)", {n: [f[0] for f in imports[n]] for n in trees})
        row("RSS MiB after the import", {n: [f[1] for f in imports[n]] for n in trees}, 1)
        row("modules after the import", {n: [f[2] for f in imports[n]] for n in trees}, 0)
        for index, label in enumerate(("after the first cycle", "after a quarter", "after half")):
            checkpoint = list(runs["this"][0]["memory"])[index]
            row(
                f"RSS MiB {label} ({checkpoint:,} requests)",
                {n: [list(r["memory"].values())[index][0] for r in runs[n]] for n in trees},
                1,
            )
        row(
            f"RSS MiB after {args.requests:,} requests (target < 90)",
            {n: [list(r["memory"].values())[-1][0] for r in runs[n]] for n in trees},
            1,
        )
        row(
            f"PSS MiB after {args.requests:,} requests",
            {n: [list(r["memory"].values())[-1][1] for r in runs[n]] for n in trees},
            1,
        )
        row("CPU ms a request (after start-up)", {n: [r["cpu_ms"] for r in runs[n]] for n in trees})
        print(
            f"requests that failed: base {sum(r['failed'] for r in runs['base'])}, "
            f"this {sum(r['failed'] for r in runs['this'])}"
        )
        print(f"load average at the end {load_average()}")
    finally:
        if services_env is not None:
            subprocess.run(
                ["bash", "tests/services.sh", "stop", str(workdir / "services")],
                cwd=ROOT,
                env=services_env,
                timeout=120,
                check=False,
            )
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
