"""Turkle 3.1.0 beside Parable in the serving benchmark (bench/serving/run.py).

Turkle is installed on first use into a venv of its own (bench/out/turkle-venv, ignored: it
brings Django 4.2), with the gunicorn and psycopg that Parable pins. It is hosted by a settings
module of a few lines (turkle_site.py, as Turkle's own turkle_site does), on a database of its
own on the benchmark's PostgreSQL, served by the same gunicorn configuration as Parable
(platform/gunicorn.conf.py: workers, threads, access log), seeded by turkle_seed.py with a batch
of each size: the same proverbs, the same assignments per item, a task page of the same weight.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / "bench/out/turkle-venv"
REQUIREMENT = "turkle==3.1.0"
DATABASE = "turkle"


def install() -> str:
    """Turkle's venv, made on first use; the pip freeze of what it holds."""
    pip = VENV / "bin/pip"
    if not (VENV / "bin/gunicorn").exists():
        pins = [
            line.strip()
            for line in (ROOT / "requirements.txt").read_text().splitlines()
            if line.startswith(("gunicorn==", "psycopg["))
        ]
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True, timeout=300)
        subprocess.run(
            [str(pip), "install", "--quiet", REQUIREMENT, *pins], check=True, timeout=1200
        )
    frozen = subprocess.run(
        [str(pip), "freeze"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        check=True,
        timeout=120,
    ).stdout.split()
    return ", ".join(line for line in frozen if line.lower().startswith(("turkle", "django=")))


def environment(parable: dict) -> dict:
    """Turkle's environment beside Parable's: its settings, its database on the same server,
    the same gunicorn settings and CONN_MAX_AGE, and a bind of its own (set by the caller)."""
    from django.conf import settings
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(f"CREATE DATABASE {DATABASE}")
    server = parable["DATABASE_URL"].rsplit("/", 1)[0]
    return {
        **parable,
        "DJANGO_SETTINGS_MODULE": "bench.serving.turkle_site",
        "TURKLE_DATABASE_URL": f"{server}/{DATABASE}",
        "CONN_MAX_AGE": str(settings.DATABASES["default"]["CONN_MAX_AGE"]),
    }


def _run(env: dict, *arguments: str, stdin: str = "") -> object:
    done = subprocess.run(
        [str(VENV / "bin/python"), "bench/serving/turkle_seed.py", *arguments],
        cwd=ROOT,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if done.returncode:
        raise SystemExit(f"Turkle's turkle_seed.py {arguments[0]} failed:\n{done.stderr}")
    return json.loads(done.stdout)


def seed(env: dict, *, sizes: dict[int, int], proverbs: list[str], page_bytes: int):
    """Turkle's batches (size → assignments per item) and their task page's weight in bytes:
    ({size: batch id}, bytes)."""
    answer = _run(
        env,
        "seed",
        stdin=json.dumps({"sizes": sizes, "page_bytes": page_bytes, "proverbs": proverbs}),
    )
    return {int(size): pk for size, pk in answer["batches"].items()}, answer["page_bytes"]


def session_keys(env: dict, count: int) -> list[str]:
    """`count` new Turkle workers, signed in: their session keys."""
    return _run(env, "sessions", "--count", str(count))


def gunicorn_command() -> list[str]:
    """Turkle under platform/gunicorn.conf.py, with gunicorn's own access logger (Parable's
    redacts its invite tokens)."""
    return [
        str(VENV / "bin/gunicorn"),
        "django.core.wsgi:get_wsgi_application()",
        "-c",
        "platform/gunicorn.conf.py",
        "--logger-class",
        "gunicorn.glogging.Logger",
    ]
