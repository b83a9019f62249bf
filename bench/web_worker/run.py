"""Web worker benchmark: a web worker's import and its memory while it serves, this working
tree beside an earlier commit, measured side by side in one run.

Run from the repository root: `.venv/bin/python bench/web_worker/run.py [--base REV]
[--requests 6000] [--rounds 1] [--imports 5] [--workers 4] [--only this|base]`.

`--base` (default: the commit where this branch left `main`) is exported with `git
archive` into a temporary folder; the working tree is measured as it is, uncommitted
changes included. It starts PostgreSQL and Redis (tests/services.sh) on free ports in
28200-28999, gives each tree a database of its own (migrated, static files collected, a
published write batch of 500 proverbs, a researcher's API token) and compiles each tree's
bytecode as the image does (platform/Dockerfile). Then, for each round, in mirrored order
(base, this, this, base):

- `--imports` fresh processes import the application as a gunicorn worker does
  (config.wsgi with production's settings, and the URL map): CPU seconds and resident
  MiB after it, and how many modules it loaded;
- gunicorn (platform/gunicorn.conf.py, one sync worker) serves `--workers` signed-in
  crowd workers looping next → task page → submit (bench/serving/load.py, through the
  HTTPS proxy's header, the submits' similarity checks queued to Redis), with a
  researcher's API calls (the batch, its progress, its narratives) every 100 cycles, for
  `--requests` requests. The web worker's CPU is read once it answers /healthz (its
  import) and after its first cycle (the first request's lazy imports: templates, the
  broker's client), its resident and proportional memory after the first cycle and at an
  eighth, a quarter, a half, three quarters and all of the requests (whether it levels
  off), with its CPU per request.

It prints each figure per tree, their ratio (this / base), the spread over runs, and the
load average, since the machine is shared. `--only` measures one tree, once a round, for a
long run.
Prints figures; it is not a test."""

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
from bench.serving.run import (  # noqa: E402
    IMPORT_SCRIPT,
    start_services,
    stop_services,
)
from bench.serving.stories import PassingStories, proverb_texts  # noqa: E402
from tests.integration.processes import process_stop  # noqa: E402

PROVERBS = 500
HEALTH_PATH = "/healthz"
API_EVERY_CYCLES = 100  # crowd cycles between two rounds of requester calls
API_PATHS = (
    "/api/batches/{batch}/",
    "/api/batches/{batch}/progress/",
    "/api/narratives/?batch={batch}",
)


