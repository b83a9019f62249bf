"""Fuzz the requester API with schemathesis: every operation, all checks, on PostgreSQL.

Starts PostgreSQL and Redis (tests/services.sh) in a temporary folder, migrates, loads
the demo data, makes a staff researcher with an API token, serves the application with
gunicorn on a free loopback port (27000-27199), and runs `st run` over the OpenAPI
schema with a fixed seed. Prints the number of cases, server errors and schema
violations (any failed check), the time taken and the load average, and exits
non-zero when a check failed.

    .venv/bin/python bench/api_fuzz/run.py [--max-examples 600] [--seed 20260] [--workers 2]

The default reaches 10,000+ generated cases over the API's operations; the test suite
runs a bounded version of the same fuzzing (tests/integration/test_api_fuzzing.py).
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
from annotation.access import RESEARCHERS
user = User.objects.create_user("fuzzer", password="fuzzer-pass-1234", is_staff=True)
user.groups.add(Group.objects.get(name=RESEARCHERS))
print(Token.objects.create(user=user).key)
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-examples", type=int, default=600)
    parser.add_argument("--seed", type=int, default=20260)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--max-time", type=int, default=0, help="seconds; 0: no limit")
    args = parser.parse_args()

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
        token = _manage(env, "shell", "-c", TOKEN_SCRIPT).strip().splitlines()[-1]
        server_args = ("--workers", "2", "--threads", "2", "--timeout", "120")
        with gunicorn_process(env, args=(*server_args, "--access-logfile", "/dev/null")) as (
            url,
            _,
        ):
            run, elapsed = _fuzz(url, token=token, work=work, env=env, args=args)
    finally:
        _services("stop", services_dir, base_env)
    (work / "schemathesis.txt").write_text(run.stdout + run.stderr)
    print(f"schemathesis output: {work / 'schemathesis.txt'}")
    cases, failures = _figures(run.stdout)
    server_errors = sum(n for name, n in failures.items() if "Server error" in name)
    print(f"cases: {cases}  (target: at least 10,000)")
    print(f"server errors: {server_errors}")
    print(f"failed checks: {dict(failures) or 0}")
    print(f"time: {elapsed:.0f} s  load average: {os.getloadavg()}")
    return 0 if run.returncode == 0 and not failures else 1


def _fuzz(url: str, *, token: str, work: Path, env: dict, args) -> tuple:
    """Fetch the schema (slow to build under load), then run schemathesis against `url`."""
    schema = work / "openapi.json"
    request = urllib.request.Request(
        f"{url}/api/schema/?format=json", headers={"Authorization": f"Token {token}"}
    )
    with urllib.request.urlopen(request, timeout=300) as response:
        schema.write_bytes(response.read())
    command = [
        str(Path(PYTHON).with_name("st")),
        "run",
        str(schema),
        "--url",
        url,
        "-H",
        f"Authorization: Token {token}",
        "--checks",
        "all",
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
    started = time.monotonic()
    run = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True)
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
