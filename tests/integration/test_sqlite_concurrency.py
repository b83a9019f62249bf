"""The embedded default (SQLite, as `make run` serves it) under concurrent admin work: an
admin action commits while another request is still reading (WAL journal), and two admin
actions at once queue behind SQLite's write lock instead of failing "database is locked".

The rest of the suite runs on PostgreSQL; this migrates a fresh SQLite database in a child
process and drives the admin there with Django's test client from two threads.
"""

import json
import os
import subprocess
import sys

from tests.processes import ROOT, python_run

CONCURRENT = """
import json, threading, time
import django
django.setup()
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from annotation.models import Proverb

User.objects.create_superuser("admin", "admin@example.org", "admin-pass")
for number in range(40):
    Proverb.objects.create(text=f"Proverb number {number}", normalized_text=f"proverb {number}")
pks = list(Proverb.objects.values_list("pk", flat=True))
results = {"journal": connection.cursor().execute("PRAGMA journal_mode").fetchone()[0]}
reading, done = threading.Event(), threading.Event()


def long_read():
    # A read that takes a while, as an export or an analysis streams the dataset in chunks.
    for count, proverb in enumerate(Proverb.objects.iterator(chunk_size=5)):
        if count == 1:
            reading.set()
            done.wait(60)
    connection.close()


def action(name, chosen):
    client = Client(HTTP_HOST="127.0.0.1")
    client.login(username="admin", password="admin-pass")
    started = time.monotonic()
    response = client.post(
        "/admin/annotation/proverb/",
        {"action": name, "_selected_action": [str(pk) for pk in chosen]},
    )
    results[name] = [response.status_code, round(time.monotonic() - started, 1)]
    connection.close()


reader = threading.Thread(target=long_read)
reader.start()
reading.wait(60)
action("mark_curated", pks[:20])  # commits while the read is still going
done.set()
reader.join()
threads = [
    threading.Thread(target=action, args=("mark_rejected", pks[20:])),
    threading.Thread(target=action, args=("mark_candidate", pks[:20])),
]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
results["statuses"] = sorted(set(Proverb.objects.values_list("status", flat=True)))
print(json.dumps(results))
"""


def test_admin_actions_commit_beside_a_long_read_and_each_other_on_sqlite(tmp_path):
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "CELERY_BROKER_URL", "DJANGO_SETTINGS_MODULE")
    }
    env.update(PARABLE_VAR_DIR=str(tmp_path), DJANGO_SETTINGS_MODULE="config.settings.local")
    migrated = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--no-input"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert migrated.returncode == 0, migrated.stderr
    result = python_run(CONCURRENT, env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    outcome = json.loads(result.stdout.strip().splitlines()[-1])
    assert outcome["journal"] == "wal"
    status, seconds = outcome["mark_curated"]
    assert status == 302 and seconds < 5  # not held until the read ends
    assert outcome["mark_rejected"][0] == 302 and outcome["mark_candidate"][0] == 302
    assert outcome["statuses"] == ["candidate", "rejected"]
