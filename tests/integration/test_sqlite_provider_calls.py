"""The embedded default (SQLite) while a provider is slow: an MTurk approval waiting on
MTurk's answer holds no write lock, so an admin action meanwhile commits at once instead
of failing "database is locked".

The rest of the suite runs on PostgreSQL; this migrates a fresh SQLite database in a child
process, where the MTurk stand-in holds its answer to ApproveAssignment until the admin
action is done.
"""

import json
import os
import subprocess
import sys

from tests.processes import ROOT, python_run

SLOW_MTURK = """
import json, threading, time
import django
django.setup()
from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from annotation.models import Proverb
from crowd.models import Assignment
from crowd.review import assignment_approve
from mturk import client
from mturk.models import HIT
from mturk.standin import serve_in_thread
from mturk.sync import batch_sync
from tests.factories import BIRDS, mturk_batch_create, proverb_create
from tests.mturk.test_provider import _work

server = serve_in_thread()
settings.MTURK_ENDPOINT = server.url
client._client.cache_clear()
User.objects.create_superuser("admin", "admin@example.org", "admin-pass")
others = [proverb_create(status=Proverb.Status.CANDIDATE).pk for _ in range(5)]
batch = mturk_batch_create(proverbs=[proverb_create(BIRDS)], target_per_item=2)
answer = _work(server, HIT.objects.get(batch=batch), "A1WORKER")
batch_sync(batch=batch)
answering, answer_now = threading.Event(), threading.Event()
dispatch, results = server.state.dispatch, {}


def slow_dispatch(operation, params):
    if operation == "ApproveAssignment":
        answering.set()
        answer_now.wait(60)  # MTurk taking its time
    return dispatch(operation, params)


def approve():
    started = time.monotonic()
    assignment_approve(assignment=answer, message="Thanks")
    results["approve_seconds"] = round(time.monotonic() - started, 1)
    connection.close()


server.state.dispatch = slow_dispatch
approving = threading.Thread(target=approve)
approving.start()
answering.wait(60)
admin = Client(HTTP_HOST="127.0.0.1")
admin.force_login(User.objects.get(username="admin"))
started = time.monotonic()
response = admin.post(
    "/admin/annotation/proverb/",
    {"action": "mark_curated", "_selected_action": [str(pk) for pk in others]},
)
results["admin"] = [response.status_code, round(time.monotonic() - started, 1)]
answer_now.set()
approving.join(60)
results["curated"] = Proverb.objects.filter(pk__in=others, status="curated").count()
results["approved"] = Assignment.objects.get(pk=answer.pk).status
results["on_mturk"] = next(iter(server.state.assignments.values()))["AssignmentStatus"]
server.shutdown()
print(json.dumps(results))
"""


def test_an_admin_action_commits_while_mturk_is_slow_to_answer_an_approval_on_sqlite(tmp_path):
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "CELERY_BROKER_URL", "DJANGO_SETTINGS_MODULE")
    }
    env.update(
        PARABLE_VAR_DIR=str(tmp_path),
        DJANGO_SETTINGS_MODULE="config.settings.local",
        AWS_ACCESS_KEY_ID="AKIDTESTSTANDIN",
        AWS_SECRET_ACCESS_KEY="test-secret",
    )
    env.pop("AWS_PROFILE", None)
    migrated = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--no-input"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert migrated.returncode == 0, migrated.stderr
    result = python_run(SLOW_MTURK, env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    outcome = json.loads(result.stdout.strip().splitlines()[-1])
    status, seconds = outcome["admin"]
    assert status == 302 and seconds < 5  # not queued behind the approval's wait on MTurk
    assert outcome["curated"] == 5
    assert outcome["approved"] == "approved" and outcome["on_mturk"] == "Approved"
