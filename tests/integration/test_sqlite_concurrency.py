"""The embedded default (SQLite, as `make run` serves it) under concurrent work: an admin
action commits while another request is still reading (WAL journal), two admin actions at
once queue behind SQLite's write lock instead of failing "database is locked", and workers
submit while the similarity checks and keyword extractions their work set off run in the
background (which hold no write lock while their models load and run).

The rest of the suite runs on PostgreSQL; this migrates a fresh SQLite database in a child
process and drives the pages there with Django's test client from several threads.
"""

import json

from tests.processes import embedded_environment, python_run

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
    client.force_login(User.objects.get(username="admin"))
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
    env, _ = embedded_environment(tmp_path, ("migrate", "--no-input"))
    result = python_run(CONCURRENT, env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    outcome = json.loads(result.stdout.strip().splitlines()[-1])
    assert outcome["journal"] == "wal"
    status, seconds = outcome["mark_curated"]
    assert status == 302 and seconds < 5  # not held until the read ends
    assert outcome["mark_rejected"][0] == 302 and outcome["mark_candidate"][0] == 302
    assert outcome["statuses"] == ["candidate", "rejected"]


WORKERS_BESIDE_BACKGROUND_WORK = """
import json, threading
import django
django.setup()
from django.conf import settings
# A write that waits more than 2 s for another transaction fails "database is locked".
settings.DATABASES["default"]["OPTIONS"]["timeout"] = 2
import config.wsgi  # as make run's server loads it: each request's tasks run after its response
from django.core.signals import request_finished, request_started
from django.db import connection
from django.test import Client
from annotation.datasets.demo import demo_proverbs_load, demo_write_batch_ensure
from annotation.models import Narrative, NarrativeIntegrity
from common.task_queue import tasks_after_response_wait
from crowd.models import Assignment
from crowd.review import assignment_approve
from crowd.workers import invite_token

demo_proverbs_load()
batch, workers = demo_write_batch_ensure(workers=7)
tokens = [invite_token(worker=worker, batch=batch) for worker in workers]
connection.close()
story = (
    "Maya and Leo met at a chess club and soon found they both loved old jazz records, "
    "spicy noodles and long walks before dawn, so within a month they were inseparable."
)
outcomes, lock = [], threading.Lock()


def cycle(number, token):
    client = Client(HTTP_HOST="127.0.0.1", raise_request_exception=False)
    statuses = [client.get(f"/w/{token}/").status_code]
    task = client.get(f"/tasks/{batch.pk}/next/")
    statuses.append(task.status_code)
    if task.status_code == 302:
        statuses.append(client.get(task["Location"]).status_code)
        submitted = client.post(
            task["Location"] + "submit/",
            json.dumps({"payload": {"text": story.replace("Maya", f"Maya{number}")}}),
            content_type="application/json",
        )
        statuses.append(submitted.status_code)
    with lock:
        outcomes.append(statuses)
    connection.close()


# The first story's submit sets off its similarity check, and its approval (in a request
# of its own) the keyword extraction: the background thread loads the embedding model
# and spaCy's pipeline (seconds) while six more workers sign in, reserve and submit.
cycle(0, tokens[0])
request_started.send(sender=None)
assignment_approve(assignment=Assignment.objects.get(narrative__isnull=False))
request_finished.send(sender=None)
connection.close()
threads = [threading.Thread(target=cycle, args=(n, t)) for n, t in enumerate(tokens) if n]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
tasks_after_response_wait(timeout=600)
print(json.dumps({
    "statuses": outcomes,
    "checked": NarrativeIntegrity.objects.filter(checked_at__isnull=False).count(),
    "stories": Narrative.objects.count(),
    "keywords": bool(Narrative.objects.get(assignment__status="approved").keywords.get("verbs")),
}))
"""


def test_workers_submit_while_their_stories_are_checked_in_the_background_on_sqlite(tmp_path):
    env, _ = embedded_environment(tmp_path, ("migrate", "--no-input"))
    result = python_run(WORKERS_BESIDE_BACKGROUND_WORK, env=env, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "database is locked" not in result.stderr
    outcome = json.loads(result.stdout.strip().splitlines()[-1])
    assert outcome["statuses"] == [[302, 302, 200, 200]] * 7
    assert outcome["stories"] == 7
    assert outcome["checked"] == 7  # every story's check ran, after the load
    assert outcome["keywords"]
