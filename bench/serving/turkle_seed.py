"""Run by Turkle's own venv (bench/serving/turkle_runner.py calls it): Turkle's side of the serving
benchmark, in its database.

`seed`: migrate, then a write task's project as Turkle runs one (an MTurk-style form: the
proverb, a story's textarea) and a batch of each size, one task per proverb, with the
assignments per task asked, all read as JSON from stdin (name, sizes, page_bytes, proverbs);
the form's instructions are sized so that a task's page and its frame weigh `page_bytes`
together (the weight of Parable's task page). Prints the batches' ids and that weight,
measured.
`sessions`: `--count` new workers signed in (their session keys, as the login form leaves them).
"""

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.serving.turkle_site")

import django

django.setup()

from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402
from django.contrib.sessions.backends.db import SessionStore  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import transaction  # noqa: E402
from django.test import Client  # noqa: E402
from turkle.models import Batch, Project, Task  # noqa: E402

FORM = """<p class="label">The proverb</p>
<p class="proverb" id="proverb">${proverb}</p>
<p class="instructions">%s</p>
<label for="narrative">Your story (60 to 200 words)</label>
<textarea id="narrative" name="narrative" rows="10" cols="80" required></textarea>
"""
INSTRUCTIONS = (
    "Write a short story of everyday life that the proverb describes, in your own words: "
    "use at most a few of the proverb's words and none of its phrases. "
)


def task_weight(batch: Batch) -> int:
    """Bytes of a task's page and its frame for a new worker, in a transaction rolled back."""
    with transaction.atomic():
        client = Client(HTTP_HOST="127.0.0.1", HTTP_X_FORWARDED_PROTO="https")
        client.force_login(User.objects.create(username="weigher"))
        task = client.get(f"/batch/{batch.pk}/accept_next_task/")["Location"]
        page = client.get(task).content
        frame = client.get(task.replace("/assignment/", "/assignment/iframe/")).content
        transaction.set_rollback(True)
    return len(page) + len(frame)


def seed(*, name: str, sizes: dict[str, int], page_bytes: int, proverbs: list[str]) -> dict:
    """Migrate, then a batch of each size (items: its assignments per item) on one project."""
    call_command("migrate", verbosity=0)
    project = Project(name=name, html_template=FORM % INSTRUCTIONS)
    project.process_template()
    project.save()
    batches = {}
    for size, per_item in sizes.items():
        batch = Batch.objects.create(
            project=project,
            name=f"{name}, {int(size):,} items",
            assignments_per_task=per_item,
            filename="proverbs.csv",
        )
        Task.objects.bulk_create(
            Task(batch=batch, input_csv_fields={"proverb": proverb})
            for proverb in proverbs[: int(size)]
        )
        batches[size] = batch
    instructions = len(INSTRUCTIONS) + page_bytes - task_weight(batch)
    if instructions > len(INSTRUCTIONS):
        padded = INSTRUCTIONS * (instructions // len(INSTRUCTIONS) + 1)
        project.html_template = FORM % padded[:instructions]
        project.save()
    return {
        "batches": {size: batch.pk for size, batch in batches.items()},
        "page_bytes": task_weight(batch),
    }


def sessions(*, count: int, prefix: str) -> list[str]:
    """Session keys of `count` new workers, signed in as Django's login leaves them."""
    first = User.objects.count()
    users = User.objects.bulk_create(
        User(username=f"{prefix}-{first + number}") for number in range(count)
    )
    keys = []
    for user in users:
        session = SessionStore()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        keys.append(session.session_key)
    return keys


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("seed", "sessions"))
    parser.add_argument("--name", default="Serving benchmark")
    parser.add_argument("--count", type=int, default=1)
    args = parser.parse_args()
    if args.action == "seed":
        figures = seed(name=args.name, **json.load(sys.stdin))
    else:
        figures = sessions(count=args.count, prefix="worker")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
