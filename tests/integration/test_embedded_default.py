"""The embedded default that `make run` serves: SQLite under var/, tasks run in-process.

The rest of the suite runs on PostgreSQL; this runs migrate and bootstrap in a child
process on a fresh SQLite database, as `make run` does, then takes two demo workers
through their whole cycle (invite link, next task, task page, submit, the next task)
with the web server's application loaded (tasks run after each response),
and checks that SQLite's triggers counted the submissions (crowd.ItemDone) and the
held slots (crowd.OpenItem).
"""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.processes import ROOT, python_run

CYCLE = """
import json
import django
django.setup()
import config.wsgi  # noqa: as runserver loads it: each request's tasks run after its response
from urllib.parse import urlsplit
from django.test import Client
from annotation.models import Narrative

story = (
    "Maya and Leo met at a chess club and soon found they both loved old jazz records, "
    "spicy noodles and long walks before dawn, so within a month they were inseparable."
)
statuses = []
for number, link in enumerate({links!r}):
    client = Client(HTTP_HOST="127.0.0.1")
    statuses.append(client.get(urlsplit(link).path).status_code)
    next_page = client.get("/tasks/{batch}/next/")
    statuses.append(next_page.status_code)
    task = next_page["Location"]
    statuses.append(client.get(task).status_code)
    submitted = client.post(
        task + "submit/",
        json.dumps({{"payload": {{"text": story.replace("Maya", f"Maya{{number}}")}}}}),
        content_type="application/json",
    )
    statuses.append(submitted.status_code)
    again = client.get("/tasks/{batch}/next/")  # the next item, never the same one
    statuses.append((again.status_code, again["Location"] != task))
from common.task_queue import tasks_after_response_wait
tasks_after_response_wait()  # the similarity checks the submits left for after them
from annotation.models import NarrativeIntegrity
from crowd.models import Assignment, ItemDone, OpenItem
done = sorted(ItemDone.objects.values_list("count", flat=True))
held = sum(OpenItem.objects.values_list("held", flat=True))
holding = Assignment.objects.filter(status__in=Assignment.ACTIVE).count()
print(json.dumps({{
    "statuses": statuses, "narratives": Narrative.objects.count(), "done": done,
    "held": [held, holding],
    "checked": NarrativeIntegrity.objects.filter(checked_at__isnull=False).count(),
}}))
"""


def test_make_run_default_serves_workers_on_sqlite(tmp_path):
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "CELERY_BROKER_URL", "DJANGO_SETTINGS_MODULE")
    }
    env.update(PARABLE_VAR_DIR=str(tmp_path), PARABLE_PUBLIC_URL="http://127.0.0.1:8000")
    for command in (["migrate", "--no-input"], ["bootstrap"]):
        done = subprocess.run(
            [sys.executable, "manage.py", *command],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
    assert (tmp_path / "parable.sqlite3").is_file()
    links = re.findall(r"Demo worker \d: (\S+)", done.stdout)
    batch = _demo_batch(env)
    env["DJANGO_SETTINGS_MODULE"] = "config.settings.local"
    result = python_run(CYCLE.format(links=links[:2], batch=batch), env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout.strip().splitlines()[-1])
    assert outcome["statuses"] == [302, 302, 200, 200, [302, True]] * 2
    assert outcome["narratives"] == 2
    # SQLite's triggers counted the submissions: two items with one story each, or one
    # item with both (the count next-task ordering reads).
    assert sum(outcome["done"]) == 2 and outcome["done"] in ([1, 1], [2])
    # and the slots OpenItem holds: two stories and the two next reservations.
    assert outcome["held"] == [4, 4]
    # Each submit's similarity check ran, after its response.
    assert outcome["checked"] == 2


def _demo_batch(env: dict) -> int:
    script = (
        "import django; django.setup(); from crowd.models import Batch; "
        "print(Batch.objects.get(name__startswith='Demo: write').pk)"
    )
    result = python_run(script, env={**env, "DJANGO_SETTINGS_MODULE": "config.settings.local"})
    assert result.returncode == 0, result.stderr
    return int(result.stdout.strip().splitlines()[-1])


@pytest.mark.browser
def test_make_run_on_another_port_sends_every_link_to_that_port(tmp_path, page):
    """`make run PORT=N HOST=H`: the printed links and the server's PARABLE_PUBLIC_URL (what
    Prolific and MTurk are sent to) name H:N, unless PARABLE_PUBLIC_URL is set; a printed
    worker link opens its task in Chromium."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "CELERY_BROKER_URL", "DJANGO_SETTINGS_MODULE")
        and key != "PARABLE_PUBLIC_URL"
    }
    env.update(PARABLE_VAR_DIR=str(tmp_path), PYTHONUNBUFFERED="1")
    py = sys.executable
    make = subprocess.Popen(
        # -o: the test's virtualenv is installed already; `run` itself runs as it is.
        ["make", "-o", ".venv/.runtime", "run", f"PORT={port}", "HOST=127.0.0.1", f"PY={py}"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    watchdog = threading.Timer(240, os.killpg, (make.pid, signal.SIGTERM))
    watchdog.start()
    output = []
    try:
        for line in make.stdout:
            output.append(line)
            if "Quit the server with" in line:
                break
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=30) as response:
            assert response.status == 200
        links = re.findall(r"Demo worker \d: (\S+)", "".join(output))
        assert links and all(link.startswith(f"http://127.0.0.1:{port}/w/") for link in links)
        page.goto(links[0])
        expect(page.locator("[data-testid=proverb]")).not_to_be_empty()
        assert page.url.startswith(f"http://127.0.0.1:{port}/")
        servers = [
            environ
            for environ in _descendant_environments(make.pid)
            if "runserver" in environ.get("_cmdline", "")
        ]
    finally:
        watchdog.cancel()
        os.killpg(make.pid, signal.SIGTERM)
        make.wait(timeout=60)
    assert servers
    for server in servers:
        setting = python_run(
            "import django; django.setup(); from django.conf import settings; "
            "print(settings.PARABLE_PUBLIC_URL)",
            env={
                "DJANGO_SETTINGS_MODULE": "config.settings.local",  # manage.py's default
                **{key: value for key, value in server.items() if key != "_cmdline"},
            },
        )
        assert setting.stdout.split() == [f"http://127.0.0.1:{port}"], setting.stderr


def _descendant_environments(pid: int) -> list[dict]:
    """The environment (and `_cmdline`) of each process below pid, read from /proc."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    below, found = {pid}, True
    while found:
        found = {child for child, parent in parents.items() if parent in below} - below
        below |= found
    environments = []
    for process in below - {pid}:
        try:
            raw = Path(f"/proc/{process}/environ").read_bytes()
            cmdline = Path(f"/proc/{process}/cmdline").read_bytes()
        except OSError:
            continue
        environ = dict(item.split("=", 1) for item in raw.decode().split("\0") if "=" in item)
        environments.append({**environ, "_cmdline": cmdline.decode().replace("\0", " ")})
    return environments
