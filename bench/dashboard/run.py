"""Times the dataset dashboard: a visit that computes the analysis against one that shows
the stored result.

Run from the repository root: `python bench/dashboard/run.py [--size 2500]`. It migrates a
temporary SQLite database, fills it with ePiC-shaped crowd narratives (bench/export/run.py's
`populate`), then times, with Django's test client as a signed-in researcher:

- the first visit, which computes the analysis (with no broker the job runs in-process, as
  every visit did before the analysis became a background job);
- later visits on unchanged data, which show the stored result at once;
- the data state key alone (what each visit pays to know whether the result is fresh);
- a visit after the data changed, with the job queued and not run (as with a broker): the
  last result is shown at once and a fresh one is computed in the background;
- a fresh web process on the embedded default (no broker, config.wsgi loaded as the web
  server loads it, so tasks run after the response): from the process's start to the
  first page (the job's progress) and to the first page that shows the analysis (the
  first useful paint; target under 5 s on ePiC's 2,500 narratives).

Prints seconds side by side with their ratio, and the load average: this machine is
shared, and wall time depends on what else runs. Prints figures; it is not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
USEFUL_PAINT_TARGET_S = 5.0

# A web process as runserver or gunicorn starts it with no broker, timed from its start.
FRESH_PROCESS = """
import json, time
start = time.perf_counter()
import django
django.setup()
import config.wsgi  # noqa: the web server's application, with its hooks
from django.contrib.auth import get_user_model
from django.test import Client
from django.test.utils import setup_test_environment
from common.task_queue import tasks_after_response_wait
setup_test_environment()
client = Client()
client.force_login(get_user_model().objects.get(username="bench"))
first = client.get("/admin/dataset/")
assert first.status_code == 200, first.status_code
first_page = time.perf_counter() - start
tasks_after_response_wait()
shown = client.get("/admin/dataset/")
assert shown.context["sections"], "the analysis is not shown"
print(json.dumps({"first_page": first_page, "useful": time.perf_counter() - start}))
"""


def _seconds(action, repeat: int = 1) -> float:
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=2_500, help="narratives (default 2,500)")
    parser.add_argument("--repeat", type=int, default=5, help="visits timed per case")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        os.environ["PARABLE_VAR_DIR"] = workdir
        os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.local"
        import django

        django.setup()
        from django.contrib.auth import get_user_model
        from django.test import Client
        from django.test.utils import setup_test_environment

        from annotation.analysis.jobs import dataset_state_key
        from annotation.analysis.pool import load_models
        from annotation.models import DatasetAnalysis, Narrative
        from bench.export.run import populate
        from crowd.access import groups_ensure

        setup_test_environment()  # the test client's host and response handling
        populate(args.size)
        groups_ensure()
        user = get_user_model().objects.create_superuser("bench", password="bench-pass")
        fresh = _fresh_web_process()
        DatasetAnalysis.objects.all().delete()  # the next visit computes it again
        client = Client()
        client.force_login(user)
        load_models()  # the analysis's models, loaded once per process as in a worker

        def visit() -> None:
            response = client.get("/admin/dataset/")
            if response.status_code != 200:
                raise SystemExit(f"The dashboard answered {response.status_code}.")

        computing = _seconds(visit)
        stored = _seconds(visit, args.repeat)
        state = _seconds(dataset_state_key, args.repeat)

        from django.db import transaction

        narrative = Narrative.objects.order_by("id").first()
        Narrative.objects.filter(pk=narrative.pk).update(status="rejected")
        with _queued_only(transaction):
            stale = _seconds(visit)
        print(f"dashboard on {args.size:,} narratives (median of {args.repeat} where repeated)")
        print(f"  first visit, computing the analysis in-process: {computing:8.3f} s")
        print(
            f"  later visit, stored result shown:               {stored:8.3f} s"
            f"   ({computing / stored:,.0f}x faster)"
        )
        print(f"  after a change, last result shown, job queued:  {stale:8.3f} s")
        print(f"  data state key alone:                           {state:8.3f} s")
        print(
            "  fresh web process, no broker: first page (progress) "
            f"{fresh['first_page']:.2f} s, first page showing the analysis "
            f"{fresh['useful']:.2f} s after the process started (target < "
            f"{USEFUL_PAINT_TARGET_S:.0f} s; before: 24.8 s, with the models preloaded at start)"
        )
        print(f"  load average (1, 5, 15 min): {os.getloadavg()}")


def _fresh_web_process() -> dict:
    """Times of FRESH_PROCESS, run on this benchmark's database."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("CELERY_BROKER_URL", None)
    done = subprocess.run(
        [sys.executable, "-c", FRESH_PROCESS],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode:
        raise SystemExit(f"The fresh web process failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


class _queued_only:
    """Drop on-commit callbacks (the queued job) while a visit runs: what a broker does
    for the request is only to take the message."""

    def __init__(self, transaction):
        self.transaction = transaction

    def __enter__(self):
        self.original = self.transaction.on_commit
        self.transaction.on_commit = lambda *args, **kwargs: None

    def __exit__(self, *exc):
        self.transaction.on_commit = self.original


if __name__ == "__main__":
    main()
