"""Child processes the tests start: a Python script in its own environment, and the URL
through which a child reaches the test database."""

import os
import subprocess
import sys
from pathlib import Path

from django.db import connection

ROOT = Path(__file__).resolve().parents[1]


def child_database_url() -> str:
    """The test database (PostgreSQL under `make test`) as a DATABASE_URL for a child."""
    settings_dict = connection.settings_dict
    return (
        f"postgres://{settings_dict['USER']}@{settings_dict['HOST']}:{settings_dict['PORT']}"
        f"/{settings_dict['NAME']}"
    )


def python_run(script: str, *, env: dict, timeout: int = 120) -> subprocess.CompletedProcess:
    """Run `python -c script` from the repository root; its output is captured as text."""
    return subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def embedded_environment(var: Path, *commands: tuple[str, ...], **env: str) -> tuple[dict, str]:
    """A child's environment on the embedded default (config.settings.local: SQLite under
    `var`, no broker, debug pages off), with `env` added, after running each manage.py
    command of `commands` in it (e.g. ("migrate", "--no-input"), ("bootstrap",)); the
    environment and the last command's output."""
    unset = ("DATABASE_URL", "CELERY_BROKER_URL", "PARABLE_DEBUG")
    environment = {key: value for key, value in os.environ.items() if key not in unset}
    environment.update(
        env, PARABLE_VAR_DIR=str(var), DJANGO_SETTINGS_MODULE="config.settings.local"
    )
    output = ""
    for command in commands:
        done = subprocess.run(
            [sys.executable, "manage.py", *command],
            cwd=ROOT,
            env=environment,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        output = done.stdout
    return environment, output
