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
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from tests.conftest import free_loopback_port
from tests.processes import ROOT, embedded_environment, python_run

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
    env, output = embedded_environment(
        tmp_path,
        ("migrate", "--no-input"),
        ("bootstrap",),
        PARABLE_PUBLIC_URL="http://127.0.0.1:8000",
    )
    assert (tmp_path / "parable.sqlite3").is_file()
    links = re.findall(r"Demo worker \d: (\S+)", output)
    batch = _demo_batch(env)
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


PLAIN_ERROR = """
import json, sqlite3
import django
django.setup()
from django.conf import settings
settings.DATABASES["default"]["OPTIONS"]["timeout"] = 1  # fail fast: the test holds the lock
from django.db import connection
from django.test import Client
from crowd.models import Batch

client = Client(HTTP_HOST="127.0.0.1", raise_request_exception=False)
client.get({path!r})
batch = Batch.objects.get(name__startswith="Demo: write")
connection.close()
# Another process holds SQLite's write lock (a long command, a second server): the
# worker's next task cannot be reserved.
holder = sqlite3.connect(settings.DATABASES["default"]["NAME"])
holder.execute("BEGIN IMMEDIATE")
page = client.get(f"/tasks/{{batch.pk}}/next/")
holder.rollback()
print(json.dumps({{"status": page.status_code, "body": page.content.decode()}}))
"""


def test_a_worker_meets_a_server_error_as_a_plain_page(tmp_path):
    """On the embedded default (debug pages off unless PARABLE_DEBUG=1) a request that
    fails, here on "database is locked", shows the worker a plain page: no traceback, no
    exception, no settings; a database out of reach for a moment is a 503 that says to
    try again."""
    env, output = embedded_environment(tmp_path, ("migrate", "--no-input"), ("bootstrap",))
    link = re.findall(r"Demo worker \d: (\S+)", output)[0]
    result = python_run(PLAIN_ERROR.format(path=urlsplit(link).path), env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    page = json.loads(result.stdout.strip().splitlines()[-1])
    assert page["status"] == 503
    assert "Back in a moment" in page["body"] and "Try again in 10 seconds" in page["body"]
    for detail in ("Traceback", "OperationalError", "database is locked", "SECRET_KEY", "sqlite"):
        assert detail not in page["body"]
    assert "database is locked" in result.stderr  # the server's own log keeps the reason


@pytest.fixture(scope="module")
def make_run(tmp_path_factory):
    """`make run HOST=127.0.0.1 PORT=<free port>` on a fresh var/ folder, with
    PARABLE_PUBLIC_URL unset and debug pages off (as on a fresh machine), once it answers
    /healthz: (port, the process, its output as it comes)."""
    var = tmp_path_factory.mktemp("make-run-var")
    port = free_loopback_port()
    unset = ("DATABASE_URL", "CELERY_BROKER_URL", "DJANGO_SETTINGS_MODULE", "PARABLE_PUBLIC_URL")
    env = {key: value for key, value in os.environ.items() if key not in unset}
    env.pop("PARABLE_DEBUG", None)
    env.update(PARABLE_VAR_DIR=str(var), PYTHONUNBUFFERED="1")
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
    output = _Output(make.stdout)
    watchdog = threading.Timer(240, os.killpg, (make.pid, signal.SIGTERM))
    watchdog.start()
    try:
        assert output.wait_for("Listening at:", timeout=240), output.text()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=30) as response:
            assert response.status == 200
        watchdog.cancel()
        yield port, make, output
    finally:
        watchdog.cancel()
        os.killpg(make.pid, signal.SIGTERM)
        make.wait(timeout=60)


