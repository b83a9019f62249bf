"""Template batch benchmark: the server's CPU per worker cycle on a HIT template batch beside
a write batch of the same size (goal: within 1.2x), and the upload of a 20,000-row CSV
(goal: under 5 s).

Run from the repository root: `.venv/bin/python bench/template/run.py [--items 150]
[--rows 20000]`. On a fresh SQLite database in a temporary folder (the embedded default),
through Django's test client (middleware, session, CSRF, views, templates), one signed-in
worker does every item of each batch in turn, alternating batches cycle by cycle so that
the machine's load falls on both alike:

- write: next → task page → submit (a story that passes the overlap rules, with its
  writing record);
- template: next → task page → the frame's document → submit (the sentiment layout of
  tests/fixtures/template/, its fields and the explanation's writing record).

The tasks a submit queues (the write's similarity check) are left out, as a broker takes
them to a Celery worker: the figure is the web process's own. CPU is the process's
(time.process_time), per cycle; the median and 90th percentile are printed with wall
time and the load average, since the machine is shared. Then a 20,000-row CSV of that
layout is uploaded through the creation service (read, checked, stored with its items),
wall and CPU. The last line: `template cycle X ms cpu (write Y ms), upload 20000 rows Z s`.
Prints figures; it is not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
FIXTURES = ROOT / "tests" / "fixtures" / "template"
RECORD = {"version": 3, "typed": 60, "keys": 64, "deleted": 4, "pauses": 2, "focused_ms": 40_000}
AWAY = {"tab_switches": 0, "hidden_ms": 0, "blurs": 1, "blurred_ms": 800}


def without_background_tasks() -> None:
    """Each request's queued tasks are dropped at its end, as a broker would take them."""
    from django.core.signals import request_finished, request_started

    from common import task_queue

    def collect(**kwargs):
        task_queue._this_request.tasks = []

    def drop(**kwargs):
        task_queue._this_request.tasks = None

    request_started.connect(collect, weak=False)
    request_finished.connect(drop, weak=False)


def reviews_csv(rows: int) -> bytes:
    lines = ["review_text,source,review_id"]
    lines += [
        f'"Review {n}: it works, mostly; the lid is ""fine"".",shop-{n % 7},R{n}'
        for n in range(rows)
    ]
    return ("\n".join(lines) + "\n").encode()


def batches(items: int):
    from annotation.models import Proverb
    from annotation.task_types.template.creation import template_batch_create
    from bench.serving.stories import PassingStories, proverb_texts
    from crowd.batches import batch_create, batch_publish

    proverbs = [
        Proverb.objects.create(text=text, normalized_text=text.lower(), status="curated")
        for text in proverb_texts(items)
    ]
    write = batch_publish(
        batch=batch_create(
            name="Write", task_type="write", target_per_item=1,
            items=[{"proverb": proverb} for proverb in proverbs],
        )
    )  # fmt: skip
    layout = (FIXTURES / "sentiment_layout.html").read_text(encoding="utf-8")
    template, _ = template_batch_create(
        name="Template", source=layout, content=reviews_csv(items), target_per_item=1
    )
    return write, batch_publish(batch=template), PassingStories()


def cycle(client, batch, stories) -> tuple[float, float]:
    """One worker cycle on `batch`: (CPU ms, wall ms)."""
    cpu, wall = time.process_time(), time.perf_counter()
    page = client.get(f"/tasks/{batch.pk}/next/", follow=True)
    assert page.status_code == 200, page.status_code
    assignment = page.redirect_chain[-1][0].rstrip("/").split("/")[-1]
    html = page.content.decode()
    if batch.task_type == "write":
        proverb = re.search(r'data-testid="proverb">([^<]+)<', html).group(1)
        payload = {"text": stories[proverb][0], "telemetry": RECORD}
    else:
        frame = re.search(r'<iframe id="hit-frame"[^>]* src="([^"]+)"', html).group(1)
        assert client.get(frame.replace("&amp;", "&")).status_code == 200
        fields = [["sentiment", "positive"], ["aspects", "price"], ["explanation", "Fine."]]
        payload = {"fields": fields, "writing": {"explanation": RECORD}, "away": AWAY}
    body = json.dumps({"payload": payload, "submission_key": f"k{assignment}"})
    submitted = client.post(f"/tasks/a/{assignment}/submit/", body, content_type="application/json")
    assert submitted.status_code == 200, submitted.content
    return (time.process_time() - cpu) * 1000, (time.perf_counter() - wall) * 1000


def run(items: int, rows: int) -> None:
    import django

    django.setup()
    from django.core.management import call_command
    from django.test import Client

    from annotation.task_types.template.creation import template_batch_create
    from crowd.models import Worker
    from crowd.workers import invite_token

    call_command("migrate", verbosity=0)
    without_background_tasks()
    write, template, stories = batches(items)
    worker = Worker.objects.create(provider="local", external_id="bench")
    client = Client()
    client.get(f"/w/{invite_token(worker=worker, batch=None)}/")
    for batch in (write, template):  # first requests: templates and URL map loaded
        cycle(client, batch, stories)
    figures = {"write": [], "template": []}
    for _ in range(items - 1):
        for batch in (write, template):
            figures[batch.task_type].append(cycle(client, batch, stories))
    print(f"{items - 1} cycles each, one worker; milliseconds per cycle")
    for kind, times in figures.items():
        cpus, walls = sorted(t[0] for t in times), sorted(t[1] for t in times)
        print(
            f"{kind:>9}: cpu median {statistics.median(cpus):6.1f} p90 "
            f"{cpus[int(len(cpus) * 0.9)]:6.1f} | wall median {statistics.median(walls):6.1f}"
        )
    template_ms = statistics.median(t[0] for t in figures["template"])
    write_ms = statistics.median(t[0] for t in figures["write"])
    print(f"template / write cpu: {template_ms / write_ms:.2f} (goal: at most 1.2)")

    content = reviews_csv(rows)
    layout = (FIXTURES / "sentiment_layout.html").read_text(encoding="utf-8")
    cpu, wall = time.process_time(), time.perf_counter()
    batch, _ = template_batch_create(name="Upload", source=layout, content=content)
    upload_s, upload_cpu = time.perf_counter() - wall, time.process_time() - cpu
    assert batch.items.count() == rows
    print(
        f"upload of {rows:,} rows ({len(content) / 1e6:.1f} MB): {upload_s:.2f} s wall, "
        f"{upload_cpu:.2f} s cpu (goal: under 5 s)"
    )
    print("load average (1, 5, 15 min):", " ".join(f"{v:.2f}" for v in os.getloadavg()))
    print(
        f"template cycle {template_ms:.1f} ms cpu (write {write_ms:.1f} ms), "
        f"upload {rows} rows {upload_s:.1f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=150)
    parser.add_argument("--rows", type=int, default=20_000)
    options = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="parable-bench-template-")
    os.environ["PARABLE_VAR_DIR"] = workdir
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.local"
    os.environ["ALLOWED_HOSTS"] = "testserver"
    os.environ.pop("DATABASE_URL", None)
    try:
        run(options.items, options.rows)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