# Run in each tree with its own code: the database, its static files, and a write batch
# with room for every cycle; prints the batch's id, its proverbs and invite tokens.
PREPARE_SCRIPT = """
import json, sys
import django
django.setup()
from django.core.management import call_command
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
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
researcher = get_user_model().objects.create_superuser("bench", "bench@example.org", None)
print(json.dumps([
    batch.pk,
    [invite_token(worker=w, batch=batch) for w in workers],
    Token.objects.create(user=researcher).key,
]))
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


def tree_script(tree: Path, env: dict, args: list[str], *, what: str, timeout: int) -> str:
    """The output of `python -c ...` run in `tree`; exits the bench when it fails."""
    done = subprocess.run(
        [sys.executable, "-c", *args],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode:
        raise SystemExit(f"{what} {tree} failed:\n{done.stderr[-3000:]}")
    return done.stdout


def prepare(tree: Path, env: dict, identities: int) -> tuple[int, list[str], str]:
    arguments = [PREPARE_SCRIPT, json.dumps(proverb_texts(PROVERBS)), str(identities)]
    output = tree_script(tree, env, arguments, what="Preparing", timeout=600)
    batch_id, tokens, api_token = json.loads(output.strip().splitlines()[-1])
    return batch_id, tokens, api_token


def import_figures(tree: Path, env: dict) -> tuple[float, float, int]:
    """(CPU seconds, resident MiB, modules) of one fresh process importing the application."""
    output = tree_script(
        tree, env, [IMPORT_SCRIPT], what="Importing the application of", timeout=120
    )
    cpu, rss, modules = output.split()
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


async def signed_in(tokens: list[str], count: int, port: int, stories) -> list[load.Worker]:
    """`count` workers, the rest of `tokens` shared among them as spare identities."""
    workers = [load.Worker("127.0.0.1", port, stories) for _ in range(count)]
    for index, worker in enumerate(workers):
        worker.spare_tokens = tokens[count + index :: count]
    await asyncio.gather(*(w.sign_in(token) for w, token in zip(workers, tokens, strict=False)))
    return workers


def requester_calls(port: int, batch_id: int, api_token: str) -> list[bool]:
    """A researcher's API calls between the crowd's cycles: the batch, its progress and its
    narratives (the list grows with the submits); whether each answered 200."""
    answers = [
        asyncio.run(
            load.http(
                "127.0.0.1",
                port,
                "GET",
                path,
                cookies={},
                headers=(f"Authorization: Token {api_token}",),
            )
        )
        for path in (template.format(batch=batch_id) for template in API_PATHS)
    ]
    return [answer.status == 200 for answer in answers]


def serve(
    tree: Path, env: dict, port: int, prepared: tuple, tokens: list[str], log: Path, args
) -> dict:
    """Serve `args.requests` requests with one gunicorn worker of `tree`; its CPU at start
    (the import, and /healthz) and after its first cycle, its memory at the checkpoints,
    its CPU per request after start-up, and the requests that failed."""
    batch_id, _, api_token = prepared
    stories = PassingStories()
    master = gunicorn_start(tree, env, port, log)
    try:
        [worker] = children(master.pid)
        start_cpu = tree_cpu(worker)
        workers = asyncio.run(signed_in(tokens, args.workers, port, stories))
        served, failed, memory = args.workers + 1, 0, {}
        started_cpu = tree_cpu(worker)
        checkpoints = [served + 3] + [args.requests * n // 8 for n in (1, 2, 4, 6, 8)]
        first_cycle_cpu = None
        for checkpoint in checkpoints:
            while served < checkpoint:
                cycles = max(1, min(API_EVERY_CYCLES, (checkpoint - served) // 3))
                log = asyncio.run(
                    load.run_phase(workers, batch_id=batch_id, seconds=600, max_cycles=cycles)
                )
                if not log.samples:
                    raise SystemExit("The workers ran out of work: raise --requests' room.")
                served += len(log.samples)
                failed += sum(not sample.ok for sample in log.samples)
                if first_cycle_cpu is None:
                    first_cycle_cpu = tree_cpu(worker)
                    continue  # the first cycle alone: its lazy imports, nothing else
                answers = requester_calls(port, batch_id, api_token)
                served += len(answers)
                failed += answers.count(False)
            memory[checkpoint] = memory_mib(worker)
        return {
            "memory": memory,
            "served": served,
            "failed": failed,
            "start_cpu": start_cpu,
            "first_cycle_cpu": first_cycle_cpu,
            "cpu_ms": 1000 * (tree_cpu(worker) - started_cpu) / max(served - args.workers - 1, 1),
        }
    finally:
        process_stop(master)


def checkpoints_of(runs: dict[str, list[dict]]) -> list[int]:
    return list(next(iter(runs.values()))[0]["memory"])


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
    parser.add_argument(
        "--only", choices=("base", "this"), help="measure one tree (a long run's plateau)"
    )
    args = parser.parse_args()
    base_rev = args.base or git("merge-base", "HEAD", "main")
    workdir = Path(tempfile.mkdtemp(prefix="parable-web-worker-"))
    workdir.chmod(0o755)  # as root, PostgreSQL runs as the postgres user
    services_env = None
    names = (args.only,) if args.only else ("base", "this")
    try:
        services_env = {
            **os.environ,
            "PARABLE_TEST_PG_PORT": str(free_port()),
            "PARABLE_TEST_REDIS_PORT": str(free_port()),
        }
        services = start_services(workdir, services_env)
        trees = {
            name: tree_export(base_rev, workdir / "base") if name == "base" else ROOT
            for name in names
        }
        changed = git("status", "--porcelain", "--untracked-files=no")
        print(
            f"base {git('rev-parse', '--short', base_rev)} "
            f"({git('log', '-1', '--format=%s', base_rev)[:70]}); this: the working tree at "
            f"{git('rev-parse', '--short', 'HEAD')}{' with uncommitted changes' if changed else ''}"
            f"; measured: {', '.join(names)}"
        )
        print(f"load average at the start {load_average()} ({os.cpu_count()} CPUs)")
        # A cycle takes one (identity, item) pair: each run signs in its own identities.
        per_run = -(-args.requests // 3 // PROVERBS) + args.workers + 1
        order = ("base", "this", "this", "base") if len(names) == 2 else names
        identities = order.count(names[0]) * args.rounds * per_run
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
            for name in order:
                imports[name] += [
                    import_figures(trees[name], envs[name]) for _ in range(args.imports)
                ]
                run = serve(
                    trees[name],
                    envs[name],
                    int(envs[name]["GUNICORN_BIND"].rsplit(":", 1)[1]),
                    prepared[name],
                    prepared[name][1][used[name] : used[name] + per_run],
                    workdir / f"gunicorn-{name}.log",
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
                    f"CPU s at start {run['start_cpu']:.2f}, after the first cycle "
                    f"{run['first_cycle_cpu']:.2f}; {run['cpu_ms']:.1f} ms CPU a request; "
                    f"RSS/PSS MiB after {memory}; load {run['load']}",
                    flush=True,
                )
        print()
        print(
            f"{'':48}"
            + "".join(f"{name:>20}" for name in names)
            + (f"{'this/base':>11}" if len(names) == 2 else "")
        )

        def row(label: str, values: dict[str, list[float]], digits: int = 2) -> None:
            line = f"{label:48}" + "".join(f"{spread(values[n], digits):>20}" for n in names)
            if len(names) == 2:
                ratio = statistics.median(values["this"]) / statistics.median(values["base"])
                line += f"{ratio:>10.2f}×"
            print(line)

        row(
            "import CPU s (config.wsgi and URL map)", {n: [f[0] for f in imports[n]] for n in trees}
        )
        row("RSS MiB after the import", {n: [f[1] for f in imports[n]] for n in trees}, 1)
        row("modules after the import", {n: [f[2] for f in imports[n]] for n in trees}, 0)
        row(
            "worker CPU s at start (import, /healthz)",
            {n: [r["start_cpu"] for r in runs[n]] for n in trees},
        )
        row(
            "worker CPU s after its first cycle (target 0.5)",
            {n: [r["first_cycle_cpu"] for r in runs[n]] for n in trees},
        )
        for index, checkpoint in enumerate(runs[names[0]][0]["memory"]):
            target = " (target 90)" if index == len(checkpoints_of(runs)) - 1 else ""
            row(
                f"RSS MiB after {checkpoint:,} requests{target}",
                {n: [list(r["memory"].values())[index][0] for r in runs[n]] for n in trees},
                1,
            )
        row(
            f"PSS MiB after {args.requests:,} requests",
            {n: [list(r["memory"].values())[-1][1] for r in runs[n]] for n in trees},
            1,
        )
        row("CPU ms a request (after start-up)", {n: [r["cpu_ms"] for r in runs[n]] for n in trees})
        print(
            "requests that failed: "
            + ", ".join(f"{n} {sum(r['failed'] for r in runs[n])}" for n in names)
        )
        print(f"load average at the end {load_average()}")
    finally:
        if services_env is not None:
            stop_services(workdir, services_env)
        else:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
