"""Times the cloze answer check (annotation.task_types.cloze.parsing.sentence_check) against 300 ms.

Run from the repository root: `python bench/cloze/run.py`. Loads the spaCy pipeline of
PARABLE_SPACY_MODEL once (timed apart: it happens once per process), then checks answers
of 3, 12, 40 words and the longest accepted (500 characters), each 200 times, full
sentences and fragments alike, and prints median, 95th percentile and worst time per
length beside the budget. Then the same answers through the worker's live-check endpoint
(`POST /tasks/a/<id>/check/`: middleware, session, assignment lookup and parse, with
Django's test client on a fresh SQLite database in a temporary folder), side by side with
the parse alone, and the machine's load average. Prints figures; not a test.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

BUDGET_MS = 300
ROUNDS = 200
WORDS = [
    "the",
    "old",
    "fisherman",
    "slowly",
    "mended",
    "his",
    "torn",
    "nets",
    "beside",
    "the",
    "quiet",
    "harbour",
]


def answers(length: int) -> list[str]:
    """A full sentence and a fragment of about `length` words."""
    words = (WORDS * (length // len(WORDS) + 1))[:length]
    fragment = " ".join(words[1:])
    sentence = "She saw " + " ".join(words) + "."
    return [sentence[:500], fragment[:500]]


STORY = (
    "Anna lost her keys on Monday. She searched the whole house twice. Her brother found "
    "them in the fridge. Everyone laughed about it at dinner."
)
LENGTHS = (3, 12, 40, 120)


def percentiles(times: list[float]) -> tuple[float, float, float]:
    times = sorted(times)
    return statistics.median(times), times[int(len(times) * 0.95) - 1], times[-1]


def timed(check) -> dict[int, tuple[float, float, float]]:
    """Per length: median, p95 and worst milliseconds of ROUNDS calls of check(text)."""
    figures = {}
    for length in LENGTHS:
        times = []
        for round_number in range(ROUNDS):
            text = answers(length)[round_number % 2]
            began = time.perf_counter()
            check(text)
            times.append((time.perf_counter() - began) * 1000)
        figures[length] = percentiles(times)
    return figures


def endpoint_check():
    """A cloze assignment of a fresh worker, and a function posting to its live check."""
    from django.core.management import call_command
    from django.test import Client

    from annotation.models import Narrative, Proverb
    from crowd.assignments import assignment_reserve_next
    from crowd.batches import batch_create, batch_publish
    from crowd.models import Worker
    from crowd.workers import invite_token

    call_command("migrate", verbosity=0)
    proverb = Proverb.objects.create(text="Time is money", normalized_text="time is money")
    Narrative.objects.create(proverb=proverb, text=STORY, source="imported")
    batch = batch_create(
        name="Cloze bench",
        task_type="cloze",
        settings={"condition": "arguments", "blank": "middle", "draw": [{"source": "any"}]},
    )
    batch = batch_publish(batch=batch)
    worker = Worker.objects.create(provider="local", external_id="bench")
    client = Client()
    client.get(f"/w/{invite_token(worker=worker, batch=batch)}/")
    assignment = assignment_reserve_next(batch=batch, worker=worker)
    url = f"/tasks/a/{assignment.pk}/check/"

    def check(text: str) -> None:
        response = client.post(url, json.dumps({"text": text}), content_type="application/json")
        assert response.status_code == 200, response.status_code

    return check


def main() -> None:
    workdir = tempfile.mkdtemp(prefix="parable-bench-cloze-")
    os.environ["PARABLE_VAR_DIR"] = workdir
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.local"
    os.environ["ALLOWED_HOSTS"] = "testserver"
    os.environ.pop("DATABASE_URL", None)
    try:
        run()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def run() -> None:
    import django

    django.setup()
    from annotation.task_types.cloze.parsing import sentence_check

    started = time.perf_counter()
    sentence_check("The parser loads now.")
    print(f"pipeline load and first check: {(time.perf_counter() - started) * 1000:.0f} ms")
    parse = timed(sentence_check)
    endpoint = timed(endpoint_check())
    print(f"budget {BUDGET_MS} ms; milliseconds over {ROUNDS} answers per length")
    print(
        f"{'words':>6} | {'parse median':>12} {'p95':>6} {'worst':>6} | "
        f"{'endpoint median':>15} {'p95':>6} {'worst':>6} | {'worst endpoint / budget':>23}"
    )
    for length in LENGTHS:
        label = str(length) if length < 120 else "500ch"
        p_median, p_95, p_worst = parse[length]
        e_median, e_95, e_worst = endpoint[length]
        print(
            f"{label:>6} | {p_median:>12.1f} {p_95:>6.1f} {p_worst:>6.1f} | "
            f"{e_median:>15.1f} {e_95:>6.1f} {e_worst:>6.1f} | {e_worst / BUDGET_MS:>23.2f}"
        )
    print("load average (1, 5, 15 min):", " ".join(f"{value:.2f}" for value in os.getloadavg()))


if __name__ == "__main__":
    main()
