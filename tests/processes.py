"""Child processes the tests start: a Python script in its own environment, and the URL
through which a child reaches the test database."""

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
