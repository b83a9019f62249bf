"""Real processes for integration tests: a Celery worker and gunicorn on the test database."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from django.db import connection

from tests.conftest import free_loopback_port
from tests.processes import ROOT, child_database_url


def database_url() -> str:
    """The URL of the test database this process uses (PostgreSQL under `make test`)."""
    if connection.vendor != "postgresql":
        raise RuntimeError("Integration tests need the PostgreSQL that `make test` starts.")
    return child_database_url()


def _environment(broker_url: str, extra: dict[str, str] | None) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DATABASE_URL": database_url(),
        "CELERY_BROKER_URL": broker_url,
        "CELERY_RESULT_BACKEND": broker_url,
        **(extra or {}),
    }


def process_environment(broker_url: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a child Django process on the test database and `broker_url`."""
    return _environment(broker_url, extra)


def process_stop(process: subprocess.Popen) -> None:
    """Terminate a child process (if it still runs) and reap it; kill it after 30 s."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)


@contextmanager
def celery_worker(
    broker_url: str,
    *,
    pool: str = "solo",
    queues: str = "celery",
    env: dict[str, str] | None = None,
) -> Iterator[subprocess.Popen]:
    """A `celery -A config worker` process (one task at a time) on the test database,
    taking the comma-separated `queues`."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            f"--pool={pool}",
            "--concurrency=1",
            "--loglevel=WARNING",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "-Q",
            queues,
        ],
        cwd=ROOT,
        env=_environment(broker_url, env),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        yield process
    finally:
        process_stop(process)


@contextmanager
def gunicorn_process(
    environment: dict[str, str], *, args: tuple[str, ...] = ()
) -> Iterator[tuple[str, subprocess.Popen]]:
    """gunicorn with platform/gunicorn.conf.py on a free loopback port, in `environment`;
    yields its base URL once the worker has booted (read from its log, no polling)."""
    port = free_loopback_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "config.wsgi:application",
            "-c",
            "platform/gunicorn.conf.py",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "1",
            *args,
        ],
        cwd=ROOT,
        env=environment,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    process.log_lines = lines  # gunicorn's log (stderr), read as it comes
    try:
        for line in process.stderr:
            lines.append(line)
            if "Booting worker" in line:
                break
        # Keep reading: a full pipe would block gunicorn's workers on their next log line.
        reader = threading.Thread(target=lambda: lines.extend(process.stderr), daemon=True)
        reader.start()
        process.log_reader = reader  # joined once the process has exited: the log is complete
        yield f"http://127.0.0.1:{port}", process
    finally:
        process_stop(process)


@contextmanager
def gunicorn_server(
    *, broker_url: str = "", env: dict[str, str] | None = None, args: tuple[str, ...] = ()
) -> Iterator[tuple[str, subprocess.Popen]]:
    """gunicorn_process on the test database (and the given broker)."""
    with gunicorn_process(_environment(broker_url, env), args=args) as server:
        yield server


def wait_until(condition: Callable[[], object], *, timeout: float, what: str):
    """Check `condition` until it holds (its value is returned) or `timeout` seconds pass."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"Timed out after {timeout} s waiting for {what}.")
        time.sleep(0.2)


def child_pids(pid: int) -> list[int]:
    """The direct children of process `pid` (Linux /proc)."""
    children = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(child) for child in children.read_text().split()] if children.exists() else []