class _Output:
    """A process's output lines, read as they come by a thread of its own."""

    def __init__(self, stream):
        self.lines: list[str] = []
        self.changed = threading.Condition()
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream) -> None:
        for line in stream:
            with self.changed:
                self.lines.append(line)
                self.changed.notify_all()

    def text(self) -> str:
        with self.changed:
            return "".join(self.lines)

    def wait_for(self, *texts: str, timeout: float) -> bool:
        """Whether every one of `texts` appeared within `timeout` seconds."""
        with self.changed:
            return self.changed.wait_for(
                lambda: all(text in "".join(self.lines) for text in texts), timeout
            )

    def server_log(self) -> str:
        """What the server wrote, after `make run`'s commands before it (bootstrap prints
        the demo links for the researcher to hand out, as it should)."""
        text = self.text()
        return text[text.index("Listening at:") :]


@pytest.mark.browser
def test_make_run_on_another_port_sends_every_link_to_that_port(make_run, page):
    """`make run PORT=N HOST=H`: the printed links and the server's PARABLE_PUBLIC_URL (what
    Prolific and MTurk are sent to) name H:N, unless PARABLE_PUBLIC_URL is set; a printed
    worker link opens its task in Chromium, its script and styles served with debug off."""
    port, make, output = make_run
    links = re.findall(r"Demo worker \d: (\S+)", output.text())
    assert links and all(link.startswith(f"http://127.0.0.1:{port}/w/") for link in links)
    page.goto(links[0])
    expect(page.locator("[data-testid=proverb]")).not_to_be_empty()
    assert page.url.startswith(f"http://127.0.0.1:{port}/")
    servers = [
        environ
        for environ in _descendant_environments(make.pid)
        if "gunicorn" in environ.get("_cmdline", "")
    ]
    assert servers
    for server in servers:
        setting = python_run(
            "import django; django.setup(); from django.conf import settings; "
            "print(settings.PARABLE_PUBLIC_URL)",
            env={
                "DJANGO_SETTINGS_MODULE": "config.settings.local",  # config/wsgi.py's default
                **{key: value for key, value in server.items() if key != "_cmdline"},
            },
        )
        assert setting.stdout.split() == [f"http://127.0.0.1:{port}"], setting.stderr


def test_make_run_serves_static_files_with_debug_pages_off(make_run):
    port, _, _ = make_run
    base = f"http://127.0.0.1:{port}"
    with urllib.request.urlopen(f"{base}/static/frontend/submit.js", timeout=30) as script:
        assert script.status == 200 and b"import" in script.read()
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(f"{base}/no-such-page/", timeout=30)
    assert missing.value.code == 404
    page = missing.value.read().decode()
    assert "URLconf" not in page and "DEBUG = True" not in page  # Django's debug 404 says both


def test_make_run_logs_invite_links_with_their_tokens_redacted(make_run):
    """The server's access log and Django's request log (a link that is not valid) show
    `/w/[redacted]/`, never a token: a token signs its holder in as that worker."""
    port, _, output = make_run
    links = re.findall(r"Demo worker \d: (\S+)", output.text())
    token = links[0].rstrip("/").rsplit("/", 1)[1]
    forged = token[:-4] + "AAAA"
    opener = urllib.request.build_opener(_NoRedirect)
    with pytest.raises(urllib.error.HTTPError) as signed_in:
        opener.open(f"http://127.0.0.1:{port}/w/{token}/", timeout=30)
    assert signed_in.value.code == 302
    with pytest.raises(urllib.error.HTTPError) as refused:
        opener.open(f"http://127.0.0.1:{port}/w/{forged}/?from=mail", timeout=30)
    assert refused.value.code == 404
    # The server writes its access log line after the response.
    assert output.wait_for("Not Found: /w/", '?from=mail HTTP/1.1" 404', timeout=60)
    logged = output.server_log()
    assert '"GET /w/[redacted]/ HTTP/1.1" 302' in logged
    assert '"GET /w/[redacted]/?from=mail HTTP/1.1" 404' in logged
    assert "Not Found: /w/[redacted]/" in logged
    assert token not in logged and forged not in logged
    assert token[-12:] not in logged and forged[-12:] not in logged


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


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
