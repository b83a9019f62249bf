"""Fuzz the requester API with schemathesis: every operation, all checks, on PostgreSQL.

Starts PostgreSQL and Redis (tests/services.sh) in a temporary folder, migrates, loads
the demo data, makes a staff researcher and a crowd worker with API tokens, serves the
application with gunicorn on a free loopback port (27000-27199), and runs `st run` over
the OpenAPI schema with a fixed seed once per role: the researcher, the worker and
anonymous (no credentials), with every check (schemathesis.toml beside this script). The
proverb import's text file parts, and batch settings that keep the rules across keys no
JSON Schema states, are generated as tests/integration/fuzz_media.py describes (the hooks
module of `st run`). Prints per
role and in total the number of cases, server errors and schema violations (any failed
check), the time taken and the load average, and exits non-zero when a check failed.

    .venv/bin/python bench/api_fuzz/run.py [--max-examples 600] [--seed 20260] [--workers 2]
        [--roles researcher,worker,anonymous]

--max-examples 100 gives about 5,000 cases over the three roles; the test suite runs a
bounded version of the same fuzzing (tests/integration/test_api_fuzzing.py).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.conftest import free_loopback_port  # noqa: E402
from tests.integration.processes import gunicorn_process  # noqa: E402

PYTHON = sys.executable


def _services(action: str, directory: Path, env: dict) -> str:
    result = subprocess.run(
        ["bash", "tests/services.sh", action, str(directory)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    return result.stdout


def _manage(env: dict, *args: str) -> str:
    result = subprocess.run(
        [PYTHON, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    if result.returncode != 0:
        raise RuntimeError(result.stdout + result.stderr)
    return result.stdout


TOKEN_SCRIPT = """
from django.contrib.auth.models import Group, User
from rest_framework.authtoken.models import Token
from crowd.access import RESEARCHERS
user = User.objects.create_user("fuzzer", password="fuzzer-pass-1234", is_staff=True)
user.groups.add(Group.objects.get(name=RESEARCHERS))
worker = User.objects.create_user("fuzz-worker", password="fuzz-worker-pass-1234")
print(Token.objects.create(user=user).key, Token.objects.create(user=worker).key)
"""
ROLES = ("researcher", "worker", "anonymous")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-examples", type=int, default=600)
    parser.add_argument("--seed", type=int, default=20260)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--max-time", type=int, default=0, help="seconds per role; 0: no limit")
    parser.add_argument(
        "--roles", default=",".join(ROLES), help="comma-separated: " + ", ".join(ROLES)
    )
    args = parser.parse_args()
    roles = [role for role in args.roles.split(",") if role]
    if set(roles) - set(ROLES):
        parser.error(f"--roles: choose among {', '.join(ROLES)}")

    work = Path(tempfile.mkdtemp(prefix="parable-fuzz-"))
    work.chmod(0o755)  # PostgreSQL runs as its own user under root
    base_env = {
        **os.environ,
        "PARABLE_TEST_PG_PORT": str(free_loopback_port(range(25460, 25500))),
        "PARABLE_TEST_REDIS_PORT": str(free_loopback_port(range(26460, 26500))),
    }
    services_dir = work / "services"
    exported = _services("start", services_dir, base_env)
    env = {**base_env}
    for line in exported.splitlines():
        name, value = shlex.split(line.removeprefix("export "))[0].split("=", 1)
        env[name] = value
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.base",
        PARABLE_VAR_DIR=str(work / "var"),
        CELERY_BROKER_URL="",
        LOG_LEVEL="WARNING",
    )
    try:
        _manage(env, "migrate", "--no-input")
        _manage(env, "bootstrap", "--username", "fuzz-admin")
        researcher, worker = _manage(env, "shell", "-c", TOKEN_SCRIPT).split()[-2:]
        tokens = {"researcher": researcher, "worker": worker, "anonymous": ""}
        server_args = ("--workers", "2", "--threads", "2", "--timeout", "120")
        with gunicorn_process(env, args=(*server_args, "--access-logfile", "/dev/null")) as (
            url,
            _,
        ):
            schema = _schema(url, token=researcher, work=work)
            runs = {
                role: _fuzz(url, schema=schema, token=tokens[role], work=work, env=env, args=args)
                for role in roles
            }
    finally:
        _services("stop", services_dir, base_env)
    total_cases, total_failures, total_time, failed = 0, Counter(), 0.0, False
    for role, (run, elapsed) in runs.items():
        output = work / f"schemathesis-{role}.txt"
        output.write_text(run.stdout + run.stderr)
        cases, failures = _figures(run.stdout)
        server_errors = sum(n for name, n in failures.items() if "Server error" in name)
        print(
            f"{role}: cases {cases}  server errors {server_errors}  "
            f"failed checks {dict(failures) or 0}  time {elapsed:.0f} s  ({output})"
        )
        total_cases += cases
        total_failures += failures
        total_time += elapsed
        failed = failed or run.returncode != 0 or bool(failures)
    server_errors = sum(n for name, n in total_failures.items() if "Server error" in name)
    print(f"cases: {total_cases}  (target: at least 5,000)")
    print(f"server errors: {server_errors}")
    print(f"failed checks: {dict(total_failures) or 0}")
    print(f"time: {total_time:.0f} s  load average: {os.getloadavg()}")
    return 1 if failed else 0


def _schema(url: str, *, token: str, work: Path) -> Path:
    """Fetch the schema (slow to build under load) as the researcher sees it."""
    schema = work / "openapi.json"
    request = urllib.request.Request(
        f"{url}/api/schema/?format=json", headers={"Authorization": f"Token {token}"}
    )
    with urllib.request.urlopen(request, timeout=300) as response:
        schema.write_bytes(response.read())
    return schema


def _fuzz(url: str, *, schema: Path, token: str, work: Path, env: dict, args) -> tuple:
    """Run schemathesis against `url` with the token (none: anonymous)."""
    command = [
        str(Path(PYTHON).with_name("st")),
        "--config-file",
        str(Path(__file__).with_name("schemathesis.toml")),
        "run",
        str(schema),
        "--url",
        url,
        *(["-H", f"Authorization: Token {token}"] if token else []),
        "--max-examples",
        str(args.max_examples),
        "--seed",
        str(args.seed),
        "--workers",
        str(args.workers),
        "--request-timeout",
        "60",
        "--no-color",
    ]
    if args.max_time:
        command += ["--max-time", str(args.max_time)]
    hooks = {"SCHEMATHESIS_HOOKS": "tests.integration.fuzz_media", "PYTHONPATH": str(ROOT)}
    started = time.monotonic()
    run = subprocess.run(command, cwd=work, env={**env, **hooks}, capture_output=True, text=True)
    return run, time.monotonic() - started


def _figures(output: str) -> tuple[int, Counter]:
    """Generated cases and failures per check from schemathesis' summary."""
    cases = re.search(r"(\d+) generated", output)
    failures = Counter(
        {name.strip(): int(n) for name, n in re.findall(r"❌ (ST\d+ [^:\n]+): (\d+)", output)}
    )
    return int(cases.group(1)) if cases else 0, failures


if __name__ == "__main__":
    sys.exit(main())
